#!/usr/bin/env bats
# Bad input as a user sees it, across the tools: every bad input of the
# fuzz seeds (tests/fuzz/badinput, tests/fuzz/corpus) is exit 2 with one
# line on stderr naming the file and line (or the run, for a benchmark's
# stdout); a write error on stdout is exit 2; SIGINT during a gate leaves
# no process and no half-written record. The tools' own files test each
# message; these tests sweep every input the fuzzers keep.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	F=$TOP/tests/fuzz
}

# The sweeps below run a tool on each of a thousand files. Each runs in a
# plain bash of its own (sweep): under bats, every command of the loop
# runs bats' debug trap, and every $(...) forks a shell holding bats'
# whole state; together they cost more than the tools. A sweep function
# fails (set -e) at the first file that breaks the rule, naming it, and
# prints the count of files it judged last.
sweep() {
	run bash -euo pipefail -c "$(declare -f srun nlines "$1"); $1 \"\$@\"" sweep "$T" "$F" "$DATA"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
}

# srun CMD...: run CMD as bats' run --separate-stderr would, setting
# status, output, lines, stderr and stderr_lines: its output through
# files, read with builtins, so no subshell a file.
srun() {
	"$@" >"$T/srun.out" 2>"$T/srun.err" && status=0 || status=$?
	IFS= read -d '' -r output <"$T/srun.out" || true
	IFS= read -d '' -r stderr <"$T/srun.err" || true
	# As $(...) would: no trailing newlines.
	output=${output%"${output##*[!$'\n']}"}
	stderr=${stderr%"${stderr##*[!$'\n']}"}
	lines=() stderr_lines=()
	[ -z "$output" ] || mapfile -t lines <"$T/srun.out"
	[ -z "$stderr" ] || mapfile -t stderr_lines <"$T/srun.err"
}

# nl: the lines in file $1, a last line without '\n' counted (as awk's NR;
# builtins and no subshell, since the sweeps below ask it of a thousand
# files).
nlines() {
	local -a l
	mapfile l <"$1"
	nl=${#l[@]}
}

sweep_minjson() {
	T=$1 F=$2 n=0
	for f in "$F"/badinput/jsonl/* "$F"/corpus/jsonl/*; do
		[ -f "$f" ] || continue
		srun minjson "$f"
		[ "$status" -eq 0 ] && continue
		[ "$status" -eq 2 ] || { echo "$f: exit $status"; false; }
		[ -z "$output" ] || { echo "$f: stdout $output"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$f: $stderr"; false; }
		if [[ $stderr =~ ^minjson:\ "$f":([0-9]+):\ .+$ ]]; then
			nlines "$f" && [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[1]}" -le "$nl" ] ||
			    { echo "$f: no such line: $stderr"; false; }
		else
			[ "$stderr" = "minjson: no records" ] || { echo "$f: $stderr"; false; }
		fi
		n=$((n + 1))
	done
	echo "$n"
}

@test "minjson: every bad record of the fuzz seeds is exit 2, nothing on stdout, one line naming file and line" {
	sweep sweep_minjson
	[ "$(last)" -ge 30 ]
}

# cmpbudget's own verdict errors (a metric missing on a side) come with the
# table; a bad file is one line alone.
sweep_cmpbudget() {
	T=$1 F=$2 DATA=$3 n=0
	for f in "$F"/badinput/jsonl/* "$F"/corpus/jsonl/*; do
		[ -f "$f" ] || continue
		srun cmpbudget -b "$DATA/cmpbudget/budget.toml" "$f"
		[[ $stderr =~ (^|$'\n')cmpbudget:\ "$f":([0-9]+):\ [^$'\n']+ ]] || continue
		[ "$status" -eq 2 ] || { echo "$f: exit $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$f: $stderr"; false; }
		nlines "$f" && [ "${BASH_REMATCH[2]}" -ge 1 ] && [ "${BASH_REMATCH[2]}" -le "$nl" ] ||
		    { echo "$f: no such line: $stderr"; false; }
		# The last line is judged by one jq below, not one jq a file.
		printf '%s\n' "${lines[-1]}" >>"$T/last.jsonl"
		printf '%s\n' "$f" >>"$T/files"
		n=$((n + 1))
	done
	echo "$n"
}

@test "cmpbudget: every bad record of the fuzz seeds is exit 2 with one line naming file and line" {
	sweep sweep_cmpbudget
	n=$(last)
	[ "$n" -ge 30 ]
	# Each file's last stdout line is one record whose verdict is error.
	run jq -r .verdict "$T/last.jsonl"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq "$n" ] || { paste "$T/files" "$T/last.jsonl"; false; }
	[ -z "$(printf '%s\n' "$output" | grep -vnx error)" ] ||
	    { paste "$T/files" - <<<"$output" | grep -v $'\terror$'; false; }
}

sweep_budget() {
	T=$1 F=$2 DATA=$3 n=0
	for f in "$F"/badinput/budget/* "$F"/corpus/budget/*; do
		[ -f "$f" ] || continue
		srun cmpbudget -b "$f" "$DATA/cmpbudget/worked.jsonl"
		[[ $stderr == *"cmpbudget: $f:"* ]] || continue
		[ "$status" -eq 2 ] || { echo "$f: exit $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$f: $stderr"; false; }
		if [[ $stderr =~ ^cmpbudget:\ "$f":([0-9]+):\ .+$ ]]; then
			nlines "$f" && [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[1]}" -le "$nl" ] ||
			    { echo "$f: no such line: $stderr"; false; }
		else
			[ "$stderr" = "cmpbudget: $f: no [budget] section" ] || { echo "$f: $stderr"; false; }
		fi
		n=$((n + 1))
	done
	echo "$n"
}

@test "cmpbudget: every bad budget file of the fuzz seeds is exit 2 with one line naming file and line" {
	sweep sweep_budget
	[ "$(last)" -ge 20 ]
}

sweep_bestof() {
	T=$1 F=$2 n=0
	for f in "$F"/badinput/jmetrics/* "$F"/corpus/jmetrics/* "$F"/badinput/jsonl/*; do
		[ -f "$f" ] || continue
		srun bestof -w 0 -n 1 cat "$f"
		[ "$status" -eq 0 ] && continue
		[ "$status" -eq 2 ] && [ -z "$output" ] || { echo "$f: exit $status, $output"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "bestof: run 1: "?* ]] || { echo "$f: $stderr"; false; }
		n=$((n + 1))
	done
	echo "$n"
}

@test "bestof: every bad metrics line of the fuzz seeds is exit 2 with one line naming the run" {
	sweep sweep_bestof
	[ "$(last)" -ge 20 ]
}

@test "bestof: a duplicate key on the metrics line is named, once" {
	run -2 --separate-stderr bestof -w 0 -n 1 printf '{"a": 1, "a": 2}\n'
	[ "$stderr" = 'bestof: run 1: last stdout line is not a JSON object: duplicate key "a"' ]
}

@test "alternate: two -a keys that are written alike are refused, not written twice" {
	run --separate-stderr alternate -r 1 -a $'a:k\xff=1' -a $'a:k\xfe=2' a='echo {\"t\":1}'
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "alternate: -a a:k"* ]]
}

@test "alternate: a metric written like a key of -a clashes with it" {
	run --separate-stderr alternate -r 1 -a 'a:x"y=1' a="echo '{\"x\\\"y\":1}'"
	[ "$status" -eq 2 ]
	[ "$stderr" = 'alternate: side a, round 1: metric "x\"y" clashes with a member given by -a' ]
}

@test "perfdoc: a row that is not an object is refused, the rows after it not dropped" {
	sed '10s/^/[],/' "$DATA/perfdoc/perf.json" >"$T/perf.json"
	run --separate-stderr perfdoc -t "$T/perf.json"
	[ "$status" -eq 2 ]
	[[ $stderr == "perfdoc: $T/perf.json: row 1: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "perfdoc: a write error on stdout is exit 2" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -2 --separate-stderr sh -c 'perfdoc -t "$1" >/dev/full' sh "$TOP/docs/perf.json"
	[ "$stderr" = "perfdoc: write <stdout>: No space left on device" ]
}

# The fixed benchmark of gate.bats: prints $T/$side's line; while $T/hold
# exists it first waits 30 s, having made $T/started.
held_bench() {
	cat > "$T/fixed.c" <<C
#include <stdio.h>
#include <unistd.h>
extern const char line[];
int main(void)
{
	FILE *f = fopen("$T/started", "w");

	if (f != NULL)
		fclose(f);
	if (access("$T/hold", F_OK) == 0)
		sleep(30);
	puts(line);
	return 0;
}
C
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	printf 'const char line[] = "{\\"x_ns\\":8.0}";\n' > "$T/base.c"
	cp "$T/base.c" "$T/head.c"
}

gate_args() {
	echo GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$T/g"
}

@test "perfgate: a write error on stdout is exit 2" {
	[ -w /dev/full ] || skip "no /dev/full"
	unset MAKEFLAGS MFLAGS MAKELEVEL
	cd "$TOP"
	held_bench
	run --separate-stderr sh -c 'perfgate "$@" >/dev/full' sh $(gate_args)
	[ "$status" -eq 2 ]
	[[ $stderr == *"No space left on device"* ]]
}

@test "gate: SIGINT during a measurement leaves no process and no half-written record; the next gate completes" {
	unset MAKEFLAGS MFLAGS MAKELEVEL
	cd "$TOP"
	held_bench
	touch "$T/hold"
	# As a terminal's ^C: SIGINT to the gate's whole process group, in a
	# session of its own (a background job of a script ignores SIGINT).
	/usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' perfgate $(gate_args) >"$T/out" 2>"$T/err" &
	pid=$!
	for i in $(seq 600); do
		[ -e "$T/started" ] && break
		sleep 0.2
	done
	[ -e "$T/started" ]
	kill -INT -- -"$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 130 ] || { cat "$T/err"; false; }
	# Nothing of the session survives, the benchmark in its own group included.
	for i in $(seq 50); do
		pgrep -s "$pid" >/dev/null || break
		sleep 0.2
	done
	run -1 pgrep -s "$pid"
	# No temporary file, and every record file holds whole records.
	[ -z "$(find "$T/g" -name '*.tmp*')" ]
	for f in $(find "$T/g" -name '*.jsonl'); do
		[ ! -s "$f" ] || [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ]
		jq -c . "$f" >/dev/null
	done
	[ ! -e "$T/g/verdict.jsonl" ]
	# Make trusts nothing half done: the next gate measures and decides.
	rm -f "$T/hold"
	run -0 --separate-stderr perfgate $(gate_args)
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r .verdict)" = ok ]
}

@test "gate: SIGINT mid-gate leaves the rounds measured before whole and nothing half written; the next gate goes on from them" {
	unset MAKEFLAGS MFLAGS MAKELEVEL
	cd "$TOP"
	held_bench
	# Head regresses, so that the rule asks for rounds to show it in both
	# halves; the 13th run (the first of round 7) holds.
	printf 'const char line[] = "{\\"x_ns\\":16.0}";\n' > "$T/head.c"
	sed -i 's|if (access("'"$T"'/hold", F_OK) == 0)|if (access("'"$T"'/hold", F_OK) == 0 \&\& runs() >= 13)|' "$T/fixed.c"
	sed -i 's|^int main(void)$|static int runs(void) { int n = 0; FILE *f = fopen("'"$T"'/count", "r"); if (f) { if (fscanf(f, "%d", \&n) != 1) n = 0; fclose(f); } f = fopen("'"$T"'/count", "w"); if (f) { fprintf(f, "%d\\n", n + 1); fclose(f); } return n + 1; }\nint main(void)|' "$T/fixed.c"
	grep -q 'runs() >= 13' "$T/fixed.c"
	touch "$T/hold"
	/usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' perfgate $(gate_args) >"$T/out" 2>"$T/err" &
	pid=$!
	for i in $(seq 600); do
		[ "$(cat "$T/count" 2>/dev/null)" = 13 ] && break
		sleep 0.2
	done
	[ "$(cat "$T/count")" = 13 ]
	sleep 0.2
	kill -INT -- -"$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 130 ] || { cat "$T/err"; false; }
	for i in $(seq 50); do
		pgrep -s "$pid" >/dev/null || break
		sleep 0.2
	done
	run -1 pgrep -s "$pid"
	[ -z "$(find "$T/g" -name '*.tmp*' -o -name '*.new' -o -name block.jsonl)" ]
	[[ "$(cat "$T/err")" == *"gaterun: measuring base and head"* ]]
	# The six rounds measured before stay, whole; no verdict was written.
	[ "$(jq -r .round "$T/g/runs.jsonl" | tr '\n' ' ')" = "1 1 2 2 3 3 4 4 5 5 6 6 " ]
	[ ! -e "$T/g/verdict.jsonl" ]
	# The next gate goes on from there: rounds 7 and 8, the regression stands.
	rm -f "$T/hold"
	run -1 --separate-stderr perfgate $(gate_args)
	[[ "$stderr" != *"measuring base and head"* ]]
	[[ "$stderr" == *"gaterun: measuring on from round 7: the rule has not decided x_ns"* ]]
	[ "$(jq -r .round "$T/g/runs.jsonl" | sort -n | uniq -c | awk '{ print $1 "x" $2 }' | tr '\n' ' ')" = "2x1 2x2 2x3 2x4 2x5 2x6 2x7 2x8 " ]
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -c .regressed)" = '["x_ns"]' ]
}
