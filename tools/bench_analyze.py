#!/usr/bin/python3
"""bench_analyze.py - end-to-end sbt-analyze throughput and memory.

    tools/bench_analyze.py BUILD_DIR [--samples N[,N...]] [--reps R]
                           [--jobs J[,J...]] [--html] [--summary]
                           [--compare] [--cpu C] [--dir DIR]
                           [--args "OPTIONS"]

For each N (default 10^7): records a log of N samples with bench-record
under the preload, then runs sbt-analyze on it R times for each job
count J (default: 1 and all cores), runs interleaved, and prints per J
the median wall time, samples/s, and the largest peak resident memory
(bytes per sample and in all).

--html      also the same command with --html (one job count), and both
            medians, their ratio and the HTML file's size
--summary   also `sbt-analyze --summary` of the log: its time, the
            summary's size, and the time to analyze the summary
--compare   also a second log of N samples, and interleaved: `sbt-analyze
            LOG LOG2` (analyzing both) against `sbt-analyze --compare LOG
            -- LOG2`, both medians and their ratio (-j: the last given)
--cpu C     pin every run with taskset (then all jobs share one core)
--dir DIR   where the log goes (default: a temporary directory; 10^8
            samples need 3.3 GB)
--args "OPTIONS"
            more sbt-analyze options for every run, e.g. "--max-samples 0"
"""
import argparse, os, statistics, subprocess, sys, tempfile, time


def run(cmd):
    """wall seconds and peak RSS (bytes) of one command"""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: " + " ".join(cmd))
    return dt, ru.ru_maxrss * 1024


def bench(a, b, n, d):
    pin = ["taskset", "-c", str(a.cpu)] if a.cpu is not None else []
    ana = [os.path.join(b, "analysis", "sbt-analyze"), *a.args.split()]
    log = os.path.join(d, "big.log")
    env = dict(os.environ, LD_PRELOAD=os.path.join(b, "preload",
                                                   "libsbtmark.so"),
               SBT_OUTPUT=log, SBT_QUIET="1")
    out = subprocess.run([os.path.join(b, "tools", "bench-record"), str(n)],
                         env=env, check=True, capture_output=True,
                         text=True).stdout
    print(out.strip().splitlines()[0])
    size = os.path.getsize(log)
    times = {j: [] for j in a.jobs}
    rss = {j: 0 for j in a.jobs}
    htimes, hsize = [], 0
    html = os.path.join(d, "report.html")
    for _ in range(a.reps):
        for j in a.jobs:
            dt, m = run(pin + [*ana, "-q", "--no-symbols", "-j", str(j), log])
            times[j].append(dt)
            rss[j] = max(rss[j], m)
        if a.html:
            dt, _ = run(pin + [*ana, "-q", "--no-symbols", "-j",
                               str(a.jobs[-1]), "--html", html, log])
            htimes.append(dt)
            hsize = os.path.getsize(html)
    print(f"sbt-analyze: {n} samples ({size / 1e6:.0f} MB log), "
          f"median of {a.reps}:")
    for j in a.jobs:
        med = statistics.median(times[j])
        print(f"  -j {j}: {med:.2f} s = {n / med / 1e6:.2f} million "
              f"samples/s; peak RSS {rss[j] / 1e6:.0f} MB = "
              f"{rss[j] / n:.1f} bytes/sample")
    if len(a.jobs) > 1:
        m0 = statistics.median(times[a.jobs[0]])
        for j in a.jobs[1:]:
            print(f"  -j {j} vs -j {a.jobs[0]}: "
                  f"{m0 / statistics.median(times[j]):.2f}x faster")
    if a.html:
        med = statistics.median(times[a.jobs[-1]])
        hmed = statistics.median(htimes)
        print(f"  with --html (-j {a.jobs[-1]}): {hmed:.2f} s "
              f"({hmed / med:.2f}x the text report); HTML "
              f"{hsize / 2**20:.2f} MiB")
    if a.compare:
        log2 = os.path.join(d, "big2.log")
        subprocess.run([os.path.join(b, "tools", "bench-record"), str(n)],
                       env=dict(env, SBT_OUTPUT=log2), check=True,
                       capture_output=True)
        both, cmp = [], []
        j = str(a.jobs[-1])
        for _ in range(a.reps):
            both.append(run(pin + [*ana, "-q", "--no-symbols", "-j", j,
                                   log, log2])[0])
            cmp.append(run(pin + [*ana, "-q", "--no-symbols", "-j", j,
                                  "--compare", log, "--", log2])[0])
        mb, mc = statistics.median(both), statistics.median(cmp)
        print(f"  two logs of {n} samples (-j {j}), median of {a.reps}: "
              f"analyzing both {mb:.2f} s, --compare {mc:.2f} s "
              f"({mc / mb:.2f}x)")
        os.unlink(log2)
    if a.summary:
        sb = os.path.join(d, "big.sbts")
        dt, m = run(pin + [*ana, "-q", "--summary", sb, log])
        dt2, m2 = run(pin + [*ana, "-q", "--no-symbols", sb])
        ss = os.path.getsize(sb)
        print(f"  --summary: {dt:.2f} s, {m / 1e6:.0f} MB peak; summary "
              f"{ss / 1e6:.1f} MB ({size / ss:.0f}x smaller than the "
              f"log); analyzing it {dt2:.2f} s, {m2 / 1e6:.0f} MB peak")
        os.unlink(sb)
    os.unlink(log)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--samples", default="10000000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--jobs", default="1,%d" % os.cpu_count())
    ap.add_argument("--html", action="store_true")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--cpu", type=int, default=None)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--args", default="")
    a = ap.parse_args()
    a.jobs = [int(j) for j in a.jobs.split(",")]
    b = os.path.abspath(a.build)
    for n in (int(float(x)) for x in a.samples.split(",")):
        with tempfile.TemporaryDirectory(dir=a.dir) as d:
            bench(a, b, n, d)


if __name__ == "__main__":
    sys.exit(main())
