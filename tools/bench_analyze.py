#!/usr/bin/python3
"""bench_analyze.py - end-to-end sbt-analyze throughput and memory.

    tools/bench_analyze.py BUILD_DIR [--samples N[,N...]] [--reps R]
                           [--jobs J[,J...]] [--html] [--summary]
                           [--compare] [--cpu C] [--dir DIR]
                           [--args "OPTIONS"] [--symbols] [--damaged]
                           [--ceiling] [--only-extra]
                           [--base BUILD_DIR|SBT_ANALYZE] [--log LOG]

For each N (default 10^7): records a log of N samples with bench-record
under the preload, then runs sbt-analyze on it R times for each job
count J (default: 1 and all cores), runs interleaved, and prints per J
the median wall time, samples/s, and the largest peak resident memory
(bytes per sample and in all), and whether every run's report was the
same (and the base's too).

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
--symbols   call sites at scale: an app starting 20,000 region names
            from one call site, and one with 5,000 call sites (compiled
            now with cc -g -O1): sbt-analyze with symbols and with
            --no-symbols, medians and their ratio
--damaged   the 20,000-name log (4 MB) with 200 bits flipped past its
            header, and cut to half: time to the error against the
            valid log's, and the exit status
--ceiling   also, each rep, J copies of `-j 1` run at once on the log
            (J the last job count): what this machine gives J
            independent analyses at the time, the ceiling of `-j J`'s
            speed-up (a VM's host, memory bandwidth and a co-runner
            take from it); median and the ceiling J x t1 / tJ
--only-extra
            the --symbols and --damaged rows only, no N-sample log
--log LOG   analyze this log instead of recording one (--samples: its
            sample count, for the rates), e.g. one big log across sittings
--base B    another sbt-analyze (B a build directory, or the executable
            itself; e.g. an earlier commit's build) on the same logs,
            interleaved run by run: both medians and their ratio, for
            the N-sample rows and the --symbols / --damaged rows alike
"""
import argparse, hashlib, os, random, statistics, subprocess, sys, \
    tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
MARKERS = os.path.join(HERE, "..", "markers")


def run(cmd, ok=(0,), digests=None, cpu=None):
    """wall seconds and peak RSS (bytes) of one command; with digests (a
    set), the SHA-256 of its output added to it; with cpu (a list), its
    user and kernel cpu seconds appended to it"""
    out = tempfile.TemporaryFile() if digests is not None else None
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out or subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) not in ok:
        sys.exit("failed: " + " ".join(cmd))
    if out:
        out.seek(0)
        digests.add(hashlib.sha256(out.read()).hexdigest())
        out.close()
    if cpu is not None:
        cpu.append((ru.ru_utime, ru.ru_stime))
    return dt, ru.ru_maxrss * 1024


def run_many(cmds):
    """wall seconds of cmds run at once, until the last one ends"""
    t0 = time.perf_counter()
    ps = [subprocess.Popen(c, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) for c in cmds]
    for p in ps:
        if p.wait() != 0:
            sys.exit("failed: " + " ".join(p.args))
    return time.perf_counter() - t0


def exit_of(cmd):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def record(b, d, exe, log):
    env = dict(os.environ, LD_PRELOAD=os.path.join(b, "preload",
                                                   "libsbtmark.so"),
               SBT_OUTPUT=log, SBT_QUIET="1")
    subprocess.run([exe], cwd=d, env=env, check=True)


def apps(d):
    """the 20,000-name and 5,000-site apps, compiled in d"""
    names = os.path.join(HERE, "..", "tests", "report", "src",
                         "many_names.c")
    sites = os.path.join(d, "sites.c")
    with open(sites, "w") as f:
        f.write("#include <sbtmark.h>\nstatic volatile int sink;\n")
        for i in range(5000):
            f.write("__attribute__((noinline)) void f%d(void)\n{\n"
                    "\tsbt_marker_start(\"s%d\");\n\tsink++;\n"
                    "\tsbt_marker_stop(\"s%d\");\n}\n" % (i, i, i))
        f.write("int main(void)\n{\n")
        for i in range(5000):
            f.write("\tf%d();\n" % i)
        f.write("\treturn 0;\n}\n")
    for src, exe in ((names, "names"), (sites, "sites")):
        subprocess.run(["cc", "-g", "-O1", "-DSBT_MARKER", "-I", MARKERS,
                        src, "-o", os.path.join(d, exe)], check=True)


def damage(log, out, flips=200, cut=False):
    data = bytearray(open(log, "rb").read())
    r = random.Random(1)
    for _ in range(flips):
        bit = r.randrange(4096 * 8, len(data) * 8)
        data[bit // 8] ^= 1 << (bit % 8)
    with open(out, "wb") as f:
        f.write(data[:len(data) // 2] if cut else data)


def extra(a, b, d):
    """the --symbols and --damaged rows, medians of a.reps, -j as given"""
    tools = [("", b)] + ([("base ", a.base_dir)] if a.base else [])
    j = str(a.jobs[-1])
    apps(d)
    logs = {}
    for exe in ("names", "sites"):
        logs[exe] = os.path.join(d, exe + ".log")
        record(b, d, os.path.join(d, exe), logs[exe])
    rows = []
    if a.symbols:
        for exe, what in (("names", "20,000 names at one site"),
                          ("sites", "5,000 call sites")):
            for opt in ([], ["--no-symbols"]):
                rows.append((what + (" --no-symbols" if opt else
                                     " symbols"), [*opt, logs[exe]],
                             (0, 1)))
    if a.damaged:
        damage(logs["names"], os.path.join(d, "flip.log"))
        damage(logs["names"], os.path.join(d, "cut.log"), cut=True)
        rows.append(("valid 4 MB log", [logs["names"]], (0,)))
        rows.append(("200 bits flipped",
                     [os.path.join(d, "flip.log")], (0, 1)))
        rows.append(("flipped, cut to half",
                     [os.path.join(d, "cut.log")], (0, 1)))
    t = {(p, r[0]): [] for p, _ in tools for r in rows}
    m = {(p, r[0]): 0 for p, _ in tools for r in rows}
    for _ in range(a.reps):
        for name, args, ok in rows:
            for p, bd in tools:
                ana = os.path.join(bd, "analysis", "sbt-analyze")
                dt, rss = run([ana, "-q", "-j", j, *args], ok=(0, 1, 2))
                t[(p, name)].append(dt)
                m[(p, name)] = max(m[(p, name)], rss)
    print(f"sbt-analyze -j {j}, median of {a.reps} (exit status):")
    for p, bd in tools:
        ana = os.path.join(bd, "analysis", "sbt-analyze")
        for name, args, _ in rows:
            med = statistics.median(t[(p, name)])
            print(f"  {p}{name:40s} {med:7.2f} s  peak RSS "
                  f"{m[(p, name)] / 1e6:5.0f} MB  (exit "
                  f"{exit_of([ana, '-q', *args])})")
        def ratio(x, y):
            return statistics.median(t[(p, x)]) / statistics.median(
                t[(p, y)])
        if a.symbols:
            for w in ("20,000 names at one site", "5,000 call sites"):
                print(f"  {p}{w}: symbols / --no-symbols = "
                      f"{ratio(w + ' symbols', w + ' --no-symbols'):.2f}x")
        if a.damaged:
            for w in ("200 bits flipped", "flipped, cut to half"):
                print(f"  {p}{w} / valid = "
                      f"{ratio(w, 'valid 4 MB log'):.2f}x")


def bench(a, b, n, d):
    pin = ["taskset", "-c", str(a.cpu)] if a.cpu is not None else []
    ana = [os.path.join(b, "analysis", "sbt-analyze"), *a.args.split()]
    log = a.log or os.path.join(d, "big.log")
    env = dict(os.environ, LD_PRELOAD=os.path.join(b, "preload",
                                                   "libsbtmark.so"),
               SBT_OUTPUT=log, SBT_QUIET="1")
    if a.log:
        print("log: %s" % a.log)
    else:
        out = subprocess.run([os.path.join(b, "tools", "bench-record"),
                              str(n)], env=env, check=True,
                             capture_output=True, text=True).stdout
        print(out.strip().splitlines()[0])
    size = os.path.getsize(log)
    times = {j: [] for j in a.jobs}
    cpus = {j: [] for j in a.jobs}      # (user, kernel) seconds a run
    btimes = {j: [] for j in a.jobs}
    brss = {j: 0 for j in a.jobs}
    rss = {j: 0 for j in a.jobs}
    htimes, hsize = [], 0
    ctimes = []                         # --ceiling: J copies at once
    html = os.path.join(d, "report.html")
    outs, bouts = set(), set()          # reports of every run, hashed
    for _ in range(a.reps):
        for j in a.jobs:
            dt, m = run(pin + [*ana, "-q", "--no-symbols", "-j", str(j), log],
                        digests=outs, cpu=cpus[j])
            times[j].append(dt)
            rss[j] = max(rss[j], m)
            if a.base:
                dt, m = run(pin + [a.base, *a.args.split(), "-q",
                                   "--no-symbols", "-j", str(j), log],
                            digests=bouts)
                btimes[j].append(dt)
                brss[j] = max(brss[j], m)
        if a.ceiling and a.jobs[-1] > 1:
            ctimes.append(run_many([pin + [*ana, "-q", "--no-symbols",
                                           "-j", "1", log]] * a.jobs[-1]))
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
        # the kernel's share is mostly fresh pages: where a host backs
        # a guest's memory only as it is touched, it swings run to run
        us, ks = [u for u, _ in cpus[j]], [k for _, k in cpus[j]]
        print(f"         cpu: user {statistics.median(us):.2f} s "
              f"({min(us):.2f}-{max(us):.2f}), kernel "
              f"{statistics.median(ks):.2f} s ({min(ks):.2f}-{max(ks):.2f})")
    for j in a.jobs if a.base else ():
        med, bmed = statistics.median(times[j]), statistics.median(btimes[j])
        print(f"  -j {j}: {med:.2f} s against {bmed:.2f} s for the base "
              f"({med / bmed:.2f}x); peak RSS {rss[j] / 1e6:.0f} against "
              f"{brss[j] / 1e6:.0f} MB")
    print("  report: %s for every -j%s" % (
        "the same" if len(outs) == 1 else "DIFFERENT", "" if not a.base else
        ", %s the base's" % ("and" if outs == bouts else "NOT")))
    if len(a.jobs) > 1:
        m0 = statistics.median(times[a.jobs[0]])
        for j in a.jobs[1:]:
            print(f"  -j {j} vs -j {a.jobs[0]}: "
                  f"{m0 / statistics.median(times[j]):.2f}x faster")
    if ctimes:
        j, t1 = a.jobs[-1], statistics.median(times[1]) if 1 in times \
            else None
        cm = statistics.median(ctimes)
        print(f"  {j} copies of -j 1 at once: {cm:.2f} s" + (
              f" against {t1:.2f} s alone: this machine's ceiling for "
              f"-j {j} is {j * t1 / cm:.2f}x" if t1 else ""))
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
    if not a.log:                       # ours: recorded above
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
    ap.add_argument("--symbols", action="store_true")
    ap.add_argument("--damaged", action="store_true")
    ap.add_argument("--only-extra", action="store_true")
    ap.add_argument("--ceiling", action="store_true")
    ap.add_argument("--base", default=None)
    ap.add_argument("--log", default=None)
    a = ap.parse_args()
    if a.log:
        a.log = os.path.abspath(a.log)
        a.samples = a.samples.split(",")[0]     # one pass, on that log
    a.jobs = [int(j) for j in a.jobs.split(",")]
    b = os.path.abspath(a.build)
    # --base: a build directory or its sbt-analyze
    a.base_dir = a.base and os.path.abspath(a.base)
    if a.base and os.path.isdir(a.base):
        a.base = os.path.join(a.base_dir, "analysis",
                              "sbt-analyze")
    elif a.base:
        a.base = os.path.abspath(a.base)
        a.base_dir = os.path.dirname(os.path.dirname(a.base))
    if a.symbols or a.damaged:
        with tempfile.TemporaryDirectory(dir=a.dir) as d:
            extra(a, b, d)
    if a.only_extra:
        return 0
    for n in (int(float(x)) for x in a.samples.split(",")):
        with tempfile.TemporaryDirectory(dir=a.dir) as d:
            bench(a, b, n, d)


if __name__ == "__main__":
    sys.exit(main())
