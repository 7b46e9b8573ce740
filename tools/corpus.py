#!/usr/bin/python3
"""corpus.py - record this machine's set of corpus logs (tools/corpus.sh).

  corpus.py BUILD_DIR [--name NAME] [--programs SRC] [--cpu C] [--n N]
            [--only acc,apps,programs] [--note TEXT]

Writes into corpus/NAME/ (default NAME: vendor, CPU family and model,
hypervisor, date; e.g. amd-f25m17-kvm-20261127): every case's log, xz-compressed,
and manifest.json: the machine (lscpu model, family/model, the CPUID flags
that matter, kernel, hypervisor, cpus, clock quantum, TSC rate, page-fault
cost, load, date) and per log what was planted, how it was run and what
the suite expects of it (tests/corpus/corpus_test.py judges them).

Cases (the planted truth is each app's own):
  acc-*      tools/accuracy.py's cells, one run each (its cell list and
             units; gaps below 2 units left out): constant, two levels,
             steps, the lone step and the lone control; quiet, then the
             control and one two-level cell again under a busy loop on the
             same cpu and under a memory-streaming process on the other
  acc-quiet-control-loop  the control with loop work (dependent adds in
             a loop) instead of straight-line adds
  threads, nested  tests/corpus/corpus_app.c
  omp-slow   tests/corpus/omp_slow.c: 2 OpenMP threads, thread 1 20 %
             slower (libgomp, its entry points interposed)
  programs   with --programs SRC (folders LULESH, STREAM, NPB3.0-omp-C,
             kokkos-tutorials: clones, or archives with a .commit file):
             each built in a temporary folder with the line the manifest
             keeps, run under sbt-run on 2 threads with a small input.
"""
import argparse, json, lzma, os, platform, re, shutil, subprocess, sys
import tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import accuracy  # noqa: E402  (its cells, units and modes)

LOADED = [("control", 0, 0.0), ("two", 10, 0.5)]   # under each co-runner
MIN_GAP = 2                      # units: below, the method promises nothing


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kw).stdout


def cpuinfo_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def lscpu():
    out = {}
    for line in sh(["lscpu"]).splitlines():
        k, _, v = line.partition(":")
        out[k.strip()] = v.strip()
    return out


def hypervisor(l, fl):
    """The hypervisor's name in lscpu's words, or "none" on bare metal.
    lscpu names no vendor on some KVM guests (Firecracker's), whose CPU
    flags still say "hypervisor": there the guest's clock sources tell."""
    if l.get("Hypervisor vendor"):
        return l["Hypervisor vendor"]
    if "hypervisor" not in fl:
        return "none"
    try:
        with open("/sys/hypervisor/type") as f:
            return f.read().strip().upper() or "guest"
    except OSError:
        pass
    try:
        with open("/sys/devices/system/clocksource/clocksource0/"
                  "available_clocksource") as f:
            src = f.read().split()
    except OSError:
        src = []
    for clock, name in (("kvm-clock", "KVM"), ("hyperv_clocksource_tsc_page",
                                               "Microsoft"),
                        ("xen", "XEN")):
        if clock in src:
            return name
    return "guest"


def machine(a):
    """What the manifest says of this machine (before the runs)."""
    l = lscpu()
    fl = cpuinfo_flags()
    timer = json.loads(sh(["taskset", "-c", str(a.cpu), a.acc_app,
                           "--timer"]))
    pf = json.loads(sh([a.corpus_app, "pagefault", "4096"]))
    return {
        "model": l.get("Model name"), "family": l.get("CPU family"),
        "model_number": l.get("Model"), "stepping": l.get("Stepping"),
        "vendor": l.get("Vendor ID"),
        "hypervisor": hypervisor(l, fl),
        "virtualization": l.get("Virtualization type"),
        "cpus": os.cpu_count(), "arch": platform.machine(),
        "flags": {f: f in fl for f in ("rdtscp", "constant_tsc",
                                       "nonstop_tsc", "tsc_known_freq",
                                       "hypervisor")},
        "kernel": platform.release(),
        "quantum_ns": timer["quantum_ns"],
        "bare_spread_ns": timer["bare_spread_ns"],
        "page_fault_us": pf["page_fault_us"],
        "page_fault_note": pf["note"],
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_before": open("/proc/loadavg").read().split()[:3],
        "note": a.note,
    }


def store(log, out_dir, name):
    """log compressed into out_dir/name.log.xz; the plain log removed."""
    dst = os.path.join(out_dir, name + ".log.xz")
    with open(log, "rb") as f, lzma.open(dst, "wb", preset=9) as g:
        shutil.copyfileobj(f, g)
    os.unlink(log)
    return os.path.basename(dst)


def preload_env(a, log, **extra):
    env = dict(os.environ, LD_PRELOAD=a.lib, SBT_OUTPUT=log, SBT_QUIET="1")
    for v in ("SBT_SAMPLE", "SBT_MAX_MB", "SBT_LOG_MAX_MB", "SBT_EVENTS"):
        env.pop(v, None)
    env.update(extra)
    return env


class CoRunner:
    """A busy loop on cpu (`loop`) or a memory-streaming process on
    another cpu (`stream`) while the block runs; killed by its pid."""

    def __init__(self, a, kind):
        self.a, self.kind, self.p = a, kind, None

    def __enter__(self):
        if self.kind == "busy":
            cmd = ["taskset", "-c", str(self.a.cpu), "sh", "-c",
                   "while :; do :; done"]
        elif self.kind == "stream":
            cmd = ["taskset", "-c", str(0 if self.a.cpu else 1),
                   self.a.stream]
        else:
            return self
        self.p = subprocess.Popen(cmd)
        time.sleep(0.5)                 # the stream's first pass over memory
        return self

    def __exit__(self, *exc):
        if self.p:
            self.p.kill()
            self.p.wait()


def acc_cases(a, unit):
    """(name, cond, kind, gap units, share, work): the accuracy cells."""
    out = []
    for kind, g, s in accuracy.cells():
        if kind == "two" and g < MIN_GAP:
            continue
        out.append(("quiet", kind, g, s, "line"))
    out.append(("quiet", "control", 0, 0.0, "loop"))
    for cond in ("busy", "stream"):
        for kind, g, s in LOADED:
            out.append((cond, kind, g, s, "line"))
    return out


def record_acc(a, out_dir, unit, seed0=1):
    logs = []
    seed = seed0
    for cond, kind, g, s, work in acc_cases(a, unit):
        seed += 1
        mode = accuracy.app_mode(kind)
        n = 2 * a.n if mode.endswith("-alone") else a.n
        name = "acc-%s-%s" % (cond, kind)
        if kind in ("two", "step"):
            name += "-%s-%s" % (g, s)
        if work != "line":
            name += "-" + work
        log = os.path.join(a.tmp, name + ".log")
        argv = ["taskset", "-c", str(a.cpu), a.acc_app, mode,
                "%.3f" % accuracy.BASE_NS, "%.3f" % (g * unit), str(s),
                str(n), str(seed)]
        with CoRunner(a, cond):
            planted = json.loads(sh(argv, env=preload_env(
                a, log, ACC_WORK=work)))
        logs.append({
            "log": store(log, out_dir, name), "case": "acc",
            "kind": kind, "gap_units": g, "share": s, "unit_ns": unit,
            "work": work, "co_runner": cond, "planted": planted,
            "command": "ACC_WORK=%s %s" % (work, " ".join(
                ["taskset", "-c", str(a.cpu), "acc-app"] + argv[4:])),
            "expect": expect_acc(kind)})
        print("corpus: %s" % name, flush=True)
    return logs


def expect_acc(kind):
    if kind in accuracy.CONTROLS:
        return ["no-finding"]
    if kind in ("step", "lonestep"):
        return ["step-placed"]
    return ["found"]


def record_apps(a, out_dir):
    logs = []
    for case, n, pin in (("threads", 20000, False), ("nested", 20000, True)):
        log = os.path.join(a.tmp, case + ".log")
        argv = ([a.corpus_app, case, str(n)] if not pin else
                ["taskset", "-c", str(a.cpu), a.corpus_app, case, str(n)])
        planted = json.loads(sh(argv, env=preload_env(a, log)))
        exp = (["modes-2", "slow-thread"] if case == "threads" else
               ["no-finding", "nested-contained", "excl-nonneg"])
        logs.append({"log": store(log, out_dir, case), "case": case,
                     "planted": planted,
                     "command": " ".join(["corpus_app"] + argv[-2:]),
                     "expect": exp})
        print("corpus: %s" % case, flush=True)
    if a.omp_slow:
        log = os.path.join(a.tmp, "omp-slow.log")
        count = os.path.join(a.tmp, "omp-slow.gomp")
        planted = json.loads(sh([a.sbt_run, "-q", "-o", log, "--",
                                 a.omp_slow, "500"],
                                env=dict(os.environ, OMP_NUM_THREADS="2",
                                         LD_PRELOAD=a.gomp_count,
                                         GOMP_COUNT_OUT=count)))
        planted["gomp_calls"] = gomp_calls(count)
        logs.append({"log": store(log, out_dir, "omp-slow"),
                     "case": "omp-slow", "planted": planted,
                     "command": "OMP_NUM_THREADS=2 sbt-run -- omp_slow 500",
                     "expect": ["omp-counts", "barrier-slow-thread",
                                "excl-nonneg", "cpus-exist",
                                "text-json-same"]})
        print("corpus: omp-slow", flush=True)
    return logs


# The real programs: folder under --programs, repository, build lines
# (run in a copy of the folder), the binary, its arguments, and the rule
# of its exact counts (tests/corpus/corpus_test.py).  Small inputs: each
# log compresses to well under a few MB.
PROGRAMS = [
    {"name": "lulesh-gcc", "program": "LULESH 2.0", "dir": "LULESH",
     "repo": "https://github.com/LLNL/LULESH",
     "build": ["make CXX='g++ -DUSE_MPI=0'"], "exe": "lulesh2.0",
     "args": ["-s", "8", "-i", "50"], "gomp": True, "counts": "lulesh"},
    {"name": "lulesh-clang", "program": "LULESH 2.0", "dir": "LULESH",
     "repo": "https://github.com/LLNL/LULESH",
     "build": ["make CXX='clang++ -DUSE_MPI=0'"], "exe": "lulesh2.0",
     "args": ["-s", "8", "-i", "50"], "counts": "lulesh"},
    {"name": "stream", "program": "STREAM", "dir": "STREAM",
     "repo": "https://github.com/jeffhammond/STREAM",
     "build": ["gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=2000000 -DNTIMES=20 "
               "stream.c -o stream"], "exe": "stream", "args": [],
     "gomp": True, "counts": "stream", "ntimes": 20},
    {"name": "npb-cg-s", "program": "NPB 3.0 OpenMP C, CG class S",
     "dir": "NPB3.0-omp-C",
     "repo": "https://github.com/benchmark-subsetting/NPB3.0-omp-C",
     "build": ["sed -e 's/^CC = cc/CC = gcc -fopenmp/' "
               "-e 's/^CLINK\\t= cc/CLINK\\t= gcc -fopenmp/' "
               "-e 's/^CFLAGS\\t= -O3 /CFLAGS\\t= -O3 -mcmodel=medium/' "
               "-e 's/^C_LIB  =/C_LIB  = -lm/' "
               "config/make.def.template > config/make.def",
               "mkdir -p bin", "make CG CLASS=S"], "exe": "bin/cg.S",
     "args": [], "gomp": True, "counts": "npb-cg"},
    {"name": "kokkos-ex4", "program": "Kokkos tutorial Exercise 04 "
     "(Solution), Debian's Kokkos 3.4", "dir": "kokkos-tutorials",
     "repo": "https://github.com/kokkos/kokkos-tutorials",
     "build": ["cd Exercises/04/Solution && g++ -O3 -std=c++14 -isystem "
               "/usr/include/trilinos exercise_4_solution.cpp -o ex4 "
               "-ltrilinos_kokkoscontainers -ltrilinos_kokkoscore -ldl"],
     "exe": "Exercises/04/Solution/ex4",
     "args": ["-S", "20", "-nrepeat", "100"], "counts": "kokkos",
     "nrepeat": 100},
]
PROGRAM_EXPECT = ["counts", "cpus-exist", "few-samples-unflagged",
                  "excl-nonneg", "text-json-same", "barrier-slow-thread",
                  "processor-support"]


def commit_of(src):
    try:
        return sh(["git", "-C", src, "rev-parse", "HEAD"]).strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        p = os.path.join(src, ".commit")
        return open(p).read().strip() if os.path.exists(p) else "unknown"


def record_programs(a, out_dir):
    logs = []
    for p in PROGRAMS:
        src = os.path.join(a.programs, p["dir"])
        if not os.path.isdir(src):
            print("corpus: %s: no %s, skipped" % (p["name"], src))
            continue
        work = os.path.join(a.tmp, p["name"])
        shutil.copytree(src, work, ignore=shutil.ignore_patterns(".git"))
        for line in p["build"]:
            subprocess.run(line, shell=True, cwd=work, check=True,
                           capture_output=True)
        log = os.path.join(a.tmp, p["name"] + ".log")
        env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false")
        count = os.path.join(a.tmp, p["name"] + ".gomp")
        if p.get("gomp"):       # an independent count of its regions
            env.update(LD_PRELOAD=a.gomp_count, GOMP_COUNT_OUT=count)
        t0 = time.time()
        r = subprocess.run([a.sbt_run, "-q", "-o", log, "--",
                            os.path.join(work, p["exe"])] + p["args"],
                           cwd=work, capture_output=True, text=True,
                           env=env)
        wall = time.time() - t0
        if r.returncode:
            sys.exit("corpus: %s exited %d: %s" % (p["name"], r.returncode,
                                                   r.stderr[-500:]))
        e = {"log": store(log, out_dir, p["name"]), "case": "program",
             "program": p["program"], "repo": p["repo"],
             "commit": commit_of(src), "build": p["build"],
             "command": "OMP_NUM_THREADS=2 sbt-run -- %s %s" % (
                 p["exe"], " ".join(p["args"])),
             "threads": 2, "counts": p["counts"],
             "wall_s": round(wall, 2), "expect": PROGRAM_EXPECT,
             "output": program_facts(p, r.stdout)}
        if p.get("gomp"):
            e["gomp_calls"] = gomp_calls(count)
        for k in ("ntimes", "nrepeat"):
            if k in p:
                e[k] = p[k]
        logs.append(e)
        shutil.rmtree(work)
        print("corpus: %s (%.1f s)" % (p["name"], wall), flush=True)
    return logs


def gomp_calls(path):
    """Parallel regions started, by tests/corpus/gomp_count.c's lines."""
    n = 0
    if os.path.exists(path):
        for line in open(path):
            n += sum(v for k, v in json.loads(line).items()
                     if k.startswith("GOMP_parallel"))
    return n


def program_facts(p, out):
    """What the program's own output says of its iteration counts."""
    f = {}
    m = re.search(r"Iteration count\s*=\s*(\d+)", out)
    if m:
        f["iterations"] = int(m.group(1))
    m = re.search(r"Iterations\s*=\s*(\d+)", out)
    if m:
        f["iterations"] = int(m.group(1))
    m = re.search(r"Verification\s*=\s*(\w+)", out)
    if m:
        f["verification"] = m.group(1)
    m = re.search(r"Solution Validates", out)
    if m:
        f["verification"] = "SUCCESSFUL"
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--name")
    ap.add_argument("--programs", metavar="SRC")
    ap.add_argument("--cpu", type=int, default=os.cpu_count() - 1)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--only", default="acc,apps,programs")
    ap.add_argument("--note", default="")
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    a.acc_app = os.path.join(b, "tools", "acc-app")
    a.lib = os.path.join(b, "preload", "libsbtmark.so")
    a.sbt_run = os.path.join(b, "tools", "sbt-run")
    a.stream = os.path.join(b, "tests", "speed", "stream")
    a.corpus_app = os.path.join(b, "tests", "corpus", "corpus_app")
    a.omp_slow = os.path.join(b, "tests", "corpus", "omp_slow")
    a.gomp_count = os.path.join(b, "tests", "corpus", "gomp_count.so")
    if not os.path.exists(a.omp_slow):
        a.omp_slow = None
    a.out = os.path.join(os.path.dirname(HERE), "corpus",
                         a.name or default_name())
    os.makedirs(a.out, exist_ok=True)
    mpath = os.path.join(a.out, "manifest.json")
    old = json.load(open(mpath)) if os.path.exists(mpath) else {}
    only = a.only.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        a.tmp = tmp
        m = machine(a)
        unit = max(m["quantum_ns"], 0.01 * accuracy.BASE_NS)
        logs = []
        if "acc" in only:
            logs += record_acc(a, a.out, unit)
        if "apps" in only:
            logs += record_apps(a, a.out)
        if "programs" in only and a.programs:
            logs += record_programs(a, a.out)
    m["load_after"] = open("/proc/loadavg").read().split()[:3]
    m["sbtmark"] = sh(["git", "-C", os.path.dirname(HERE), "rev-parse",
                       "--short", "HEAD"]).strip()
    keep = [x for x in old.get("logs", [])
            if x["log"] not in {y["log"] for y in logs}]
    man = {"machine": m, "logs": keep + logs}
    if old.get("machine") and set(only) != {"acc", "apps", "programs"}:
        man["machine"] = old["machine"]
        man["machine"].setdefault("later_runs", []).append(
            {k: m[k] for k in ("date", "load_before", "load_after",
                               "sbtmark", "note")} | {"only": a.only})
    with open(mpath, "w") as f:
        json.dump(man, f, indent=1, sort_keys=True)
        f.write("\n")
    tsc = tick_ghz(a, man)
    if tsc:
        man["machine"]["tsc_ghz"] = tsc
        with open(mpath, "w") as f:
            json.dump(man, f, indent=1, sort_keys=True)
            f.write("\n")
    size = sum(os.path.getsize(os.path.join(a.out, x["log"]))
               for x in man["logs"])
    print("corpus: %d logs, %.2f MB in %s" % (len(man["logs"]), size / 1e6,
                                            a.out))


def default_name():
    l = lscpu()
    v = l.get("Vendor ID", "cpu").lower()
    v = v.replace("authentic", "").replace("genuine", "") or "cpu"
    hv = hypervisor(l, cpuinfo_flags()).lower().replace("none", "bare")
    return "%s-f%sm%s-%s-%s" % (v, l.get("CPU family", "x"),
                                l.get("Model", "x"), hv,
                                time.strftime("%Y%m%d", time.gmtime()))


def tick_ghz(a, man):
    """The TSC rate the recorder found, from the first log's header."""
    an = os.path.join(os.path.dirname(a.lib), "..", "analysis",
                      "sbt-analyze")
    for x in man["logs"]:
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.log")
            with lzma.open(os.path.join(a.out, x["log"])) as f, \
                    open(p, "wb") as g:
                shutil.copyfileobj(f, g)
            out = subprocess.run([an, "--format", "json", "--no-symbols",
                                  p], capture_output=True, text=True)
            if out.returncode in (0, 1) and out.stdout:
                return json.loads(out.stdout)["sources"][0]["tick_ghz"]
    return None


if __name__ == "__main__":
    main()
