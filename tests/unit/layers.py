#!/usr/bin/env python3
"""layers.py - the analyzer's folders are its pipeline's stages, and a file
includes only headers of its own stage or of stages before it:

    base < read < filter < score < symbols < report < analysis/ (the top)

  layers.py ANALYSIS_DIR

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
DEF = re.compile(r'^(?!static)[a-z][\w \*]*?\b(sbt_\w+)\(', re.M)
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
sys.exit(done())
