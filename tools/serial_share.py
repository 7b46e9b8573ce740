#!/usr/bin/python3
"""serial_share.py - where sbt-analyze runs on one thread, from a profile.

    perf record -e cpu-clock -F HZ --call-graph dwarf -o P sbt-analyze ...
    tools/serial_share.py P [HZ [STAGE]]

A sample of the main thread whose stack holds no pool (sbt_jobs_each,
sbt_jobs_ordered) ran while no worker of ours existed: serial time.  Prints
the run's samples per thread kind (a stack the unwinder did not follow
to main is counted apart), the serial ones as milliseconds of cpu
(samples / HZ, default 2000) and by the innermost of the stages named
below on their stacks.  Cpu time, not wall: a shared machine stretches
the wall, not the samples' count, so this compares runs made while the
machine was busy.
"""
import collections, re, subprocess, sys

POOLS = ("sbt_jobs_each", "sbt_jobs_ordered")
# stages, innermost first: a sample goes to the first one on its stack
STAGES = ("sbt_hold_compact", "hold_final", "sbt_seg_merge", "finish",
          "sbt_os_join", "sbt_ds_sort_probes", "group", "preempt_rule",
          "sbt_after_probe_mark", "sbt_speed_analyze", "sbt_machine_events",
          "machine_witness", "sbt_totals", "sbt_groups_compare",
          "sbt_groups_omp", "sbt_groups_barriers", "sbt_decomp_run",
          "sbt_verdict", "qsort_r", "sbt_group_leftout", "sbt_report",
          "sbt_read_log_jobs", "sbt_inputs_read", "sbt_analyze", "main")


def samples(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F",
                          "tid,pid,ip,sym"], capture_output=True,
                         text=True).stdout
    head, stack = None, []
    for line in out.splitlines() + ["0/0"]:
        m = re.match(r"\s*(\d+)/(\d+)\s*$", line)
        if m:
            if head is not None:
                yield head, stack
            head, stack = m.group(1) == m.group(2), []
        elif line.strip():
            parts = line.split()
            stack.append(parts[1].split("+")[0] if len(parts) > 1 else "?")


def main():
    hz = float(sys.argv[2]) if len(sys.argv) > 2 else 2000.0
    kinds = collections.Counter()
    serial = collections.Counter()
    inside = collections.Counter()
    want = sys.argv[3] if len(sys.argv) > 3 else None
    for is_main, stack in samples(sys.argv[1]):
        if not is_main:
            kinds["worker"] += 1
        elif not any(f in ("main", "_start", "__libc_start_call_main")
                     for f in stack):
            kinds["main, stack cut short"] += 1
        elif any(f in POOLS for f in stack):
            kinds["main, in a pool"] += 1
        else:
            kinds["main, serial"] += 1
            stage = next((f for f in stack if f in STAGES),
                         stack[0] if stack else "?")
            serial[stage] += 1
            if stage == want:
                at = stack.index(stage)
                inside[(stack[at - 1] if at else "(itself)",
                        stack[0])] += 1
    tot = sum(kinds.values())
    for k, n in kinds.items():
        print("%-18s %6d samples %8.1f ms cpu %5.1f %%" %
              (k, n, 1e3 * n / hz, 100.0 * n / tot))
    print("serial, by stage:")
    for k, n in serial.most_common():
        print("  %-24s %6.1f ms" % (k, 1e3 * n / hz))
    for (c, leaf), n in inside.most_common(30):
        print("  %s: %-24s %-24s %6.1f ms" % (want, c, leaf, 1e3 * n / hz))


main()
