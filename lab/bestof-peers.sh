#!/bin/sh
# bestof's own overhead against hyperfine -N, on `true`: the two take turns,
# several rounds of 100 runs each, and each side's minimum is kept, so that
# the machine's drift hits both alike. The target (DESIGN.md): bestof's
# minimum wall_ns no higher than hyperfine's. Exit 1 when it is higher,
# 2 when the comparison cannot be made.
cd "$(dirname "$0")/.." || exit 2
bestof=${PERFGATE_BIN:-bin}/bestof
rounds=${ROUNDS:-5}
runs=${RUNS:-100}
tmp=${TMPDIR:-/tmp}/bestof-peers.$$
trap 'rm -f "$tmp"' EXIT
for cmd in hyperfine jq; do
	command -v $cmd >/dev/null 2>&1 || { echo "bestof-peers: $cmd not found" >&2; exit 2; }
done
[ -x "$bestof" ] || { echo "bestof-peers: $bestof not built (make bin/bestof)" >&2; exit 2; }

b= h=
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	# Alternate who goes first, so that neither always runs on a cooler machine.
	for who in $([ $((r % 2)) = 1 ] && echo "b h" || echo "h b"); do
		if [ $who = b ]; then
			v=$("$bestof" -n "$runs" true | jq -r .wall_ns) || exit 2
			[ -z "$b" ] || [ "$v" -lt "$b" ] && b=$v
		else
			hyperfine -N --runs "$runs" --export-json "$tmp" true >/dev/null 2>&1 || exit 2
			v=$(jq -r '.results[0].min * 1e9 | floor' "$tmp") || exit 2
			[ -z "$h" ] || [ "$v" -lt "$h" ] && h=$v
		fi
	done
done
awk -v b="$b" -v h="$h" -v n="$rounds" -v k="$runs" 'BEGIN {
	printf "bestof-peers: true, %d rounds of %d runs, minima: bestof %.1f us, hyperfine -N %.1f us, ratio %.3f\n", n, k, b / 1e3, h / 1e3, b / h
	if (b > h) {
		print "bestof-peers: bestof is slower than hyperfine -N" > "/dev/stderr"
		exit 1
	}
}'
