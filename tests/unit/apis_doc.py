#!/usr/bin/env python3
"""apis_doc.py - the interposed APIs' table (each preload/api/api_NAME.c's
descriptor sbt_api_NAME, the list in preload/api/meson.build) and what is
kept beside it agree:

  apis_doc.py SOURCE_ROOT SBT_RUN

- every NAME in meson's `apis` has api_NAME.c defining sbt_api_NAME, and
  no other file defines a descriptor;
- each descriptor's id and name are an entry of SBT_APIS (format/sbtlog.h),
  and every entry there but the recorder's own (sbtmark, internal) has
  one descriptor;
- sbt-run's pattern (references_markers; SBT_RUN, the configured
  script, whose pattern the build fills in from the descriptors) is
  sbtmark's own symbols and the descriptors' symbols, nothing more or
  less;
- format/FORMAT.md's lists of API numbers are SBT_APIS's;
- every variable an API reads (getenv, sbt_cfg) is in its descriptor's
  environment, and every one listed there is read."""
import glob
import os
import re
import sys

sys.path.insert(0, __file__.rsplit('/', 2)[0] + '/common')
from sbttest import check, done  # noqa: E402

root, sbt_run = sys.argv[1:3]
api_dir = os.path.join(root, 'preload', 'api')
OWN = {'SBTMARK', 'INTERNAL'}          # not interposed: the recorder's
OWN_SYMBOLS = {'sbt_marker_'}          # sbtmark's own entry points


def read(*parts):
    return open(os.path.join(root, *parts)).read()


# meson's list
meson = read('preload', 'api', 'meson.build')
m = re.search(r"^apis = \[([^\]]*)\]", meson, re.M)
listed = re.findall(r"'(\w+)'", m.group(1)) if m else []
check(len(listed) >= 5, 'api/meson.build lists %d APIs' % len(listed))

# the descriptors
DESC = re.compile(r'^const struct sbt_api_desc sbt_api_(\w+) = \{(.*?)^\};',
                  re.M | re.S)
FIELD = re.compile(r'\.(\w+) = ("(?:[^"\\]|\\.)*"|\w+)')
desc = {}
code = {}
for path in sorted(glob.glob(os.path.join(api_dir, '*.c'))):
    text = open(path).read()
    code[os.path.basename(path)] = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    for name, body in DESC.findall(text):
        f = dict(FIELD.findall(body))
        f = {k: v.strip('"') for k, v in f.items()}
        f['file'] = os.path.basename(path)
        check(name not in desc, 'sbt_api_%s defined once' % name)
        desc[name] = f
check(sorted(desc) == sorted(listed),
      'descriptors %s are meson\'s apis %s' % (sorted(desc), sorted(listed)))
for name, f in sorted(desc.items()):
    check(f['file'] == 'api_%s.c' % name,
          'sbt_api_%s is defined in api_%s.c (%s)' % (name, name, f['file']))
    check(set(f) >= {'id', 'name', 'symbols', 'env', 'at_exit'},
          'sbt_api_%s sets every field' % name)

# SBT_APIS
h = read('format', 'sbtlog.h')
m = re.search(r'#define SBT_APIS\(X\)((?:.*\\\n)*.*)', h)
entries = re.findall(r'X\((\w+), (\d+), "([^"]+)"\)', m.group(1)) if m else []
apis = {e[0]: (int(e[1]), e[2]) for e in entries}
check(len(apis) >= 7, 'SBT_APIS has %d entries' % len(apis))
ids = {}
for name, f in sorted(desc.items()):
    key = f.get('id', '').replace('SBT_API_', '')
    check(key in apis, 'sbt_api_%s: id %s is in SBT_APIS' % (name, f.get('id')))
    if key in apis:
        check(apis[key][1] == f.get('name'),
              'sbt_api_%s: name "%s" is SBT_APIS\'s "%s"' %
              (name, f.get('name'), apis[key][1]))
    ids.setdefault(key, []).append(name)
for key in sorted(set(apis) - OWN):
    check(len(ids.get(key, [])) == 1,
          'SBT_APIS %s has one descriptor (%s)' % (key, ids.get(key)))
for key in sorted(OWN):
    check(key not in ids, '%s is the recorder\'s own, no descriptor' % key)

# sbt-run's pattern
run = open(sbt_run).read()
m = re.search(r"grep -q -a -E '([^']*)'", run)
pattern = set(m.group(1).split('|')) if m else set()
want = set(OWN_SYMBOLS)
for f in desc.values():
    want |= set(f.get('symbols', '').split('|'))
check(pattern == want,
      'sbt-run looks for the table\'s symbols (missing %s, extra %s)' %
      (sorted(want - pattern), sorted(pattern - want)))

# FORMAT.md: "`api`: 0 sbtmark, 1 LIKWID, ..." and the version notes'
fmt = read('format', 'FORMAT.md')
m = re.search(r'`api`: ((?:\d+ [\w-]+(?:,\s+)?)+)\.', fmt)
doc = [(int(a), b.lower()) for a, b in
       re.findall(r'(\d+) ([\w-]+)', m.group(1))] if m else []
check(sorted(doc) == sorted((v, t) for v, t in apis.values()),
      'FORMAT.md\'s REGION api list is SBT_APIS (%s)' % doc)
by_value = {v: t for v, t in apis.values()}
notes = re.findall(r'^- APIs (.*) in REGION entries\.', fmt, re.M)
check(len(notes) >= 1, 'FORMAT.md notes the APIs a version added')
for line in notes:
    for v, t in re.findall(r'(\d+) `([\w-]+)`', line):
        check(by_value.get(int(v)) == t,
              'FORMAT.md: API %s `%s` is SBT_APIS\'s (%s)' %
              (v, t, by_value.get(int(v))))

# the environment: read in the code <=> listed in a descriptor
read_vars = set()
for text in code.values():
    read_vars |= set(re.findall(r'getenv\("(\w+)"\)', text))
    read_vars |= {'SBT_' + v for v in
                  re.findall(r'sbt_cfg\(SBT_CFG_(\w+)\)', text)}
listed_vars = set()
for f in desc.values():
    listed_vars |= set(f.get('env', '').split())
check(read_vars == listed_vars,
      'the variables the APIs read are their descriptors\' (unlisted %s, '
      'never read %s)' % (sorted(read_vars - listed_vars),
                          sorted(listed_vars - read_vars)))
done()
