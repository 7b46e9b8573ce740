#!/bin/sh
# demo.sh - the main job end to end: set up, build, run the bundled
# example under the recorder, print the analysis.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh tools/setup.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

out=$(mktemp -d /tmp/sbtmark-demo.XXXXXX)
echo "== running the example (markers/examples/demo.c) under sbt-run"
(cd "$out" && "$top/build/tools/sbt-run" -- "$top/build/markers/sbt-demo")
echo
echo "== sbt-analyze $out/region.log"
"$top/build/analysis/sbt-analyze" "$out/region.log"
