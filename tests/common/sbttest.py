"""sbttest.py - what the Python end-to-end tests share.

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..',
                                    'common'))
    from sbttest import check, within, binomial_sd, done

check() prints one line per assertion and counts the failures; done()
exits 1 when any failed.  within() is the k-sigma test of a random count
(4 sigma: with ten such checks a run, 3 sigma fails by chance in about
3 % of runs, 4 in 0.06 %).
"""
import math, sys

failures = 0


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures += 1


def within(x, mean, sd, k=4):
    return abs(x - mean) <= k * sd


def binomial_sd(n, p):
    return math.sqrt(n * p * (1 - p))


def done():
    print('%d failure(s)' % failures)
    sys.exit(1 if failures else 0)
