#!/bin/sh
# render.sh - the HTML report as a browser shows it.
#
#   render.sh demo SBT_RUN DEMO_APP
#   render.sh mpi  SBT_RUN MPI_APP        (two ranks through mpirun)
#
# Runs the app under sbt-run, writes sbt-analyze --html, then has headless
# Chromium (a) take a screenshot, (b) dump the DOM after the page's own
# check ran: <body data-rendered> must equal the plots the page holds
# (<body data-plots>), every region must hold its four plots, and (c)
# print nothing on the console (no script error, nothing fetched).  The
# page must reference nothing outside itself.
# Exit 77 (skipped) without chromium (tools/setup.sh installs it) or, for
# mpi, without mpirun or the MPI app.
set -u
common=$(cd "$(dirname "$0")/../common" && pwd)
mode=$1 sbtrun=$(realpath "$2") app=$(realpath "$3" 2>/dev/null || echo none)
fail() { echo "FAIL: $*" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "no chromium: skipped (tools/setup.sh)"; exit 77; }
[ -x "$app" ] || { echo "app not built: skipped"; exit 77; }

tmp=$(mktemp -d /tmp/sbt-render-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
case $mode in
demo)
	"$sbtrun" -q -- "$app" > app.out 2>&1 || fail "demo: $(cat app.out)"
	logs=region.log regions=4 groups_per_region=2 ;;
mpi)
	. "$common/mpi.sh"
	sbt_mpi 2 120 \
		"$sbtrun" -q -o 'run-%r.log' -- "$app" 2000 > app.out 2>&1 ||
		fail "mpirun: $(cat app.out)"
	logs="run-0.log run-1.log" regions=2 groups_per_region=2 ;;
*) fail "mode $mode" ;;
esac
# shellcheck disable=SC2086
"$SBT_ANALYZE" -q --html report.html $logs > text.out ||
	fail "sbt-analyze exited $?"
[ -s report.html ] || fail "no report.html"

# Self-contained: no scripts, styles, images or frames from elsewhere
# (the SVG namespace URI is a name, never fetched).
if grep -Eo '(src|href)="[^"#][^"]*"|url\(|<link|<iframe|@import' \
	report.html | grep -v 'http://www.w3.org/2000/svg' | grep -q .; then
	fail "external reference: $(grep -Eo '(src|href)="[^"#][^"]*"|url\(|<link|<iframe|@import' report.html | head -3)"
fi

chrome() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
		"$@" "file://$tmp/report.html"
}
chrome --window-size=1280,3000 --screenshot="$tmp/shot.png" \
	> shot.out 2> shot.err || fail "screenshot: $(tail -5 shot.err)"
[ "$(head -c 8 shot.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "screenshot is not a PNG"
[ "$(wc -c < shot.png)" -gt 20000 ] || fail "screenshot nearly empty"
chrome --dump-dom > dom.html 2> dom.err || fail "dump-dom: $(tail -5 dom.err)"
# Console messages (script errors, refused loads) all carry CONSOLE.
if grep -h "CONSOLE" shot.err dom.err; then
	fail "console output above"
fi

/usr/bin/python3 - dom.html "$regions" "$groups_per_region" <<'PY' || exit 1
import re, sys
dom = open(sys.argv[1]).read()
regions, groups = int(sys.argv[2]), int(sys.argv[3])
body = re.search(r'<body([^>]*)>', dom).group(1)
attr = dict(re.findall(r'([\w-]+)="([^"]*)"', body))
plots = int(attr['data-plots'])
assert 'data-rendered' in attr, "the page's check did not run"
assert int(attr['data-rendered']) == plots, (attr, "plots not laid out")
assert int(attr['data-regions']) == regions, attr
assert plots == 4 * regions, attr
secs = re.split(r'<section class="region"', dom)[1:]
assert len(secs) == regions, len(secs)
for s in secs:
    name = re.search(r'<h2>([^<]*)</h2>', s).group(1)
    kinds = re.findall(r'<svg class="plot (\w+)"', s)
    assert kinds == ['hist', 'cdf', 'time', 'groups'], (name, kinds)
    g = re.search(r'<svg class="plot groups".*?</svg>', s, re.S).group(0)
    boxes = len(re.findall(r'<rect class="bx', g))
    assert boxes == groups, (name, 'boxes', boxes)
    assert '<h3>Call sites</h3>' in s, name
    assert 'class="stack"' in s, (name, 'no calling context')
assert '<p class="warn">plots not drawn' not in dom
print('render: %d regions x 4 plots laid out, no console output' % regions)
PY
