#!/usr/bin/python3
"""bench_analyze.py - end-to-end sbt-analyze throughput and memory.

    tools/bench_analyze.py BUILD_DIR [--samples N] [--reps R]

Records a log of N samples (default 10^7) with bench-record under the
preload, then runs sbt-analyze on it R times (both filters, statistics,
scoring) and prints the median wall time, samples/s, and the peak
resident memory per sample.
"""
import argparse, os, resource, statistics, subprocess, sys, tempfile, time

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--samples", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
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
        times = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            subprocess.run([ana, "--no-symbols", log], check=True,
                           stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    n = a.samples
    med = statistics.median(times)
    print(f"sbt-analyze: {n} samples ({size / 1e6:.0f} MB log), median of "
          f"{a.reps}: {med:.2f} s = {n / med / 1e6:.2f} million samples/s; "
          f"peak RSS {rss / 1e6:.0f} MB = {rss / n:.0f} bytes/sample")

if __name__ == "__main__":
    sys.exit(main())
