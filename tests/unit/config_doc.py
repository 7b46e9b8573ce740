#!/usr/bin/env python3
"""config_doc.py - doc/environment.md's and sbtmark(7)'s environment tables
say what the recorder's configuration table (preload/services/config.h) does.

  config_doc.py CONFIG_TABLE doc/environment.md sbtmark.7

Every variable of the table is documented in both, and nothing documented
there as the recorder's is missing from it; a number's or switch's default
in environment.md is the table's (unless its default is outside its range,
which means 'off': then any words), a text's default is quoted."""
import re
import subprocess
import sys

sys.path.insert(0, __file__.rsplit('/', 2)[0] + '/common')
from sbttest import check, done  # noqa: E402

# documented beside the recorder's, but read by a tool, not the recorder
NOT_RECORDER = {'SBT_LIB'}

tool, readme, man = sys.argv[1:4]
table = {}
for line in subprocess.run([tool], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    f = line.split('\t')
    table[f[0]] = f[1:]
check(len(table) >= 10, 'the table has %d variables' % len(table))

text = open(readme).read()
env = text[text.index('## Environment'):]
end = env.find('\n## ', 5)      # the next section, or the page's end
env = env if end < 0 else env[:end]
rows = {}
for m in re.finditer(r'^\| `(SBT_[A-Z_]+)` \|(.*)\|([^|]*)\|$', env, re.M):
    rows[m.group(1)] = (m.group(2).strip(), m.group(3).strip())
documented = set(rows) - NOT_RECORDER
check(documented == set(table),
      'environment.md: documented %s, not in the table %s' %
      (sorted(set(table) - documented), sorted(documented - set(table))))
for name, f in table.items():
    if name not in rows:
        continue
    default = rows[name][1]
    if f[0] == 'STR':
        ok = (not f[1]) or ('`%s`' % f[1]) in default
    else:
        d, lo = int(f[1]), int(f[2])
        ok = default == str(d) if lo <= d else not default.isdigit()
    check(ok, 'environment.md: %s default %r, the table says %s' %
          (name, default, f[1] if len(f) > 1 else ''))

mant = open(man).read()
sec = mant[mant.index('.SH ENVIRONMENT'):]
sec = sec[:sec.index('\n.SH', 3)]
named = set()
for m in re.finditer(r'^\.TP\n(.*)$', sec, re.M):
    named |= set(re.findall(r'SBT_[A-Z_]+', m.group(1)))
named -= NOT_RECORDER
check(named == set(table), 'sbtmark.7: documented %s, not in the table %s' %
      (sorted(set(table) - named), sorted(named - set(table))))
sys.exit(done())
