#!/usr/bin/python3
"""verdict_cases.py - what the verdict finds, end to end through sbt-analyze,
on synthetic samples given as CSV (known truth, no timing of this machine):

  mode        10^4 samples of a 300 ns region read through a 10 ns clock,
              10 % of them one 100 ns further: two modes with those shares;
              600 ns further (beyond the OS filter's floor): the same, as
              no OS hits 10 % of 300 ns samples; 0.2 % of them 20 us
              longer: dropped as OS noise, no finding;
  step        a step of 4 quanta (300 -> 340 ns) halfway: found there;
  constant    the same without either: no finding;
  ranks       8 groups of a 1 us region, one 2 % slower: that one flagged,
              and 8 identical: none flagged (--by thread);
  machine     three regions slow by 5 % over the same window and a fourth
              shifts alone elsewhere: machine events (the slowdown, the
              recovery) naming the three,
              the fourth's step its own, the three with no finding of
              their own;
              The same output with -j 1 and -j 4.
  majority    the machine's excursion holds most of the run: three
              regions 5 % slower from 2 to 18 of 20 ms, or slow in a
              warm-up to 1 ms and again from 18 ms (a warm-up as slow as
              the machine's last slowdown): no finding, and the region
              keeps the level most of its samples hold (the minority
              left out, never the majority: once no sample was left).
  turbulence  a region steps up 25 % at the instant the host's short
              slowdown of both regions ends (both fall back together: a
              machine event), and a later slowdown passes a level as high
              as the first one's: the step is the region's own, found once
              there, the other region has no finding (a level met in
              passing is no level to come back to);
  lattice     10 % of a region's calls two quanta up, each workload half
              on one tick and half on the next (45, 45, 5, 5 %: no dip):
              two modes 20-30 ns apart, a constant neighbour none, with -j 1
              and -j 4 alike; per thread (--by thread) only the thread
              that has them; --compare of two constant runs: no change;
  bad input   a t_ns or cpu field that is not a number: a clear message
              naming the line, a failing exit status.

usage: verdict_cases.py SBT_ANALYZE
"""
import json, os, random, subprocess, sys, tempfile

Q = 10.0                     # the clock's quantum, ns
fails = []


def read(v, rnd):
    """v ns read through a Q ns clock at a random phase."""
    return Q * int((v + Q * rnd.random()) // Q)


def analyze(ana, rows, *args, cols="region,ns,t_ns,thread,cpu"):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(cols + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
        path = f.name
    try:
        p = subprocess.run([ana, "--input-format", "csv", "--format", "json",
                            *args, path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    return p


def regions(p):
    if p.returncode != 0:
        raise SystemExit("sbt-analyze failed: %s" % p.stderr)
    d = json.loads(p.stdout)
    return d, {(r["name"], r.get("thread")): r for r in d["regions"]}


def check(cond, what, r=None):
    if not cond:
        fails.append(what + (": %r" % r["verdict"] if r else ""))


def one_region(ana, kind, seed):
    rnd = random.Random(seed)
    rows = []
    for i in range(10000):
        v = 300 + rnd.gauss(0, 2)
        if kind == "mode" and rnd.random() < 0.1:
            v += 100
        if kind == "far" and rnd.random() < 0.1:
            v += 600             # beyond the OS filter's floor
        if kind == "os" and rnd.random() < 0.002:
            v += 20000           # interrupts: rare, long
        if kind == "step" and i >= 5000:
            v += 4 * Q
        rows.append(("r", read(v, rnd), 1000.0 * i, 0, 1))
    _, g = regions(analyze(ana, rows))
    return g[("r", None)]


def test_one_region(ana):
    for seed in range(5):
        r = one_region(ana, "constant", seed)
        check(not r["variation"], "constant %d: a finding" % seed, r)
        r = one_region(ana, "mode", seed)
        c = [m["center_ns"] for m in r["modes"]]
        check(r["variation"] and len(c) == 2 and 90 <= c[1] - c[0] <= 110
              and abs(r["modes"][1]["share"] - 0.1) < 0.02,
              "mode %d: want 2 modes 100 ns apart, 10 %%" % seed, r)
        said = [f for f in r["finding_list"] if f["kind"] != "processor"]
        check(said and said[0]["kind"] == "modes" and not said[0]["minor"],
              "mode %d: the verdict does not lead with it" % seed, r)
        r = one_region(ana, "far", seed)
        c = [m["center_ns"] for m in r["modes"]]
        check(len(c) == 2 and 590 <= c[1] - c[0] <= 610 and
              abs(r["modes"][1]["share"] - 0.1) < 0.02,
              "far mode %d: a 10 %% mode is no OS noise" % seed, r)
        r = one_region(ana, "os", seed)
        check(not r["variation"] and r["dropped"] > 0 and
              r["max_ns"] < 1000,
              "os %d: rare interrupts are dropped, no finding" % seed, r)
        r = one_region(ana, "step", seed)
        st = r["steps"]
        check(len(st) == 1 and abs(st[0]["t_ns"] - 5e6) < 2.5e5 and
              30 <= st[0]["to_ns"] - st[0]["from_ns"] <= 50,
              "step %d: want one step of 40 ns at 5 ms" % seed, r)


def test_ranks(ana):
    for slow in (3, None):
        rnd = random.Random(7)
        rows = []
        for t in range(8):
            base = 1000 * (1.02 if t == slow else 1.0)
            for i in range(5000):
                rows.append(("solve", read(base + rnd.gauss(0, 5), rnd),
                             1000.0 * i, t, t))
        d, g = regions(analyze(ana, rows, "--by", "thread"))
        flagged = sorted(int(r["thread"]) for r in d["regions"] if r["flagged"])
        want = [slow] if slow is not None else []
        check(flagged == want, "ranks: flagged %r, want %r" % (flagged, want))
        if slow is not None:
            r = g[("solve", str(slow))]
            check(any(f["kind"] == "group" and not f["minor"]
                      for f in r["finding_list"]) and
                  abs(r["delta_rel"] - 0.02) < 0.005,
                  "ranks: the slow one's verdict", r)


def test_machine(ana):
    rnd = random.Random(11)
    rows = []
    base = {"a": 300, "b": 500, "c": 800, "d": 400}
    for i in range(20000):
        t = 1000.0 * i
        for name, b in base.items():
            v = b + rnd.gauss(0, 1)
            if name != "d" and 8e6 <= t < 12e6:
                v *= 1.05            # the machine, for everyone
            if name == "d" and t >= 15e6:
                v += 40              # d's own step
            rows.append((name, read(v, rnd), t + 250 * "abcd".index(name),
                         0, 1))
    d, g = regions(analyze(ana, rows))
    # one thread or four: the same answer (but for the temporary file name)
    p1, p4 = analyze(ana, rows, "-j", "1"), analyze(ana, rows, "-j", "4")
    check(p1.returncode == 0 and p1.stdout.split("\n", 2)[2] ==
          p4.stdout.split("\n", 2)[2], "machine: -j 1 and -j 4 differ")
    ev = d.get("machine_events", [])
    # the slowdown at 8 ms and the recovery at 12 ms, each seen by a, b, c
    want = [(8, 0.05), (12, -0.05)]
    got = [(e["t_ms"], e["change"], sorted(e["regions"]), e["cpu"])
           for e in ev]
    check(len(got) == 2 and all(
        abs(g[0] - w[0]) < 0.2 and abs(g[1] - w[1]) < 0.015 and
        g[2] == ["a", "b", "c"] and g[3] == 1 for g, w in zip(got, want)),
        "machine: want events at 8 and 12 ms naming a, b, c; got %r" % ev)
    check(not any("d" in e["regions"] for e in ev),
          "machine: d's own step counted as the machine's: %r" % ev)
    for name in "abc":
        r = g[(name, None)]
        check(not r["variation"] and r["machine_changes"] >= 1,
              "machine: %s should have no finding of its own" % name, r)
    r = g[("d", None)]
    check(len(r["steps"]) == 1 and abs(r["steps"][0]["t_ns"] - 15e6) < 3e5,
          "machine: d's own step at 15 ms", r)


def test_machine_majority(ana):
    for kind in ("major", "warm"):
        rnd = random.Random(11)
        rows = []
        base = {"a": 300, "b": 500, "c": 800}
        for i in range(20000):
            t = 1000.0 * i
            for name, b in base.items():
                v = b + rnd.gauss(0, 1)
                if (kind == "major" and 2e6 <= t < 18e6 or
                        kind == "warm" and (t < 1e6 or t >= 18e6)):
                    v *= 1.05
                rows.append((name, read(v, rnd),
                             t + 250 * "abc".index(name), 0, 1))
        d, g = regions(analyze(ana, rows))
        for name, b in base.items():
            r = g[(name, None)]
            own = r["count"] - r["machine_samples"]
            slow = b * 1.05 if kind == "major" else b
            check(r["variation"] is False and own >= 10000 and
                  abs(r["median_ns"] - slow) <= 10,
                  "majority %s: %s should keep its %g ns level and have "
                  "no finding (own samples %d, median %s)" %
                  (kind, name, slow, own, r["median_ns"]), r)


def test_turbulence(ana):
    for seed in range(3):
        rnd = random.Random(50 + seed)
        rows = []
        for i in range(20000):
            t = 1000.0 * i
            a, b = 300.0, 500.0
            if t >= 8.2e6:
                a *= 1.25            # a's own step
            if 8.0e6 <= t < 8.2e6:
                a, b = 300 * 1.45, b * 1.15   # the host: both slow
            if 14.0e6 <= t < 14.2e6:
                a, b = a * 1.16, b * 1.15   # a: 435 ns again
            rows.append(("a", read(a + rnd.gauss(0, 1), rnd), t, 0, 1))
            rows.append(("b", read(b + rnd.gauss(0, 1), rnd), t + 500, 0, 1))
        _, g = regions(analyze(ana, rows))
        r = g[("a", None)]
        st = r["steps"]
        check(len(st) == 1 and abs(st[0]["t_ns"] - 8.2e6) < 3e5 and
              60 <= st[0]["to_ns"] - st[0]["from_ns"] <= 90,
              "turbulence %d: a's own step of 75 ns at 8.2 ms, once" % seed,
              r)
        r = g[("b", None)]
        check(not r["variation"], "turbulence %d: b has no finding" % seed,
              r)


def lattice_rows(rnd, name, gap, thread=0, n=10000):
    return [(name, read(305 + rnd.gauss(0, 0.5) +
                        (20 if gap and rnd.random() < 0.1 else 0), rnd),
             1000.0 * i + 500 * (name == "flat"), thread, 1)
            for i in range(n)]


def two_ticks_up(r):
    c = [m["center_ns"] for m in r["modes"]]
    return (len(c) == 2 and 15 <= c[1] - c[0] <= 35 and
            0.03 <= r["modes"][1]["share"] <= 0.15)


def test_lattice(ana):
    for seed in range(5):
        rnd = random.Random(100 + seed)
        rows = lattice_rows(rnd, "gap", 1) + lattice_rows(rnd, "flat", 0)
        rows.sort(key=lambda r: r[2])
        p1, p4 = analyze(ana, rows, "-j", "1"), analyze(ana, rows, "-j", "4")
        check(p1.returncode == 0 and p1.stdout.split("\n", 2)[2] ==
              p4.stdout.split("\n", 2)[2], "lattice %d: -j 1 and -j 4 "
              "differ" % seed)
        _, g = regions(p4)
        r = g[("gap", None)]
        check(r["variation"] and two_ticks_up(r),
              "lattice %d: want 2 modes 20-30 ns apart" % seed, r)
        r = g[("flat", None)]
        check(not r["variation"], "lattice %d: constant: a finding" % seed,
              r)
    rnd = random.Random(7)
    rows = []
    for t in range(4):
        rows += lattice_rows(rnd, "solve", t == 2, t)
    for j in ("1", "4"):
        d, g = regions(analyze(ana, rows, "--by", "thread", "-j", j))
        for t in range(4):
            r = g[("solve", str(t))]
            check(r["variation"] == (t == 2) and
                  (t != 2 or two_ticks_up(r)),
                  "lattice, --by thread -j %s: thread %d" % (j, t), r)
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for k in range(2):
            path = os.path.join(d, "flat%d.csv" % k)
            with open(path, "w") as f:
                f.write("region,ns,t_ns,thread,cpu\n")
                for r in lattice_rows(random.Random(200 + k), "solve", 0):
                    f.write(",".join(str(x) for x in r) + "\n")
            paths.append(path)
        p = subprocess.run([ana, "--input-format", "csv", "--compare",
                            paths[0], "--", paths[1]], capture_output=True,
                           text=True)
        check(p.returncode == 0 and "no change" in p.stdout,
              "lattice, --compare of two constant runs: %r" % p.stdout)


def test_bad_input(ana):
    for bad, what in ((("r", 300, "soon", 0, 1), "t_ns 'soon'"),
                      (("r", 300, 5, 0, 70000), "cpu '70000'")):
        p = analyze(ana, [("r", 300, 1, 0, 1), bad])
        check(p.returncode != 0 and "line 3" in p.stderr and
              what in p.stderr,
              "bad input: want a message naming line 3 and %s, got %r"
              % (what, p.stderr))


def main():
    ana = os.path.abspath(sys.argv[1])
    test_one_region(ana)
    test_ranks(ana)
    test_machine(ana)
    test_machine_majority(ana)
    test_turbulence(ana)
    test_lattice(ana)
    test_bad_input(ana)
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    print("verdict cases: %s" % ("FAILED" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
