#!/usr/bin/env bats
# report: the verdict table (lib/report.c, as cmpbudget and mergeshards
# print it) writes each side's figure to six significant digits, in one
# notation for the sides' columns: fixed while every figure lies within
# [0.001, 1e12) or is 0, else scientific. The records keep every digit.

load common

setup() {
	cd "$BATS_TEST_TMPDIR"
	printf 'runs = 3\n[budget]\na_ns = 0.5\nb_ns = 0.5\nc_ns = 0.5\nd_ns = 0.5\ne_ns = 0.5\n' > b.toml
}

# stats BASE HEAD: a minimum of each side, metrics a_ns ... from the
# comma lists BASE and HEAD.
stats() {
	local side vals i m out
	for side in base head; do
		[ $side = base ] && vals=$1 || vals=$2
		out="{\"side\":\"$side\",\"stat\":\"min\",\"n\":3"
		i=0
		for m in a b c d e; do
			i=$((i + 1))
			out="$out,\"${m}_ns\":$(printf '%s' "$vals" | cut -d, -f$i)"
		done
		printf '%s}\n' "$out"
	done > s.jsonl
}

# The base and head cells of each row, as "base head" lines.
sides() {
	printf '%s\n' "${stderr_lines[@]:1}" | awk '{ print $2, $3 }'
}

@test "report: awkward figures to six significant digits, fixed, one notation a column" {
	stats 27390.6875,987.45703125,123456789,3584410,226789 27390.6875,987.45703125,123456789,3584410.5,231770
	run -0 --separate-stderr cmpbudget -b b.toml -m v.md s.jsonl
	[ "$(sides)" = "$(printf '%s\n' '27390.7 27390.7' '987.457 987.457' '123457000 123457000' '3584410 3584410' '226789 231770')" ]
	# The records keep every digit.
	[ "$(printf '%s\n' "${lines[0]}" | jq -c '[.base,.head]')" = '[27390.6875,27390.6875]' ]
	[ "$(printf '%s\n' "$output" | grep '"metric":"e_ns"' | grep -o '"head":[^,]*')" = '"head":231770' ]
	# The Markdown table writes the same cells.
	grep -qx '| d_ns | 3584410 | 3584410 | +0.0 | 50 | ok | - | - |' v.md
	grep -qx '| b_ns | 987.457 | 987.457 | +0.0 | 50 | ok | - | - |' v.md
}

@test "report: a figure written 8.0 or 2.3177e+05 is written as its column's others are" {
	stats 8.0,2.3177e+05,98,0.5,1 8,231770.0,97.0,5e-1,1.000
	run -0 --separate-stderr cmpbudget -b b.toml s.jsonl
	[ "$(sides)" = "$(printf '%s\n' '8 8' '231770 231770' '98 97' '0.5 0.5' '1 1')" ]
}

@test "report: a figure beyond the fixed range (1e-7) turns both sides' columns scientific" {
	stats 1e-7,27390.6875,123456789,3584410,1 1.25e-7,27391,123456789,3584410,0
	run -0 --separate-stderr cmpbudget -b b.toml s.jsonl
	[ "$(sides)" = "$(printf '%s\n' '1e-07 1.25e-07' '2.73907e+04 2.7391e+04' '1.23457e+08 1.23457e+08' '3.58441e+06 3.58441e+06' '1e+00 0')" ]
}

@test "report: rounding that carries to a new digit, and the edges of the fixed range" {
	stats 999999.7,0.001,999999999999,0.00099999949,1 1000000,0.0010000004,1,1,1
	run -1 --separate-stderr cmpbudget -b b.toml s.jsonl
	# 0.00099999949 is below 0.001: the columns are scientific.
	[ "$(sides | head -n 1)" = '1e+06 1e+06' ]
	stats 999999.7,0.001,999999999999,0.0012345678,1 1000000,0.0010000004,1,1,1
	run -1 --separate-stderr cmpbudget -b b.toml s.jsonl
	[ "$(sides)" = "$(printf '%s\n' '1000000 1000000' '0.001 0.001' '1000000000000 1' '0.00123457 1' '1 1')" ]
}
