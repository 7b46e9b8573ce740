#!/bin/sh
# corpus.sh - record this machine's set of corpus logs in one command:
# the planted cases (tools/accuracy.py's cells, threads, nesting, OpenMP,
# busy and streaming co-runners) and, with --programs, real programs;
# stored xz-compressed in corpus/<machine>/ with manifest.json.  A few
# minutes; run it when the machine is as quiet as you can get it (the
# manifest keeps the load average before and after, and --note).
#
# usage: tools/corpus.sh [--programs SRC] [--note TEXT] [--only KINDS]
#                        [--name NAME]
#   SRC: folders LULESH, STREAM, NPB3.0-omp-C, kokkos-tutorials (git
#        clones of the repositories the manifest names)
#   KINDS: acc,apps,programs (default all)
#   NAME: corpus/NAME (default: vendor, family, model, hypervisor, date)
# BUILD (default build/) is set up and built first.  Then:
#   meson test -C build --suite corpus        (see corpus/README.md)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build="${BUILD:-$top/build}"
case "${1:-}" in -h|--help) sed -n '2,16p' "$0"; exit 0 ;; esac
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build" >/dev/null
exec python3 "$top/tools/corpus.py" "$build" "$@"
