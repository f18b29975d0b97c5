#!/usr/bin/env bats
# sha256: bench/sha256.h, which proves that sides timed the same inputs and
# keys what the gate judged, against sha256sum(1) on the same files.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	cc -std=c11 -O2 -I"$TOP/bench" -o "$T/sha256sum" "$TOP/tests/unit/sha256sum.c"
}

@test "sha256: every length from 0 to 300 bytes, as sha256sum gives it" {
	for n in $(seq 0 300); do
		head -c "$n" /dev/urandom > "$T/f$n"
	done
	"$T/sha256sum" "$T"/f* > "$T/ours"
	sha256sum "$T"/f* > "$T/theirs"
	cmp "$T/ours" "$T/theirs"
}

@test "sha256: a file of several megabytes, as sha256sum gives it" {
	head -c 5000003 /dev/urandom > "$T/big"
	run -0 "$T/sha256sum" "$T/big"
	[ "$output" = "$(sha256sum "$T/big")" ]
}

@test "sha256: the empty input and \"abc\" give FIPS 180-4's digests" {
	: > "$T/empty"
	printf abc > "$T/abc"
	run -0 "$T/sha256sum" "$T/empty" "$T/abc"
	[ "${lines[0]}" = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  $T/empty" ]
	[ "${lines[1]}" = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  $T/abc" ]
}
