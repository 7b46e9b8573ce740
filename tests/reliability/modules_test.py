#!/usr/bin/python3
"""modules_test.py - the analyzer finds each call site's module in a log
listing thousands (analysis/symbols/modules.c).

    modules_test.py GEN_MODULES         (SBT_ANALYZE from the environment)

gen_modules writes 3,000 modules and 300 regions, each region at its own
site in module (J * 7919) % 3000, 0x41 bytes (a return address) past its
load bias.  Every region must be placed in its own module at that offset,
with symbols and with --no-symbols; where two damaged entries overlap the
range starting lower is used (region r0: low.so, not late.so, listed
first); the same file listed 3,000 times gives its note once.
"""
import os, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import check, done, analyze_json

gen = sys.argv[1]
NM, NR = 3000, 300

with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, 'mods.log')
    subprocess.run([gen, log, str(NM), str(NR), 'overlap'], check=True)
    for opts in ((), ('--no-symbols',)):
        d, regions = analyze_json(log, *opts)
        wrong = []
        for j in range(NR):
            cs = regions['r%d' % j]['callsites']
            want = ('/nonexistent/low.so', '0x10041') if j == 0 else \
                   ('/nonexistent/m%d.so' % (j * 7919 % NM), '0x41')
            got = [(c['module'], c['offset']) for c in cs]
            if got != [want]:
                wrong.append((j, got, want))
        check(len(regions) == NR and not wrong,
              '%s: %d regions, each in its module at its offset%s'
              % (' '.join(opts) or 'symbols', len(regions),
                 '' if not wrong else ' (first wrong: %r)' % (wrong[0],)))

    # one real file listed for every module: read once a site, noted once
    log2 = os.path.join(tmp, 'same.log')
    subprocess.run([gen, log2, str(NM), str(NR), 'plain', '/bin/true'],
                   check=True)
    d, regions = analyze_json(log2)
    notes = [n for n in d['callsite_notes'] if n.startswith('/bin/true ')]
    check(len(notes) == 1, '/bin/true listed %d times, %d note(s): %r'
          % (NM, len(notes), notes[:2]))
    check(all(regions['r%d' % j]['callsites'][0]['module'] == '/bin/true'
              for j in range(NR)), 'every site in /bin/true')
done()
