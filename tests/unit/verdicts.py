#!/usr/bin/python3
"""verdicts.py - verdicts on real recordings, end to end.

Runs the bundled demo under the recorder and checks sbt-analyze's verdicts:
the region alternating between two workloads (75 % short, 25 % 4x longer)
is reported with variation and two modes with those shares, and its
verdict leads with them; the empty region is found unresolvable, which
its verdict says after the findings, never instead of them.

usage: verdicts.py LIBSBTMARK SBT_DEMO SBT_ANALYZE
"""
import json, os, subprocess, sys, tempfile

def main():
    lib, demo, ana = (os.path.abspath(a) for a in sys.argv[1:4])
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, LD_PRELOAD=lib, SBT_OUTPUT="demo.log")
        subprocess.run([demo], cwd=d, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        env.pop("LD_PRELOAD")
        out = subprocess.run([ana, "--format", "json", "--no-symbols",
                              os.path.join(d, "demo.log")], env=env,
                             check=True, capture_output=True, text=True)
    regions = {r["name"]: r for r in json.loads(out.stdout)["regions"]}
    fails = []
    b = regions["bimodal"]
    shares = sorted(m["share"] for m in b["modes"])
    if not b["variation"] or len(b["modes"]) != 2:
        fails.append("bimodal: want variation with 2 modes, got %r" % b["verdict"])
    elif abs(shares[0] - 0.25) > 0.03 or abs(shares[1] - 0.75) > 0.03:
        fails.append("bimodal: shares %r, want 0.25 / 0.75" % shares)
    elif b["modes"][1]["center_ns"] - b["modes"][0]["center_ns"] < b["min_shift_ns"]:
        fails.append("bimodal: modes closer than the smallest finding")
    elif "2 modes" not in b["verdict"] or b["verdict"].startswith(
            ("no variation", "single samples", "one sample")):
        # findings first: the modes, after a step or an excursion a
        # busy machine may add, never after the precision
        fails.append("bimodal: verdict does not lead with findings: %r"
                     % b["verdict"])
    e = regions["empty"]
    if e["resolvable"] is not False or \
            "cannot be timed to 1 %" not in e["verdict"]:
        fails.append("empty: want unresolvable, got %r" % e["verdict"])
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    print("verdicts: %s" % ("FAILED" if fails else "ok"))
    return 1 if fails else 0

if __name__ == "__main__":
    sys.exit(main())
