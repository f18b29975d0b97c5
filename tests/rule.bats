#!/usr/bin/env bats
# The paired rule (lib/judge.c judge_rule, cmpbudget -D) on synthetic
# rounds, gate after gate as the gate asks for rounds, by
# tests/unit/rulecheck.c: no false claim on unchanged code whatever the
# noise (spells, noise that only adds time, one-sided noise, two speeds
# per process, a hog), a 2x slowdown never ok, a true 1.12x change caught
# at budget 0.05. Seeded: every run checks the same rounds.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	cc -std=c11 -O2 -D_GNU_SOURCE -I"$TOP/lib" -o "$T/rulecheck" "$TOP/tests/unit/rulecheck.c" \
	    "$TOP/build/obj/libperfgate.a" -lm
}

# field LINE NAME: the count after NAME in rulecheck's line.
field() {
	printf '%s\n' "$1" | sed -n "s/.* $2 \([0-9]*\).*/\1/p"
}

@test "rule: no false claim on unchanged code in 2000 gates of each kind of noise, at budgets 0.05 and 0.10" {
	for sc in quiet skew onesided twospeed spells; do
		for b in 0.05 0.10; do
			run -0 "$T/rulecheck" "$sc" 1 "$b" 2000
			[ "$(field "$output" regressed)" -eq 0 ]
			[ "$(field "$output" improved)" -eq 0 ]
		done
	done
}

@test "rule: under a hog (every run 0 to 60 % slower, each alone), false claims stay near 1 in 10000 gates" {
	for b in 0.05 0.10; do
		run -0 "$T/rulecheck" hog 1 "$b" 10000
		[ "$(field "$output" regressed)" -le 2 ]
		[ "$(field "$output" improved)" -eq 0 ]
	done
}

@test "rule: unchanged code is ok, not undecided, where the noise allows: quiet, two speeds, spells" {
	for sc in quiet twospeed spells; do
		run -0 "$T/rulecheck" "$sc" 1 0.05 1000
		[ "$(field "$output" ok)" -eq 1000 ]
	done
	# Quiet: six rounds, the first block, in most gates.
	run -0 "$T/rulecheck" quiet 1 0.10 1000
	[[ "$output" == *"rounds median 6 "* ]]
}

@test "rule: a 2x slowdown is never ok and is caught in every gate, whatever the noise" {
	for sc in quiet skew onesided twospeed spells hog; do
		run -0 "$T/rulecheck" "$sc" 2 0.05 500
		[ "$(field "$output" regressed)" -eq 500 ]
	done
}

@test "rule: a true 1.12x change at budget 0.05 is caught in quiet, spells and two speeds, and never ok under a hog" {
	for sc in quiet twospeed spells; do
		run -0 "$T/rulecheck" "$sc" 1.12 0.05 1000
		[ "$(field "$output" regressed)" -ge 990 ]
		[ "$(field "$output" ok)" -eq 0 ]
	done
	# Under a hog (runs up to 60 % slower, each alone) the rounds seldom
	# exclude 1.05 within the deadline: undecided, and not ok.
	run -0 "$T/rulecheck" hog 1.12 0.05 1000
	[ "$(field "$output" ok)" -le 5 ]
	[ "$(( $(field "$output" regressed) + $(field "$output" undecided) ))" -ge 995 ]
}

@test "rule: a change exactly at the budget is within it: never claimed regressed, whatever the noise" {
	# The claim needs the whole interval beyond the budget; a median beyond
	# it alone would claim this change in most gates.
	for sc in quiet skew onesided twospeed spells; do
		run -0 "$T/rulecheck" "$sc" 1.05 0.05 1000
		[ "$(field "$output" regressed)" -le 5 ]
		run -0 "$T/rulecheck" "$sc" 0.95 0.05 1000
		[ "$(field "$output" improved)" -le 5 ]
	done
}

@test "rule: an improvement is a claim like a regression: shown in both halves, never on unchanged code" {
	run -0 "$T/rulecheck" quiet 0.5 0.05 500
	[ "$(field "$output" improved)" -eq 500 ]
	run -0 "$T/rulecheck" quiet 0.88 0.05 500
	[ "$(field "$output" improved)" -ge 470 ]
	[ "$(( $(field "$output" improved) + $(field "$output" ok) ))" -eq 500 ]
	# With two speeds, sixteen rounds show it in some gates; the others
	# are ok, which an improvement is.
	run -0 "$T/rulecheck" twospeed 0.88 0.05 500
	[ "$(field "$output" improved)" -ge 100 ]
	[ "$(( $(field "$output" improved) + $(field "$output" ok) ))" -eq 500 ]
}
