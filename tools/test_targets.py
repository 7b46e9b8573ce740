#!/usr/bin/python3
"""test_targets.py BUILD_DIR [--suite S]... [--no-suite S]...

The ninja targets a selection of the suite needs, one per line, relative
to BUILD_DIR: every target outside tests/ but the benchmarks (the
recorder, the analyzer, the tools a test may reach through its
environment rather than its arguments), and what the selected tests
depend on.  tools/test.sh builds just these in the sanitized builds,
whose selections leave out most of the tests' own programs: a build
there is minutes of compiling on two cpus.

A test is selected as `meson test --suite/--no-suite` selects it: in
one of the --suite suites (all, without any), in none of the
--no-suite ones.
"""
import json
import os
import subprocess
import sys


def introspect(build, what):
    out = subprocess.run(['meson', 'introspect', build, what],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def suites_of(test):
    # meson writes 'project:suite'; a test may name several
    return {s.split(':', 1)[-1] for s in test['suite']}


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    build = os.path.abspath(argv[1])
    want, skip = set(), set()
    args = argv[2:]
    while args:
        if len(args) < 2 or args[0] not in ('--suite', '--no-suite'):
            sys.exit('test_targets: unknown arguments %s' % args)
        (want if args[0] == '--suite' else skip).add(args[1])
        args = args[2:]
    targets = introspect(build, '--targets')
    by_id = {t['id']: t for t in targets}
    need = set()
    for t in targets:
        where = os.path.relpath(t['defined_in'], os.path.dirname(build))
        src = os.path.dirname(where).split(os.sep)
        bench = t['name'].startswith('bench-') or t['name'] == 'acc-app'
        if t['build_by_default'] and src[:1] != ['tests'] and not bench:
            need.add(t['id'])
    for test in introspect(build, '--tests'):
        s = suites_of(test)
        if (want and not s & want) or s & skip:
            continue
        need.update(test.get('depends', []))
    for i in sorted(need):
        if i in by_id:
            for f in by_id[i]['filename']:
                print(os.path.relpath(f, build))


if __name__ == '__main__':
    main(sys.argv)
