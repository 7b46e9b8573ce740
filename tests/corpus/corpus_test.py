#!/usr/bin/python3
"""corpus_test.py - every corpus log judged against its planted truth.

    corpus_test.py CORPUS_DIR BUILD_DIR [--list]

Reads CORPUS_DIR/*/manifest.json (logs recorded on real machines by
tools/corpus.sh, xz-compressed) and the synthetic machines gen_machines
writes into BUILD_DIR (machines no longer at hand, SPEC section 8),
decompresses each log into BUILD_DIR, runs sbt-analyze (SBT_ANALYZE) on it
and checks each expectation the manifest lists for it.  Deterministic:
the analyzer's judgement of a stored log does not depend on the machine
that runs the test.

CORPUS_DIR/known-misses lists the misses known today, one a line:
    MACHINE/LOG | EXPECTATION | cause
A miss not listed fails the test; a listed miss that now passes is printed
so that it is removed (the list may only shrink).  --list prints every
miss in that format, for the list's upkeep.  The corpus must stay under
30 MB, and every manifest must say what tools/corpus.py writes of the
machine (model, cpus, quantum, flags, hypervisor, page-fault cost, TSC
rate) and of each log (a program's repository, commit, build line, input
and threads; a planted cell's truth).

Expectations (what each one would catch):
  found             a planted two-level gap is reported (accuracy.py's
                    judge: two modes that far apart, or a broad spread)
  no-finding        constant work gets no finding of its own
  step-placed       a planted step is reported within 5 % of the run of
                    its place (accuracy.py's judge)
  modes-2           two threads 5 % apart, each 75/25 bimodal: 2 modes,
                    not one per thread and mode
  slow-thread       --by thread names the planted slow thread, by about
                    its planted amount, and no other thread as slower
  nested-contained  every inner sample lies in an outer one of its thread
  excl-nonneg       no region's exclusive time is negative
  omp-counts        OpenMP regions x threads samples, exactly
  barrier-slow-thread  --by thread never calls a thread "slower" at a
                    barrier (the waiter); with a planted slow thread, that
                    thread is named slower in its parallel region
  cpus-exist        no cpu number the machine lacks (manifest: cpus)
  few-samples-unflagged  no region of fewer than 10 samples has a finding
  text-json-same    the text table's class word and size are the JSON's,
                    row by row
  processor-support every processor shift reported has at least 10 probes
                    in its window, is larger than the probes' resolution,
                    and the regions it claims do not disagree
  counts            a real program's exact counts, from its own iteration
                    counts (see count_rules)
  os-faults-named   (synthetic) the kernel's page faults are counted
  ref-steady        (synthetic) the constant region beside the planted one
                    gets no finding of its own, whatever its neighbour and
                    the machine did (a witness lost to its neighbour's step)
  machine-share     (synthetic, a host slowing the VM in windows) each
                    region leaves out as the machine's the share of its
                    calls the host slowed, within 5 points: not a long
                    stretch of its own calls between two slowdowns
"""
import concurrent.futures, csv, glob, json, lzma, os, re, shutil
import subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
import accuracy  # noqa: E402
from sbttest import SANITIZED  # noqa: E402

AN = os.environ.get("SBT_ANALYZE")
MIN_PROBES = 10          # probes in a processor shift's window, at least
FEW = 10                 # samples below which a region is "too few"
MAX_MB = 30              # the whole corpus, at most: test data, not an archive


def run(log, *opts):
    p = subprocess.run([AN, "--no-symbols", *opts, log],
                       capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1) or not p.stdout:
        raise RuntimeError("sbt-analyze %s %s: exit %d: %s" % (
            " ".join(opts), log, p.returncode, p.stderr[-300:]))
    return p.stdout


class Log:
    """One log and its analyses, each run once when first asked for."""

    def __init__(self, machine, entry, path, tmp):
        self.m, self.e, self.path, self.tmp = machine, entry, path, tmp
        self._c = {}

    def json(self, *by):
        k = ("json",) + by
        if k not in self._c:
            opts = ["--format", "json"] + (["--by", by[0]] if by else [])
            self._c[k] = json.loads(run(self.path, *opts))
        return self._c[k]

    def text(self):
        if "text" not in self._c:
            self._c["text"] = run(self.path)
        return self._c["text"]

    def regions(self, *by):
        return self.json(*by)["regions"]

    def region(self, name):
        return next(r for r in self.regions() if r["name"] == name)

    def rows(self):
        if "rows" not in self._c:
            out = self.path + ".csv"
            subprocess.run([AN, "-q", "--filter", "none", "--no-symbols",
                            "--dump", out, self.path], check=True,
                           stdout=subprocess.DEVNULL, timeout=120)
            with open(out) as f:
                rows = [r for r in csv.DictReader(f) if r["probe"] == "0"]
            for r in rows:
                r["t_ns"], r["ns"] = float(r["t_ns"]), float(r["ns"])
            self._c["rows"] = rows
        return self._c["rows"]


# ---- the expectations: (ok, why) ------------------------------------------

def ex_acc(L):
    e = L.e
    r = L.region("acc")
    ok, why = accuracy.judge(None, e["kind"], e["gap_units"] * e["unit_ns"],
                             e["share"], e["planted"], r, L.path, AN)
    if e["kind"] in accuracy.CONTROLS:
        ok = not ok
    return ok, why


def ex_no_finding(L):
    if L.e.get("case") == "acc":
        return ex_acc(L)
    bad = [(r["name"], r["class"] + " " + r["size"]) for r in L.regions()
           if accuracy.code_alarm(r)]
    return not bad, "; ".join("%s: %s" % b for b in bad)[:400]


def ex_ref_steady(L):
    r = L.region("ref")
    return not accuracy.code_alarm(r), "ref: " + r["verdict"][:300]


def ex_machine_share(L):
    """Every region leaves out as the machine's about the share of its
    calls the machine slowed: the slowed ones, not its own beside them."""
    want, bad = L.e["planted"]["slowed"], []
    for r in L.regions():
        got = r["machine_samples"] / r["count"]
        if abs(got - want) > 0.05:
            bad.append("%s %.1f %%" % (r["name"], 100 * got))
    return not bad, "slowed %.1f %% of calls; left out as the machine's: " \
        "%s" % (100 * want, ", ".join(bad) or "all within 5 points")


def ex_modes_2(L):
    r = L.region("work")
    m = r["modes"]
    lo = m[0]["share"] if m else 0
    return (len(m) == 2 and abs(lo - 0.75) <= 0.1,
            "%d modes: %s" % (len(m), r["verdict"][:300]))


def ex_slow_thread(L):
    g = [r for r in L.regions("thread") if r["name"] == "work"]
    # the planted slow thread was created second: the larger tid
    g.sort(key=lambda r: int(r["thread"].split()[-1]))
    slow, rel = g[-1], L.e["planted"]["slow_rel"]
    others = [r for r in g[:-1] if r["flagged"] and r["delta_rel"] > 0]
    return (slow["flagged"] and abs(slow["delta_rel"] - rel) <= 0.02 and
            not others, "slow thread %s %+.1f %% (planted %+.1f %%), "
            "others flagged slower: %d" % (slow["thread"],
                                            100 * slow["delta_rel"],
                                            100 * rel, len(others)))


def uncontained(rows, child, parent, slack=0.2):
    """Samples of child in no sample of parent of the same thread: the
    test of tests/common/sbttest.py, in one pass over sorted intervals
    (a sample's interval: its time plus the recorder's detours in it)."""
    def span(r):
        return r["t_ns"], r["t_ns"] + r["ns"] + float(r.get("detour") or 0)
    by = {}
    for r in rows:
        if r["region"] in (child, parent):
            by.setdefault((r["source"], r["thread"]), []).append(
                (span(r), r["region"] == child))
    bad = 0
    for ev in by.values():
        ev.sort(key=lambda x: (x[0][0], x[1]))   # a parent first
        end = None                  # the latest parent's end so far
        for (a, b), is_child in ev:
            if not is_child:
                end = b if end is None else max(end, b)
            elif end is None or b > end + slack:
                bad += 1
    return bad


def ex_nested(L):
    rows = L.rows()
    n = uncontained(rows, "inner", "outer")
    ni = sum(1 for r in rows if r["region"] == "inner")
    no = sum(1 for r in rows if r["region"] == "outer")
    return n == 0 and ni == no == L.e["planted"]["n"], \
        "%d inner outside outer; %d inner, %d outer" % (n, ni, no)


def ex_excl(L):
    bad = [(r["name"], r["excl_ns"]) for r in L.regions()
           if r["excl_ns"] is not None and r["excl_ns"] < 0]
    return not bad, "negative excl_ns: %s" % bad[:5]


def ex_omp_counts(L):
    p = L.e["planted"]
    want = p["regions"] * p["threads"]
    got = {r["name"].split(" @")[0]: r["count"] for r in L.regions()
           if r["api"] == "openmp"}
    ind = p.get("gomp_calls", p["regions"]) * p["threads"]
    return (got.get("omp parallel") == want == ind and
            got.get("omp barrier") == want, "counts %s, want %d (the "
            "interposer's count: %d)" % (got, want, ind))


def is_barrier(name):
    return name.startswith("omp barrier")


def ex_barrier(L):
    g = L.regions("thread")
    bad = [(r["name"], r["thread"], r["verdict"][:120]) for r in g
           if is_barrier(r["name"]) and r["flagged"] and
           r["delta_rel"] > 0 and
           any(f["kind"] == "group" for f in r["finding_list"])]
    why = "waiters called slower: %s" % bad[:3]
    p = L.e.get("planted") or {}
    if "slow_thread" in p:
        par = [r for r in g if r["name"].startswith("omp parallel") and
               r.get("omp_thread") == p["slow_thread"]]
        named = any(r["flagged"] and r["delta_rel"] > 0 for r in par)
        why += "; slow thread %d named in its parallel region: %s" % (
            p["slow_thread"], named)
        return not bad and named, why
    return not bad, why


def ex_cpus(L):
    n = L.m["cpus"]
    seen = set()
    for r in L.regions("cpu"):
        c = r.get("cpu")
        if c is not None and str(c).isdigit():
            seen.add(int(c))
    d = L.json()
    for s in d["processor"]["shifts"] + d["processor"]["cpu_shifts"]:
        if s.get("cpu") is not None:
            seen.add(int(s["cpu"]))
    for e in d["machine_events"]:
        if e.get("cpu") is not None:
            seen.add(int(e["cpu"]))
    bad = sorted(c for c in seen if c >= n)
    return not bad, "cpus %s on a machine of %d" % (sorted(seen), n)


def ex_few(L):
    bad = [(r["name"], r["count"], r["verdict"][:80]) for r in L.regions()
           if r["count"] < FEW and r["findings"]]
    return not bad, "%d regions of < %d samples with findings: %s" % (
        len(bad), FEW, bad[:2])


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def ex_text_json(L):
    """Row by row, the text table's class word and size are the JSON's
    (at 1000 columns no name or size is cut)."""
    lines = run(L.path, "--width", "1000").splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("region ")
                and " class " in l)
    at = lines[head].index("class")
    rows = []
    for l in lines[head + 1:]:
        if not l.strip():
            break
        rows.append((l, l[at:at + 10].strip(), l[at + 12:]))
    regs = {r["name"]: r for r in L.regions()}
    bad = []
    for line, word, size in rows:
        names = [n for n in regs if line.startswith(n + " ")]
        r = regs[max(names, key=len)] if names else None
        if r is None or word != r["class"] or size != r["size"]:
            bad.append(line[:at].strip())
    if len(rows) != len(regs):
        bad.append("%d rows for %d regions" % (len(rows), len(regs)))
    return not bad, "text rows unlike the JSON's class and size: %s" % bad[:3]


def ex_processor(L):
    p = L.json()["processor"]
    res = p.get("resolution_rel") or 0
    bad = [s for s in p["shifts"] + p["cpu_shifts"]
           if s["probes"] < MIN_PROBES or abs(s["rel"]) <= res or
           s.get("coincidence") == "disagree"]
    return not bad, "%d shifts without support (resolution %.1f %%): %s" % (
        len(bad), 100 * res, ["%+.0f %% %d probes %s" % (
            100 * s["rel"], s["probes"], s.get("coincidence"))
            for s in bad[:3]])


def site(name):
    return name.split(" @ ", 1)[1] if " @ " in name else name


def count_rules(L):
    """A real program's exact counts from its own iteration counts:
    lulesh  every parallel region and barrier runs a whole number of
            times an iteration, the least region once (iterations x
            threads samples), a region's closing barrier as often as it;
    stream  the 4 kernels NTIMES x threads, the others once a thread;
    npb-cg  conj_grad's 25 iterations in each of niter + 1 calls: the
            busiest region (niter + 1) x 25 x threads;
    kokkos  the "yAx" kernel once per repeat;
    and where the manifest has gomp_calls (libgomp's parallel regions
    counted by tests/corpus/gomp_count.c while it was recorded), all
    parallel regions' samples are gomp_calls x threads."""
    e, rs = L.e, L.regions()
    t = e["threads"]
    par = {site(r["name"]): r["count"] for r in rs
           if r["name"].startswith("omp parallel")}
    bar = {site(r["name"]): r["count"] for r in rs if is_barrier(r["name"])}
    rule = e["counts"]
    if "gomp_calls" in e and sum(par.values()) != e["gomp_calls"] * t:
        return False, "parallel samples %d, gomp_count: %d calls x %d" % (
            sum(par.values()), e["gomp_calls"], t)
    # a region's closing barrier at its own site, as often as the region
    # (OMPT also names barriers inside regions at sites of their own)
    same = all(bar.get(s, c) == c for s, c in par.items())
    if rule == "lulesh":
        u = e["output"]["iterations"] * t
        ok = (par and min(par.values()) == u and same and
              all(c % u == 0 for c in list(par.values()) +
                  list(bar.values())))
        return ok, "unit %d; parallel counts %s" % (
            u, sorted(set(par.values())))
    if rule == "stream":
        k = e["ntimes"] * t
        c = sorted(par.values())
        ok = c.count(k) == 4 and all(x in (k, t) for x in c) and same
        return ok, "parallel counts %s, want 4 x %d" % (c, k)
    if rule == "npb-cg":
        k = (e["output"]["iterations"] + 1) * 25 * t
        ok = (par and max(par.values()) == k and
              all(c % t == 0 for c in par.values()) and same)
        return ok, "busiest %d, want %d" % (max(par.values() or [0]), k)
    if rule == "kokkos":
        c = {r["name"]: r["count"] for r in rs}
        return c.get("yAx") == e["nrepeat"], "yAx %s, want %d" % (
            c.get("yAx"), e["nrepeat"])
    return False, "no count rule %r" % rule


def ex_os_faults(L):
    r = L.region(L.e["region"])
    f = (r.get("os") or {}).get("faults", 0)
    return f == L.e["planted"]["faults"], "%s faults, planted %d" % (
        f, L.e["planted"]["faults"])


EXPECT = {
    "found": ex_acc, "step-placed": ex_acc, "no-finding": ex_no_finding,
    "modes-2": ex_modes_2, "slow-thread": ex_slow_thread,
    "nested-contained": ex_nested, "excl-nonneg": ex_excl,
    "omp-counts": ex_omp_counts, "barrier-slow-thread": ex_barrier,
    "cpus-exist": ex_cpus, "few-samples-unflagged": ex_few,
    "text-json-same": ex_text_json, "processor-support": ex_processor,
    "counts": count_rules, "os-faults-named": ex_os_faults,
    "ref-steady": ex_ref_steady, "machine-share": ex_machine_share,
}


# ---- the corpus ------------------------------------------------------------

def machines(corpus, build):
    """(name, manifest, folder of its logs) of every machine."""
    out = []
    for mf in sorted(glob.glob(os.path.join(corpus, "*", "manifest.json"))):
        d = os.path.dirname(mf)
        out.append((os.path.basename(d), json.load(open(mf)), d))
    gen = os.path.join(build, "gen_machines")
    if os.path.exists(gen):
        syn = os.path.join(build, "synthetic")
        shutil.rmtree(syn, ignore_errors=True)
        os.makedirs(syn)
        subprocess.run([gen, syn], check=True, timeout=60)
        for mf in sorted(glob.glob(os.path.join(syn, "*", "manifest.json"))):
            d = os.path.dirname(mf)
            out.append((os.path.basename(d), json.load(open(mf)), d))
    return out


# what a manifest must say of its machine and of each log
MACHINE_KEYS = ("model", "cpus", "quantum_ns", "flags", "hypervisor",
                "page_fault_us", "tsc_ghz")
LOG_KEYS = {"program": ("program", "repo", "commit", "build", "command",
                        "threads", "counts"),
            "acc": ("kind", "share", "gap_units", "unit_ns", "planted")}


def manifest_gaps(name, man):
    """The fields a manifest lacks, as 'machine/log: key' strings."""
    miss = ["%s: machine %s" % (name, k) for k in MACHINE_KEYS
            if k not in man["machine"]]
    for e in man["logs"]:
        for k in ("log", "expect") + LOG_KEYS.get(e.get("case"), ()):
            if k not in e:
                miss.append("%s/%s: %s" % (name, e.get("log"), k))
    return miss


def unpack(src_dir, entry, dst_dir):
    src = os.path.join(src_dir, entry["log"])
    if not src.endswith(".xz"):
        return src
    dst = os.path.join(dst_dir, entry["log"][:-3])
    with lzma.open(src) as f, open(dst, "wb") as g:
        shutil.copyfileobj(f, g)
    return dst


def judge_log(args):
    name, man, d, e, tmp = args
    path = unpack(d, e, tmp)
    L = Log(man["machine"], e, path, tmp)
    out = []
    for x in e["expect"]:
        try:
            ok, why = EXPECT[x](L)
        except Exception as err:   # a broken analysis is a miss, said so
            ok, why = False, "error: %r" % err
        out.append(("%s/%s" % (name, e["log"]), x, bool(ok), why))
    return out


def known(path):
    k = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|", 2)]
            if len(parts) < 3 or not parts[2]:
                sys.exit("known-misses: needs 'LOG | EXPECTATION | cause': "
                         + line)
            k[(parts[0], parts[1])] = parts[2]
    return k


# Under a sanitizer the analyzer's memory is what is judged, and what a
# log's expectations say does not change with the build: every log of a
# kind of its own is judged but LULESH's, one of whose logs (gcc) a
# machine is; of the planted accuracy cases (acc-*, twenty a machine, one
# program) the controls and one two-level case of each condition.  The
# normal build judges them all.  (A sanitized analysis of a LULESH log
# takes seconds where a page fault is dear, its large blocks mapped
# afresh each time: with the five, this test took 111 s alone, 446 s in
# the ASan run; with two, 52 s alone.)


def sanitized_pick(log):
    if log.startswith("lulesh-"):
        return log.startswith("lulesh-gcc.")
    return not log.startswith("acc-") or re.search(
        r"-(control|two-10-0\.5)\.log", log) is not None


def main():
    corpus, build = sys.argv[1], sys.argv[2]
    listing = "--list" in sys.argv
    if not AN:
        sys.exit("SBT_ANALYZE not set (run through meson test)")
    work, fail = [], 0
    for name, man, d in machines(corpus, build):
        for m in manifest_gaps(name, man):
            print("FAIL  manifest lacks %s" % m)
            fail += 1
        tmp = os.path.join(build, "logs", name)
        os.makedirs(tmp, exist_ok=True)
        work += [(name, man, d, e, tmp) for e in man["logs"]
                 if not SANITIZED or sanitized_pick(e["log"])]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        results = [r for rs in ex.map(judge_log, work) for r in rs]
    km = known(os.path.join(corpus, "known-misses"))
    seen = set()
    for log, x, ok, why in results:
        seen.add((log, x))
        listed = (log, x) in km
        if listing and not ok:
            print("%s | %s | %s" % (log, x, km.get((log, x), why)))
            continue
        if ok and listed:
            print("PASSES NOW (remove from known-misses): %s | %s" % (log, x))
        elif ok:
            print("ok    %s | %s" % (log, x))
        elif listed:
            print("known %s | %s: %s" % (log, x, why))
        else:
            print("FAIL  %s | %s: %s" % (log, x, why))
            fail += 1
    judged = set(r[0] for r in results)
    for k in km:
        if k not in seen and (not SANITIZED or k[0] in judged):
            print("known-misses names no such log or expectation: %s | %s"
                  % k)
    size = sum(os.path.getsize(os.path.join(dp, f))
               for dp, _, fs in os.walk(corpus) for f in fs)
    if size > MAX_MB * 1e6:
        print("FAIL  the corpus holds %.1f MB, more than %d MB" % (
            size / 1e6, MAX_MB))
        fail += 1
    n = len(results)
    print("corpus: %.1f MB, %d logs, %d checks, %d pass, %d known misses, "
          "%d new misses" % (
              size / 1e6, len(work), n, sum(r[2] for r in results),
              sum(1 for r in results if not r[2] and (r[0], r[1]) in km),
              fail))
    sys.exit(1 if fail and not listing else 0)


if __name__ == "__main__":
    main()
