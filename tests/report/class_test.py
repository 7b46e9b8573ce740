#!/usr/bin/python3
"""class_test.py - the text report's one line per region and its -v.

    class_test.py golden GEN_CLASS GOLDEN_DIR
    class_test.py consistent GEN_CLASS GOLDEN_DIR
    class_test.py demo SBT_RUN SBT_DEMO        (SBT_ANALYZE from the env)

golden: gen_class writes one synthetic log per class word; the default
  text and -v of each (and --by thread of the two-thread one) equal
  GOLDEN_DIR/class_<name>.txt (SBT_GOLDEN_UPDATE=1 rewrites them: review
  the diff).  Beside the golden text, what must hold whatever the words:
  the row's class word, every line within 100 columns, and the dip log's
  step and return as one dip line under -v (no step lines).
consistent: the same log through text, JSON, HTML and --by thread says
  the same: the text beside --html (asked for with --format text) is the
  plain text byte for byte, JSON beside --html the plain JSON; each
  region's total in the text, the JSON and the HTML summary agree, and
  the per-thread totals and samples add up to the region's; the class
  word of the text row follows from JSON's finding_list kinds.
demo: the bundled demo recorded; its default report from the table's
  header to the end in at most 25 lines, each within 100 columns, one row
  per region with a word of the fixed set (which one is the run's: live
  timings decide nothing here).
"""
import html as H
import json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import check, done  # noqa: E402

ANALYZE = os.environ['SBT_ANALYZE']
# the log, its expected class word, the options of its row
CLASSES = [('steady', 'steady', ()), ('modes', 'modes', ()),
           ('step', 'step', ()), ('dip', 'phases', ()),
           ('group', 'slow group', ('--by', 'thread')),
           ('processor', 'processor', ()), ('unresolved', 'unresolved', ()),
           ('few', 'too few', ()), ('tiny', 'steady', ())]
WORDS = {'steady', 'modes', 'step', 'phases', 'slow group', 'fast group',
         'broad', 'processor', 'unresolved', 'too few', 'OS'}
# what each kind of finding makes of a region's class word
KIND_CLASS = {'modes': {'modes'}, 'step': {'step', 'phases'},
              'group': {'slow group', 'fast group'}, 'broad': {'broad'},
              # the decomposition's kinds
              'os_time': {'OS'}, 'os_spread': {'OS'},
              'processor': {'processor'}, 'groups': {'slow group'},
              'wait': {'slow group'}, 'time': {'phases', 'step'},
              'few_samples': {'too few'}}


def run(d, *args):
    p = subprocess.run([ANALYZE, '-q', *args], capture_output=True,
                       text=True, cwd=d, timeout=120)
    if p.returncode != 0:
        sys.exit('FAIL: sbt-analyze %s: exit %d %s' % (' '.join(args),
                                                       p.returncode, p.stderr))
    return p.stdout


def rows(text):
    """The one-line table's rows: (name, key or '', class word)."""
    lines = text.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('region '))
    head = lines[i]
    at = head.index('class')
    out = []
    for l in lines[i + 1:]:
        if not l.strip():
            break
        word = l[at:at + 10].strip()
        out.append((l.split()[0], word))
    return out


def wide(text):
    return [l for l in text.splitlines() if len(l) > 100]


def case_golden(gen, gdir):
    with tempfile.TemporaryDirectory(prefix='sbt-class-') as d:
        subprocess.run([gen, d], check=True)
        for name, word, opts in CLASSES:
            log = name + '.log'
            short = run(d, *opts, log)
            full = run(d, '-v', *opts, log)
            got = rows(short)
            check(any(w == word for _, w in got),
                  '%s: a row says %r: %r' % (name, word, got))
            check(not wide(short) and not wide(full),
                  '%s: every line within 100 columns %r' %
                  (name, wide(short) + wide(full)))
            if name == 'dip':
                dips = re.findall(r'^  [\d.]+ ms +dip -[\d.]+ %.*back to',
                                  full, re.M)
                steps = re.findall(r'^  [\d.]+ ms +step ', full, re.M)
                check(len(dips) == 1 and not steps, 'dip: the step and '
                      'its return one dip line: %r, steps %r' % (dips, steps))
            text = short + '----- -v\n' + full
            path = os.path.join(gdir, 'class_%s.txt' % name)
            if os.environ.get('SBT_GOLDEN_UPDATE') == '1':
                open(path, 'w').write(text)
                print('golden: rewrote %s' % path)
                continue
            want = open(path).read() if os.path.exists(path) else ''
            if text != want:
                import difflib
                sys.stdout.writelines(difflib.unified_diff(
                    want.splitlines(True), text.splitlines(True), path,
                    'now'))
            check(text == want, '%s: the text equals %s' % (name, path))


def ns_of(s):
    v, unit = s.split()
    return float(v) * {'s': 1e9, 'ms': 1e6, 'us': 1e3, 'ns': 1}[unit]


def case_consistent(gen, gdir):
    with tempfile.TemporaryDirectory(prefix='sbt-class-') as d:
        subprocess.run([gen, d], check=True)
        for name in ('dip', 'group', 'processor', 'modes'):
            log = name + '.log'
            page = os.path.join(d, name + '.html')
            text = run(d, log)
            check(run(d, '--html', page, '--format', 'text', log) == text,
                  '%s: the text beside --html is the plain text' % name)
            js = run(d, '--format', 'json', log)
            check(run(d, '--html', page, '--format', 'json', log) == js,
                  '%s: the JSON beside --html is the plain JSON' % name)
            check(run(d, '--html', page, log) == '',
                  '%s: --html alone prints nothing' % name)
            regs = {r['name']: r for r in json.loads(js)['regions']}
            # text totals against JSON's
            lines = text.splitlines()
            i = next(k for k, l in enumerate(lines)
                     if l.startswith('region '))
            for l in lines[i + 1:]:
                if not l.strip():
                    break
                m = re.match(r'^(\S+) +([\d.]+ (?:s|ms|us|ns)) ', l)
                r = regs.get(m.group(1)) if m else None
                check(r is not None and abs(ns_of(m.group(2)) -
                      r['total_ns']) <= 5e-4 * r['total_ns'],
                      '%s: text total %r, JSON %r' % (
                          name, m and m.group(2), r and r['total_ns']))
                kinds = {f['kind'] for f in r['finding_list']
                         if not f['minor']} if r else set()
                word = l[lines[i].index('class'):][:10].strip()
                # a kind the renderer does not know reads 'finding'
                want = set().union(*(KIND_CLASS.get(k, {'finding'})
                                     for k in kinds)) if kinds else \
                    {'steady', 'processor', 'unresolved', 'too few'}
                # the processor's part, a description, may outweigh them
                if any(f['kind'] == 'processor' for f in r['finding_list']):
                    want = want | {'processor'}
                check(word in want, '%s: class %r from findings %r' %
                      (name, word, sorted(kinds)))
                check(word == r['class'], '%s: text class %r, JSON %r' %
                      (name, word, r['class']))
            # the HTML summary's totals and class words
            p = open(page).read()
            summ = p.split('<section id="summary">')[1].split('</table>')[0]
            words = re.findall(r'<td><b>([a-z ]+)</b> ', summ)
            check(words == [w for _, w in rows(text)], '%s: the HTML '
                  'leads with the same class words %r' % (name, words))
            for m in re.finditer(r'<tr><td>(?:<a [^>]*>)?([^<]+)(?:</a>)?'
                                 r'</td><td class="n">([^<]+)</td>', summ):
                r = regs.get(H.unescape(m.group(1)))
                check(r is not None and abs(ns_of(m.group(2).replace(
                      '\u00b5', 'u')) - r['total_ns']) <= 5e-3 *
                      r['total_ns'], '%s: HTML total %r, JSON %r' % (
                          name, m.group(2), r and r['total_ns']))
            # --by thread adds up to the region
            by = json.loads(run(d, '--format', 'json', '--by', 'thread',
                                log))['regions']
            for rn, r in regs.items():
                gs = [g for g in by if g['name'] == rn]
                # a cut sample counts at its group's median; JSON
                # gives totals to 6 significant digits
                tol = 1e-5 * r['total_ns'] + sum(
                    g['dropped'] * abs(g['median_ns'] - r['median_ns'])
                    for g in gs)
                check(sum(g['count'] for g in gs) == r['count'] and
                      abs(sum(g['total_ns'] for g in gs) - r['total_ns'])
                      <= tol,
                      '%s: --by thread adds up to %s (%d groups)' %
                      (name, rn, len(gs)))


def case_demo(sbt_run, demo):
    with tempfile.TemporaryDirectory(prefix='sbt-class-') as d:
        p = subprocess.run([sbt_run, '-q', '--', demo], cwd=d,
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, 'demo: exit %d %s' % (p.returncode,
                                                      p.stderr))
        text = run(d, 'region.log')
        lines = text.splitlines()
        i = next(k for k, l in enumerate(lines) if l.startswith('region '))
        check(len(lines) - i <= 25, 'demo: %d lines from the table to '
              'the end:\n%s' % (len(lines) - i, text))
        check(not wide(text), 'demo: every line within 100 columns %r'
              % wide(text))
        got = dict(rows(text))
        check(set(got) == {'step', 'compute', 'bimodal', 'empty'},
              'demo: one row per region %r' % got)
        # which word is the machine's and the run's: only from the set
        check(set(got.values()) <= WORDS, 'demo: class words %r' % got)
        check(lines[-1].startswith('more: sbt-analyze -v'),
              'demo: ends with the command for more: %r' % lines[-1])


def main():
    case = sys.argv[1]
    if case == 'demo':
        case_demo(*(os.path.abspath(a) for a in sys.argv[2:4]))
    else:
        {'golden': case_golden, 'consistent': case_consistent}[case](
            *(os.path.abspath(a) for a in sys.argv[2:4]))
    done()


if __name__ == '__main__':
    main()
