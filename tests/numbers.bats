#!/usr/bin/env bats
# numbers: lib/jsonnum.c, the conversion of every number the tools read,
# against strtod bit for bit, and fmt_double's round trip
# (tests/unit/numcheck.c, seeded: every run checks the same numbers).

load common

# numcheck built by compiler $1 from the library's own sources.
build_numcheck() {
	"$1" -std=c11 -O2 -D_GNU_SOURCE -I"$TOP/lib" -o "$BATS_TEST_TMPDIR/numcheck" \
	    "$TOP/tests/unit/numcheck.c" "$TOP/lib/jsonnum.c" "$TOP/lib/json.c" \
	    "$TOP/lib/jsonlayout.c" "$TOP/lib/utf8.c" "$TOP/lib/util.c" -lm
}

@test "numbers: a million numbers of every shape read as strtod reads them, bit for bit" {
	build_numcheck "${CC:-cc}"
	run -0 --separate-stderr "$BATS_TEST_TMPDIR/numcheck"
	[ "$stderr" = "" ]
	[[ "$output" =~ ^numcheck:\ ([0-9]+)\ numbers\ \(([0-9]+)\ also\ in\ records\),\ ([0-9]+)\ round\ trips,\ 0\ wrong$ ]]
	[ "${BASH_REMATCH[1]}" -ge 1000000 ]
	[ "${BASH_REMATCH[2]}" -ge 100000 ]
	[ "${BASH_REMATCH[3]}" -ge 100000 ]
}

@test "numbers: the check fails when a result is one bit off (numcheck -f)" {
	build_numcheck "${CC:-cc}"
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/numcheck" -f -n 2000
	[[ "$output" =~ ,\ [1-9][0-9]*\ wrong$ ]]
	[[ "${stderr_lines[0]}" =~ ^numcheck:\ [a-z_]+:\ .*:\ got\ [0-9a-f]{16},\ strtod\ [0-9a-f]{16}$ ]]
}

@test "numbers: built by tcc (no 128-bit integers, no clz builtin) the same numbers read the same" {
	command -v tcc >/dev/null || skip "tcc not installed"
	build_numcheck tcc
	run -0 --separate-stderr "$BATS_TEST_TMPDIR/numcheck" -n 30000
	[[ "$output" =~ ^numcheck:\ [0-9]+\ numbers.*,\ 0\ wrong$ ]]
}
