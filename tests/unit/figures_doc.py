#!/usr/bin/env python3
"""figures_doc.py - every measured figure in the docs names the command
that reproduces it (issue 35).

  figures_doc.py README.md doc/performance.md

doc/performance.md: each entry opens "**Title** (figures of YYYY-MM-DD)"
and holds, before the next entry, a command in backticks that runs one of
the repository's tools.  README.md: outside its code blocks, a line that
states a measured ratio or rate (a number with a times sign or x, ns a
pair, samples/s) sits in a paragraph that names a command or points to
doc/performance.md; an output shown in a code block starts with the
command that printed it ("$ ...")."""
import re
import sys

sys.path.insert(0, __file__.rsplit('/', 2)[0] + '/common')
from sbttest import check, done  # noqa: E402

# what a command of ours starts with, inside its backticks
COMMAND = re.compile(r'`[^`]*(build[-\w]*/|tools/|python3 |taskset |sbt-'
                     r'|LD_PRELOAD=|SBT_[A-Z_]+=|sh |perf |valgrind )[^`]*`')
ENTRY = re.compile(r'^\*\*([^*]+)\*\* \(figures of (\d{4}-\d\d-\d\d)[,)]',
                   re.M)
FIGURE = re.compile(r'\d(\.\d+)?\s*(×|x (faster|slower|the)|ns a pair|'
                    r'ns per pair|M samples/s|million samples/s)')

readme, perf = (open(p).read() for p in sys.argv[1:3])

# doc/performance.md: entries, each with its command
starts = [m for m in ENTRY.finditer(perf)]
check(len(starts) >= 5, 'performance.md has %d dated entries' % len(starts))
for k, m in enumerate(starts):
    end = starts[k + 1].start() if k + 1 < len(starts) else len(perf)
    body = perf[m.start():end]
    check(COMMAND.search(body) is not None,
          'performance.md: "%s" (%s) names its command' % (m.group(1),
                                                          m.group(2)))

# README.md: paragraphs outside code blocks; code blocks of output
blocks = re.split(r'^```[^\n]*\n', readme, flags=re.M)
prose, code = blocks[0::2], blocks[1::2]
for part in prose:
    for para in re.split(r'\n\s*\n', part):
        if FIGURE.search(para):
            check(COMMAND.search(para) is not None or
                  'doc/performance.md' in para,
                  'README.md: a figure with its command: %r' %
                  para.strip()[:120])
for block in code:
    lines = block.splitlines()
    shows_output = any(re.match(r'^region\s+total\s', ln) for ln in lines)
    if shows_output:
        check(lines and lines[0].startswith('$ '),
              'README.md: an output led by its command: %r' %
              (lines[0] if lines else ''))
done()
