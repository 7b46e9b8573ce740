#!/usr/bin/python3
"""sklearn_check.py - cross-check sbt_filter_os against scikit-learn.

Usage: sklearn_check.py OS_DRIVER

For seeds 1, 2, 3, in 1-D (ns) and 2-D (ns, cycles): synthetic data
(skewed jitter plus exactly 1, 2, 3 % OS spikes of +1..+20 us) is written
to a file, scored by our C forest (os_driver, the paper method) and by
scikit-learn's IsolationForest(n_estimators=100, max_samples=256,
contamination='auto').score_samples, and:

  - the two rank points alike: Spearman >= 0.9.  One forest of 100 trees
    ranks the bulk of the points (98 % of them, packed around the mode)
    noisily: sklearn against itself with another seed gives 0.80-0.96 on
    this data.  So the check is on the mean score of 5 forests each (the
    quantity both estimate), and a single forest of ours must agree with
    a single sklearn forest as well as sklearn agrees with itself (within
    0.05);
  - their 1 % most anomalous sets overlap >= 90 % (on the 1 % data: with
    more spikes than 1 %, which of them are "the 1 % most anomalous" is
    itself a coin toss);
  - the paper's beta search, written here again in Python and applied to
    sklearn's scores, flags the same injected points as our C filter does
    (the dropped sets are compared, not the cut values; at most 1 % of the
    injected points may differ).

Exit status 0 when every check holds, 1 otherwise.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.stats import spearmanr
from sklearn.ensemble import IsolationForest

N = 10000
ENSEMBLE = 5
SEEDS = (1, 2, 3)


def make_data(seed):
    rng = np.random.default_rng(seed)
    x = 100 + rng.gamma(2.0, 5.0, N)
    spike = np.zeros(N, bool)
    spike[rng.choice(N, N * seed // 100, replace=False)] = True
    x[spike] += rng.uniform(1000, 20000, spike.sum())
    y = 3.8 * x + rng.exponential(4.0, N)
    return x, y, spike


def beta_search(x, score):
    """The paper's procedure with filter.c's resolutions: cuts
    -0.60, -0.61, ... down to the first cut at or below the lowest score;
    M_k = max x kept (score >= cut); first forward difference > mean;
    drop the points below the cut before that jump.  Returns keep[]."""
    keep = np.ones(len(x), bool)
    if len(x) < 8:
        return keep
    score = score.astype(np.float32).astype(np.float64)
    cuts = []
    k = 0
    while True:
        c = -(60 + k) / 100.0
        cuts.append(c)
        if c <= score.min() or k == 40:
            break
        k += 1
    M = []
    for c in cuts:
        kept = x[score >= c]
        if len(kept):
            M.append((c, kept.max()))
    if len(M) < 2:
        return keep
    vals = np.array([m for _, m in M])
    d = np.diff(vals)
    mean = (vals[-1] - vals[0]) / len(d)
    for i, di in enumerate(d):
        if di > mean:
            return score >= M[i][0]
    return keep


def ours(path, seed, two):
    cmd = [sys.argv[1], '-m', 'paper', '-s', str(seed)]
    cmd += ['-2'] if two else []
    out = subprocess.run(cmd + [path], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    a = np.loadtxt(out[1:], ndmin=2)
    return a[:, 0], a[:, 1] == 1


def sk(X, seed):
    f = IsolationForest(n_estimators=100, max_samples=256,
                        contamination='auto', random_state=seed, n_jobs=1)
    return f.fit(X).score_samples(X)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    os.environ.setdefault('OMP_NUM_THREADS', '1')
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in SEEDS:
            x, y, spike = make_data(seed)
            for two in (False, True):
                X = np.c_[x, y] if two else x[:, None]
                path = os.path.join(tmp, 'd.txt')
                np.savetxt(path, X, fmt='%.17g')
                s_ours, k_ours = ours(path, seed, two)
                s_sk = sk(X, seed)
                o_all = [ours(path, seed * 10 + j, two)[0]
                         for j in range(ENSEMBLE)]
                s_all = [sk(X, seed * 10 + j) for j in range(ENSEMBLE)]
                rho = spearmanr(np.mean(o_all, axis=0),
                                np.mean(s_all, axis=0)).correlation
                rho1 = np.mean([spearmanr(o_all[j], s_all[j]).correlation
                                for j in range(ENSEMBLE)])
                rho_sk = np.mean([spearmanr(s_all[j], s_all[j - 1])
                                  .correlation for j in range(ENSEMBLE)])
                t = N // 100
                top = len(set(np.argsort(s_ours)[:t]) &
                          set(np.argsort(s_sk)[:t])) / t
                k_sk = beta_search(x, s_sk)
                f_ours, f_sk = spike & ~k_ours, spike & ~k_sk
                differ = int((f_ours != f_sk).sum())
                extra_ours = int((~spike & ~k_ours).sum())
                extra_sk = int((~spike & ~k_sk).sum())
                ok = (rho >= 0.9 and rho1 >= rho_sk - 0.05 and
                      (seed != 1 or top >= 0.9) and
                      differ <= spike.sum() // 100)
                print('%s seed %d %dD: spearman mean-of-%d %.4f, one forest '
                      '%.4f (sklearn/sklearn %.4f); top1%% overlap %.3f; '
                      'injected %d flagged ours %d sklearn %d differ %d; '
                      'others dropped ours %d sklearn %d'
                      % ('ok  ' if ok else 'FAIL', seed, 2 if two else 1,
                         ENSEMBLE, rho, rho1, rho_sk, top, spike.sum(),
                         f_ours.sum(), f_sk.sum(), differ, extra_ours,
                         extra_sk))
                bad += not ok
    print('%s: %d failure(s)' % ('FAIL' if bad else 'ok', bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
