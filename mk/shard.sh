#!/bin/sh
# shard.sh: the share of a budget's metrics that shard I of N gates
# (make gate GATE_SHARD=I/N), comma-separated on one line.
#
#	shard.sh I/N BUDGET
#
# The rule, stable across runners and runs: the metric names of BUDGET's
# [budget] and [higher] sections, sorted bytewise (LC_ALL=C), dealt
# round-robin: the j-th name, counting from 0, goes to shard j mod N + 1.
# Every metric is in exactly one shard, and the shards differ in size by at
# most one. A new metric can move others to another shard; each shard still
# gates base against head on its own runner, so that is harmless. The gate
# tells the benchmark the share in BENCH_CASES and judges it with
# cmpbudget -M, by the whole budget file.
LC_ALL=C
export LC_ALL

if [ $# -ne 2 ]; then
	echo "usage: shard.sh i/n budget.toml" >&2
	exit 2
fi
spec=$1 budget=$2
case $spec in
[0-9]*/[0-9]*) ;;
*) echo "shard.sh: GATE_SHARD=$spec: not i/n" >&2; exit 2 ;;
esac
i=${spec%%/*} n=${spec#*/}
case $i$n in
*[!0-9]*) echo "shard.sh: GATE_SHARD=$spec: not i/n" >&2; exit 2 ;;
esac
# Leading zeros would read as octal in some shells' arithmetic.
i=$(printf '%s' "$i" | sed 's/^0*//') n=$(printf '%s' "$n" | sed 's/^0*//')
if [ -z "$i" ] || [ -z "$n" ] || [ "$i" -gt "$n" ]; then
	echo "shard.sh: GATE_SHARD=$spec: not i/n with 1 <= i <= n" >&2
	exit 2
fi
[ -r "$budget" ] || { echo "shard.sh: $budget: cannot read the budget file" >&2; exit 2; }

# The metric names of [budget] and [higher], one a line, sorted: asked of
# cmpbudget -E, the budget file's one reader (CMPBUDGET, or the one in PATH),
# so that a file it refuses is refused here with its reason.
listed=$("${CMPBUDGET:-cmpbudget}" -E -b "$budget" 2>&1) || {
	printf 'shard.sh: %s\n' "${listed#cmpbudget: }" | head -n 1 >&2
	exit 2
}
names=$(printf '%s\n' "$listed" | sed -n 's/^[a-z]* \([^ ]*\) [^ ]*$/\1/p' | sort)
share=$(printf '%s\n' "$names" | awk -v i="$i" -v n="$n" 'NF && (NR - 1) % n == i - 1')
if [ -z "$share" ]; then
	echo "shard.sh: GATE_SHARD=$spec: shard $i of $n is empty: $budget has $(printf '%s\n' "$names" | grep -c .) metrics" >&2
	exit 2
fi
printf '%s\n' "$share" | paste -s -d, -
