#!/usr/bin/env bats
# json: the one writer of JSON text (lib/jsonwrite.c) and bench.h's copy of
# its rules, held to the same bytes; and records that every reader of ours
# accepts, whatever bytes a name holds.

load common

@test "json: bench.h writes every number and string byte for byte as lib/jsonwrite.c does" {
	cc -std=c11 -O2 -D_GNU_SOURCE -I"$TOP/lib" -I"$TOP/bench" -o "$BATS_TEST_TMPDIR/jsonfmt" \
	    "$TOP/tests/unit/jsonfmt.c" "$TOP"/lib/*.c -lm
	"$BATS_TEST_TMPDIR/jsonfmt" bench > "$BATS_TEST_TMPDIR/bench.out"
	"$BATS_TEST_TMPDIR/jsonfmt" lib > "$BATS_TEST_TMPDIR/lib.out"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/lib.out")" -eq 300000 ]
	cmp "$BATS_TEST_TMPDIR/bench.out" "$BATS_TEST_TMPDIR/lib.out"
	# The rules themselves: 10 without an exponent, bytes that are not UTF-8 as U+FFFD.
	sed -n 2,3p "$BATS_TEST_TMPDIR/lib.out" | paste -sd' ' | grep -qx '1 10'
	grep -q 'ufffd' "$BATS_TEST_TMPDIR/lib.out"
	# Every string line is JSON that jq reads.
	tail -n 100000 "$BATS_TEST_TMPDIR/lib.out" | jq -e . > /dev/null
}

@test "json: a budget path that is not UTF-8 makes a verdict minjson reads (U+FFFD in its place)" {
	cd "$BATS_TEST_TMPDIR"
	name=$(printf 'b\377\376.toml')
	printf 'runs = 3\n[budget]\nm_ns = 0.1\n' > "$name"
	printf '%s\n' '{"side":"base","m_ns":10}' '{"side":"head","m_ns":10}' | "$BIN/minjson" -s min > stats.jsonl
	run -0 --separate-stderr "$BIN/cmpbudget" -b "$name" stats.jsonl
	printf '%s\n' "$output" > verdict.jsonl
	grep -q 'b\\ufffd\\ufffd.toml' verdict.jsonl
	run -0 --separate-stderr "$BIN/minjson" -k verdict verdict.jsonl
}
