#!/usr/bin/env bats
# The rule (lib/rule.c through judge_rule, gaterun -j) on synthetic
# rounds: fixed ratios whose verdict at each look is known, and gate
# after gate of simulated noise as the gate asks for rounds, by
# tests/unit/rulecheck.c: no false claim on unchanged code whatever the
# noise (spells, noise that only adds time, one-sided noise, two speeds
# per process, a spell over a gate's first rounds), claims at a change
# exactly at the budget no more often than the claim's error, a 2x
# slowdown claimed in 8 rounds. Seeded: every run checks the same rounds.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	cc -std=c11 -O2 -D_GNU_SOURCE -I"$TOP/lib" -o "$T/rulecheck" "$TOP/tests/unit/rulecheck.c" \
	    "$TOP/build/obj/libperfgate.a" -lm
	cd "$T" || return 1
}

# field LINE NAME: the count after NAME in rulecheck's line.
field() {
	printf '%s\n' "$1" | sed -n "s/.* $2 \([0-9]*\).*/\1/p"
}

# within COUNT ALPHA GATES: COUNT false claims are within ALPHA's share of
# GATES, three standard deviations of the count allowed (the simulation
# is one draw of it).
within() {
	awk -v c="$1" -v a="$2" -v n="$3" 'BEGIN { exit !(c <= a * n + 3 * sqrt(a * (1 - a) * n)) }'
}

# looks BUDGET RATIO...: the verdict at each look, one word a look, then the decided look.
looks() {
	"$T/rulecheck" -l "$@" | awk '$1 == "decided" { d = $2; next } { v = v $4 " " } END { print v "| " d }'
}

# judge [OPTION...]: gaterun -j on r.jsonl by b.toml, as the gate judges
# stored rounds: its status, and the verdict's records on stdout.
judge() {
	rm -rf g && mkdir g && cp r.jsonl g/runs.jsonl || return 3
	gaterun -j -b b.toml "$@" g
	set -- $?
	cat g/verdict.jsonl 2>/dev/null
	return "$1"
}

# pairs FILE BASE HEAD...: rounds of x_ns, base always BASE, head each HEAD
# in turn, base first in odd rounds.
pairs() {
	f=$1 b=$2 i=0
	shift 2
	: >"$f"
	for h; do
		i=$((i + 1))
		if [ $((i % 2)) = 1 ]; then
			printf '{"side":"base","round":%d,"x_ns":%s}\n{"side":"head","round":%d,"x_ns":%s}\n' $i "$b" $i "$h" >>"$f"
		else
			printf '{"side":"head","round":%d,"x_ns":%s}\n{"side":"base","round":%d,"x_ns":%s}\n' $i "$h" $i "$b" >>"$f"
		fi
	done
}

@test "rule: 2x in every round is claimed at the eighth look, not the seventh; one ratio within the budget holds it back" {
	[ "$(looks 0.05 2 2 2 2 2 2 2 2)" = "undecided undecided undecided undecided undecided undecided undecided regressed | 8" ]
	[ "$(looks 0.05 2 2 2 2 2 2 2)" = "undecided undecided undecided undecided undecided undecided undecided | 0" ]
	# Seven beyond and one within: the mixture falls from 81 to 7, far from 100.
	[ "$(looks 0.05 2 2 2 2 1.04 2 2 2)" = "undecided undecided undecided undecided undecided undecided undecided undecided | 0" ]
	# Through gaterun -j: 8.0 against 16.0, exit 1 at eight rounds, exit 2 at seven.
	printf 'runs = 2\n[budget]\nx_ns = 0.05\n' >b.toml
	pairs r.jsonl 8.0 16 16 16 16 16 16 16 16
	run -1 --separate-stderr judge
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.ratio_lo,.ratio_hi,.halves]')" = '["regressed",2,2,["regressed","regressed"]]' ]
	pairs r.jsonl 8.0 16 16 16 16 16 16 16
	run -2 --separate-stderr judge
	# At 99 % the claim's error is 0.2 %: ten rounds.
	[ "$(RULE_C=0.99 looks 0.05 2 2 2 2 2 2 2 2 2 2 | sed 's/.*| //')" = 10 ]
}

@test "rule: the mirror: 0.5x is improved at the eighth look, where higher is better 2x is improved and 0.5x regressed" {
	[ "$(looks 0.05 .5 .5 .5 .5 .5 .5 .5 .5 | sed 's/.* \(.*\) | /\1 /')" = "improved 8" ]
	[ "$(RULE_HIGHER=1 looks 0.05 2 2 2 2 2 2 2 2 | sed 's/.* \(.*\) | /\1 /')" = "improved 8" ]
	[ "$(RULE_HIGHER=1 looks 0.05 .5 .5 .5 .5 .5 .5 .5 .5 | sed 's/.* \(.*\) | /\1 /')" = "regressed 8" ]
	# The sequence is head / base either way.
	# The sequence is head / base either way; below 1 + budget, ok if the
	# gate ends there; where higher is better, above 1 / (1 + budget).
	[ "$("$T/rulecheck" -l 0.05 .5 .6 .7 .8 .9 .95 | tail -n 2 | head -n 1)" = "6 0.5 0.95 ok" ]
	[ "$(RULE_HIGHER=1 "$T/rulecheck" -l 0.05 .5 .6 .7 .8 .9 .95 | tail -n 2 | head -n 1)" = "6 0.5 0.95 undecided" ]
	[ "$(RULE_HIGHER=1 "$T/rulecheck" -l 0.05 1.1 1.2 1.3 1 1.5 1.4 | tail -n 2 | head -n 1)" = "6 1 1.5 ok" ]
}

@test "rule: unchanged code is ok at the sixth look when every ratio lies within the budget both ways" {
	[ "$(looks 0.05 1 1.01 .99 1.02 .98 1)" = "undecided undecided undecided undecided undecided ok | 6" ]
	# Within 1 + budget, below 1 / (1 + budget) once, and above 1 once:
	# ok, decided, since no improvement is in sight.
	[ "$(looks 0.05 1 1.01 .9 1.02 .98 1)" = "undecided undecided undecided undecided undecided ok | 6" ]
	# Every ratio below 1, some below 1 / (1 + budget): ok if the gate
	# ends there (no regression possible), not yet decided: an
	# improvement may still be shown.
	run -0 "$T/rulecheck" -l 0.05 .9 .92 .95 .97 .9 .93 .96 .94
	[ "${lines[5]}" = "6 0.9 0.97 ok" ]
	[ "${lines[7]}" = "8 0.9 0.97 ok" ]
	[ "${lines[8]}" = "decided 0" ]
	printf 'runs = 2\n[budget]\nx_ns = 0.05\n' >b.toml
	pairs r.jsonl 100 90 92 95 97 90 93 96 94
	run -0 --separate-stderr judge
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.ratio_lo,.ratio_hi]')" = '["ok",0.9,0.97]' ]
	# A ratio beyond 1 + budget holds the upper end up: undecided.
	[ "$(looks 0.05 1 1.01 1.2 1.02 .98 1 1 | sed 's/ |.*//' | awk '{ print $7 }')" = undecided ]
}

@test "rule: ties: ratios exactly at the bound are within it, never claimed; counts equal on both sides are ok" {
	# 8.0 -> 10.0 at 0.25: 1.25 exactly, every round: ok, never regressed.
	[ "$(looks 0.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 | sed 's/.* | //')" = 6 ]
	[ "$(looks 0.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 1.25 | awk '{ print $10 }')" = ok ]
	# 10 -> 8 at 0.25: 0.8, exactly 1 / 1.25: no improvement, ok.
	printf 'runs = 2\n[budget]\nx_ns = 0.25\n' >b.toml
	pairs r.jsonl 10 8 8 8 8 8 8 8 8 8 8
	run -0 --separate-stderr judge
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.ratio_lo,.ratio_hi]')" = '["ok",0.8,0.8]' ]
	# The same count on both sides: ratio 1 every round, ok at six.
	pairs r.jsonl 1000 1000 1000 1000 1000 1000 1000
	run -0 --separate-stderr judge
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.ratio_lo,.ratio_hi,.bound]')" = '["ok",1,1,0]' ]
}

@test "rule: a spell over a gate's first rounds is no claim: six rounds at 2x, then 1x" {
	# A rule that tests each look alone at 95 % ([min, max] of six)
	# claims at look six; this one needs eight, and the later rounds
	# disagree: at look 29 the sequence empties ([2, 1]: no one median
	# fits all the rounds), undecided for good.
	run -0 "$T/rulecheck" -l 0.05 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
	[[ "$output" != *regressed* ]]
	[ "${lines[-1]}" = "decided 0" ]
	[ "${lines[27]}" = "28 2 2 undecided" ]
	[ "${lines[28]}" = "29 2 1 undecided" ]
	printf 'runs = 2\n[budget]\nx_ns = 0.05\n' >b.toml
	pairs r.jsonl 8 16 16 16 16 16 16 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8
	run -2 --separate-stderr judge
	[ "$(echo "${lines[0]}" | jq -r .verdict)" = undecided ]
	# Simulated: head alone slowed 1.5x to 3x for the first 3 to 6
	# rounds of each gate, then unchanged: claims stay within the claim's
	# error (two in 2000 at 0.05: a spell of six and two rounds after it
	# beyond the bound by chance), none at 0.10. A spell that slows one
	# side alone for eight rounds or more is a claim: no rule can tell
	# it from a change. Pinning and pairing keep spells from one side
	# alone (perfgate(7)).
	run -0 "$T/rulecheck" firsthalf 1 0.05 2000
	within "$(field "$output" regressed)" 0.01 2000
	[ "$(field "$output" improved)" -eq 0 ]
	run -0 "$T/rulecheck" firsthalf 1 0.10 2000
	[ "$(field "$output" regressed)" -eq 0 ]
	[ "$(field "$output" improved)" -eq 0 ]
}

@test "rule: a decided verdict stays: later rounds that disagree do not undo it" {
	run -0 "$T/rulecheck" -l 0.05 2 2 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 1 1 1
	[ "${lines[-1]}" = "decided 8" ]
	[ "${lines[-2]}" = "20 2 2 regressed" ]
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

@test "rule: unchanged code is ok, not undecided, where the noise allows: quiet, two speeds, spells" {
	for sc in quiet twospeed spells; do
		run -0 "$T/rulecheck" "$sc" 1 0.05 1000
		[ "$(field "$output" ok)" -eq 1000 ]
	done
	# Quiet: six rounds in most gates.
	run -0 "$T/rulecheck" quiet 1 0.10 1000
	[[ "$output" == *"rounds median 6 "* ]]
}

@test "rule: a 2x slowdown is never ok and is claimed in every gate, in a median of 8 rounds, whatever the noise" {
	for sc in quiet skew onesided twospeed spells hog; do
		run -0 "$T/rulecheck" "$sc" 2 0.05 500
		[ "$(field "$output" regressed)" -eq 500 ]
		[ "$(field "$output" median)" -eq 8 ]
	done
}

@test "rule: a true 1.12x change at budget 0.05 is claimed in quiet, spells and two speeds, and never ok under a hog" {
	for sc in quiet twospeed spells; do
		run -0 "$T/rulecheck" "$sc" 1.12 0.05 1000
		[ "$(field "$output" regressed)" -ge 990 ]
		[ "$(field "$output" ok)" -eq 0 ]
	done
	# Under a hog (runs up to 60 % slower, each alone) the rounds seldom
	# exclude 1.05 within the deadline: undecided, and not ok.
	# An ok of a change beyond the budget is the error of ok's upper end,
	# (1 - conf) / 2: at most 25 of 1000.
	run -0 "$T/rulecheck" hog 1.12 0.05 1000
	[ "$(field "$output" ok)" -le 25 ]
	[ "$(( $(field "$output" regressed) + $(field "$output" undecided) ))" -ge 975 ]
}

@test "rule: a change exactly at the budget is claimed in at most the claim's error of the gates (Ville), whatever the noise" {
	# The claim's one-sided error at 95 % is 1 %, for all the looks
	# together: 4000 gates of up to 200 rounds, looked at after every
	# round. (Exactly, by the binomial sums: 0.70 % at 95 %, 0.16 % at
	# 99 %, in 200 rounds.)
	for sc in quiet skew onesided twospeed spells; do
		run -0 "$T/rulecheck" "$sc" 1.05 0.05 4000
		within "$(field "$output" regressed)" 0.01 4000
		run -0 "$T/rulecheck" "$sc" 0.952380952380952 0.05 4000
		within "$(field "$output" improved)" 0.01 4000
	done
	RULE_C=0.99 run -0 "$T/rulecheck" quiet 1.05 0.05 10000
	within "$(field "$output" regressed)" 0.002 10000
}

@test "rule: an improvement is a claim like a regression, never on unchanged code" {
	run -0 "$T/rulecheck" quiet 0.5 0.05 500
	[ "$(field "$output" improved)" -eq 500 ]
	run -0 "$T/rulecheck" quiet 0.88 0.05 500
	[ "$(field "$output" improved)" -ge 490 ]
	run -0 "$T/rulecheck" twospeed 0.88 0.05 500
	[ "$(field "$output" improved)" -ge 490 ]
	[ "$(( $(field "$output" improved) + $(field "$output" ok) ))" -eq 500 ]
}

@test "rule: a head or base of 0 or less is not a measurement: gaterun -j names file, line and metric, exit 2" {
	printf 'runs = 2\n[budget]\nx_ns = 0.05\n' >b.toml
	for zero in 0 -0 -1; do
		pairs r.jsonl 8 8 8 "$zero" 8 8 8
		run -2 --separate-stderr judge
		[ "$(jq -r .error g/verdict.jsonl)" = "g/runs.jsonl:6: x_ns: head $zero is not above 0: no ratio" ]
	done
	pairs r.jsonl 0 8 8 8 8 8 8
	run -2 --separate-stderr judge
	[ "$(jq -r .error g/verdict.jsonl)" = "g/runs.jsonl:1: x_ns: base 0 is not above 0: no ratio" ]
}

@test "rule: bad input to the simulator and to gaterun -j: one line naming it, exit 2" {
	for c in 0 1 1.5 -0.5 abc ''; do
		RULE_C=$c run -2 --separate-stderr "$T/rulecheck" quiet 1 0.05 10
		[ "$stderr" = "rulecheck: RULE_C $c: not a number above 0 and below 1" ]
		run -2 --separate-stderr gaterun -j -C "$c" -b /dev/null "$T"
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "gaterun: -C $c: "* ]]
	done
	run -2 --separate-stderr "$T/rulecheck" quiet 1 0 10
	[ "$stderr" = "rulecheck: budget 0: not a number above 0 and below 1e+09" ]
	run -2 --separate-stderr "$T/rulecheck" quiet x 0.05 10
	[ "$stderr" = "rulecheck: change x: not a number above 0 and below 1e+09" ]
	run -2 --separate-stderr "$T/rulecheck" quiet 1 0.05 0
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -2 --separate-stderr "$T/rulecheck" loud 1 0.05 10
	[[ "$stderr" == "rulecheck: scenario loud: not one of "* ]]
	run -2 --separate-stderr "$T/rulecheck" -l 0.05 1 0 1
	[ "$stderr" = "rulecheck: ratio 0: not a number above 0 and below 1e+300" ]
}
