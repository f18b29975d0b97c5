#!/usr/bin/env bats
# minjson: grouping, statistics, pass-through of numbers, and every way
# input can be bad.

load common

setup() {
	D=$DATA/minjson
	T=$BATS_TEST_TMPDIR
}

# The record minjson should reject, and the message it should give.
rejects() {	# rejects INPUT MESSAGE
	printf '%s\n' "$1" >"$T/bad.jsonl"
	run -2 --separate-stderr minjson "$T/bad.jsonl"
	[ "$output" = "" ]
	[ "$stderr" = "minjson: $T/bad.jsonl:1: $2" ]
}

@test "minjson: minima per side by default, fields in first-seen order" {
	run -0 --separate-stderr minjson -x round,slot,load "$D/runs.jsonl"
	[ "$output" = "$(cat "$D/min.out")" ]
	[ "$stderr" = "" ]
}

@test "minjson: -s min,q1,median,q3 gives the quartiles computed by hand" {
	run -0 minjson -s min,q1,median,q3 -x round,slot,load "$D/runs.jsonl"
	[ "$output" = "$(cat "$D/quartiles.out")" ]
}

@test "minjson: -s max,mean, in the order given" {
	run -0 minjson -s max,mean -x round,slot,load "$D/runs.jsonl"
	[ "$output" = "$(cat "$D/maxmean.out")" ]
}

@test "minjson: selected numbers pass through byte for byte (1.50, 1e3, -0)" {
	printf '%s\n' '{"side":"a","x":1.50,"y":1e3,"z":-0}' '{"side":"a","x":2,"y":2e3,"z":0.0}' >"$T/in"
	run -0 minjson -s min,max "$T/in"
	[ "${lines[0]}" = '{"side":"a","stat":"min","n":2,"x":1.50,"y":1e3,"z":-0}' ]
	[ "${lines[1]}" = '{"side":"a","stat":"max","n":2,"x":2,"y":2e3,"z":-0}' ]
}

@test "minjson: a quantile whose h is whole passes its value through" {
	printf '{"side":"a","x":%s}\n' 5.0 1.0 4.0 2.0 3.0 >"$T/in"
	run -0 minjson -s q1,median,q3 "$T/in"
	[ "${lines[0]}" = '{"side":"a","stat":"q1","n":5,"x":2.0}' ]
	[ "${lines[1]}" = '{"side":"a","stat":"median","n":5,"x":3.0}' ]
	[ "${lines[2]}" = '{"side":"a","stat":"q3","n":5,"x":4.0}' ]
}

@test "minjson: computed values print in the shortest exact form" {
	printf '{"side":"a","x":%s}\n' 0.1 0.2 >"$T/in"
	run -0 minjson -s mean,median "$T/in"
	# 0.1 + 0.2 is not 0.3 in doubles; half of it is 0.15000000000000002.
	[ "${lines[0]}" = '{"side":"a","stat":"mean","n":2,"x":0.15000000000000002}' ]
	[ "${lines[1]}" = '{"side":"a","stat":"median","n":2,"x":0.15000000000000002}' ]
}

@test "minjson: -k '' makes one group with no key in the output" {
	run -0 minjson -k '' "$D/runs.jsonl"
	[ "$output" = "$(cat "$D/all.out")" ]
}

@test "minjson: -k groups by another string field, groups in first-seen order" {
	printf '%s\n' '{"host":"b","x":3}' '{"host":"a","x":2}' '{"host":"b","x":1}' >"$T/in"
	run -0 minjson -k host "$T/in"
	[ "${lines[0]}" = '{"host":"b","stat":"min","n":2,"x":1}' ]
	[ "${lines[1]}" = '{"host":"a","stat":"min","n":1,"x":2}' ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "minjson: -x leaves fields out; strings and nested values are ignored" {
	printf '%s\n' '{"side":"a","x":3,"y":4,"z":5,"s":"str","o":{"k":1},"l":[1],"b":true,"u":null}' >"$T/in"
	run -0 minjson -x x,z "$T/in"
	[ "$output" = '{"side":"a","stat":"min","n":1,"y":4}' ]
}

@test "minjson: a field missing from some records is reduced over the others" {
	printf '%s\n' '{"side":"a","x":3}' '{"side":"a","x":1,"y":7}' '{"side":"b","x":2}' >"$T/in"
	run -0 minjson -s min,mean "$T/in"
	[ "${lines[0]}" = '{"side":"a","stat":"min","n":2,"x":1,"y":7}' ]
	[ "${lines[1]}" = '{"side":"a","stat":"mean","n":2,"x":2,"y":7}' ]
	[ "${lines[2]}" = '{"side":"b","stat":"min","n":1,"x":2}' ]
}

@test "minjson: reads standard input, '-', and several files in turn" {
	run -0 minjson -x round,slot,load <"$D/runs.jsonl"
	[ "$output" = "$(cat "$D/min.out")" ]
	run -0 minjson -x round,slot,load - <"$D/runs.jsonl"
	[ "$output" = "$(cat "$D/min.out")" ]
	run -0 minjson -k '' -x round,slot,load "$D/runs.jsonl" - "$D/runs.jsonl" <"$D/runs.jsonl"
	[ "$output" = '{"stat":"min","n":21,"matmul_ns":10,"sum_ns":-0}' ]
}

@test "minjson: CRLF line ends, blank lines and a last line without newline are fine" {
	sed 's/$/\r/' "$D/runs.jsonl" >"$T/crlf"
	run -0 minjson -x round,slot,load "$T/crlf"
	[ "$output" = "$(cat "$D/min.out")" ]
	{ echo; echo '  '; head -c -1 "$D/runs.jsonl"; } >"$T/blank"
	run -0 minjson -x round,slot,load "$T/blank"
	[ "$output" = "$(cat "$D/min.out")" ]
}

@test "minjson: a 1 MB line is read whole" {
	python3 -c 'print("{\"side\":\"a\",\"s\":\"" + "x" * 1048576 + "\",\"x\":42}")' >"$T/big"
	echo '{"side":"a","x":43}' >>"$T/big"
	run -0 minjson "$T/big"
	[ "$output" = '{"side":"a","stat":"min","n":2,"x":42}' ]
}

@test "minjson: nesting to 512 levels is read, deeper is exit 2" {
	python3 -c 'print("{\"side\":\"a\",\"x\":1,\"d\":" + "[" * 511 + "]" * 511 + "}")' >"$T/deep"
	run -0 minjson "$T/deep"
	[ "$output" = '{"side":"a","stat":"min","n":1,"x":1}' ]
	python3 -c 'print("{\"side\":\"a\",\"d\":" + "[" * 100000 + "]" * 100000 + "}")' >"$T/deeper"
	run -2 --separate-stderr minjson "$T/deeper"
	[ "$stderr" = "minjson: $T/deeper:1: nesting deeper than 512" ]
}

@test "minjson: 1e-400 reads as 0 and passes through as written" {
	printf '%s\n' '{"side":"a","x":1e-400}' '{"side":"a","x":1}' >"$T/in"
	run -0 minjson -s min,mean "$T/in"
	[ "${lines[0]}" = '{"side":"a","stat":"min","n":2,"x":1e-400}' ]
	[ "${lines[1]}" = '{"side":"a","stat":"mean","n":2,"x":0.5}' ]
}

@test "minjson: 1e400 is out of range, exit 2" {
	rejects '{"side":"a","x":1e400}' 'number out of range'
	rejects '{"side":"a","x":-1e400}' 'number out of range'
}

@test "minjson: NaN, Infinity and other non-JSON numbers are exit 2" {
	rejects '{"side":"a","x":NaN}' 'invalid value'
	rejects '{"side":"a","x":Infinity}' 'invalid value'
	rejects '{"side":"a","x":-Infinity}' 'invalid number'
	rejects '{"side":"a","x":+1}' 'invalid value'
	rejects '{"side":"a","x":01}' 'leading zero in number'
	rejects '{"side":"a","x":0x10}' "expected ',' or '}'"
	rejects '{"side":"a","x":1.}' 'invalid number'
}

@test "minjson: duplicate keys are exit 2" {
	rejects '{"side":"a","x":1,"x":2}' 'duplicate key "x"'
	rejects '{"side":"a","side":"b"}' 'duplicate key "side"'
}

@test "minjson: non-UTF-8 bytes and bad escapes are exit 2" {
	printf '{"side":"a\377","x":1}\n' >"$T/in"
	run -2 --separate-stderr minjson "$T/in"
	[ "$stderr" = "minjson: $T/in:1: invalid UTF-8 in string" ]
	printf '{"side":"a","s":"\300\257","x":1}\n' >"$T/in"
	run -2 --separate-stderr minjson "$T/in"
	[ "$stderr" = "minjson: $T/in:1: invalid UTF-8 in string" ]
	rejects '{"side":"a","s":"\ud800","x":1}' 'unpaired surrogate in string'
	rejects '{"side":"a","s":"\q"}' 'invalid escape in string'
}

@test "minjson: a truncated last line is exit 2 at its line number" {
	{ cat "$D/runs.jsonl"; printf '{"side":"base","matmul_ns":1'; } >"$T/trunc"
	run -2 --separate-stderr minjson "$T/trunc"
	[ "$output" = "" ]
	[ "$stderr" = "minjson: $T/trunc:8: unexpected end of line" ]
}

@test "minjson: a record without the key, or with a non-string key, is exit 2" {
	rejects '{"x":1}' 'no key "side"'
	rejects '{"side":1,"x":1}' 'value of "side" is not a string'
	rejects '{"side":null,"x":1}' 'value of "side" is not a string'
}

@test "minjson: a line that is not an object, or has text after it, is exit 2" {
	rejects '[1,2]' 'not a JSON object'
	rejects '{"side":"a"} {}' 'text after the object'
	rejects '{"side":"a",}' 'expected a key in quotes'
	rejects '{"side" "a"}' "expected ':'"
}

@test "minjson: a numeric field named n or stat is exit 2 unless -x drops it" {
	rejects '{"side":"a","n":1}' 'field "n" clashes with minjson'"'"'s own (exclude it with -x)'
	printf '%s\n' '{"side":"a","n":1,"x":2}' >"$T/in"
	run -0 minjson -x n "$T/in"
	[ "$output" = '{"side":"a","stat":"min","n":1,"x":2}' ]
}

@test "minjson: errors on standard input name <stdin> and the line" {
	run -2 --separate-stderr minjson < <(printf '%s\n' '{"side":"a","x":1}' '{"side":"a","x":}')
	[ "$stderr" = "minjson: <stdin>:2: invalid value" ]
}

@test "minjson: empty input is exit 2, no records" {
	run -2 --separate-stderr minjson </dev/null
	[ "$output" = "" ]
	[ "$stderr" = "minjson: no records" ]
	printf '\n \n\r\n' >"$T/blank"
	run -2 --separate-stderr minjson "$T/blank"
	[ "$stderr" = "minjson: no records" ]
}

@test "minjson: a file that cannot be opened is exit 2" {
	run -2 --separate-stderr minjson "$T/nonexistent"
	[ "$stderr" = "minjson: open $T/nonexistent: No such file or directory" ]
}

@test "minjson: usage errors are exit 2 with the usage line" {
	usage='usage: minjson [-V] [-k key] [-s stats] [-x fields] [file ...]'
	run -2 --separate-stderr minjson -z "$D/runs.jsonl"
	[ "${stderr_lines[1]}" = "$usage" ]
	run -2 --separate-stderr minjson -s min,avg "$D/runs.jsonl"
	[ "${stderr_lines[0]}" = 'minjson: unknown statistic "avg" (min, max, mean, median, q1, q3)' ]
	[ "${stderr_lines[1]}" = "$usage" ]
	run -2 --separate-stderr minjson -s min,min "$D/runs.jsonl"
	[ "${stderr_lines[0]}" = 'minjson: statistic "min" given twice' ]
	run -2 --separate-stderr minjson -s '' "$D/runs.jsonl"
	[ "${stderr_lines[0]}" = 'minjson: unknown statistic "" (min, max, mean, median, q1, q3)' ]
	run -2 --separate-stderr minjson -k stat "$D/runs.jsonl"
	[ "${stderr_lines[1]}" = "$usage" ]
	run -2 --separate-stderr minjson -k
	[ "${stderr_lines[1]}" = "$usage" ]
	[ "$output" = "" ]
}

@test "minjson: an output that cannot be written is exit 2" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -2 --separate-stderr bash -c 'minjson "$1" >/dev/full' sh "$D/runs.jsonl"
	[ "$stderr" = "minjson: write stdout: No space left on device" ]
}

@test "minjson: the usage line is the man page's SYNOPSIS" {
	check_synopsis minjson
}

# The man page's EXAMPLES, each run as written.
examples=(
	"minjson -x round,slot,load runs.jsonl | cmpbudget"
	"minjson -s min,q1,median,q3 -x round,slot,load runs.jsonl"
	"bestof -a -n 5 -- ./bench | minjson -k '' -s median"
)

@test "minjson: man page EXAMPLES are the ones tested here" {
	check_examples minjson "${examples[@]}"
}

@test "minjson: man example: minjson -x round,slot,load runs.jsonl | cmpbudget" {
	command -v cmpbudget >/dev/null || skip "cmpbudget not built"
	cd "$T"
	cp "$D/runs.jsonl" .
	printf '[budget]\nmatmul_ns = 0.25\n' >budget.toml
	# head's minimum 11 against base's 10 is within a budget of 0.25.
	run -0 bash -c "set -o pipefail; ${examples[0]} 2>/dev/null"
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r .verdict)" = ok ]
}

@test "minjson: man example: minjson -s min,q1,median,q3 -x round,slot,load runs.jsonl" {
	cd "$T"
	cp "$D/runs.jsonl" .
	run -0 bash -c "${examples[1]}"
	[ "$output" = "$(cat "$D/quartiles.out")" ]
}

@test "minjson: man example: bestof -a -n 5 -- ./bench | minjson -k '' -s median" {
	command -v bestof >/dev/null || skip "bestof not built"
	cd "$T"
	printf '#!/bin/sh\necho {\\"x_ns\\":7}\n' >bench
	chmod +x bench
	run -0 bash -c "set -o pipefail; ${examples[2]}"
	[ "$(printf '%s\n' "$output" | jq -c '[.stat, .n, .x_ns]')" = '["median",5,7]' ]
}

@test "minjson: a bad option is exit 2 with the tool's own message and the usage line" {
	bad_options minjson k
}

@test "minjson: a bad line after lines of the same layout gets the same message" {
	printf '%s\n' '{"side":"a","x":1,"y":2}' '{"side":"a","x":3,"y":4}' '{"side":"a","x":5,"x":6}' >"$T/dup"
	run -2 --separate-stderr minjson "$T/dup"
	[ "$stderr" = "minjson: $T/dup:3: duplicate key \"x\"" ]
	printf '%s\n' '{"side":"a","x":1,"y":2}' '{"side":"a","x":3,"y":NaN}' >"$T/nan"
	run -2 --separate-stderr minjson "$T/nan"
	[ "$stderr" = "minjson: $T/nan:2: invalid value" ]
	printf '%s\n' '{"side":"a","x":1,"y":2}' '{"side":"a","x":1.50,"y":-0}' '{"side":"a","x":1.5e0,"y":0}' >"$T/same"
	run -0 minjson "$T/same"
	[ "$output" = '{"side":"a","stat":"min","n":3,"x":1,"y":-0}' ]
}

@test "minjson: blank lines are skipped but counted: a message names the right line" {
	printf '%s\n' '{"side":"a","x":1}' '' '  ' $'\r' '{"side":"a","x":}' >"$T/gap"
	run -2 --separate-stderr minjson "$T/gap"
	[ "$output" = "" ]
	[ "$stderr" = "minjson: $T/gap:5: invalid value" ]
}

@test "minjson: a second record for one side and round is two runs in one file: exit 2 naming file and line" {
	printf '{"side":"base","round":1,"x_ns":1}\n{"side":"head","round":1,"x_ns":1}\n{"side":"base","round":2,"x_ns":1}\n{"side":"base","round":1,"x_ns":2}\n' > "$BATS_TEST_TMPDIR/d.jsonl"
	run -2 --separate-stderr minjson -x round "$BATS_TEST_TMPDIR/d.jsonl"
	[ "$stderr" = "minjson: $BATS_TEST_TMPDIR/d.jsonl:4: second record for side \"base\", round 1 (first at $BATS_TEST_TMPDIR/d.jsonl:1)" ]
	[ "$output" = "" ]
	# Without a key, records are not sides: no such rule.
	run -0 minjson -k '' -x round "$BATS_TEST_TMPDIR/d.jsonl"
}

@test "minjson: a second record for a round is found however the rounds run: far, fractional, -0, across files" {
	cd "$BATS_TEST_TMPDIR"
	# A round far beyond the records read (kept apart from the whole rounds
	# near the start), then the same round when it is near.
	{ printf '{"side":"a","round":100000,"x":1}\n'
	  # One printf for all the lines: a loop of 30000 commands costs
	  # seconds under bats' debug trap.
	  printf '{"side":"a","round":%d,"x":1}\n' $(seq 1 30000)
	  printf '{"side":"a","round":100000,"x":2}\n'; } > far.jsonl
	run -2 --separate-stderr minjson far.jsonl
	[ "$stderr" = 'minjson: far.jsonl:30002: second record for side "a", round 100000 (first at far.jsonl:1)' ]
	printf '{"side":"a","round":1.5,"x":1}\n{"side":"a","round":1,"x":1}\n{"side":"a","round":1.5,"x":1}\n' > frac.jsonl
	run -2 --separate-stderr minjson frac.jsonl
	[ "$stderr" = 'minjson: frac.jsonl:3: second record for side "a", round 1.5 (first at frac.jsonl:1)' ]
	# 0 and -0 are different rounds to minjson, as they always were; 0 twice is not.
	printf '{"side":"a","round":0,"x":1}\n{"side":"a","round":-0,"x":1}\n' > zero.jsonl
	run -0 --separate-stderr minjson zero.jsonl
	printf '{"side":"a","round":0,"x":1}\n{"side":"b","round":0,"x":1}\n{"side":"a","round":0,"x":1}\n' > zero.jsonl
	run -2 --separate-stderr minjson zero.jsonl
	[ "$stderr" = 'minjson: zero.jsonl:3: second record for side "a", round 0 (first at zero.jsonl:1)' ]
	# The first of two files is named.
	printf '{"side":"a","round":7,"x":1}\n' > one.jsonl
	printf '{"side":"b","round":7,"x":1}\n{"side":"a","round":7,"x":1}\n' > two.jsonl
	run -2 --separate-stderr minjson one.jsonl two.jsonl
	[ "$stderr" = 'minjson: two.jsonl:2: second record for side "a", round 7 (first at one.jsonl:1)' ]
	# 30000 whole rounds of two sides, each once: no error.
	seq 1 30000 | awk '{ printf "{\"side\":\"a\",\"round\":%d,\"x\":1}\n{\"side\":\"b\",\"round\":%d,\"x\":1}\n", $1, $1 }' > many.jsonl
	run -0 --separate-stderr minjson many.jsonl
	[ "$(jq -c '[.side, .n]' <<<"$output" | paste -sd' ')" = '["a",30000] ["b",30000]' ]
}
