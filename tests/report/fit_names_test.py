#!/usr/bin/python3
"""fit_names_test.py - long region names in the text tables.

    fit_names_test.py            (SBT_ANALYZE: the analyzer)

A CSV of regions whose names are longer than the tables' name column
(OpenMP constructs by function and offset, by file:line, by path, C++
scopes, one long word) is analyzed as the default table, -v, -v --by
thread, and a comparison, at --width 80, 100 and 140.  In every table:

  - each row shows its name whole, or whole words of it: a head that
    ends where a word ends and a tail that begins where one begins, the
    words between dropped for one '~' (a name of one word longer than
    the column keeps its end: "~" and its last characters);
  - the form names exactly one region, and no two rows read alike (with
    --by thread: no two (name, thread) pairs);
  - the default table's lines fit --width.

Exit 0 ok, 1 failed.
"""
import os, random, subprocess, sys, tempfile

NAMES = [
    'omp parallel @ main (stream-gcc+0x11ff)',
    'omp barrier @ main (stream-gcc+0x11ff)',
    'omp parallel @ main (stream-gcc+0x1511)',
    'omp barrier @ main (stream-gcc+0x1511)',
    'omp parallel @ triad._omp_fn.0 (stream-gcc+0x13e6)',
    'omp parallel @ lulesh.cc:1009',
    'omp barrier @ lulesh.cc:1009',
    'omp parallel @ lulesh.cc:1234',
    'Kokkos::View::initialization [A]',
    'Kokkos::View::initialization [x]',
    'omp barrier @ /home/user/src/app/solver/kernels.c:77',
    'omp barrier @ /home/user/src/app/io/kernels.c:77',
    'a_region_named_by_one_very_long_word_without_any_break',
]
failures = 0


def check(ok, what):
    global failures
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    failures += not ok


def word_start(name, p):
    """Whether p is where a word of name begins (fitname.c's cuts)."""
    if p == 0:
        return True
    a, b = name[p - 1], name[p]
    return a in ' /' or name[p - 2:p] == '::' or b in '([+'


def names_of(shown):
    """The regions a shown form could be: whole, or head~tail."""
    if shown in NAMES:
        return [shown]
    if '~' not in shown:
        return []
    head, tail = shown.split('~', 1)
    out = []
    for n in NAMES:
        if len(n) <= len(head) + len(tail) or not n.startswith(head) or \
                not n.endswith(tail):
            continue
        t = len(n) - len(tail)
        one_word = head == '' and not any(word_start(n, p)
                                          for p in range(1, len(n)))
        if one_word or (word_start(n, len(head)) and word_start(n, t)):
            out.append(n)
    return out


def table(out):
    """The header and rows of the first table (its header 'region ...';
    the rows end at a blank or indented line)."""
    lines = out.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('region '))
    rows = []
    for l in lines[i + 1:]:
        if not l.strip() or l.startswith(' '):
            break
        rows.append(l)
    return lines[i], rows


def run(*args):
    p = subprocess.run([os.environ['SBT_ANALYZE']] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode not in (0, 1):
        check(False, 'sbt-analyze %s: exit %d\n%s' % (' '.join(args),
                                                      p.returncode, p.stderr))
    return p.stdout


def case(what, out, col, width=None):
    """A table without a key column: "%-*s %9s", col the 9 columns'."""
    head, rows = table(out)
    w = head.index(col) - (9 - len(col)) - 1
    seen, bad = set(), []
    for r in rows:
        shown = r[:w].rstrip()
        match = names_of(shown)
        if len(match) != 1:
            bad.append('%r names %r' % (shown, match))
        seen.add(shown)
    check(not bad, '%s: each row one region in whole words%s' % (
        what, '' if not bad else ':\n  ' + '\n  '.join(bad + [head] +
                                                       rows)))
    check(len(seen) == len(rows), '%s: %d rows, %d read apart' % (
        what, len(rows), len(seen)))
    if width:
        long_lines = [l for l in [head] + rows if len(l) > width]
        check(not long_lines, '%s: lines fit %d columns%s' % (
            what, width, '' if not long_lines else ':\n' +
            '\n'.join(long_lines)))


def main():
    rnd = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, 'names.csv')
        with open(csv, 'w') as f:
            f.write('region,ns,t_ns,thread\n')
            t = 0
            for i in range(40):
                for k, n in enumerate(NAMES):
                    t += 1000
                    f.write('%s,%.0f,%d,%d\n' % (
                        n, 1000 + 100 * k + rnd.gauss(0, 20), t, i % 2))
        for width in ('80', '100', '140'):
            case('table --width ' + width, run('--width', width, csv),
                 'total', int(width))
            case('-v --width ' + width, run('-v', '--width', width, csv),
                 'total')
            out = run('-v', '--by', 'thread', '--width', width, csv)
            head, rows = table(out)
            # "%-*s %*s": the name, then the thread right-aligned
            end = head.index('thread') + len('thread')
            w = end - max(len('thread'), max(len(r[:end].split()[-1])
                                             for r in rows)) - 1
            seen, bad = set(), []
            for r in rows:
                shown, key = r[:w].rstrip(), r[w:end].strip()
                if len(names_of(shown)) != 1:
                    bad.append('%r names %r' % (shown, names_of(shown)))
                seen.add((shown, key))
            check(not bad and len(seen) == len(rows),
                  '-v --by thread --width %s: %d rows, %d read apart, '
                  'each one region in whole words%s' % (
                      width, len(rows), len(seen), '' if not bad else
                      ':\n  ' + '\n  '.join(bad + [head] + rows)))
        case('--compare', run('--compare', csv, '--', csv), 'base')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
