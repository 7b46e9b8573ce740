#!/usr/bin/env python3
"""layers_planted.py - layers.py catches a store to the busy gate or the
stop word planted outside their owners (gate.h, stop.h): a copy of the
recorder's sources with one such store added to a file, layers.py run on
it, must fail naming that file; the copy untouched must pass.

  layers_planted.py LAYERS_PY ANALYSIS_DIR PRELOAD_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import check, done  # noqa: E402

layers, analysis, preload = sys.argv[1:4]
PLANTS = [
    ('core/path.c', 'busy', '\tt->hot.busy = 0;\n'),
    ('core/hot.c', 'busy',
     '\t__atomic_store_n(&t->hot.busy, 1u, __ATOMIC_RELAXED);\n'),
    ('core/sparse.c', 'end',
     '\t__atomic_store_n(&t->hot.end, NULL, __ATOMIC_RELAXED);\n'),
    ('core/recorder.c', 'end_saved', '\tt->hot.end_saved = NULL;\n'),
]


def run(top):
    r = subprocess.run([sys.executable, layers, analysis, top],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


with tempfile.TemporaryDirectory() as tmp:
    top = os.path.join(tmp, 'preload')
    shutil.copytree(preload, top)
    rc, out = run(top)
    check(rc == 0, 'the copy untouched passes (rc %d)' % rc)
    for name, field, line in PLANTS:
        path = os.path.join(top, name)
        keep = open(path).read()
        with open(path, 'a') as f:
            f.write('\nvoid sbt_planted(struct sbt_thread *t)\n{\n' +
                    line + '}\n')
        rc, out = run(top)
        caught = [ln for ln in out.splitlines()
                  if 'FAIL' in ln and '%s:' % name in ln and
                  'stores %s' % field in ln]
        check(rc != 0 and caught,
              'a store to %s planted in %s is caught (rc %d)' %
              (field, name, rc))
        with open(path, 'w') as f:
            f.write(keep)
sys.exit(done())
