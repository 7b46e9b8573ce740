#!/usr/bin/python3
"""bench_filter.py - our filter_os against scikit-learn, side by side.

  bench_filter.py BENCH_FILTER [--n N] [--reps R] [--dims 1|2|both]
      generate N samples (BENCH_FILTER gen), then for each repetition time
      our sbt_filter_os (fit + score + beta search, BENCH_FILTER run) and
      scikit-learn's IsolationForest(n_estimators=100, max_samples=256)
      fit + score_samples on the same file, alternating; print medians
      and the ratio.
  bench_filter.py --sklearn FILE DIMS
      time scikit-learn once on FILE (raw float64 (ns, cycles) pairs).

Both run single-threaded (OMP/BLAS threads 1, n_jobs=1).  Use
/usr/bin/python3 (the Debian scikit-learn).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ[v] = '1'


def sklearn_once(path, dims):
    import numpy as np
    from sklearn.ensemble import IsolationForest
    X = np.fromfile(path, dtype='<f8').reshape(-1, 2)[:, :dims].copy()
    t0 = time.perf_counter()
    f = IsolationForest(n_estimators=100, max_samples=256,
                        contamination='auto', random_state=1, n_jobs=1)
    f.fit(X)
    f.score_samples(X)
    return time.perf_counter() - t0


def main(argv):
    if len(argv) == 4 and argv[1] == '--sklearn':
        print('seconds %.6f' % sklearn_once(argv[2], int(argv[3])))
        return 0
    if len(argv) < 2 or argv[1].startswith('-'):
        print(__doc__)
        return 2
    bench, n, reps, dims = argv[1], 10**6, 3, 'both'
    args = argv[2:]
    while args:
        k, v = args[0], args[1]
        args = args[2:]
        if k == '--n':
            n = int(v)
        elif k == '--reps':
            reps = int(v)
        elif k == '--dims':
            dims = v
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'samples.f64')
        subprocess.run([bench, 'gen', str(n), path], check=True)
        for d in ((1, 2) if dims == 'both' else (int(dims),)):
            ours, sk = [], []
            for r in range(reps):
                out = subprocess.run([bench, 'run'] + (['-2'] if d == 2
                                                       else []) +
                                     [path, '1'], check=True,
                                     capture_output=True, text=True).stdout
                ours.append(float(out.split()[1]))
                sk.append(float(subprocess.run(
                    [sys.executable, __file__, '--sklearn', path, str(d)],
                    check=True, capture_output=True,
                    text=True).stdout.split()[1]))
                print('  %dD rep %d: ours %.4f s  sklearn %.3f s  (%s)'
                      % (d, r + 1, ours[-1], sk[-1], out.strip()))
            mo, ms = statistics.median(ours), statistics.median(sk)
            print('%dD n=%d: median ours %.4f s, sklearn %.3f s, '
                  'ratio %.1fx' % (d, n, mo, ms, ms / mo))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
