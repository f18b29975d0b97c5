#!/usr/bin/env bats
# fuzz: every committed fuzz input through every fuzz target, without a
# fuzzer: the bad inputs of the bats tests (tests/fuzz/badinput), the
# minimized corpora (tests/fuzz/corpus) and every crash a fuzzer found
# (tests/fuzz/crashes). Each target is built with gcc under
# AddressSanitizer and UndefinedBehaviorSanitizer, and checks more than
# "no crash" (see the head of each tests/fuzz/TARGET.c). Fuzzing itself is
# make fuzz (tests/fuzz/run.sh).

load common

# Builds of its own, apart from a make fuzz that may run meanwhile.
setup() {
	export FUZZ_OUT=$BATS_FILE_TMPDIR/fuzz
}

# replay TARGET: TARGET passes every input: seeds, corpus and the inputs
# of the bugs found and fixed (tests/fuzz/crashes).
replay() {
	cd "$TOP"
	run --separate-stderr sh tests/fuzz/run.sh -r "$1"
	[ "$status" -eq 0 ]
	[[ "$output" == "fuzz: $1: "*" inputs" ]]
}

@test "fuzz: jsonl (jparse, jparse_like, strtod, jescape round trip) passes every committed input" {
	replay jsonl
}

@test "fuzz: number (jparse's numbers, fmt_double) passes every committed input" {
	replay number
}

@test "fuzz: jreader passes every committed input" {
	replay jreader
}

@test "fuzz: jmetrics passes every committed input" {
	replay jmetrics
}

@test "fuzz: budget (budget_load, written again and read again) passes every committed input" {
	replay budget
}

@test "fuzz: benchenv (bench.h's environment, BENCH_CASES) passes every committed input" {
	replay benchenv
}

@test "fuzz: side (alternate's name=command and -a name:key=value) passes every committed input" {
	replay side
}

@test "fuzz: perfjson (perf.json's reader) passes every committed input" {
	replay perfjson
}

@test "fuzz: names (minjson's name table) passes every committed input" {
	replay names
}

@test "fuzz: noisesum (make noise's sum of its gates) passes every committed input" {
	replay noisesum
}

# An input in tests/fuzz/open/TARGET/ crashes TARGET through a bug not yet
# fixed (tests/README.md says where). Once it passes, it is a regression
# input: move it to tests/fuzz/crashes/TARGET/.
@test "fuzz: the open bugs' inputs still fail (move one to tests/fuzz/crashes once fixed)" {
	cd "$TOP"
	for f in tests/fuzz/open/*/*; do
		[ -e "$f" ] || continue
		t=$(basename "$(dirname "$f")")
		# A replay driver that did not build (exit 2) proves nothing: a
		# missing program's 127 would pass for "still fails".
		run sh tests/fuzz/run.sh -r "$t"
		[ "$status" -le 1 ] || { echo "$t: the replay driver did not build"; false; }
		[ -x "$FUZZ_OUT/replay/$t" ]
		run "$FUZZ_OUT/replay/$t" "$f"
		[ "$status" -ne 126 ] && [ "$status" -ne 127 ]
		[ "$status" -ne 0 ] || { echo "$f passes now: git mv it to tests/fuzz/crashes/$t/"; false; }
	done
}

@test "fuzz: benchrec (the harnesses' readers, harness_scale10) passes every committed input" {
	replay benchrec
}

@test "fuzz: cgdiff (callgrind's dumps, lib/cgdump.c) passes every committed input" {
	replay cgdiff
}

@test "fuzz: perfci (compare-ci's header and exemptions readers) passes every committed input" {
	replay perfci
}
