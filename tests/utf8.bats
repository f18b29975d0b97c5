#!/usr/bin/env bats
# utf8: lib/utf8.c, the UTF-8 check of JSON strings and of the budget file,
# against a decoder written the other way round (tests/unit/utf8check.c).

load common

@test "utf8: every text of up to three bytes, and four-byte edges, judged as RFC 3629 says" {
	${CC:-cc} -std=c11 -O2 -I"$TOP/lib" -o "$BATS_TEST_TMPDIR/utf8check" \
	    "$TOP/tests/unit/utf8check.c" "$TOP/lib/utf8.c"
	run -0 --separate-stderr "$BATS_TEST_TMPDIR/utf8check"
	[ "$stderr" = "" ]
	[[ "$output" =~ ^utf8check:\ ([0-9]+)\ texts,\ 0\ wrong$ ]]
	[ "${BASH_REMATCH[1]}" -ge 26000000 ]
}
