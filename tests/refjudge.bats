#!/usr/bin/env bats
# refjudge: one row of a reference benchmark, from alternate's records and
# minjson's quartiles.

load common

R=$DATA/refjudge

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The runs with one member changed: sed's expression on runs.jsonl.
runs_with() {
	sed "$1" "$R/runs.jsonl" >runs.jsonl
}

@test "refjudge: a row: quartiles passed through, ratios, verdicts, the fastest side" {
	run -0 --separate-stderr refjudge -c sum -s kata,plain,numpy "$R/runs.jsonl" "$R/stats.jsonl"
	[ "$output" = "$(cat "$R/row.json")" ]
	[ -z "$stderr" ]
	echo "$output" | jq -e '.references == [
		{"reference":"plain","ratio":0.20588235294117646,"verdict":"faster"},
		{"reference":"numpy","ratio":1.105263157894737,"verdict":"slower"}]
		and .fastest == "numpy" and .retries == 2 and .pressure == [2.5,3,0.75]'
}

@test "refjudge: quartiles that overlap are a tie" {
	sed 's/"sum_ns":97.5/"sum_ns":106/' "$R/stats.jsonl" >stats.jsonl
	run -0 --separate-stderr refjudge -c sum -s kata,plain,numpy "$R/runs.jsonl" stats.jsonl
	[ "$(echo "$output" | jq -c '.references[1].verdict')" = '"tie"' ]
}

@test "refjudge: inputs that differ between sides are refused, naming both digests" {
	runs_with '/"side":"numpy"/s/7726aaaa/7726aaab/'
	run -2 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl "$R/stats.jsonl"
	[ "$stderr" = "refjudge: row sum: the inputs differ: side kata timed sha256 7726aaaa, side numpy sha256 7726aaab" ]
	[ -z "$output" ]
}

@test "refjudge: inputs that change between rounds, or no digest, are refused" {
	runs_with '4s/7726aaaa/00000000/'
	run -2 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl "$R/stats.jsonl"
	[ "$stderr" = "refjudge: runs.jsonl:4: row sum: side plain's inputs changed between rounds: sha256 7726aaaa, then 00000000" ]
	runs_with '2s/,"sum_input_sha256":"7726aaaa"//'
	run -2 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl "$R/stats.jsonl"
	[ "$stderr" = "refjudge: runs.jsonl:2: row sum: side plain reported no sum_input_sha256" ]
}

@test "refjudge: a row the gate deferred is written as such, exit 1 (3 for a wait), the deferral a member" {
	head -n 3 "$R/runs.jsonl" >runs.jsonl
	echo '{"error":"round 2: the load gate stayed closed: CPU pressure 90 at or above 30 after the round, and all 0 retries are used","deferred":true,"round":2,"gate":"retries","pressure":90,"maxload":30,"retries":0}' >>runs.jsonl
	run -1 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl
	[ "$output" = '{"case":"sum","metric":"sum_ns","valid":false,"deferred":"retries","error":"round 2: the load gate stayed closed: CPU pressure 90 at or above 30 after the round, and all 0 retries are used","rounds":1,"retries":0}' ]
	[ "$stderr" = "refjudge: row sum deferred: round 2: the load gate stayed closed: CPU pressure 90 at or above 30 after the round, and all 0 retries are used" ]
	echo '{"error":"round 1: the load gate stayed closed: load average 5 still at or above 3 after 60 s","deferred":true,"round":1,"gate":"wait","load":5,"maxload":3,"waited_s":60}' >runs.jsonl
	run -3 --separate-stderr refjudge -c sum -s kata,plain runs.jsonl
	[ "$(echo "$output" | jq -c '[.deferred, .rounds]')" = '["wait",0]' ]
}

@test "refjudge: a deferred row counts the retries it used; a row keeps the gauge read before each round" {
	# Round 1 passed at its second try; round 2 used the other three.
	sed '1,3s/"discarded":0/"discarded":1/' "$R/runs.jsonl" | head -n 3 >runs.jsonl
	echo '{"error":"round 2: the load gate stayed closed: CPU pressure 90 at or above 30 after the round, and all 4 retries are used","deferred":true,"round":2,"gate":"retries","pressure":90,"maxload":30,"retries":4}' >>runs.jsonl
	run -1 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl
	[ "$(echo "$output" | jq -c '[.deferred, .rounds, .retries]')" = '["retries",1,4]' ]
	# A wait says how many the run had used.
	sed '1,3s/"discarded":0/"discarded":1/' "$R/runs.jsonl" | head -n 3 >runs.jsonl
	echo '{"error":"round 2: the load gate stayed closed: CPU pressure 90 still at or above 30 after 60 s","deferred":true,"round":2,"gate":"wait","pressure":90,"maxload":30,"waited_s":60,"retries":2}' >>runs.jsonl
	run -3 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl
	[ "$(echo "$output" | jq -c '[.deferred, .rounds, .retries]')" = '["wait",1,2]' ]
	# What the gate read before each round stands beside what was read after.
	sed 's/"round":\([0-9]\),/"round":\1,"pressure_before":0.\1,/' "$R/runs.jsonl" >runs.jsonl
	run -0 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl "$R/stats.jsonl"
	echo "$output" | jq -e '.pressure == [2.5,3,0.75] and .pressure_before == [0.1,0.2,0.3]'
}

@test "refjudge: a failed side refuses the row with alternate's message" {
	head -n 1 "$R/runs.jsonl" >runs.jsonl
	echo '{"error":"side plain, round 1: ran with 2 threads, more than the 1 asked for","side":"plain","round":1,"threads":2,"stderr":""}' >>runs.jsonl
	run -2 --separate-stderr refjudge -c sum -s kata,plain runs.jsonl
	[ "$stderr" = "refjudge: row sum: side plain, round 1: ran with 2 threads, more than the 1 asked for" ]
	[ -z "$output" ]
}

@test "refjudge: a side that did not run, or lacks statistics, is an error" {
	run -2 --separate-stderr refjudge -c sum -s kata,plain,other "$R/runs.jsonl" "$R/stats.jsonl"
	[ "$stderr" = "refjudge: $R/runs.jsonl:3: row sum: side numpy is not one of -s" ]
	grep -v '"side":"plain","stat":"q3"' "$R/stats.jsonl" >stats.jsonl
	run -2 --separate-stderr refjudge -c sum -s kata,plain,numpy "$R/runs.jsonl" stats.jsonl
	[ "$stderr" = "refjudge: row sum: side plain lacks q1, median or q3 of sum_ns" ]
	run -2 --separate-stderr refjudge -c sum -s kata,plain,numpy "$R/runs.jsonl"
	[ "$stderr" = "refjudge: row sum: no statistics file" ]
}

@test "refjudge: usage errors are exit 2" {
	bad_options refjudge c
	run -2 --separate-stderr refjudge -c sum runs.jsonl
	[ "${stderr_lines[0]}" = "usage: refjudge -c case -s impl,ref,... runs.jsonl [stats.jsonl]" ]
	[ "${stderr_lines[1]}" = "       refjudge -V" ]
	run -2 --separate-stderr refjudge -c sum -s kata "$R/runs.jsonl"
	[ "$stderr" = "refjudge: -s: an implementation and at least one reference" ]
	run -2 --separate-stderr refjudge -c 'a"b' -s a,b "$R/runs.jsonl"
	[ "$stderr" = "refjudge: -c a\"b: a case name is plain text" ]
	run -2 --separate-stderr refjudge -c sum -s a,b nosuch.jsonl
	[ "$stderr" = "refjudge: nosuch.jsonl: No such file or directory" ]
}

@test "refjudge: every EXAMPLES line of the man page runs" {
	for s in kata plain; do
		printf '#!/bin/sh\necho "{\\"sum_ns\\":%d,\\"sum_input_sha256\\":\\"ab\\"}"\n' "${#s}" >"$s"
		chmod +x "$s"
	done
	mapfile -t ex < <(sed -n '/^\.Sh EXAMPLES/,/^\.Sh /s/^\.Dl //p' "$TOP/man/refjudge.1")
	[ "${#ex[@]}" -eq 3 ]
	run -0 --separate-stderr sh -c "${ex[0]} && ${ex[1]} && ${ex[2]}"
	[ "$(jq -c '[.case, .rounds, .references[0].ratio, .references[0].verdict, (.sides | map(.threads))]' sum.row)" = \
	    '["sum",6,0.8,"faster",[1,1]]' ]
}
