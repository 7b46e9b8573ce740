#!/usr/bin/env python3
"""figures_doc.py - every measured figure in the docs names the command
that reproduces it.

  figures_doc.py README.md doc/performance.md

doc/performance.md: the current figures, in tables headed "| figure |
value | command | machine |": each row names a command in backticks that
runs one of the repository's tools (or "the same", after a row that does)
and a machine of the page's machine table (its lscpu model); no date (the
figures' history is git's).  README.md: outside its code blocks, a line that
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
FIGURE = re.compile(r'\d(\.\d+)?\s*(×|x (faster|slower|the)|ns a pair|'
                    r'ns per pair|M samples/s|million samples/s)')

readme, perf = (open(p).read() for p in sys.argv[1:3])

# doc/performance.md: the machines, then the figures' tables
def rows(text, header):
    """the rows (lists of cells) of every table whose header is `header`"""
    out, inside = [], False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if line.startswith('|') and cells == header:
            inside = True
        elif inside and line.startswith('|'):
            if not set(line) <= set('|-'):
                out.append(cells)
        else:
            inside = False
    return out


machines = {r[0] for r in rows(perf, ['machine', '`lscpu`', 'what else'])}
check(len(machines) >= 1, 'performance.md names its machines: %s' %
      sorted(machines))
figures = rows(perf, ['figure', 'value', 'command', 'machine'])
check(len(figures) >= 20, 'performance.md has %d figures' % len(figures))
had_command = False
for r in figures:
    if len(r) != 4:
        check(False, 'performance.md: a figure in four cells: %r' % r[:1])
        continue
    figure, value, command, machine = r
    if COMMAND.search(command):
        had_command = True
    check(COMMAND.search(command) is not None or
          (command.startswith('the same') and had_command),
          'performance.md: "%s" names its command' % figure[:60])
    check(bool(set(re.findall(r'\b[A-Z]\b', machine)) & machines) and
          set(re.findall(r'\b[A-Z]\b', machine)) <= machines,
          'performance.md: "%s" was measured on a named machine (%s)' %
          (figure[:60], machine))
dates = re.findall(r'\b20\d\d-\d\d-\d\d\b', perf)
check(not dates, 'performance.md holds no date (git does): %s' % dates[:3])

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
