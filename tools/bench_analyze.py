#!/usr/bin/python3
"""bench_analyze.py - end-to-end sbt-analyze throughput and memory.

    tools/bench_analyze.py BUILD_DIR [--samples N] [--reps R] [--html]
                           [--cpu C]

Records a log of N samples (default 10^7) with bench-record under the
preload, then runs sbt-analyze on it R times (both filters, statistics,
scoring) and prints the median wall time, samples/s, and the peak
resident memory per sample.

--html: also the same command with --html, interleaved run by run with
the plain one (same log, same cpu), and reports both medians, their
ratio, and the HTML file's size.  --cpu pins every run with taskset.
"""
import argparse, os, resource, statistics, subprocess, sys, tempfile, time

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--samples", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--html", action="store_true")
    ap.add_argument("--cpu", type=int, default=None)
    a = ap.parse_args()
    pin = ["taskset", "-c", str(a.cpu)] if a.cpu is not None else []
    b = os.path.abspath(a.build)
    lib = os.path.join(b, "preload", "libsbtmark.so")
    rec = os.path.join(b, "tools", "bench-record")
    ana = os.path.join(b, "analysis", "sbt-analyze")
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "big.log")
        env = dict(os.environ, LD_PRELOAD=lib, SBT_OUTPUT=log, SBT_QUIET="1")
        out = subprocess.run([rec, str(a.samples)], env=env, check=True,
                             capture_output=True, text=True).stdout
        print(out.strip())
        size = os.path.getsize(log)
        times, htimes, hsize = [], [], 0
        html = os.path.join(d, "report.html")
        for _ in range(a.reps):
            t0 = time.perf_counter()
            subprocess.run(pin + [ana, "--no-symbols", log], check=True,
                           stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
            if a.html:
                t0 = time.perf_counter()
                subprocess.run(pin + [ana, "-q", "--no-symbols", "--html",
                                      html, log], check=True,
                               stdout=subprocess.DEVNULL)
                htimes.append(time.perf_counter() - t0)
                hsize = os.path.getsize(html)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    n = a.samples
    med = statistics.median(times)
    print(f"sbt-analyze: {n} samples ({size / 1e6:.0f} MB log), median of "
          f"{a.reps}: {med:.2f} s = {n / med / 1e6:.2f} million samples/s; "
          f"peak RSS {rss / 1e6:.0f} MB = {rss / n:.0f} bytes/sample")
    if a.html:
        hmed = statistics.median(htimes)
        print(f"with --html: median of {a.reps}: {hmed:.2f} s "
              f"({hmed / med:.2f}x the text report; runs "
              f"{', '.join(f'{t:.2f}' for t in htimes)} s vs "
              f"{', '.join(f'{t:.2f}' for t in times)} s); "
              f"HTML {hsize / 2**20:.2f} MiB")

if __name__ == "__main__":
    sys.exit(main())
