#!/usr/bin/env bats
# bestof: best-of-N timing of a command, its records, its failures, and its
# process groups (nothing may outlive a run).

load common

# The timings vary from run to run: strip them to compare the rest exactly.
strip() {
	sed -E 's/"(wall_ns|user_ns|sys_ns|maxrss_kb)":[0-9]+,?//g'
}

# Each test that starts a hanging process uses its own marker, a sleep of a
# unique length: 3NN.PID, NN for the test, PID for this run of bats, so that
# two runs at once (make test and make test-san) cannot see each other's.
# None may be alive after bestof returns.
alive() {
	pgrep -x -f "sleep $1" >/dev/null
}

# A plain "! alive" would not fail a bats test: errexit ignores "!".
gone() {
	if alive "$1"; then
		echo "a process 'sleep $1' survived" >&2
		return 1
	fi
}

teardown() {
	# A failed test must not leave its sleeper behind for the next one.
	local pid
	for pid in $(pgrep -x -f "sleep 35[0-9]\\.$M"); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	return 0
}

# The bats process running this test: part of every marker.
M=$$

usage_line='usage: bestof [-V] [-a] [-i] [-n runs] [-t timeout] [-w warmups] [--] command [arg ...]'

@test "bestof without a command prints usage and exits 2" {
	run -2 --separate-stderr bestof
	[ "$output" = "" ]
	[ "$stderr" = "$usage_line" ]
}

@test "bestof with a bad option prints usage and exits 2" {
	run -2 --separate-stderr bestof -x true
	[ "$output" = "" ]
	[ "${stderr_lines[1]}" = "$usage_line" ]
}

@test "bestof usage string is the man page SYNOPSIS" {
	check_synopsis bestof
	[ "${stderr_lines[-1]}" = "$usage_line" ]
}

@test "bestof writes one record, keys in the documented order, 5 runs by default" {
	run -0 --separate-stderr bestof true
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["wall_ns","user_ns","sys_ns","maxrss_kb","runs"]' ]
	[ "$(jq -c '[.[] | type == "number" and . >= 0 and . == floor] | all' <<<"$output")" = true ]
	[ "$(jq .runs <<<"$output")" -eq 5 ]
}

@test "bestof runs the command warmups + runs times (-w, -n, defaults 1 and 5)" {
	f=$BATS_TEST_TMPDIR/count
	run -0 bestof sh -c 'echo >>"$1"' sh "$f"
	[ "$(wc -l <"$f")" -eq 6 ]
	: >"$f"
	run -0 bestof -w 2 -n 3 sh -c 'echo >>"$1"' sh "$f"
	[ "$(wc -l <"$f")" -eq 5 ]
	[ "$(jq .runs <<<"$output")" -eq 3 ]
	: >"$f"
	run -0 bestof -w 0 -n 1 sh -c 'echo >>"$1"' sh "$f"
	[ "$(wc -l <"$f")" -eq 1 ]
}

@test "bestof wall_ns is in nanoseconds around the whole command" {
	run -0 bestof -w 0 -n 2 sleep 0.2
	wall=$(jq .wall_ns <<<"$output")
	[ "$wall" -ge 200000000 ]
	[ "$wall" -lt 2000000000 ]
}

@test "bestof user_ns counts the command's CPU time in nanoseconds" {
	run -0 bestof -w 0 -n 1 sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
	user=$(jq .user_ns <<<"$output")
	wall=$(jq .wall_ns <<<"$output")
	[ "$user" -gt 10000000 ]
	[ $((user % 1000)) -eq 0 ]
	[ "$user" -le "$wall" ]
	[ "$(jq .maxrss_kb <<<"$output")" -gt 100 ]
}

@test "bestof takes the metrics of the last stdout line, after the figures" {
	run -0 --separate-stderr bestof -n 2 sh -c 'echo some text; echo "{\"items_ns\": 125.0, \"bytes\": -0}"; echo; echo "  "'
	[ "$(strip <<<"$output")" = '{"items_ns":125.0,"bytes":-0,"runs":2}' ]
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["wall_ns","user_ns","sys_ns","maxrss_kb","items_ns","bytes","runs"]' ]
}

@test "bestof keeps each figure's own minimum, written as the command wrote it" {
	: >"$BATS_TEST_TMPDIR/n"
	run -0 --separate-stderr bestof -n 4 sh "$DATA/bestof/seq.sh" "$BATS_TEST_TMPDIR/n" "$DATA/bestof/varying.in"
	[ "$(strip <<<"$output")" = "$(cat "$DATA/bestof/varying.min")" ]
}

@test "bestof -a writes one record per run, in order, with its run number" {
	: >"$BATS_TEST_TMPDIR/n"
	run -0 --separate-stderr bestof -a -n 4 sh "$DATA/bestof/seq.sh" "$BATS_TEST_TMPDIR/n" "$DATA/bestof/varying.in"
	[ "$(strip <<<"$output")" = "$(cat "$DATA/bestof/varying.all")" ]
	[ "$(jq -c 'keys_unsorted' <<<"${lines[0]}")" = '["run","wall_ns","user_ns","sys_ns","maxrss_kb","a_ns","b"]' ]
}

@test "bestof -a without metrics has run and the four figures" {
	run -0 bestof -a -n 3 true
	[ "${#lines[@]}" -eq 3 ]
	[ "$(jq -c 'keys_unsorted' <<<"${lines[2]}")" = '["run","wall_ns","user_ns","sys_ns","maxrss_kb"]' ]
	[ "$(jq -s -c 'map(.run)' <<<"$output")" = '[1,2,3]' ]
}

@test "bestof takes no metrics from output that is not a JSON line" {
	run -0 bestof -n 2 sh -c 'echo hello; echo "[1, 2]"; echo "x {\"a\": 1}"'
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["wall_ns","user_ns","sys_ns","maxrss_kb","runs"]' ]
	run -0 bestof -n 2 true
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["wall_ns","user_ns","sys_ns","maxrss_kb","runs"]' ]
}

@test "bestof accepts a metrics line with CRLF, no final newline, or 1 MB of blanks" {
	run -0 bestof -n 1 printf '{"a": 1}\r\n'
	[ "$(strip <<<"$output")" = '{"a":1,"runs":1}' ]
	run -0 bestof -n 1 printf '{"a": 2}'
	[ "$(strip <<<"$output")" = '{"a":2,"runs":1}' ]
	run -0 bestof -n 1 sh -c 'printf "{\"a\":"; head -c 1048576 /dev/zero | tr "\0" " "; echo "3}"'
	[ "$(strip <<<"$output")" = '{"a":3,"runs":1}' ]
}

@test "bestof reads a metrics line after 2 MB of other output" {
	run -0 bestof -n 1 sh -c 'head -c 2000000 /dev/zero | tr "\0" x; echo; echo "{\"big\": 1}"'
	[ "$(strip <<<"$output")" = '{"big":1,"runs":1}' ]
}

@test "bestof rejects a metric named like one of its own keys" {
	for key in wall_ns user_ns sys_ns maxrss_kb runs run; do
		run -2 --separate-stderr bestof -n 1 printf '{"x": 1, "%s": 2}\n' "$key"
		[ "$output" = "" ]
		[ "$stderr" = "bestof: run 1: metric \"$key\" clashes with a key of bestof's own" ]
	done
}

@test "bestof rejects a bad metrics line with a one-line error" {
	run -2 --separate-stderr bestof -n 1 printf '{"a": 1,\n'
	[ "$output" = "" ]
	[[ "$stderr" == "bestof: run 1: last stdout line is not a JSON object: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -2 --separate-stderr bestof -n 1 printf '{"a": "fast"}\n'
	[ "$stderr" = 'bestof: run 1: value of "a" is not a number' ]
	run -2 --separate-stderr bestof -n 1 printf '{"a": {"b": 1}}\n'
	[ "$stderr" = 'bestof: run 1: value of "a" is not a number' ]
}

@test "bestof rejects NaN, Infinity, 1e400, duplicate keys, non-UTF-8 and deep nesting" {
	for line in '{"a": NaN}' '{"a": Infinity}' '{"a": 1e400}' '{"a": 1, "a": 2}' \
	    $'{"\xff": 1}' "{\"a\": $(printf '[%.0s' $(seq 600))"; do
		run -2 --separate-stderr bestof -n 1 printf '%s\n' "$line"
		[ "$output" = "" ]
		[[ "$stderr" == "bestof: run 1: "* ]]
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
}

@test "bestof rejects metrics that change from run to run" {
	for f in missing dropped appeared extra; do
		: >"$BATS_TEST_TMPDIR/n"
		run -2 --separate-stderr bestof -w 0 -n 3 sh "$DATA/bestof/seq.sh" "$BATS_TEST_TMPDIR/n" "$DATA/bestof/$f.in"
		[ "$output" = "" ]
		case $f in
		missing) [ "$stderr" = 'bestof: run 3: metric "b" of run 1 is missing' ] ;;
		dropped) [ "$stderr" = 'bestof: run 3: no metrics line, but run 1 had one' ] ;;
		appeared) [ "$stderr" = 'bestof: run 3: a metrics line, but run 1 had none' ] ;;
		extra) [ "$stderr" = 'bestof: run 3: 2 metrics, but run 1 had 1' ] ;;
		esac
	done
}

@test "bestof exits 2 when the command cannot start" {
	run -2 --separate-stderr bestof nosuch-perfgate-cmd
	[ "$output" = "" ]
	[ "$stderr" = "bestof: cannot run nosuch-perfgate-cmd: No such file or directory" ]
	run -2 --separate-stderr bestof ./nosuch/cmd
	[ "$stderr" = "bestof: cannot run ./nosuch/cmd: No such file or directory" ]
	run -2 --separate-stderr bestof "$DATA/bestof/notexec"
	[ "$stderr" = "bestof: cannot run $DATA/bestof/notexec: Permission denied" ]
}

@test "bestof exits 2 when the command exits non-zero, in a warmup or a run" {
	run -2 --separate-stderr bestof sh -c 'exit 3'
	[ "$output" = "" ]
	[ "$stderr" = "bestof: warmup 1: exited with status 3" ]
	run -2 --separate-stderr bestof -w 0 sh -c 'exit 3'
	[ "$stderr" = "bestof: run 1: exited with status 3" ]
	f=$BATS_TEST_TMPDIR/count
	run -2 --separate-stderr bestof -w 0 sh -c 'echo >>"$1"; [ $(wc -l <"$1") -lt 3 ]' sh "$f"
	[ "$stderr" = "bestof: run 3: exited with status 1" ]
}

@test "bestof -i times a command that exits non-zero" {
	run -0 --separate-stderr bestof -i -n 2 sh -c 'echo "{\"a\": 4}"; exit 1'
	[ "$stderr" = "" ]
	[ "$(strip <<<"$output")" = '{"a":4,"runs":2}' ]
}

@test "bestof exits 2 when the command dies of a signal, even with -i" {
	run -2 --separate-stderr bestof sh -c 'kill -SEGV $$'
	[ "$output" = "" ]
	[ "$stderr" = "bestof: warmup 1: killed by signal 11 (Segmentation fault)" ]
	run -2 --separate-stderr bestof -i -w 0 sh -c 'kill -KILL $$'
	[ "$stderr" = "bestof: run 1: killed by signal 9 (Killed)" ]
}

@test "bestof passes stderr through and gives the command /dev/null as stdin" {
	run -0 --separate-stderr bestof -w 0 -n 2 sh -c 'echo oops >&2; printf "{\"in\": %d}\n" $(wc -c)' <<<"input for nobody"
	[ "$stderr" = $'oops\noops' ]
	[ "$(strip <<<"$output")" = '{"in":0,"runs":2}' ]
}

@test "bestof takes its options only before the command" {
	run -0 --separate-stderr bestof -w 0 -n 2 echo -n '{"a": 1}'
	[ "$(strip <<<"$output")" = '{"a":1,"runs":2}' ]
	run -0 --separate-stderr bestof -w 0 -n 2 -- printf '{"a": 2}\n'
	[ "$(strip <<<"$output")" = '{"a":2,"runs":2}' ]
}

@test "bestof rejects bad numbers for -n, -t and -w" {
	for args in "-n 0" "-n -1" "-n 1000001" "-n x" "-n 2.5" "-n ''" "-w -1" "-w 1e3" "-w 1000001" \
	    "-t -1" "-t x" "-t 1e8" "-t nan" "-t inf" "-t 1e400"; do
		eval "run -2 --separate-stderr bestof $args true"
		[ "$output" = "" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "bestof: ${args%% *} "*": "* ]]
	done
	run -2 --separate-stderr bestof -n 0 true
	[ "$stderr" = "bestof: -n 0: out of range (1 to 1000000)" ]
	run -2 --separate-stderr bestof -t x true
	[ "$stderr" = "bestof: -t x: not a number (0 to 1e7 seconds, 0 for none)" ]
}

@test "bestof -t kills a command that hangs, and exits 2" {
	run -2 --separate-stderr bestof -w 0 -n 1 -t 0.5 sleep 351.$M
	[ "$output" = "" ]
	[ "$stderr" = "bestof: run 1: timed out after 0.5 s" ]
	gone 351.$M
}

@test "bestof -t 0 waits without a limit" {
	run -0 bestof -t 0 -w 0 -n 1 sleep 0.3
	[ "$(jq .wall_ns <<<"$output")" -ge 300000000 ]
}

@test "bestof -t kills a grandchild that hangs with the whole group" {
	run -2 --separate-stderr bestof -w 0 -n 1 -t 0.5 sh -c "sleep 352.$M & wait"
	[ "$stderr" = "bestof: run 1: timed out after 0.5 s" ]
	gone 352.$M
}

@test "bestof -t kills a command that ignores SIGTERM" {
	run -2 --separate-stderr bestof -w 0 -n 1 -t 0.5 sh -c "trap '' TERM; sleep 353.$M"
	[ "$stderr" = "bestof: run 1: timed out after 0.5 s" ]
	gone 353.$M
}

@test "bestof -t kills a command that closes its output and keeps running" {
	run -2 --separate-stderr bestof -w 0 -n 1 -t 0.5 sh -c "exec >&- 2>&-; sleep 354.$M"
	[ "$stderr" = "bestof: run 1: timed out after 0.5 s" ]
	gone 354.$M
}

@test "bestof kills what is left of the group when the command ends" {
	run -0 --separate-stderr bestof -w 0 -n 2 sh -c "trap '' TERM; sleep 355.$M & echo '{\"a\": 1}'"
	[ "$(strip <<<"$output")" = '{"a":1,"runs":2}' ]
	gone 355.$M
}

@test "bestof does not hang on a process that left the group holding stdout" {
	# The escaped sleeper cannot be killed by bestof; it ends by itself.
	run -0 timeout 10 bestof -w 0 -n 1 sh -c 'setsid sleep 4 & sleep 0.2; echo "{\"a\": 1}"'
	[ "$(strip <<<"$output")" = '{"a":1,"runs":1}' ]
}

@test "bestof killed by SIGTERM or SIGHUP kills the command's group, then dies of it" {
	for sig in TERM HUP; do
		bestof -w 0 -n 1 sh -c "sleep 356.$M & wait" 3>&- &
		pid=$!
		for i in $(seq 200); do alive 356.$M && break; sleep 0.1; done
		alive 356.$M
		kill -s $sig $pid
		# A bestof that outlives the signal fails here, with what it was
		# doing, rather than hanging the run in the wait below.
		for i in $(seq 300); do [ -d /proc/$pid ] && grep -q '^State:.*[RSD]' /proc/$pid/status 2>/dev/null || break; sleep 0.1; done
		if grep -q '^State:.*[RSD]' /proc/$pid/status 2>/dev/null; then
			echo "bestof $pid alive 30 s after SIG$sig:" >&2
			grep -E '^(State|SigBlk|SigCgt|SigPnd|ShdPnd)' /proc/$pid/status >&2
			cat /proc/$pid/wchan >&2 2>/dev/null; echo >&2
			kill -KILL $pid
			return 1
		fi
		status=0
		wait $pid || status=$?
		[ "$status" -eq $((128 + $(kill -l $sig))) ]
		sleep 0.1
		gone 356.$M
	done
}

@test "bestof reports a write error on stdout with exit 2" {
	run -2 --separate-stderr sh -c 'bestof -n 1 true >/dev/full'
	[ "$stderr" = "bestof: write stdout: No space left on device" ]
}

# The man page's EXAMPLES, line for line.
examples=(
	"bestof true"
	"bestof -n 10 -w 0 -- printf '{\"items_ns\": 125.0}\\n'"
	"bestof -a -- printf '{\"items_ns\": 125.0}\\n' | minjson -k '' -x run -s median"
	"bestof -t 2 -- sleep 60"
	"bestof -i -- grep -q perfgate /dev/null"
)

@test "bestof man page EXAMPLES are the ones tested here" {
	check_examples bestof "${examples[@]}"
}

@test "bestof example: bestof true" {
	run -0 bash -c "${examples[0]}"
	[ "$(jq .runs <<<"$output")" -eq 5 ]
}

@test "bestof example: ten runs of a command that prints a metrics line" {
	run -0 bash -c "${examples[1]}"
	[ "$(strip <<<"$output")" = '{"items_ns":125.0,"runs":10}' ]
}

@test "bestof example: the median of every figure over five runs" {
	command -v minjson >/dev/null || skip "minjson is not built"
	run -0 bash -c "set -o pipefail; ${examples[2]}"
	[ "$(jq -r .stat <<<"$output")" = median ]
	[ "$(jq .items_ns <<<"$output")" = 125 ]
	[ "$(jq 'has("wall_ns") and (has("run") | not)' <<<"$output")" = true ]
}

@test "bestof example: a command that hangs is stopped with exit status 2" {
	run -2 --separate-stderr bash -c "${examples[3]}"
	[ "$stderr" = "bestof: warmup 1: timed out after 2 s" ]
}

@test "bestof example: -i times a command that exits with status 1" {
	run -0 bash -c "${examples[4]}"
	[ "$(jq .runs <<<"$output")" -eq 5 ]
}

@test "bestof: a bad option is exit 2 with the tool's own message and the usage line" {
	bad_options bestof n
}
