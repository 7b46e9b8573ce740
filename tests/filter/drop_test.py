#!/usr/bin/python3
"""drop_test.py - the drop filters are a table (analysis/filter/drop.h).

    drop_test.py MESON_BUILD   (SBT_ANALYZE from the env)

On 5000 samples of 400-420 ns with 52 injected OS hits of 20-25 us (CSV
input, no timing):
  - every filter in analysis/meson.build's drop_filters is listed by
    --help with its line, accepted by --filter, and counted under its
    name in JSON "dropped_by", in the table's order;
  - --filter all, cost,os and os,cost give the same report;
  - the OS filter drops the 52 hits and nothing else, and says so in
    dropped_by; --filter cost and none drop nothing;
  - an unknown name is a usage error (exit 2) that names it.
"""
import json, os, random, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import analyze, analyze_json, check, done

ANALYZE = os.environ['SBT_ANALYZE']


def main():
    build = open(sys.argv[1]).read()
    names = re.findall(r"'(\w+)'", re.search(r"^drop_filters = \[(.*)\]",
                                             build, re.M).group(1))
    check(names and 'os' in names, 'drop_filters in meson.build: %r' % names)
    helptext = subprocess.run([ANALYZE, '--help'], capture_output=True,
                              text=True).stdout
    for n in names:
        check(re.search(r'^ +%s: \S' % n, helptext, re.M) is not None,
              '--help lists %s' % n)
    with tempfile.TemporaryDirectory(prefix='sbt-drop-') as d:
        csv = os.path.join(d, 'n.csv')
        rnd = random.Random(3)
        hits = 0
        with open(csv, 'w') as f:
            f.write('region,ns,thread,t_ns\n')
            for i in range(5000):
                v = 400 + 10 * rnd.randint(0, 2)
                if i % 97 == 5:
                    v += 20000 + rnd.randint(0, 5000)
                    hits += 1
                f.write('work,%d,0,%d\n' % (v, 1000 * (i + 1)))
        g = analyze_json(csv)[0]['regions'][0]
        check(list(g['dropped_by']) == names,
              'dropped_by names every filter in order: %r'
              % list(g['dropped_by']))
        check(g['dropped'] == hits and g['dropped_by']['os'] == hits,
              'all: the %d hits dropped, by os: %d, %r'
              % (hits, g['dropped'], g['dropped_by']))
        full = analyze(csv, '--format', 'json')
        for spec in ('cost,os', 'os,cost', ','.join(['cost'] + names)):
            check(analyze(csv, '--format', 'json', '--filter', spec) == full,
                  '--filter %s is --filter all' % spec)
        for spec in ('cost', 'none'):
            x = analyze_json(csv, '--filter', spec)[0]['regions'][0]
            check(x['dropped'] == 0 and not any(x['dropped_by'].values()),
                  '--filter %s drops nothing: %r' % (spec, x['dropped_by']))
        for n in names:
            x = analyze_json(csv, '--filter', n)[0]['regions'][0]
            check(x['dropped'] == x['dropped_by'][n],
                  '--filter %s: its drops are all the drops (%d)'
                  % (n, x['dropped']))
        p = subprocess.run([ANALYZE, '--filter', 'cost,bogus', csv],
                           capture_output=True, text=True)
        check(p.returncode == 2 and "'bogus'" in p.stderr,
              'an unknown filter: exit %d, %s' % (p.returncode,
                                                  p.stderr.strip()))
    done()


if __name__ == '__main__':
    main()
