#!/usr/bin/python3
"""accuracy.py - how often do sbtmark's verdicts find planted variation?

Runs tools/accuracy/acc_app (a ~300 ns region with a known planted gap)
under the recorder, analyzes each log, and prints recall and false alarms
per cell:

  two-level  gaps of 1, 2, 3, 4, 10, 30 units x shares 0.1 and 0.5: found
             when the verdict reports two modes that far apart (or a
             broad spread for gaps the modes merge);
  control    constant work: any finding (mode, step, slow group, broad
             spread) is a false alarm;
  step       the work steps up at 30 % / 70 % of the run: found when a
             step is reported within 5 % of the run of its true place
             (placed by the calls before its time, from --dump: its
             `sample` counts only what the detector saw).
  lone step  the region, alone in its thread (no "ref": only the speed
             probes can tell the processor's changes from its own),
             steps up 8 units at 50 %: found only when exactly one step
             is reported, upward, at 50 +- 5 % - a processor slowdown
             named as a step of the region, or splitting it, is a miss;
  lone control  constant work alone in its thread: any finding is a
             false alarm.
  The lone cells run twice the calls, so that they mark as long as the
             others' two regions do (and hold as many speed probes).

Each condition runs quiet and again loaded: with a busy process on the
same cpu (--load loop, the default), or with a memory-streaming process
(tests/speed/stream, 256 MB copied back and forth) on the other cpu
(--load stream), the co-runner that sets this VM's host slowdowns off.
Two more measurements:

  stability  the in-situ t_diff of identical runs of the constant region:
             median, max/min, in quanta, next to the paper's max-based
             figure (--stability RUNS);
  ranks      8 runs of a 1 us region as ranks 0-7, rank 5 2 % slower, and
             8 identical: which ranks `--by rank` flags (--ranks).

The unit: the clock's quantum (from the log header), but at least 1 % of
the region's time - the method's precision target.  On a 10-20 ns TSC the
quantum is the unit; on a clock with a sub-ns step (seen: 0.87 ns) the
work's own +-1 % jitter is what a planted gap must beat, whatever the
clock.  Never the tool's own t_diff: an inflated t_diff must not make a
miss look excused.

usage: accuracy.py BUILD_DIR [--reps N] [--n SAMPLES] [--cpu C]
                   [--no-load] [--check] [-v] [--keep DIR]
                   [--stability RUNS] [--ranks] [--only KINDS]
                   [--work loop|line] [--load loop|stream]
                   [--analyzer PATH ...] [--save DIR | --from DIR]
  --analyzer: judge every log with each of these sbt-analyze binaries
  (default: BUILD_DIR's), one result column each: the same runs, two
  analyzers.  --save keeps every log (and what was planted) in DIR;
  --from DIR judges such saved logs again without running anything.
  --check: exit 1 unless recall is 100 % for gaps >= 4 units, no control
  raises an alarm and every step is placed within 5 % (quiet and loaded).
"""
import argparse, csv, json, os, platform, shutil, subprocess, sys, tempfile, time

BASE_NS = 300.0
GAPS = [1, 2, 3, 4, 10, 30]
SHARES = [0.1, 0.5]
STEPS = [(4, 0.3), (10, 0.7)]
CONTROLS = ("control", "lonecontrol")     # cells whose findings are alarms


def analyze(exe, log):
    out = subprocess.run([exe, "--format", "json", "--no-symbols",
                          log], check=True, capture_output=True, text=True)
    return next(g for g in json.loads(out.stdout)["regions"]
                if g["name"] == "acc")


def run_one(a, d, mode, gap_ns, share, seed, name=None, n=None):
    """(planted, [one result per analyzer], log).  With --save the log
    stays in a.save as NAME.log, what was planted in NAME.json; with
    --from it is read from there instead of run."""
    if a.from_dir:
        log = os.path.join(a.from_dir, name + ".log")
        with open(os.path.join(a.from_dir, name + ".json")) as f:
            planted = json.load(f)
        return planted, [analyze(x, log) for x in a.analyzers], log
    log = os.path.join(a.save or d, (name or "acc-%d" % seed) + ".log")
    if os.path.exists(log):
        os.unlink(log)
    env = dict(os.environ, LD_PRELOAD=a.lib, SBT_OUTPUT=log, SBT_QUIET="1",
               ACC_WORK=a.work)
    p = subprocess.run(["taskset", "-c", str(a.cpu), a.app, mode,
                        "%.3f" % BASE_NS, "%.3f" % gap_ns, str(share),
                        str(n or a.n), str(seed)], env=env, check=True,
                       capture_output=True, text=True)
    planted = json.loads(p.stdout)
    if a.save:
        with open(os.path.join(a.save, name + ".json"), "w") as f:
            json.dump(planted, f)
    return planted, [analyze(x, log) for x in a.analyzers], log


def share_at(a, log, t_ns, exe):
    """The share of the region's calls that started before t_ns.  A step's
    `sample` counts only the samples its detector saw (those the
    processor or the machine took are left out), so sample / kept places a
    step early by the share left out before it: the calls are counted
    instead, from --dump."""
    d = log + ".csv"
    subprocess.run([exe, "-q", "--no-symbols", "--dump", d, log],
                   check=True, capture_output=True)
    with open(d) as f:
        t = [float(x["t_ns"]) for x in csv.DictReader(f)
             if x["region"] == "acc" and x["probe"] == "0"]
    os.unlink(d)
    return sum(1 for x in t if x < t_ns) / max(len(t), 1)


# The OS's time named (faults, switches) is not a finding of the code's own.
OS_KINDS = {"os_time", "os_spread"}


def code_alarm(r):
    """Whether a region's report alarms on something of the code's own."""
    return any(f.get("alarm") and f["kind"] not in OS_KINDS
               for f in r.get("finding_list", ())) \
        if "finding_list" in r else bool(r["variation"])


def judge(a, kind, gap_ns, share, planted, r, log, exe):
    """(found, why) for a planted cell; for controls found = alarm."""
    if kind in CONTROLS:
        return code_alarm(r), r["verdict"]
    if kind == "lonestep":
        st = r["steps"]
        return (len(st) == 1 and st[0]["to_ns"] > st[0]["from_ns"] and
                abs(share_at(a, log, st[0]["t_ns"], exe) - share) <= 0.05), \
            r["verdict"]
    if kind == "step":
        for s in r["steps"]:
            if (s["to_ns"] > s["from_ns"] and
                    abs(share_at(a, log, s["t_ns"], exe) - share) <= 0.05):
                return True, r["verdict"]
        return False, r["verdict"]
    gap = planted["gap_ns"]
    modes = [m["center_ns"] for m in r["modes"]]
    for i in range(len(modes)):
        for j in range(i + 1, len(modes)):
            if 0.5 * gap <= modes[j] - modes[i] <= 1.6 * gap + r["quantum_ns"]:
                return True, r["verdict"]
    if r["broad"] and not r["steps"]:
        return True, r["verdict"]
    return False, r["verdict"]


def cells():
    """Every planted cell as (kind, gap in units, share); the corpus
    (tools/corpus.py) records the same cells."""
    c = [("control", 0, 0.0)]
    c += [("two", g, s) for g in GAPS for s in SHARES]
    c += [("step", g, s) for g, s in STEPS]
    c += [("lonestep", 8, 0.5), ("lonecontrol", 0, 0.0)]
    return c


def app_mode(kind):
    """acc_app's MODE for a cell's kind."""
    return {"control": "const", "lonestep": "step-alone",
            "lonecontrol": "const-alone"}.get(kind, kind)


def matrix(a, d, unit, loaded):
    todo = cells()
    if a.only:
        todo = [c for c in todo if c[0] in a.only.split(",")]
    rows = []
    seed = 1000 if loaded else 1
    na = len(a.analyzers)
    for kind, g, s in todo:
        hits, whys = [0] * na, [[] for _ in range(na)]
        for _ in range(a.reps):
            seed += 1
            mode = app_mode(kind)
            alone = mode.endswith("-alone")
            name = "%s-%s-%s-%s-%d" % ("loaded" if loaded else "quiet",
                                       kind, g, s, seed)
            planted, rs, log = run_one(a, d, mode, g * unit, s, seed, name,
                                       2 * a.n if alone else a.n)
            for k, (exe, r) in enumerate(zip(a.analyzers, rs)):
                ok, why = judge(a, kind, g * unit, s, planted, r, log, exe)
                if a.keep and ok == (kind in CONTROLS):
                    os.makedirs(a.keep, exist_ok=True)
                    shutil.copy(log, os.path.join(a.keep, name + ".log"))
                hits[k] += ok
                whys[k].append(("%s: " % name if a.verbose else "") + why)
        rows.append((kind, g, s, hits, whys))
    return rows


def stability(a, d, runs):
    """In-situ t_diff (robust, paper's) of identical constant runs."""
    rows = []
    for seed in range(runs):
        _, rs, _ = run_one(a, d, "const", 0, 0, 5000 + seed,
                           "stability-%d" % seed)
        r = rs[0]
        rows.append((r["t_diff_ns"], r["t_diff_paper_ns"], r["quantum_ns"],
                     r["metric_source"]))
    return rows


def ranks(a, d, slow):
    """Which of 8 ranks of a 1 us region `--by rank` flags."""
    logs = []
    for rank in range(8):
        log = os.path.join(d, "rank-%d.log" % rank)
        if os.path.exists(log):
            os.unlink(log)
        env = dict(os.environ, LD_PRELOAD=a.lib, SBT_OUTPUT=log,
                   SBT_QUIET="1", OMPI_COMM_WORLD_RANK=str(rank))
        base = 1000.0 * (1.02 if rank == slow else 1.0)
        subprocess.run(["taskset", "-c", str(a.cpu), a.app, "const",
                        "%.3f" % base, "0", "0", str(a.n), str(rank)],
                       env=env, check=True, capture_output=True)
        logs.append(log)
    out = subprocess.run([a.analyzers[0], "--format", "json", "--no-symbols",
                          "--by", "rank"] + logs, check=True,
                         capture_output=True, text=True)
    return [(int(g["rank"]), g["delta_rel"], g["verdict"])
            for g in json.loads(out.stdout)["regions"]
            if g["name"] == "acc" and g["flagged"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--cpu", type=int, default=os.cpu_count() - 1)
    ap.add_argument("--no-load", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--stability", type=int, default=10, metavar="RUNS")
    ap.add_argument("--ranks", action="store_true")
    ap.add_argument("--only", metavar="KINDS",
                    help="cells of these kinds only: control,two,step,"
                    "lonestep,lonecontrol")
    line_ok = platform.machine() in ("x86_64", "AMD64")
    ap.add_argument("--work", choices=("loop", "line"),
                    default="line" if line_ok else "loop",
                    help="the planted work: straight-line adds entered by "
                    "one indirect jump (the default on x86-64: constant "
                    "work, no branch whose prediction can change its time "
                    "by itself), or a loop of dependent adds (the default "
                    "elsewhere: its own time moves by a clock step now and "
                    "then, a real change a control should not have)")
    ap.add_argument("--load", choices=("loop", "stream"), default="loop",
                    help="the loaded condition's co-runner: a busy shell "
                    "loop on the same cpu, or a memory-streaming process "
                    "on another cpu")
    ap.add_argument("--analyzer", action="append", metavar="PATH",
                    help="judge with this sbt-analyze (repeatable; default "
                    "BUILD_DIR's)")
    ap.add_argument("--save", metavar="DIR",
                    help="keep every log and what was planted in DIR")
    ap.add_argument("--from", dest="from_dir", metavar="DIR",
                    help="judge the logs --save kept in DIR; run nothing")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep the logs of misses and false alarms here")
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    a.app = os.path.join(b, "tools", "acc-app")
    a.lib = os.path.join(b, "preload", "libsbtmark.so")
    a.analyzers = [os.path.abspath(x) for x in a.analyzer or
                   [os.path.join(b, "analysis", "sbt-analyze")]]
    if a.save:
        os.makedirs(a.save, exist_ok=True)
    a.stream = os.path.join(b, "tests", "speed", "stream")
    t0 = time.time()
    tfile = os.path.join(a.from_dir or a.save or "", "timer.json")
    if a.from_dir:
        with open(tfile) as f:
            timer = json.load(f)
        a.work = timer.get("work", a.work)     # what the runs were
        a.load = timer.get("load", a.load)
    else:
        timer = json.loads(subprocess.run(
            ["taskset", "-c", str(a.cpu), a.app, "--timer"], check=True,
            capture_output=True, text=True).stdout)
        timer.update(work=a.work, load=a.load)
        if a.save:
            with open(tfile, "w") as f:
                json.dump(timer, f)
    q = timer["quantum_ns"]
    unit = max(q, 0.01 * BASE_NS)
    print("accuracy: region %.0f ns (%s work), %d samples, %d runs a cell, "
          "cpu %d; clock quantum %.2f ns, unit %.2f ns" %
          (BASE_NS, a.work, a.n, a.reps, a.cpu, q, unit))
    bad = []
    conds = [("quiet", False)] + ([] if a.no_load else [("loaded", True)])
    with tempfile.TemporaryDirectory() as d:
        for name, loaded in conds:
            busy = None
            if a.from_dir:
                pass
            elif loaded and a.load == "stream":
                other = 0 if a.cpu else 1
                busy = subprocess.Popen(["taskset", "-c", str(other),
                                         a.stream])
            elif loaded:
                busy = subprocess.Popen(["taskset", "-c", str(a.cpu), "sh",
                                         "-c", "while :; do :; done"])
            try:
                rows = matrix(a, d, unit, loaded)
            finally:
                if busy:
                    busy.kill()
                    busy.wait()
            print("\n%s%s" % (name, "" if not loaded else
                              " (a busy process on the same cpu)" if
                              a.load == "loop" else
                              " (a memory-streaming process on another "
                              "cpu)"))
            print("  %-11s %6s %6s %6s  %s" % ("cell", "gap", "gap ns",
                                              "share", "result"))
            for kind, g, s, hitl, whyl in rows:
                what = " | ".join(
                    ("false alarms %d/%d" % (h, a.reps)
                     if kind in CONTROLS else
                     "recall %d/%d" % (h, a.reps)) for h in hitl)
                hits, whys = hitl[0], [w for x in whyl for w in x]
                pos = (" at %.0f %%" % (100 * s) if kind in ("step",
                       "lonestep") else "")
                print("  %-11s %6s %6.1f %6s  %s%s" % (
                    kind, g or "-", g * unit, s or "-", what, pos))
                if a.verbose:
                    for w in whys:
                        print("           %s" % w)
                if kind in CONTROLS and hits:
                    bad.append("%s control: %s" % (name, whys))
                elif g >= 4 and hits < a.reps:
                    bad.append("%s %s gap %s share %s: %s" %
                               (name, kind, g, s, whys))
        if a.stability:
            rows = stability(a, d, a.stability)
            rq = sorted(r[0] / r[2] for r in rows)
            pq = sorted(r[1] / r[2] for r in rows)
            print("\nstability: in-situ t_diff of %d identical runs, in "
                  "quanta (%s)" % (len(rows), rows[0][3]))
            print("  robust: %s  median %.1f, max/min %.2f" % (
                " ".join("%.0f" % x for x in rq), rq[len(rq) // 2],
                rq[-1] / rq[0]))
            print("  paper:  %s  median %.1f, max/min %.2f" % (
                " ".join("%.0f" % x for x in pq), pq[len(pq) // 2],
                pq[-1] / pq[0]))
        if a.ranks:
            for slow in (5, None):
                f = ranks(a, d, slow)
                print("\nranks (%s): flagged %s" % (
                    "rank 5 2 %% slower" if slow is not None else
                    "8 identical", [x[0] for x in f] or "none"))
                for rank, rel, v in f:
                    print("  rank %d %+.1f %%: %s" % (rank, 100 * rel,
                                                     v[:150]))
    print("\naccuracy: %.0f s" % (time.time() - t0))
    if a.check:
        for m in bad:
            print("FAIL:", m, file=sys.stderr)
        print("accuracy check: %s" % ("FAILED" if bad else "ok"))
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
