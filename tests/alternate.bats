#!/usr/bin/env bats
# alternate: order of sides, records, load gate, failures, usage.

load common

A=$DATA/alternate

setup() {
	cd "$BATS_TEST_TMPDIR"
	# A load file that lets the gate open, unless a test changes it.
	export PERFGATE_LOADAVG=$BATS_TEST_TMPDIR/loadavg
	setload 0.10
	# And a CPU pressure file for -p, likewise.
	export PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/pressure
	setpressure 0.50
}

# Replace the faked load file in one step, so alternate never reads half of it.
setload() {
	echo "$1 0.10 0.10 1/100 1" >"$PERFGATE_LOADAVG.tmp"
	mv "$PERFGATE_LOADAVG.tmp" "$PERFGATE_LOADAVG"
}

# The run records of $output, without the failure's record; and that record.
runs() {
	echo "$output" | jq -c 'select(has("error") | not)'
}
failure() {
	echo "$output" | jq -c 'select(has("error"))'
}

# A marker no other process carries: the argument of a sleep.
marker() {
	echo "$((RANDOM + 10000)).$$$RANDOM"
}

# Fail when a process with the marker still runs.
no_survivor() {
	sleep 0.2
	if pgrep -f "sleep $1" >/dev/null; then
		pgrep -af "sleep $1" >&2
		pkill -KILL -f "sleep $1"
		return 1
	fi
}

# k sides named s0..s(k-1), each printing its own metric.
sides() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf 's%d=%s %d\n' "$i" "$A/metric.sh" "$i"
	done
}

# The Williams property over the records on stdin: every round a permutation
# of the k sides, every side in every slot equally often, every ordered pair
# adjacent equally often (each count $3 times over $2 rounds).
williams_check() {
	jq -s -e --argjson k "$1" --argjson rounds "$2" --argjson pos "$3" --argjson adj "$4" '
		(group_by(.round) | map(sort_by(.slot) | map(.side))) as $rows
		| ($rows | length) == $rounds
		and ($rows | all(sort == ([range($k)] | map("s\(.)")) ))
		and ([$rows[] | to_entries[] | "\(.key)/\(.value)"] | group_by(.)
			| length == $k * $k and all(length == $pos))
		and ([$rows[] | . as $r | range(0; $k - 1) | "\($r[.])>\($r[. + 1])"]
			| group_by(.) | length == $k * ($k - 1) and all(length == $adj))
		and (map(.slot) | all(. >= 0 and . < $k))'
}

@test "alternate: two sides alternate AB BA AB with slots" {
	run -0 --separate-stderr alternate a="$A/metric.sh 1" b="$A/metric.sh 2"
	[ -z "$stderr" ]
	[ "$(echo "$output" | jq -r .side | paste -sd '')" = abbaab ]
	[ "$(echo "$output" | jq -r .slot | paste -sd '')" = 010101 ]
	[ "$(echo "$output" | jq -r .round | paste -sd '')" = 112233 ]
	# Each side's metric comes with it.
	[ "$(echo "$output" | jq -r '"\(.side)\(.t_ns)"' | sort -u | paste -sd ' ')" = "a1 b2" ]
}

@test "alternate: a record is side, round, slot, load, then the metrics byte for byte" {
	run -0 --separate-stderr alternate -r 1 x="printf '{\"b_ns\":1.50,\"a\":-0,\"c\":1e-3}\n'"
	[ "$output" = '{"side":"x","round":1,"slot":0,"load":0.1,"b_ns":1.50,"a":-0,"c":1e-3}' ]
}

@test "alternate: the load is read from PERFGATE_LOADAVG, else from the system" {
	setload 0.42
	run -0 --separate-stderr alternate -r 1 x="$A/metric.sh"
	[ "$(echo "$output" | jq .load)" = 0.42 ]
	unset PERFGATE_LOADAVG
	run -0 --separate-stderr alternate -r 1 x="$A/metric.sh"
	echo "$output" | jq -e '.load >= 0'
}

@test "alternate: one side runs once a round" {
	run -0 --separate-stderr alternate -r 2 only="$A/metric.sh 7"
	[ "$(echo "$output" | jq -c '[.side, .round, .slot, .t_ns]' | paste -sd ' ')" = '["only",1,0,7] ["only",2,0,7]' ]
}

@test "alternate: three sides follow a Williams design over six rounds" {
	mapfile -t s < <(sides 3)
	run -0 --separate-stderr alternate -r 6 "${s[@]}"
	echo "$output" | williams_check 3 6 2 2
}

@test "alternate: four sides follow a Williams design over four rounds" {
	mapfile -t s < <(sides 4)
	run -0 --separate-stderr alternate -r 4 "${s[@]}"
	echo "$output" | williams_check 4 4 1 1
}

@test "alternate: five sides follow a Williams design over ten rounds, then repeat" {
	mapfile -t s < <(sides 5)
	run -0 --separate-stderr alternate -r 20 "${s[@]}"
	echo "$output" | jq -c 'select(.round <= 10)' | williams_check 5 10 2 2
	# Round 11 starts the cycle again.
	[ "$(echo "$output" | jq -c 'select(.round == 1) | .side' | paste -sd '')" = \
	  "$(echo "$output" | jq -c 'select(.round == 11) | .side' | paste -sd '')" ]
}

@test "alternate: the thread variables are set to 1" {
	OMP_NUM_THREADS=8 MKL_NUM_THREADS=4 run -0 --separate-stderr alternate -r 1 e="$A/env.sh"
	echo "$output" | jq -e '.omp == 1 and .openblas == 1 and .mkl == 1 and .veclib == 1'
}

@test "alternate: -c pins every side to one CPU" {
	run -0 --separate-stderr alternate -c 0 -r 1 p="$A/cpus.sh" q="$A/cpus.sh"
	[ "$(echo "$output" | jq .cpu | paste -sd ' ')" = "0 0" ]
	[ "$(nproc --all)" -ge 2 ] || skip "one CPU"
	run -0 --separate-stderr alternate -c 1 -r 1 p="$A/cpus.sh"
	[ "$(echo "$output" | jq .cpu)" = 1 ]
}

@test "alternate: -c to a CPU that is not there is exit 2" {
	run -2 --separate-stderr alternate -c 1000 a="$A/metric.sh"
	[ "$stderr" = "alternate: -c 1000: CPU 1000 is not one this process may use" ]
	[ -z "$output" ]
}

@test "alternate: -o appends to the file" {
	echo '{"side":"old","round":1}' >runs.jsonl
	run -0 --separate-stderr alternate -r 2 -o runs.jsonl a="$A/metric.sh" b="$A/metric.sh"
	[ -z "$output" ]
	[ "$(wc -l <runs.jsonl)" -eq 5 ]
	[ "$(head -1 runs.jsonl)" = '{"side":"old","round":1}' ]
	[ "$(tail -n 4 runs.jsonl | jq -r .side | paste -sd '')" = abba ]
}

@test "alternate: -o keeps earlier records and the finished runs after a failure" {
	echo '{"side":"old","round":1}' >runs.jsonl
	run -2 --separate-stderr alternate -o runs.jsonl a="$A/metric.sh" b="$A/nth.sh n 2"
	[ "$(head -1 runs.jsonl)" = '{"side":"old","round":1}' ]
	# Round 1 (a, b), then round 2 runs b first, and b dies.
	[ "$(tail -n +2 runs.jsonl | jq -c '[.side, .round]' | paste -sd ' ')" = '["a",1] ["b",1] ["b",2]' ]
	[ "$(tail -n 1 runs.jsonl | jq -c '[.error, .signal]')" = '["side b, round 2: killed by signal 11 (Segmentation fault)",11]' ]
	[[ $stderr == *"alternate: side b, round 2: killed by signal 11"* ]]
}

@test "alternate: each record is written as its run ends, not at the round's end" {
	run -2 --separate-stderr alternate a="$A/metric.sh 5" b="$A/nth.sh n 1"
	[ "$(runs)" = '{"side":"a","round":1,"slot":0,"load":0.1,"t_ns":5}' ]
}

@test "alternate: a record reaches the file while the next side runs" {
	alternate -t 0 -o runs.jsonl a="$A/metric.sh" b="$A/grandchild.sh 3" 3>&- &
	pid=$!
	for i in $(seq 50); do
		[ -s runs.jsonl ] && break
		sleep 0.1
	done
	kill -TERM "$pid"
	wait "$pid" || true
	[ "$(jq -c '[.side, .round]' runs.jsonl)" = '["a",1]' ]
}

@test "alternate: a side killed by a signal stops the run, with its stderr's tail" {
	run -2 --separate-stderr alternate -r 3 seg="$A/nth.sh n 1"
	[ "$output" = '{"error":"side seg, round 1: killed by signal 11 (Segmentation fault)","side":"seg","round":1,"signal":11,"stderr":"nth: dying on call 1\n"}' ]
	[ "${stderr_lines[0]}" = "nth: dying on call 1" ]
	[ "${stderr_lines[1]}" = "alternate: side seg, round 1: killed by signal 11 (Segmentation fault)" ]
	[ "${stderr_lines[2]}" = "alternate: side seg's stderr ended with:" ]
	[ "${stderr_lines[3]}" = "  nth: dying on call 1" ]
	[ "${#stderr_lines[@]}" -eq 4 ]
}

@test "alternate: a long stderr is shown as its last whole lines" {
	run -2 --separate-stderr alternate a="sh -c 'seq 3000 >&2; exit 1'"
	tail=$(echo "$stderr" | sed -n '/stderr ended with:$/,$p' | tail -n +2)
	# Whole lines, the last ones, in order, and no more than the kept tail.
	[ "$(echo "$tail" | tail -n 1)" = "  3000" ]
	first=$(echo "$tail" | head -n 1 | tr -d ' ')
	[ "$(echo "$tail" | tr -d ' ')" = "$(seq "$first" 3000)" ]
	[ "$first" -gt 2000 ]
	[ "$(seq "$first" 3000 | wc -c)" -le 2048 ]
}

@test "alternate: a side that exits non-zero stops the run" {
	run -2 --separate-stderr alternate a="$A/metric.sh" bad="sh -c 'echo {\\\"t\\\":1}; exit 3'"
	[ "$(runs | jq -r .side)" = a ]
	[ "$(failure)" = '{"error":"side bad, round 1: exited with status 3","side":"bad","round":1,"status":3,"stderr":""}' ]
	[ "$stderr" = "alternate: side bad, round 1: exited with status 3" ]
}

@test "alternate: a command that cannot run stops the run" {
	run -2 --separate-stderr alternate a=./no-such-bench
	[[ ${stderr_lines[1]} == "alternate: side a, round 1: exited with status 127" ]]
	[[ $stderr == *no-such-bench* ]]
}

@test "alternate: a side without a JSON object of numbers stops the run" {
	run -2 --separate-stderr alternate a="echo hello"
	[[ $stderr == "alternate: side a, round 1: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -2 --separate-stderr alternate a="printf '{\"t\":\"x\"}\n'"
	[[ $stderr == "alternate: side a, round 1: "* ]]
	run -2 --separate-stderr alternate a="true"
	[[ $stderr == "alternate: side a, round 1: "* ]]
	[ "$output" = '{"error":"side a, round 1: no output on stdout","side":"a","round":1,"stderr":""}' ]
}

@test "alternate: a metric named like alternate's own keys stops the run" {
	for key in side round slot load; do
		run -2 --separate-stderr alternate a="printf '{\"t\":1,\"$key\":2}\n'"
		[ "$stderr" = "alternate: side a, round 1: metric \"$key\" clashes with a key of alternate's own" ]
		[ "$(echo "$output" | jq -c '[.side, .round, .error]')" = "[\"a\",1,\"side a, round 1: metric \\\"$key\\\" clashes with a key of alternate's own\"]" ]
	done
}

@test "alternate: a metric clashes with an own key only when spelled exactly so, wherever it stands" {
	# The last key of the object, after others.
	run -2 --separate-stderr alternate a="printf '{\"t\":1,\"x_ns\":2,\"load\":3}\n'"
	[ "$stderr" = "alternate: side a, round 1: metric \"load\" clashes with a key of alternate's own" ]
	# A prefix, a longer name, another case, an escaped spelling: metrics of
	# their own, passed through as written (keys are compared as written).
	run -0 --separate-stderr alternate -r 1 -d -l 5 -p -T 4 \
	    a="printf '{\"sid\":1,\"sides\":2,\"loads\":3,\"Round\":4,\"slot_ns\":5,\"\\\\u0073ide\":6,\"discard\":7,\"thread\":8}\n'"
	[ "$output" = '{"side":"a","round":1,"slot":0,"load":0.1,"pressure":0.5,"threads":1,"discarded":0,"pressure_before":0.5,"sid":1,"sides":2,"loads":3,"Round":4,"slot_ns":5,"\u0073ide":6,"discard":7,"thread":8}' ]
	# "discarded" is alternate's own only where alternate writes it: -d with a gate.
	run -0 --separate-stderr alternate -r 1 -d a="printf '{\"discarded\":1}\n'"
	[ "$(echo "$output" | jq .discarded)" = 1 ]
	run -2 --separate-stderr alternate -r 1 -d -l 5 a="printf '{\"discarded\":1}\n'"
	[ "$stderr" = "alternate: side a, round 1: metric \"discarded\" clashes with a key of alternate's own" ]
}

@test "alternate: a member given by -a clashes with a metric of the same key only, not a longer one" {
	# The gate's identity members (-a side:key=value) beside the kata's
	# metrics, one name a prefix of the other, either way round.
	run -0 --separate-stderr alternate -r 1 -a a:sum_ns=x -a 'a:x\u0031=y' \
	    a="printf '{\"sum_ns_x\":1,\"sum_n\":2,\"x1\":3}\n'"
	[ "$output" = '{"side":"a","sum_ns":"x","x\\u0031":"y","round":1,"slot":0,"load":0.1,"sum_ns_x":1,"sum_n":2,"x1":3}' ]
	run -2 --separate-stderr alternate -r 1 -a a:sum_ns_x=x a="printf '{\"sum_n\":2,\"sum_ns_x\":1}\n'"
	[ "$stderr" = 'alternate: side a, round 1: metric "sum_ns_x" clashes with a member given by -a' ]
	# A key with a quote, kept escaped, is matched escaped.
	run -2 --separate-stderr alternate -r 1 -a 'a:x"y=1' a="printf '{\"x\\\\\"y\":1}\n'"
	[ "$stderr" = 'alternate: side a, round 1: metric "x\"y" clashes with a member given by -a' ]
}

@test "alternate: a side past its timeout is killed with its hanging grandchild" {
	m=$(marker)
	run -2 --separate-stderr alternate -t 0.5 a="$A/metric.sh" g="$A/grandchild.sh $m"
	[ "$stderr" = "alternate: side g, round 1: timed out after 0.5 s" ]
	[ "$(runs | jq -r .side)" = a ]
	[ "$(failure)" = '{"error":"side g, round 1: timed out after 0.5 s","side":"g","round":1,"timed_out":true,"stderr":""}' ]
	no_survivor "$m"
}

@test "alternate: a side that ignores SIGTERM is killed at the timeout" {
	m=$(marker)
	run -2 --separate-stderr alternate -t 0.5 t="$A/noterm.sh $m"
	[ "$stderr" = "alternate: side t, round 1: timed out after 0.5 s" ]
	no_survivor "$m"
}

@test "alternate: SIGTERM to alternate leaves no side behind" {
	m=$(marker)
	alternate -t 0 g="$A/grandchild.sh $m" 3>&- &
	pid=$!
	for i in $(seq 50); do
		pgrep -f "sleep $m" >/dev/null && break
		sleep 0.1
	done
	kill -TERM "$pid"
	# Not `run wait`: the job belongs to this shell, not to run's subshell.
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	no_survivor "$m"
}

@test "alternate: the load gate waits for the load to fall, then proceeds" {
	setload 5.00
	(sleep 1; setload 0.20) >/dev/null 2>&1 3>&- &
	run -0 --separate-stderr alternate -l 2 -L 20 -r 2 a="$A/loadseen.sh" b="$A/loadseen.sh"
	# No side started before the load had fallen.
	[ "$(echo "$output" | grep -o '"seen":[^,}]*' | sort -u)" = '"seen":0.20' ]
	[ "$(echo "$output" | wc -l)" -eq 4 ]
	[ -z "$stderr" ]
}

@test "alternate: a load gate that stays closed is exit 2 and says so" {
	setload 3.5
	run -2 --separate-stderr alternate -l 2 -L 0.6 a="$A/metric.sh"
	[ "$output" = '{"error":"round 1: the load gate stayed closed: load average 3.5 still at or above 2 after 0.6 s","deferred":true,"round":1,"gate":"wait","load":3.5,"maxload":2,"waited_s":0.6,"retries":0}' ]
	[ "$stderr" = "alternate: round 1: the load gate stayed closed: load average 3.5 still at or above 2 after 0.6 s" ]
}

@test "alternate: the load gate is closed at the maximum itself" {
	setload 2.00
	run -2 --separate-stderr alternate -l 2 -L 0 a="$A/metric.sh"
	[[ $stderr == *"gate stayed closed"* ]]
	setload 1.99
	run -0 --separate-stderr alternate -l 2 -L 0 a="$A/metric.sh"
}

@test "alternate: a round that ends above the gate is discarded and run again" {
	# b raises the load during round 1; the test lowers it again a bit later.
	(while [ ! -e raised ]; do sleep 0.05; done; sleep 0.6; setload 0.30) >/dev/null 2>&1 3>&- &
	run -0 --separate-stderr alternate -l 2 -L 20 -r 2 a="$A/metric.sh 1" b="$A/raise.sh raised"
	[ "$stderr" = "alternate: round 1 discarded: load average 9 at or above 2 after it (retry 1 of 10)" ]
	# Round 1 is there once, with the same order, and only at a low load.
	[ "$(echo "$output" | jq -c '[.side, .round, .slot, .load]' | paste -sd ' ')" = \
	  '["a",1,0,0.3] ["b",1,1,0.3] ["b",2,0,0.3] ["a",2,1,0.3]' ]
}

@test "alternate: -d notes in each record how often its round was discarded" {
	(while [ ! -e raised ]; do sleep 0.05; done; sleep 0.6; setload 0.30) >/dev/null 2>&1 3>&- &
	run -0 --separate-stderr alternate -d -l 2 -L 20 -r 2 a="$A/metric.sh 1" b="$A/raise.sh raised"
	[ "$(echo "$output" | jq -c '[.side, .round, .discarded]' | paste -sd ' ')" = \
	  '["a",1,1] ["b",1,1] ["b",2,0] ["a",2,0]' ]
	# Without a gate nothing is discarded, and nothing is said.
	setload 0.10
	run -0 --separate-stderr alternate -d -r 1 a="$A/metric.sh 1"
	[ "$output" = '{"side":"a","round":1,"slot":0,"load":0.1,"t_ns":1}' ]
}

@test "alternate: retries used up is exit 2, and the records before stay" {
	(while [ ! -e raised ]; do sleep 0.05; done; sleep 0.6; setload 0.30) >/dev/null 2>&1 3>&- &
	run -2 --separate-stderr alternate -l 2 -L 20 -R 0 -r 2 a="$A/metric.sh 1" b="$A/raise.sh raised"
	[ "$output" = '{"error":"round 1: the load gate stayed closed: load average 9 at or above 2 after the round, and all 0 retries are used","deferred":true,"round":1,"gate":"retries","load":9,"maxload":2,"retries":0}' ]
	[ "$stderr" = "alternate: round 1: the load gate stayed closed: load average 9 at or above 2 after the round, and all 0 retries are used" ]
}

@test "alternate: with a gate, a failed round writes none of its records" {
	run -2 --separate-stderr alternate -l 2 a="$A/metric.sh" b="$A/nth.sh n 2"
	# Round 1 passed the gate; round 2 ran b first, which died.
	[ "$(echo "$output" | jq -c '[.side, .round, .signal]' | paste -sd ' ')" = '["a",1,null] ["b",1,null] ["b",2,11]' ]
}

@test "alternate: a bad load file is exit 2" {
	echo nonsense >"$PERFGATE_LOADAVG"
	run -2 --separate-stderr alternate a="$A/metric.sh"
	[ "$stderr" = "alternate: $PERFGATE_LOADAVG:1: expected a load average" ]
	PERFGATE_LOADAVG=$BATS_TEST_TMPDIR/none run -2 --separate-stderr alternate a="$A/metric.sh"
	[ "$stderr" = "alternate: $BATS_TEST_TMPDIR/none: No such file or directory" ]
}

@test "alternate: a progress line on a terminal, erased at the end" {
	run -0 script -qec "alternate -r 2 a='$A/metric.sh' b='$A/metric.sh' 2>&1 >/dev/null" /dev/null
	[[ $output == *"alternate: round 2/2, side a (2/2)"*"s elapsed, about"*"s left"* ]]
	# The last thing written erases the line.
	[[ $output == *$'\r\033[K' ]]
	# While a load gate waits, and erased before a message.
	setload 0.9
	run -2 script -qec "alternate -r 1 -l 0.5 -L 0.7 a='$A/metric.sh' 2>&1 >/dev/null" /dev/null
	[[ $output == *"alternate: round 1/1, waiting for load average 0.9 to fall below 0.5, "*" s elapsed"$'\r\033[K'"alternate: round 1: the load gate stayed closed"* ]]
}

@test "alternate: no progress line when stderr is not a terminal" {
	run -0 --separate-stderr alternate -r 2 a="$A/metric.sh" b="$A/metric.sh"
	[ -z "$stderr" ]
	setload 0.9
	run -2 --separate-stderr alternate -l 0.5 -L 0.7 a="$A/metric.sh"
	[ "$stderr" = "alternate: round 1: the load gate stayed closed: load average 0.9 still at or above 0.5 after 0.7 s" ]
}

@test "alternate: a reader that stops early stops alternate (SIGPIPE)" {
	run -141 --separate-stderr bash -c 'alternate -r 50 a="$1 n 0" | head -n 1; exit "${PIPESTATUS[0]}"' sh "$A/nth.sh"
	[ "$(echo "$output" | jq -c '[.side, .round]')" = '["a",1]' ]
	[ -z "$stderr" ]
	# It stopped at the first record it could not write, not after 50 rounds.
	[ "$(cat n)" -lt 50 ]
}

@test "alternate: -n numbers the rounds from first and continues the design" {
	run -0 --separate-stderr alternate -n 4 -r 2 a="$A/metric.sh 1" b="$A/metric.sh 2"
	[ "$(echo "$output" | jq -c '[.side, .round]' | paste -sd ' ')" = '["b",4] ["a",4] ["a",5] ["b",5]' ]
	# Three rounds, then three more from round 4: the six of one run.
	mapfile -t s < <(sides 3)
	run -0 --separate-stderr alternate -r 6 "${s[@]}"
	whole=$output
	run -0 --separate-stderr alternate -n 1 -r 3 "${s[@]}"
	part=$output
	run -0 --separate-stderr alternate -n 4 -r 3 "${s[@]}"
	[ "$(printf '%s\n%s\n' "$part" "$output" | jq -c '[.side, .round, .slot]')" = \
	  "$(echo "$whole" | jq -c '[.side, .round, .slot]')" ]
}

@test "alternate: -a adds members to every record of a side, right after side" {
	run -0 --separate-stderr alternate -r 1 -a 'a:cc=gcc "12"' -a a:id=1 -a b:id=2 \
	    a="$A/metric.sh 1" b="$A/metric.sh 2"
	[ "$output" = '{"side":"a","cc":"gcc \"12\"","id":"1","round":1,"slot":0,"load":0.1,"t_ns":1}
{"side":"b","id":"2","round":1,"slot":1,"load":0.1,"t_ns":2}' ]
	# And to its failure's record.
	run -2 --separate-stderr alternate -a a:id=1 a="sh -c 'exit 4'"
	[ "$output" = '{"error":"side a, round 1: exited with status 4","side":"a","id":"1","round":1,"status":4,"stderr":""}' ]
}

@test "alternate: -a refuses a key of its own, a repeated key, an unknown side" {
	for key in side round slot load pressure threads error status stderr; do
		run -2 --separate-stderr alternate -a "a:$key=1" a=true
		[ "$stderr" = "alternate: -a a:$key=1: $key is a key of alternate's own" ]
	done
	run -2 --separate-stderr alternate -a a:x=1 -a a:x=2 a=true
	[ "$stderr" = "alternate: -a a:x=2: side a has a member x already" ]
	run -2 --separate-stderr alternate -a b:x=1 a=true
	[ "$stderr" = "alternate: -a b:x=1: no side named b" ]
	run -2 --separate-stderr alternate -a a:x a=true
	[ "$stderr" = "alternate: -a a:x: expected name:key=value" ]
	run -2 --separate-stderr alternate -a a:=1 a=true
	[ "$stderr" = "alternate: -a a:=1: empty key" ]
	[ -z "$output" ]
	# A metric of the side with the same name is a failed run.
	run -2 --separate-stderr alternate -a a:t_ns=x a="$A/metric.sh"
	[ "$stderr" = 'alternate: side a, round 1: metric "t_ns" clashes with a member given by -a' ]
}

@test "alternate: a failed side's record has its status and its stderr's tail" {
	run -2 --separate-stderr alternate -r 3 base="$A/metric.sh" head="$A/fail.sh 2 3"
	[ "$(failure)" = '{"error":"side head, round 2: exited with status 3","side":"head","round":2,"status":3,"stderr":"boom\n"}' ]
	[ "$(runs | jq -c '[.side, .round]' | paste -sd ' ')" = '["base",1] ["head",1]' ]
}

@test "alternate: the record's stderr is the last whole lines, valid UTF-8" {
	run -2 --separate-stderr alternate a="sh -c 'seq 3000 >&2; exit 1'"
	tail=$(echo "$output" | jq -r .stderr)
	[ "$(echo "$tail" | tail -n 1)" = 3000 ]
	first=$(echo "$tail" | head -n 1)
	[ "$tail" = "$(seq "$first" 3000)" ]
	[ "$first" -gt 2000 ]
	run -2 --separate-stderr alternate a="printf 'caf\\303\\251 \\377\\342\\202' >&2; exit 1"
	[ "$(echo "$output" | jq -r .stderr)" = "café ���" ]
}

@test "alternate: -T refuses a side seen with more threads, naming it" {
	py=/usr/bin/python3
	[ -x "$py" ] || skip "python3 is not installed"
	run -2 --separate-stderr alternate -T 1 a="$A/metric.sh" t="$py $A/thread.py"
	[ "$stderr" = "alternate: side t, round 1: ran with 2 threads, more than the 1 asked for" ]
	[ "$(failure | jq -c '[.side, .round, .threads]')" = '["t",1,2]' ]
	# The thread count is in every record; two are allowed with -T 2.
	run -0 --separate-stderr alternate -T 2 -r 1 a="$A/metric.sh" t="$py $A/thread.py"
	[ "$(echo "$output" | jq -c '[.side, .threads]' | paste -sd ' ')" = '["a",1] ["t",2]' ]
	run -2 --separate-stderr alternate -T 1 a='echo "{\"threads\":1}"'
	[ "$stderr" = 'alternate: side a, round 1: metric "threads" clashes with a key of alternate'"'"'s own' ]
}

@test "alternate: -s passes string members of the metrics line through" {
	run -0 --separate-stderr alternate -s -r 1 a="printf '{\"t_ns\":1.50,\"in_sha256\":\"ab\\\\\\\\\"}\n'"
	[ "$output" = '{"side":"a","round":1,"slot":0,"load":0.1,"t_ns":1.50,"in_sha256":"ab\\"}' ]
	run -2 --separate-stderr alternate -r 1 a="printf '{\"t_ns\":1,\"in_sha256\":\"ab\"}\n'"
	[ "$stderr" = 'alternate: side a, round 1: value of "in_sha256" is not a number' ]
	run -2 --separate-stderr alternate -s -r 1 a="printf '{\"t_ns\":1,\"x\":[1]}\n'"
	[ "$stderr" = 'alternate: side a, round 1: value of "x" is neither a number nor a string' ]
}

@test "alternate: usage errors are exit 2" {
	run -2 --separate-stderr alternate
	[ "$stderr" = "usage: alternate [-V] [-dpsw] [-a name:key=value] [-c cpu|auto] [-l maxload] [-L wait] [-F failfile] [-n first] [-o file] [-r rounds] [-R retries] [-t timeout] [-T maxthreads] [-W reruns] name=command ..." ]
	run -2 --separate-stderr alternate -x a=true
	[ "${stderr_lines[1]}" = "usage: alternate [-V] [-dpsw] [-a name:key=value] [-c cpu|auto] [-l maxload] [-L wait] [-F failfile] [-n first] [-o file] [-r rounds] [-R retries] [-t timeout] [-T maxthreads] [-W reruns] name=command ..." ]
	run -2 --separate-stderr alternate -r
	[[ ${stderr_lines[1]} == usage:* ]]
	[ -z "$output" ]
}

@test "alternate: bad numbers are exit 2" {
	run -2 --separate-stderr alternate -r 0 a=true
	[ "$stderr" = "alternate: -r 0: out of range" ]
	run -2 --separate-stderr alternate -r 2x a=true
	[ "$stderr" = "alternate: -r 2x: not a whole number" ]
	run -2 --separate-stderr alternate -R -1 a=true
	[ "$stderr" = "alternate: -R -1: out of range" ]
	run -2 --separate-stderr alternate -t -1 a=true
	[ "$stderr" = "alternate: -t -1: out of range" ]
	run -2 --separate-stderr alternate -t nan a=true
	[ "$stderr" = "alternate: -t nan: not a number" ]
	run -2 --separate-stderr alternate -l 0 a=true
	[ "$stderr" = "alternate: -l 0: out of range" ]
	run -2 --separate-stderr alternate -L x a=true
	[ "$stderr" = "alternate: -L x: not a number" ]
	run -2 --separate-stderr alternate -c -1 a=true
	[ "$stderr" = "alternate: -c -1: not auto or a CPU number from 0" ]
	run -2 --separate-stderr alternate -c Auto a=true
	[ "$stderr" = "alternate: -c Auto: not auto or a CPU number from 0" ]
	run -2 --separate-stderr alternate -W -1 -w a=true
	[ "$stderr" = "alternate: -W -1: out of range" ]
	run -2 --separate-stderr alternate -W 2 a=true
	[ "$stderr" = "alternate: -W 2: needs -w, which tells a disturbed run" ]
	run -2 --separate-stderr alternate -n 0 a=true
	[ "$stderr" = "alternate: -n 0: out of range" ]
	run -2 --separate-stderr alternate -T 0 a=true
	[ "$stderr" = "alternate: -T 0: out of range" ]
}

@test "alternate: bad sides are exit 2" {
	run -2 --separate-stderr alternate ./bench
	[ "$stderr" = "alternate: ./bench: a side is name=command" ]
	run -2 --separate-stderr alternate a=true a=false
	[ "$stderr" = "alternate: duplicate side name a" ]
	run -2 --separate-stderr alternate =true
	[ "$stderr" = "alternate: =true: empty side name" ]
	run -2 --separate-stderr alternate a=
	[ "$stderr" = "alternate: a=: empty command" ]
	run -2 --separate-stderr alternate 'a"b=true'
	[ "$stderr" = "alternate: a\"b=true: a side name holds only letters, digits and ._+-" ]
	# Options end at the first side.
	run -2 --separate-stderr alternate a=true -r 2
	[ "$stderr" = "alternate: -r: a side is name=command" ]
	[ -z "$output" ]
}

@test "alternate: an output that cannot be written is exit 2" {
	run -2 --separate-stderr alternate -o "$BATS_TEST_TMPDIR/no/such/dir" a="$A/metric.sh"
	[ "$stderr" = "alternate: $BATS_TEST_TMPDIR/no/such/dir: No such file or directory" ]
	run -2 --separate-stderr sh -c 'alternate a="$1" >/dev/full' sh "$A/metric.sh"
	[ "$stderr" = "alternate: write <stdout>: No space left on device" ]
}

@test "alternate: every EXAMPLES line of the man page runs" {
	for d in base head a b c; do
		mkdir -p "$d"
		printf '#!/bin/sh\necho "{\\"t_ns\\":%d}"\n' "${#d}" >"$d/bench"
		chmod +x "$d/bench"
	done
	printf '#!/bin/sh\n: old\n' >old
	printf '#!/bin/sh\n: new\n' >new
	chmod +x old new
	mapfile -t ex < <(sed -n '/^\.Sh EXAMPLES/,/^\.Sh /s/^\.Dl //p' "$TOP/man/alternate.1")
	[ "${#ex[@]}" -eq 6 ]

	run -0 --separate-stderr sh -c "${ex[0]}"
	[ -z "$stderr" ]
	[ "$(jq -r .side runs.jsonl | paste -sd ' ')" = "base head head base base head" ]

	run -0 --separate-stderr sh -c "${ex[1]}"
	[ -z "$stderr" ]
	[ "$(wc -l <runs.jsonl)" -eq 24 ]
	tail -n 18 runs.jsonl | jq -c '.side |= {a: "s0", b: "s1", c: "s2"}[.]' | williams_check 3 6 2 2

	run -0 --separate-stderr sh -c "${ex[2]}"
	[ -z "$stderr" ]
	[ "$(echo "$output" | jq -c '[.side, .n, .t_ns]' | paste -sd ' ')" = '["base",5,4] ["head",5,4]' ]

	run -0 --separate-stderr sh -c "${ex[3]}"
	[ -z "$stderr" ]
	[ "$(echo "$output" | jq -r .side | paste -sd ' ')" = "old new" ]
	echo "$output" | jq -e 'select(.side == "new") | .wall_ns > 0 and .n == 3'

	rm -f runs.jsonl
	run -0 --separate-stderr sh -c "${ex[4]}"
	[ -z "$stderr" ]
	[ "$(wc -l <runs.jsonl)" -eq 8 ]
	[ "$(head -n 4 runs.jsonl | jq -c '[.side, .load, .pressure, .t_ns]' | paste -sd ' ')" = \
	    '["base",0.1,0.5,4] ["head",0.1,0.5,4] ["head",0.1,0.5,4] ["base",0.1,0.5,4]' ]

	run -0 --separate-stderr sh -c "${ex[5]}"
	[ -z "$stderr" ]
	[ "$(echo "$output" | jq -c '[.side, .cc, .round]' | paste -sd ' ')" = \
	    '["head","clang",4] ["base","gcc",4] ["base","gcc",5] ["head","clang",5] ["head","clang",6] ["base","gcc",6]' ]
}

@test "alternate: -p gates on the CPU pressure, not the load average" {
	setload 50
	setpressure 12.25
	run -2 --separate-stderr alternate -p -l 10 -L 0.6 a="$A/metric.sh"
	[ "$(echo "$output" | jq -c '[.deferred, .gate, .pressure, .maxload]')" = '[true,"wait",12.25,10]' ]
	[ "$stderr" = "alternate: round 1: the load gate stayed closed: CPU pressure 12.25 still at or above 10 after 0.6 s" ]
	# The pressure falls: the gate opens although the load average stays high.
	(sleep 0.3; setpressure 3.00) &
	run -0 --separate-stderr alternate -p -l 10 -L 5 -r 1 a="$A/metric.sh"
	wait
	[ "$(echo "$output" | jq -c '[.load, .pressure]')" = '[50,3]' ]
}

@test "alternate: -p rejects a pressure file it cannot read, and a metric named pressure" {
	echo 'nothing like PSI' >"$PERFGATE_PRESSURE"
	run -2 --separate-stderr alternate -p a="$A/metric.sh"
	[ "$stderr" = "alternate: $PERFGATE_PRESSURE:1: expected \"some avg10=\"" ]
	PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/none run -2 --separate-stderr alternate -p a="$A/metric.sh"
	[ "$stderr" = "alternate: $BATS_TEST_TMPDIR/none: No such file or directory" ]
	setpressure 0.5
	run -2 --separate-stderr alternate -p a='echo "{\"pressure\":1}"'
	[[ "${stderr_lines[0]}" == 'alternate: side a, round 1: metric "pressure" clashes with a key of alternate'* ]]
	# Without -p, "pressure" is a metric like any other.
	run -0 --separate-stderr alternate -r 1 a='echo "{\"pressure\":1}"'
	[ "$(echo "$output" | jq .pressure)" = 1 ]
}

@test "alternate: a bad option is exit 2 with the tool's own message and the usage line" {
	bad_options alternate r
}

@test "alternate -w: each record says what disturbed its run: wall and CPU time, context switches, CPU pressure stall, steal" {
	# The pressure's total and the steal column grow while the side runs.
	printf 'cpu  10 0 10 100 0 0 0 200 0 0\n' > stat
	export PERFGATE_STAT=$BATS_TEST_TMPDIR/stat
	printf 'some avg10=7.50 avg60=0.00 avg300=0.00 total=1000000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' > "$PERFGATE_PRESSURE"
	cat > side.sh <<'SH'
#!/bin/sh
printf 'some avg10=7.50 avg60=0.00 avg300=0.00 total=1250000\n' > "$PERFGATE_PRESSURE"
printf 'cpu  10 0 10 100 0 0 0 250 0 0\n' > "$PERFGATE_STAT"
echo '{"t_ns":5}'
SH
	chmod +x side.sh
	run -0 --separate-stderr alternate -w -r 1 a=./side.sh
	[ "$(echo "$output" | jq -c --argjson hz "$(getconf CLK_TCK)" \
	    '[.pressure, .stall_s, (.steal_s * $hz | round), (.wall_s > 0), (.cpu >= 0), (.ivcsw >= 0), .t_ns]')" = \
	    "[7.5,0.25,50,true,true,true,5]" ]
	[ "$(echo "$output" | jq -r 'keys_unsorted | join(" ")')" = "side round slot load pressure wall_s cpu ivcsw stall_s steal_s running t_ns" ]
	# Without PSI, a steal column or a run queue, those members are left out, not errors.
	printf '0.10 0.10 0.10\n' > loadavg
	export PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/none PERFGATE_STAT=$BATS_TEST_TMPDIR/none PERFGATE_LOADAVG=$BATS_TEST_TMPDIR/loadavg
	run -0 --separate-stderr alternate -w -r 1 a="echo '{\"t_ns\":5}'"
	[ "$(echo "$output" | jq -r 'keys_unsorted | join(" ")')" = "side round slot load wall_s cpu ivcsw t_ns" ]
	# A metric with one of those names clashes, with -w.
	run -2 --separate-stderr alternate -w -r 1 a="echo '{\"ivcsw\":5}'"
	[ "$stderr" = "alternate: side a, round 1: metric \"ivcsw\" clashes with a key of alternate's own" ]
	run -0 --separate-stderr alternate -r 1 a="echo '{\"ivcsw\":5}'"
}

@test "alternate -w: running is how many other tasks were runnable as the run ended, read from the run queue" {
	printf '0.50 0.40 0.30 4/321 9999\n' > loadavg
	export PERFGATE_LOADAVG=$BATS_TEST_TMPDIR/loadavg
	run -0 --separate-stderr alternate -w -r 1 a="echo '{\"t_ns\":5}'"
	[ "$(echo "$output" | jq -c '[.running, .load]')" = "[3,0.5]" ]
	# A run queue it cannot read is left out.
	printf '0.50 0.40 0.30\n' > loadavg
	run -0 --separate-stderr alternate -w -r 1 a="echo '{\"t_ns\":5}'"
	[ "$(echo "$output" | jq -c '.running')" = "null" ]
	run -2 --separate-stderr alternate -w -r 1 a="echo '{\"running\":5}'"
	[ "$stderr" = "alternate: side a, round 1: metric \"running\" clashes with a key of alternate's own" ]
}

@test "alternate -W: a round with a run that had little of a CPU is run again, at most reruns times in all, and says so" {
	# A side that sleeps has almost no CPU time over its wall time: disturbed.
	printf '#!/bin/sh\necho x >> "%s/count"\nsleep 0.05\necho "{\\"t_ns\\":1}"\n' "$BATS_TEST_TMPDIR" > idle.sh
	chmod +x idle.sh
	run -0 --separate-stderr alternate -w -W 2 -r 2 a=./idle.sh
	# Round 1 ran three times (two reruns, all -W allows), round 2 once.
	[ "$(grep -c x count)" = 4 ]
	[ "$(echo "$output" | jq -c '[.round, .reruns]' | tr '\n' ' ')" = "[1,2] [2,0] " ]
	# Without -W nothing is run again, and records carry no reruns.
	run -0 --separate-stderr alternate -w -r 1 a=./idle.sh
	[ "$(echo "$output" | jq -c '.reruns')" = "null" ]
}

@test "alternate -c auto: every side runs on the highest-numbered CPU alternate may use" {
	want=$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | sed 's/.*-//' | sort -n | tail -n 1)
	run -0 --separate-stderr alternate -c auto -r 1 a="sh -c 'echo \"{\\\"cpus\\\":\$(sed -n \"s/^Cpus_allowed_list:[[:space:]]*//p\" /proc/self/status)}\"'"
	[ "$(echo "$output" | jq -r .cpus)" = "$want" ]
	run -0 --separate-stderr taskset -c 0 alternate -c auto -r 1 a="sh -c 'echo \"{\\\"cpus\\\":\$(sed -n \"s/^Cpus_allowed_list:[[:space:]]*//p\" /proc/self/status)}\"'"
	[ "$(echo "$output" | jq -r .cpus)" = 0 ]
}

@test "alternate -c: each record says the CPU its run was pinned to and how many other gates held it; a metric may not take those keys" {
	run -0 --separate-stderr taskset -c 0 alternate -c auto -r 2 a="echo '{\"t_ns\":5}'"
	[ "$(echo "$output" | jq -c '[.pinned, .shared, .t_ns]' | sort -u)" = "[0,0,5]" ]
	# A gate that held CPU 0 as the run began is counted.
	taskset -c 0 alternate -c 0 -r 1 a="sh -c 'touch in; while [ ! -e go ]; do sleep 0.1; done; echo {\\\"t_ns\\\":1}'" > held.jsonl &
	while [ ! -e in ]; do sleep 0.1; done
	run -0 --separate-stderr taskset -c 0 alternate -c auto -r 1 a="echo '{\"t_ns\":5}'"
	touch go
	wait
	[ "$(echo "$output" | jq -c '[.pinned, .shared]')" = "[0,1]" ]
	[ "$(jq -c '[.pinned, .shared]' held.jsonl)" = "[0,0]" ]
	for key in pinned shared; do
		run -2 --separate-stderr alternate -c auto -r 1 a="echo '{\"$key\":5}'"
		[ "$stderr" = "alternate: side a, round 1: metric \"$key\" clashes with a key of alternate's own" ]
		run -2 --separate-stderr alternate -c auto -r 1 -a "a:$key=x" a="echo '{\"t_ns\":5}'"
		run -0 --separate-stderr alternate -r 1 a="echo '{\"$key\":5}'"
	done
}

@test "alternate -F: a failure's side and message as two plain lines, the record's error, for a script" {
	run -2 --separate-stderr alternate -F fail.txt -r 1 a="echo '{\"t_ns\":1}'" b="echo 'not json'"
	[ "$(sed -n 1p fail.txt)" = b ]
	[ "$(sed -n 2p fail.txt)" = "$(printf '%s\n' "$output" | tail -n 1 | jq -r .error)" ]
	# A run that does not fail writes none.
	rm -f fail.txt
	run -0 --separate-stderr alternate -F fail.txt -r 1 a="echo '{\"t_ns\":1}'"
	[ ! -e fail.txt ]
}
