#!/usr/bin/python3
"""golden.py - golden JSON and CSV of a synthetic log (gen_log).

    golden.py GEN_LOG GOLDEN_FILE        (SBT_ANALYZE from the env)

Writes the log, runs sbt-analyze --filter none in JSON and CSV, ungrouped
and --by thread, and compares the structural fields (what the log holds
and how the reports lay it out: sources, counts, exact statistics of the
unfiltered samples, call sites with their stacks, the CSV's columns)
with GOLDEN_FILE.  Verdict wording and scores are not compared: they are
the analysis's, and change with it.  SBT_GOLDEN_UPDATE=1 rewrites the
golden file instead (review the diff).
"""
import csv, io, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
import sbttest  # noqa: E402

SRC = ('path', 'csv', 'pid', 'rank', 'threads', 'truncated', 'cycles',
       'host', 'exe', 'cpu_model', 'tick_ghz', 'quantum_ns', 'te_ns',
       'te_p50_ns', 'te_p999_ns', 'kernel_entry_ns', 'counters')
REG = ('name', 'api', 'thread', 'count', 'kept', 'dropped', 'migrated',
       'probes', 'te_ns', 'min_ns', 'median_ns', 'mean_ns', 'max_ns',
       'p99_ns', 'quantum_ns', 'callsites', 'total_ns', 'excl_ns', 'nested')
CSV = ('region', 'api', 'thread', 'count', 'kept', 'dropped', 'min_ns',
       'median_ns', 'max_ns', 'callsites', 'total_ns', 'excl_ns')


def analyze(log, *args):
    return sbttest.analyze(log, '--filter', 'none', *args, codes=(0,),
                           cwd=os.path.dirname(log))


def project_json(text):
    d = json.loads(text)
    src = [{k: s[k] for k in SRC} for s in d['sources']]
    for s in src:
        s['path'] = os.path.basename(s['path'])   # a temporary folder
    return {'sources': src,
            'callsite_notes': d['callsite_notes'],
            'regions': [{k: r[k] for k in REG if k in r}
                        for r in d['regions']]}


def project_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    head = rows[0]
    out = {'columns': head, 'rows': []}
    for r in rows[1:]:
        row = dict(zip(head, r))
        if len(r) != len(head):
            sys.exit('FAIL: CSV row of %d cells, header %d' % (len(r),
                                                              len(head)))
        row['callsites'] = json.loads(row['callsites'])
        out['rows'].append({k: row[k] for k in CSV if k in row})
    return out


def main():
    gen, golden = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, 'synth.log')
        subprocess.run([gen, log], check=True)
        got = {
            'json': project_json(analyze(log, '--format', 'json')),
            'json_by_thread': project_json(analyze(log, '--format', 'json',
                                                   '--by', 'thread')),
            'csv': project_csv(analyze(log, '--format', 'csv')),
            'csv_by_thread': project_csv(analyze(log, '--format', 'csv',
                                                 '--by', 'thread')),
        }
    # CSV's callsites cell is the JSON report's array
    for a, b in (('json', 'csv'), ('json_by_thread', 'csv_by_thread')):
        if [r['callsites'] for r in got[a]['regions']] != \
                [r['callsites'] for r in got[b]['rows']]:
            sys.exit('FAIL: %s and %s call sites differ' % (a, b))
    text = json.dumps(got, indent=1, sort_keys=True) + '\n'
    if os.environ.get('SBT_GOLDEN_UPDATE') == '1':
        open(golden, 'w').write(text)
        print('golden: rewrote %s' % golden)
        return 0
    want = open(golden).read()
    if text != want:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            want.splitlines(True), text.splitlines(True), 'golden', 'now'))
        sys.exit('FAIL: output differs from %s' % golden)
    print('golden: JSON and CSV match')
    return 0


if __name__ == '__main__':
    sys.exit(main())
