#!/usr/bin/env python3
"""layers.py - the analyzer's folders are its pipeline's stages, and a file
includes only headers of its own stage or of stages before it:

    base < read < filter < score < symbols < report < analysis/ (the top)

  layers.py ANALYSIS_DIR [PRELOAD_DIR]

The recorder (PRELOAD_DIR) is layered too, its folders bottom up
(services/ < core/ < api/), inside them by file (PRELOAD_LAYERS):

    diag < config < log, regions and the other services (services/) <
    recorder (threads, their gate, stop point, deadlines and append) <
    fast path (hot.h) < hot (the marker paths, their ticks) (core/) <
    api/ (the interposed APIs)

and a file includes no header of a later layer and calls no function a
file of a later layer defines (the recorder calls no API by name: they
register); the thread's busy gate (hot.busy) is stored only by gate.h,
its stop word (hot.end, hot.end_saved) only by stop.h.

Also: no two headers include each other, directly or around a loop; and
no two files call into each other, directly or around a loop (a call of
a function another file defines, read from the sources: a file's
non-static sbt_* definitions, and sbt_* names followed by "(" elsewhere,
comments left out).  A loop means neither file can be read, changed or
tested without the other: the pipeline's stages run one way."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import check, done  # noqa: E402

STAGES = ['base', 'read', 'filter', 'score', 'symbols', 'report', '.']
top = sys.argv[1]
where = {}                       # header name -> stage index
files = []
for i, st in enumerate(STAGES):
    d = os.path.join(top, st)
    for f in sorted(os.listdir(d)):
        if f.endswith(('.c', '.h')):
            files.append((i, os.path.join(d, f)))
            if f.endswith('.h'):
                where[f] = i
INC = re.compile(r'^#include "([^"]+)"', re.M)
edges = {}
for i, path in files:
    name = os.path.basename(path)
    for inc in INC.findall(open(path).read()):
        inc = os.path.basename(inc)
        if inc not in where:     # format/, markers/: below everything
            continue
        check(where[inc] <= i, '%s (%s) includes %s (%s)' %
              (os.path.relpath(path, top), STAGES[i], inc,
               STAGES[where[inc]]))
        if name.endswith('.h'):
            edges.setdefault(name, set()).add(inc)


def cycle_from(h, path, seen):
    for n in edges.get(h, ()):
        if n in path:
            return path[path.index(n):] + [n]
        if n not in seen:
            seen.add(n)
            c = cycle_from(n, path + [n], seen)
            if c:
                return c
    return None


seen = set()
for h in sorted(edges):
    c = cycle_from(h, [h], seen)
    check(c is None, 'no include loop through %s%s' %
          (h, '' if c is None else ': ' + ' -> '.join(c)))

# Calls between files.
DEF = re.compile(r'^(?!static|extern)[a-z][\w \*]*?\b(sbt_\w+)\(', re.M)
CALL = re.compile(r'\b(sbt_\w+)\s*\(')
COMMENT = re.compile(r'/\*.*?\*/', re.S)
code, defined = {}, {}
for i, path in files:
    if path.endswith('.c'):
        name = os.path.relpath(path, top)
        code[name] = COMMENT.sub('', open(path).read())
        for f in DEF.findall(code[name]):
            defined.setdefault(f, name)
check(len(defined) > 50, '%d functions defined in %d files' %
      (len(defined), len(code)))
edges = {}
for name, text in code.items():
    for f in CALL.findall(text):
        if defined.get(f, name) != name:
            edges.setdefault(name, set()).add(defined[f])
seen, loops = set(), []
for n in sorted(edges):
    c = cycle_from(n, [n], seen)
    if c and c not in loops:
        loops.append(c)
check(not loops, 'no call loop between files%s' %
      ''.join('; ' + ' -> '.join(c) for c in loops))

# Nor does a file call a function a later stage defines (a declaration of
# its own would pass the include check).
stage = {os.path.relpath(p, top): i for i, p in files}
up = ['%s calls %s of %s' % (n, f, defined[f])
      for n, text in sorted(code.items())
      for f in sorted(set(CALL.findall(text)))
      if f in defined and stage[defined[f]] > stage[n]]
check(not up, 'no call reaches a later stage%s' %
      ''.join('; ' + u for u in up))

# Words are made at the edge: the score stage leaves data (result.h,
# compare.h) and writes no sentence - no sentence builder (strbuf.h,
# sbt_put) in score/, so every clause is report/'s (say.c, words.c).
words = []
for i, path in files:
    if STAGES[i] != 'score':
        continue
    text = open(path).read()
    if 'strbuf.h' in [os.path.basename(x) for x in INC.findall(text)]:
        words.append('%s includes strbuf.h' % os.path.relpath(path, top))
    if re.search(r'\bsbt_put\s*\(', COMMENT.sub('', text)):
        words.append('%s calls sbt_put' % os.path.relpath(path, top))
check(not words, 'score/ writes no words%s' %
      ''.join('; ' + w for w in words))

# The recorder's folders are its layers' groups, bottom up: the services
# (diagnostics, configuration, the log file, the clock, the kernel's
# events, the probes, the counters), the core (the threads, their gate,
# stop word, deadlines and append; the marker paths), the interposed
# APIs.  Inside them, by file; diag first: config tells a bad value
# through diag's warnings.
PRELOAD_FOLDERS = ['services', 'core', 'api']
PRELOAD_LAYERS = [
    ('diag', ['services/diag.c', 'services/diag.h']),
    ('config', ['services/config.c', 'services/config.h',
                'services/sample.c', 'services/sample.h']),
    ('services', ['services/' + f for f in (
        'logfile.c', 'logfile.h', 'prepare.c', 'prepare.h', 'regions.c',
        'regions.h', 'clock.c', 'clock.h', 'tsc.c', 'tsc.h', 'header.c',
        'header.h', 'prefault.c', 'prefault.h', 'cap.c', 'cap.h',
        'osevents.c', 'osevents.h', 'evname.c', 'evname.h', 'counters.c',
        'counters.h', 'probe.c', 'probe.h')]),
    ('recorder', ['core/' + f for f in (
        'recorder.c', 'recorder.h', 'thread.h', 'gate.h', 'stop.h', 'due.c',
        'due.h', 'append.c', 'append.h')]),
    ('fast path', ['core/hot.h']),
    ('hot', ['core/' + f for f in (
        'hot.c', 'markers.c', 'tick.c', 'tick.h', 'path.c', 'path.h',
        'sparse.c', 'sparse.h', 'readback.c', 'readback.h')]),
    ('api', ['api/*']),
]


def preload(top):
    layer = {}
    for i, (_, names) in enumerate(PRELOAD_LAYERS):
        for n in names:
            layer[n] = i
    files = []
    loose = [f for f in os.listdir(top) if f.endswith(('.c', '.h'))]
    check(not loose, 'preload/: every file in a layer\'s folder%s' %
          ''.join(' ' + f for f in sorted(loose)))
    for d in PRELOAD_FOLDERS:
        for f in sorted(os.listdir(os.path.join(top, d))):
            if f.endswith(('.c', '.h')):
                files.append(os.path.join(d, f))
    for rel in files:
        check(rel in layer or rel.startswith('api/'),
              'preload/%s has a layer' % rel)
    # the folders in the layers' order: no layer of a folder below a
    # layer of a folder above it
    rank = [PRELOAD_FOLDERS.index(n.split('/')[0])
            for _, names in PRELOAD_LAYERS for n in names]
    check(rank == sorted(rank), 'preload: the folders (%s) hold the layers '
          'in order' % ' < '.join(PRELOAD_FOLDERS))
    lay = lambda rel: layer.get(rel, len(PRELOAD_LAYERS) - 1)  # noqa
    hname = {os.path.basename(r): r for r in files if r.endswith('.h')}
    code, defined, bad = {}, {}, []
    for rel in files:
        text = open(os.path.join(top, rel)).read()
        for inc in INC.findall(text):
            h = hname.get(os.path.basename(inc))
            if h and lay(h) > lay(rel):
                bad.append('%s (%s) includes %s (%s)' % (
                    rel, PRELOAD_LAYERS[lay(rel)][0], h,
                    PRELOAD_LAYERS[lay(h)][0]))
        if rel.endswith('.c'):
            code[rel] = COMMENT.sub('', text)
            for f in DEF.findall(code[rel]):
                defined.setdefault(f, rel)
    check(len(defined) > 100, 'preload: %d functions defined in %d files' %
          (len(defined), len(code)))
    for rel, text in code.items():
        for f in sorted(set(CALL.findall(text))):
            d = defined.get(f)
            if d and lay(d) > lay(rel):
                bad.append('%s (%s) calls %s of %s (%s)' % (
                    rel, PRELOAD_LAYERS[lay(rel)][0], f, d,
                    PRELOAD_LAYERS[lay(d)][0]))
    check(not bad, 'preload: nothing reaches up a layer%s' %
          ''.join('; ' + b for b in bad))
    # nor do two files of a layer call each other, around a loop
    global edges
    edges = {}
    for rel, text in code.items():
        for f in CALL.findall(text):
            if defined.get(f, rel) != rel:
                edges.setdefault(rel, set()).add(defined[f])
    seen, loops = set(), []
    for n in sorted(edges):
        c = cycle_from(n, [n], seen)
        if c and c not in loops:
            loops.append(c)
    check(not loops, 'preload: no call loop between files%s' %
          ''.join('; ' + ' -> '.join(c) for c in loops))
    # the gate and the stop word have one writer each
    texts = {rel: COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'),
                              open(os.path.join(top, rel)).read())
             for rel in files}
    stray = stray_stores(texts)
    check(not stray, 'preload: the gate stored only by gate.h, the stop '
          'word only by stop.h%s' % ''.join('; ' + x for x in stray))


# A store to the thread's busy gate (hot.busy) or its stop word (hot.end,
# hot.end_saved): an assignment, or an atomic builtin that writes.
FIELD = r'(?:(?:hot|\bh)(?:\.|->)(?:busy|end|end_saved)\b|(?:\.|->)' \
        r'(?:busy|end_saved)\b)'
STORE = re.compile(
    FIELD + r'\s*(?:=(?!=)|[-+|&^]=|\+\+|--)|'
    r'__atomic_(?:store|exchange|compare_exchange|fetch_\w+|\w+_fetch)'
    r'\w*\s*\(\s*&[^,;]*?' + FIELD)

def stray_stores(texts):
    """'file:line field' of every store outside its owner's header."""
    out = []
    for rel, text in sorted(texts.items()):
        for m in STORE.finditer(text):
            field = re.findall(r'(busy|end_saved|end)\b', m.group(0))[-1]
            owner = 'gate.h' if field == 'busy' else 'stop.h'
            if os.path.basename(rel) != owner:
                out.append('%s:%d stores %s' % (
                    rel, text.count('\n', 0, m.start()) + 1, field))
    return out


if len(sys.argv) > 2:
    preload(sys.argv[2])
sys.exit(done())
