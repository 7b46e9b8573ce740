#!/usr/bin/env python3
"""layers.py - the analyzer's folders are its pipeline's stages, and a file
includes only headers of its own stage or of stages before it:

    base < read < filter < score < symbols < report < analysis/ (the top)

  layers.py ANALYSIS_DIR

Also: no two headers include each other, directly or around a loop."""
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
sys.exit(done())
