#!/usr/bin/python3
"""verdicts.py - verdicts on real recordings, end to end.

Runs the bundled demo under the recorder and checks what holds on any
machine: the region alternating between two workloads (75 % short, 25 %
4x longer) is reported with variation and at least two modes, and its
verdict leads with them; the empty region (a clock read pair, tens of ns)
is found unresolvable, which its verdict says after the findings, never
instead of them.  How many modes and in what shares the analyzer names
is judged on a recording of the same kind of workload stored in the repo
(data/README): exactly two modes, 25 % and 75 % (+- 3 points), at least
the smallest finding apart, the verdict leading with them.  (Live, a
turbulent host adds modes of its own: a third was seen.)

usage: verdicts.py LIBSBTMARK SBT_DEMO SBT_ANALYZE BIMODAL.log.gz
"""
import gzip, json, os, shutil, subprocess, sys, tempfile


def leads(b):
    # findings first: the modes an alarm, after a step or an excursion a
    # busy machine may add
    return any(f["kind"] == "modes" and not f["minor"]
               for f in b["finding_list"])


def report(ana, log, env):
    out = subprocess.run([ana, "--format", "json", "--no-symbols", log],
                         env=env, check=True, capture_output=True, text=True)
    return {r["name"]: r for r in json.loads(out.stdout)["regions"]}


def main():
    lib, demo, ana, stored = (os.path.abspath(a) for a in sys.argv[1:5])
    fails = []
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, LD_PRELOAD=lib, SBT_OUTPUT="demo.log")
        subprocess.run([demo], cwd=d, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        env.pop("LD_PRELOAD")
        regions = report(ana, os.path.join(d, "demo.log"), env)
        log = os.path.join(d, "bimodal.log")
        with gzip.open(stored, "rb") as f, open(log, "wb") as o:
            shutil.copyfileobj(f, o)
        rec = report(ana, log, env)["bimodal"]
    b = regions["bimodal"]
    if not b["variation"] or len(b["modes"]) < 2 or not leads(b):
        fails.append("demo bimodal: want variation, 2 modes or more, the "
                     "verdict leading with them, got %r" % b["verdict"])
    e = regions["empty"]
    if e["resolvable"] is not False:
        fails.append("empty: want unresolvable, got %r" % e["verdict"])
    shares = sorted(m["share"] for m in rec["modes"])
    if not rec["variation"] or len(rec["modes"]) != 2:
        fails.append("recorded bimodal: want variation with 2 modes, got %r"
                     % rec["verdict"])
    elif abs(shares[0] - 0.25) > 0.03 or abs(shares[1] - 0.75) > 0.03:
        fails.append("recorded bimodal: shares %r, want 0.25 / 0.75"
                     % shares)
    elif rec["modes"][1]["center_ns"] - rec["modes"][0]["center_ns"] < \
            rec["min_shift_ns"]:
        fails.append("recorded bimodal: modes closer than the smallest "
                     "finding")
    elif not leads(rec):
        fails.append("recorded bimodal: verdict does not lead with "
                     "findings: %r" % rec["verdict"])
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    print("verdicts: %s" % ("FAILED" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
