#!/usr/bin/python3
"""html_test.py - the HTML page as a person looks at it, for any number of
groups.

    html_test.py GEN_NESTED groups|labels|machine|size  (SBT_ANALYZE from the env)

groups: for 1, 2, 4, 16 and 64 threads (gen_nested: nested regions, the
last thread 5 % slower, thread 0's OS events partly lost), sbt-analyze
--html, then
  - every SVG element lies inside its plot's viewBox (the SVG parsed with
    xml.etree; a text's extent estimated from its length and anchor);
  - every plot sits in a <figure> with a legend (<figcaption>);
  - the slow thread's sentence is on the page, in the findings at the
    top and in its regions' findings, and its time lane is marked;
  - the text report's warning of lost OS events is on the page;
  - the page references nothing outside itself.
labels: threads with META THREAD entries (OpenMP numbers, names) are
called so in the text rows, the findings and the lanes.
machine: a shift both regions share (gen_nested "machine") is said in the
same words in the text report's machine events and in the page's findings.
size: a 10^7-sample log (4 threads x 2 regions) gives a page of at most
0.1 MiB.
"""
import html as H, os, re, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import check, done

ANALYZE = os.environ['SBT_ANALYZE']
SVG = '{http://www.w3.org/2000/svg}'
CHAR_W = {'pt': 7.4}            # px per character: titles 12px bold
CHAR_W_DEFAULT = 6.4            # 11px system-ui, generous


def text_of(el):
    """The text a <text> shows (its <title> is a tooltip, not drawn)."""
    s = el.text or ''
    for c in el:
        if c.tag != SVG + 'title':
            s += ''.join(c.itertext())
        s += c.tail or ''
    return s


def path_points(d):
    """Every point a path visits (M L H V Z and their relatives)."""
    toks = re.findall(r'[MLHVZmlhvz]|-?[\d.]+(?:e-?\d+)?', d)
    x = y = 0.0
    sx = sy = 0.0
    cmd, i, pts = None, 0, []
    while i < len(toks):
        t = toks[i]
        if t.isalpha():
            cmd = t
            i += 1
            if cmd in 'Zz':
                x, y = sx, sy
            continue
        v = float(t)
        if cmd in 'ML':
            x, y = v, float(toks[i + 1])
            i += 2
            if cmd == 'M':
                sx, sy = x, y
        elif cmd in 'ml':
            x, y = x + v, y + float(toks[i + 1])
            i += 2
            if cmd == 'm':
                sx, sy = x, y
        elif cmd == 'H':
            x = v; i += 1
        elif cmd == 'h':
            x += v; i += 1
        elif cmd == 'V':
            y = v; i += 1
        elif cmd == 'v':
            y += v; i += 1
        else:
            raise ValueError('path command %r' % cmd)
        pts.append((x, y))
    return pts


def boxes(el):
    """(x0, y0, x1, y1) extents an element covers."""
    tag = el.tag[len(SVG):]
    a = el.attrib
    f = lambda k: float(a[k])
    if tag == 'rect':
        return [(f('x'), f('y'), f('x') + f('width'), f('y') + f('height'))]
    if tag == 'line':
        return [(min(f('x1'), f('x2')), min(f('y1'), f('y2')),
                 max(f('x1'), f('x2')), max(f('y1'), f('y2')))]
    if tag == 'path':
        return [(x, y, x, y) for x, y in path_points(a['d'])]
    if tag == 'text':
        s = text_of(el)
        w = len(s) * CHAR_W.get(a.get('class', '').split(' ')[0],
                                CHAR_W_DEFAULT)
        tr = a.get('transform', '')
        m = re.match(r'translate\(([-\d.]+) ([-\d.]+)\) rotate\(-90\)', tr)
        if m:                   # the y label: vertical, centred
            x, y = float(m.group(1)), float(m.group(2))
            return [(x - 11, y - w / 2, x + 3, y + w / 2)]
        x, y = f('x'), f('y')
        cls = a.get('class', '')
        st = re.search(r'text-anchor:(\w+)', a.get('style', ''))
        anchor = (st and st.group(1)) or a.get('text-anchor') or (
            'middle' if re.search(r'\b(tx|xl)\b', cls) else
            'end' if re.search(r'\bty\b', cls) else 'start')
        x0 = {'start': x, 'middle': x - w / 2, 'end': x - w}[anchor]
        return [(x0, y - 11, x0 + w, y + 3)]
    return []


def svg_outside(svg):
    """Elements of one <svg> that lie outside its viewBox."""
    _, _, W, H = map(float, svg.attrib['viewBox'].split())
    bad = []
    for el in svg.iter():
        for (x0, y0, x1, y1) in boxes(el):
            if x0 < -0.5 or y0 < -0.5 or x1 > W + 0.5 or y1 > H + 0.5:
                bad.append('%s %s (%.0f,%.0f)-(%.0f,%.0f) in %gx%g' % (
                    el.tag[len(SVG):], (text_of(el) if el.tag.endswith(
                        'text') else '')[:30], x0, y0, x1, y1, W, H))
                break
    return bad


def analyze(log, html, *args):
    # the page, and the text report beside it (--format asks for it)
    p = subprocess.run([ANALYZE, '-q', '--html', html, '--format', 'text',
                        *args, log],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit('FAIL: sbt-analyze exited %d: %s' % (p.returncode,
                                                      p.stderr))
    return p.stdout


def case_groups(gen, d):
    for n in (1, 2, 4, 16, 64):
        log = os.path.join(d, 'g%d.log' % n)
        html = os.path.join(d, 'g%d.html' % n)
        subprocess.run([gen, log, str(n), str(6000 // n + 200), '5'],
                       check=True)
        text = analyze(log, html)
        page = open(html).read()
        svgs = re.findall(r'<svg class="plot.*?</svg>', page, re.S)
        check(len(svgs) == 8, '%d groups: %d plots (2 regions x 4)'
              % (n, len(svgs)))
        bad = []
        for s in svgs:
            bad += svg_outside(ET.fromstring(s))
        check(not bad, '%d groups: every element inside its viewBox%s'
              % (n, ': ' + '; '.join(bad[:4]) if bad else ''))
        check(page.count('<figure>') == len(svgs) and
              page.count('<figcaption') == len(svgs),
              '%d groups: each plot in a figure with its legend' % n)
        # the warning the text report gives, on the page too
        warn = 'OS events: at least 2738 lost (ring full)'
        check(warn in text and warn in page,
              '%d groups: "%s" in the text and on the page' % (n, warn))
        if n == 1:
            check('slower than' not in page, '1 group: nothing flagged')
            continue
        slow = 'thread %d</b>' % (n - 1)
        sent = re.findall(r'thread %d is ([\d.]+) %% slower than the '
                          r"others&#39;|thread %d is ([\d.]+) %% slower "
                          r"than the others'" % (n - 1, n - 1), page)
        pct = [float(a or b) for a, b in sent]
        check(len(pct) >= 4 and all(abs(p - 5) < 0.6 for p in pct),
              '%d groups: the slow thread\'s sentence (top and each '
              'region, both regions): %r' % (n, pct))
        top = page.split('<section id="findings">')[1].split('</ul>')[0]
        check('thread %d is' % (n - 1) in top and 'outer' in top and
              'inner' in top, '%d groups: it leads the findings' % n)
        lanes = re.findall(r'<svg class="plot time".*?</svg>', page, re.S)
        check(all('class="ln fl"' in t for t in lanes),
              '%d groups: its time lane marked in both regions' % n)
        # (of two, each is the other's reference: the fast one may be
        # named too, as faster)
        others = re.findall(r'thread (\d+) is [\d.]+ % slower', top)
        check(set(others) == {str(n - 1)}, '%d groups: no other thread '
              'slower: %r' % (n, sorted(set(others))))
    # self-contained: nothing fetched
    ext = re.findall(r'(?:src|href)="(?!#)[^"]*"|url\(|<link|<iframe|'
                     r'@import', page)
    check(not ext, 'self-contained: %r' % ext[:3])


def case_labels(gen, d):
    """Threads named as users know them (META THREAD): OpenMP numbers, or
    unique names; the slow thread by that name in words and lanes."""
    for kind, who, lane in (('omp', 'OpenMP thread 0', 'omp 0'),
                            ('name', 'thread solver-D', 'solver-D')):
        log = os.path.join(d, kind + '.log')
        html = os.path.join(d, kind + '.html')
        subprocess.run([gen, log, '4', '2000', '5', '1000', kind],
                       check=True)
        text = analyze(log, html, '--by', 'thread')
        page = open(html).read()
        top = page.split('<section id="findings">')[1].split('</ul>')[0]
        check('%s is 5.0 %% slower' % who in top, '%s: "%s is 5.0 %% '
              'slower" leads the findings' % (kind, who))
        check(re.search(r'<text class="ty fl"[^>]*>%s \+5\.0%%' % lane,
                        page), '%s: its red lane and box say %r'
              % (kind, lane))
        keys = {m.group(1) for m in re.finditer(
            r'^(?:outer|inner) +(.+?) +[\d.]+ (?:s|ms|us|ns) ', text, re.M)}
        want = ({'omp %d' % i for i in range(4)} if kind == 'omp' else
                {'solver-%s' % c for c in 'ABCD'})
        check(keys == want, '%s: text rows keyed %r' % (kind, sorted(keys)))
        # a summary of the log keeps what the threads were called
        sums = os.path.join(d, kind + '.sbts')
        p = subprocess.run([ANALYZE, '-q', '--summary', sums, log],
                           capture_output=True, text=True)
        stext = subprocess.run([ANALYZE, '-q', '--by', 'thread', sums],
                               capture_output=True, text=True).stdout
        skeys = {m.group(1) for m in re.finditer(
            r'^(?:outer|inner) +(.+?) +[\d.]+ (?:s|ms|us|ns) ', stext, re.M)}
        check(p.returncode == 0 and skeys == want, '%s: its summary\'s rows '
              'keyed alike: %r' % (kind, sorted(skeys)))


def case_machine(gen, d):
    log = os.path.join(d, 'm.log')
    html = os.path.join(d, 'm.html')
    subprocess.run([gen, log, '1', '30000', '0', '1000', 'machine'],
                   check=True)
    text = subprocess.run([ANALYZE, '-v', log], capture_output=True,
                          text=True, check=True).stdout
    said = re.findall(r'^  (at .*: the machine, not the code.*)$', text, re.M)
    check(len(said) == 2, 'text: the shift and its return as machine '
          'events: %r' % said)
    analyze(log, html)
    page = open(html).read()
    items = [H.unescape(m) for m in re.findall(r'<li>([^<]*)</li>', page)]
    for line in said:
        check(line in items, 'the page says it in the same words: %r'
              % line)


def case_size(gen, d):
    log = os.path.join(d, 'big.log')
    html = os.path.join(d, 'big.html')
    # 4 threads x 1.25e6 iterations x 2 regions = 10^7 samples
    subprocess.run([gen, log, '4', '1250000', '5'], check=True)
    analyze(log, html)
    size = os.path.getsize(html)
    os.unlink(log)
    check(size <= 0.1 * 2**20, '10^7 samples: page %.3f MiB <= 0.1 MiB'
          % (size / 2**20))


def main():
    gen, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix='sbt-html-',
                                     dir=os.environ.get('TMPDIR')) as d:
        {'groups': case_groups, 'size': case_size,
         'labels': case_labels, 'machine': case_machine}[case](gen, d)
    done()


if __name__ == '__main__':
    main()
