#!/bin/sh
# same_reports.sh BASE NEW LOG... - do two sbt-analyze builds print the
# same bytes?  Each log through text, -v, -v --by thread, --format json
# and --html (its command line and date left out), each at -j 1 and -j 2
# (--no-symbols: a build's libdw is not the point); the exit status too.  Prints each difference and one summary line; exit
# 1 when any differed.  A change meant to keep every output (a faster
# path, work moved between threads) is checked with it against the
# commit it started from.
set -u
base=$1 new=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
# html OUT: the HTML report written, if any, added to OUT, less the line
# that names the command and the minute
html() {
	[ -f "$tmp/r.html" ] || return 0
	sed 's|<p class="cmd">[^<]*<br>written [^<]*</p>||' "$tmp/r.html" >>"$1"
	rm -f "$tmp/r.html"
}
for log in "$@"; do
	for opts in "" "-v" "-v --by thread" "--format json" \
		    "-q --html $tmp/r.html"; do
		for j in 1 2; do
			# shellcheck disable=SC2086
			"$base" --no-symbols -j $j $opts "$log" >"$tmp/a" 2>&1
			echo "exit $?" >>"$tmp/a"
			html "$tmp/a"
			# shellcheck disable=SC2086
			"$new" --no-symbols -j $j $opts "$log" >"$tmp/b" 2>&1
			echo "exit $?" >>"$tmp/b"
			html "$tmp/b"
			n=$((n + 1))
			if ! cmp -s "$tmp/a" "$tmp/b"; then
				bad=$((bad + 1))
				echo "DIFFERS: -j $j $opts $log"
				diff "$tmp/a" "$tmp/b" | head -n 10
			fi
		done
	done
done
echo "same_reports: $((n - bad)) of $n the same"
[ "$bad" -eq 0 ]
