#!/usr/bin/env bats
# shard.sh: the share of a budget's metrics that shard i of n gates
# (GATE_SHARD=i/n): every metric in exactly one shard, by a stable rule
# (sorted names dealt round-robin).

load common

setup() {
	T=$BATS_TEST_TMPDIR
	SH=$TOP/mk/shard.sh
	{
		echo '# eleven metrics'
		echo 'runs = 5'
		echo
		echo '[budget]'
		for m in k j i h g f e d c b; do echo "${m}_ns = 0.1   # $m"; done
		echo
		echo '[higher] # throughputs'
		echo 'q_ops = 0.2'
	} > "$T/budget.toml"
}

@test "shard.sh: sorted names dealt round-robin, every metric in exactly one shard" {
	# b c d e f g h i j k q: the first, fourth, seventh, ... to shard 1.
	run -0 sh "$SH" 1/3 "$T/budget.toml"
	[ "$output" = "b_ns,e_ns,h_ns,k_ns" ]
	run -0 sh "$SH" 2/3 "$T/budget.toml"
	[ "$output" = "c_ns,f_ns,i_ns,q_ops" ]
	run -0 sh "$SH" 03/3 "$T/budget.toml"
	[ "$output" = "d_ns,g_ns,j_ns" ]
	want=$(printf '%s\n' b c d e f g h i j k | sed 's/$/_ns/'; echo q_ops)
	for n in 1 2 3 4 5 11; do
		all=
		for i in $(seq 1 "$n"); do
			all="$all,$(sh "$SH" "$i/$n" "$T/budget.toml")"
		done
		[ "$(printf '%s\n' "${all#,}" | tr , '\n' | sort)" = "$want" ]
	done
}

@test "shard.sh: the share is what cmpbudget -M judges, by the whole budget file" {
	printf '%s\n' '{"side":"base","stat":"min","d_ns":1,"g_ns":1,"j_ns":1}' \
	    '{"side":"head","stat":"min","d_ns":1,"g_ns":1,"j_ns":2}' > "$T/stats.jsonl"
	run -1 --separate-stderr cmpbudget -b "$T/budget.toml" -M "$(sh "$SH" 3/3 "$T/budget.toml")" "$T/stats.jsonl"
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -c '[.verdict, .regressed, .metrics, .budget_sha256]')" = \
	    "[\"regressed\",[\"j_ns\"],3,\"$(sha256sum < "$T/budget.toml" | cut -c1-64)\"]" ]
}

@test "shard.sh: a shard that is not i/n, or would be empty, cannot be decided" {
	for bad in 0/3 4/3 x/3 1/ /3 1/2/3 1 -1/3 ''; do
		run -2 --separate-stderr sh "$SH" "$bad" "$T/budget.toml"
		[[ "$stderr" == "shard.sh: GATE_SHARD=$bad: not i/n"* ]]
	done
	run -2 --separate-stderr sh "$SH" 12/12 "$T/budget.toml"
	[ "$stderr" = "shard.sh: GATE_SHARD=12/12: shard 12 of 12 is empty: $T/budget.toml has 11 metrics" ]
	run -2 --separate-stderr sh "$SH" 1/2 "$T/none.toml"
	[ "$stderr" = "shard.sh: $T/none.toml: cannot read the budget file" ]
	run -2 --separate-stderr sh "$SH" 1/2
	[ "$stderr" = "usage: shard.sh i/n budget.toml" ]
}

@test "shard.sh: the budget is read by cmpbudget -E, its one reader: a file it refuses is refused with its reason" {
	# awk took both for metrics: a name twice, and one in another table.
	echo 'c_ns = 0.3' >> "$T/budget.toml"
	run -2 --separate-stderr sh "$SH" 1/2 "$T/budget.toml"
	[ "$stderr" = "shard.sh: $T/budget.toml:18: c_ns is budgeted twice (first on line 13)" ]
	[ -z "$output" ]
	run -0 cmpbudget -E -b "$DATA/cmpbudget/budget.toml"
	[ "${lines[0]}" = 3 ] || [ "${lines[0]}" -gt 0 ]
	[ "$(printf '%s\n' "$output" | sed 1d | grep -cv '^\(budget\|higher\) [a-z0-9_-]* [0-9.e+-]*$')" = 0 ]
}
