#!/bin/sh
# shard.sh: the share of a budget's metrics that shard I of N gates
# (make gate GATE_SHARD=I/N).
#
#	shard.sh cases I/N BUDGET	the share's metric names, comma-separated
#	shard.sh budget I/N BUDGET	BUDGET with only the share's metrics
#
# The rule, stable across runners and runs: the metric names of BUDGET's
# [budget] section, sorted bytewise (LC_ALL=C), dealt round-robin: the j-th
# name, counting from 0, goes to shard j mod N + 1. Every metric is in
# exactly one shard, and the shards differ in size by at most one. A new
# metric can move others to another shard; every shard still gates base
# against head on its own runner, so that is harmless.
#
# The shard's budget keeps every other line as it is (runs, comments, other
# sections), so that cmpbudget judges the share by the same rules; the
# gate names the whole budget file's digest in its records.
LC_ALL=C
export LC_ALL

usage() {
	echo "usage: shard.sh cases|budget i/n budget.toml" >&2
	exit 2
}

[ $# -eq 3 ] || usage
cmd=$1 spec=$2 budget=$3
case $cmd in cases|budget) ;; *) usage ;; esac
case $spec in
*[!0-9/]*|*/*/*|/*|*/|'') echo "shard.sh: GATE_SHARD=$spec: not i/n" >&2; exit 2 ;;
*/*) ;;
*) echo "shard.sh: GATE_SHARD=$spec: not i/n" >&2; exit 2 ;;
esac
i=${spec%/*} n=${spec#*/}
# Leading zeros would read as octal in some shells' arithmetic.
i=$(printf '%s' "$i" | sed 's/^0*//') n=$(printf '%s' "$n" | sed 's/^0*//')
if [ -z "$i" ] || [ -z "$n" ] || [ "$i" -gt "$n" ]; then
	echo "shard.sh: GATE_SHARD=$spec: not i/n with 1 <= i <= n" >&2
	exit 2
fi
[ -r "$budget" ] || { echo "shard.sh: $budget: cannot read the budget file" >&2; exit 2; }

# The metric names of [budget], bare or quoted keys, one a line.
names=$(awk '
	/^[ \t]*\[/ { inb = $0 ~ /^[ \t]*\[[ \t]*budget[ \t]*\][ \t]*(#.*)?$/; next }
	inb && /^[ \t]*[A-Za-z0-9_-]+[ \t]*=/ { sub(/^[ \t]*/, ""); sub(/[ \t]*=.*/, ""); print; next }
	inb && /^[ \t]*"[^"]*"[ \t]*=/ { sub(/^[ \t]*"/, ""); sub(/"[ \t]*=.*/, ""); print }
	' "$budget" | sort)
share=$(printf '%s\n' "$names" | awk -v i="$i" -v n="$n" 'NF && (NR - 1) % n == i - 1')
if [ -z "$share" ]; then
	count=$(printf '%s\n' "$names" | grep -c .)
	echo "shard.sh: GATE_SHARD=$spec: shard $i of $n is empty: $budget has $count metrics" >&2
	exit 2
fi

case $cmd in
cases)
	printf '%s\n' "$share" | paste -s -d, - ;;
budget)
	printf '%s\n' "$share" | awk '
		NR == FNR { keep[$0] = 1; next }
		/^[ \t]*\[/ { inb = $0 ~ /^[ \t]*\[[ \t]*budget[ \t]*\][ \t]*(#.*)?$/; print; next }
		inb && /^[ \t]*("[^"]*"|[A-Za-z0-9_-]+)[ \t]*=/ {
			k = $0
			sub(/^[ \t]*"?/, "", k)
			sub(/"?[ \t]*=.*/, "", k)
			if (k in keep) print
			next
		}
		{ print }' - "$budget" ;;
esac
