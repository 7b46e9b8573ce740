#!/bin/sh
# run_replay.sh - the reader fuzz target's checks on the seed logs, once
# each (replay.c): every build, no libFuzzer needed.
#
#   run_replay.sh REPLAY GEN_SEEDS
set -eu
[ $# -eq 2 ] || { echo "usage: $0 REPLAY GEN_SEEDS" >&2; exit 2; }
work=$(mktemp -d /tmp/sbt-replay-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$2" "$work"
"$1" "$work"/*.log
