#!/usr/bin/env bats
# cgdiff and its reader of callgrind's dumps (lib/cgdump.c): two
# hand-written dumps whose every count is known, the bad inputs it must
# refuse, and the kata against a planted slowdown under countof, built with
# and without debug information. Counts are exact: nothing here depends
# on timing.

load common

D=$DATA/cgdiff

setup_file() {
	cd "$BATS_TEST_DIRNAME/.."
	F=$BATS_FILE_TMPDIR
	mkdir -p "$F/base" "$F/head" "$F/reorder"
	patch -s -o "$F/head/kernels.c" kata/kernels.c < kata/slowdowns/s04-sum-one-accumulator.patch
	patch -s -o "$F/reorder.c" kata/kernels.c < tests/data/countof/reorder.patch
	cc -std=c11 -O2 -g -Ikata -Ibench -o "$F/base/bench" kata/bench.c kata/kernels.c -lm
	cc -std=c11 -O2 -g -Ikata -Ibench -o "$F/head/bench" kata/bench.c "$F/head/kernels.c" -lm
	cc -std=c11 -O2 -Ikata -Ibench -o "$F/reorder/bench" kata/bench.c "$F/reorder.c" -lm
	cc -std=c11 -O2 -Ikata -Ibench -o "$F/kata" kata/bench.c kata/kernels.c -lm
}

setup() {
	unset BENCH_CALLS BENCH_MODE BENCH_CASES
	cd "$TOP"
	F=$BATS_FILE_TMPDIR
	T=$BATS_TEST_TMPDIR
}

@test "cgdiff: -m and -s, the old letters of -M and -a, are refused in one line naming the new" {
	run -2 --separate-stderr cgdiff -m sum_ns "$D/base.out" "$D/head.out"
	[ "$stderr" = "cgdiff: -m is now -M (the metric named)" ]
	run -2 --separate-stderr cgdiff -s cc "$D/base.out" "$D/head.out"
	[ "$stderr" = "cgdiff: -s is now -a (a suspect added)" ]
	[ -z "$output" ]
}

@test "cgdiff rejects bad options in its own voice" {
	bad_options cgdiff k
	run -2 --separate-stderr cgdiff "$D/base.out"
	[[ "${stderr_lines[0]}" == "usage: cgdiff "* ]]
	run -2 --separate-stderr cgdiff -n x "$D/base.out" "$D/head.out"
	[ "$stderr" = "cgdiff: -n x: not a whole number (0 to 1000000)" ]
}

@test "cgdiff usage is the man page SYNOPSIS" {
	run -2 --separate-stderr cgdiff -Z
	synopsis=$(mandoc -Tascii "$TOP/man/cgdiff.1" | col -b | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')
	[ "$(printf '%s\n' "${stderr_lines[@]:1}" | sed 's/^usage: //' | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')" = "$synopsis" ]
}

@test "cgdiff compares two dumps: a call's self and inclusive counts, largest change first, lines, cache misses" {
	run -0 --separate-stderr cgdiff -k sum_instr -M sum_ns "$D/base.out" "$D/head.out"
	[ "$output" = "$(cat "$D/expected.jsonl")" ]
	[ "$stderr" = "$(cat "$D/expected.txt")" ]
	# Divided by the trigger's 10 calls: kata_sum's own 950 and 3250.
	[ "$(jq -c 'select(.kind == "function" and .self) | [.function, .file, .base_instr, .head_instr]' <<< "$output" | head -n 1)" = '["kata_sum","kernels.c",95,325]' ]
	# Matched by name and file's basename across /build/base and /build/head.
	[ "$(jq -r 'select(.kind == "function" and .function == "run_sum" and (.self | not)) | .delta_instr' <<< "$output")" = 210 ]
	# The line of the change, an inlined header's line kept apart.
	[ "$(jq -c 'select(.kind == "line") | [.file, .line, .delta_instr]' <<< "$output" | head -n 2 | tr '\n' ' ')" = '["kernels.c",41,230] ["inline.h",7,0] ' ]
	# A function only one side has: the other side's counts are 0.
	[ "$(jq -c 'select(.function == "memset" and .self) | [.head_instr, .base_calls, .head_calls]' <<< "$output")" = '[0,1,0]' ]
	# A side's source under another name (HEAD=s04.c): matched by the name,
	# found once among each side's unmatched functions.
	sed 's|/build/head/kernels.c|/build/head/s04.c|' "$D/head.out" > "$T/renamed"
	run -0 --separate-stderr cgdiff -k sum_instr "$D/base.out" "$T/renamed"
	[ "$(jq -c 'select(.kind == "function" and .self) | [.function, .file, .base_instr, .head_instr]' <<< "$output" | head -n 1)" = '["kata_sum","s04.c",95,325]' ]
}

@test "cgdiff says first when instructions did not move, and the suspects before any function" {
	run -0 --separate-stderr cgdiff -a 'compiler: cc 12 -> clang 14' "$D/base.out" "$D/base.out"
	[ "$(head -n 1 <<< "$output" | jq -c '[.moved, .delta, .suspects]')" = '[false,0,["compiler: cc 12 -> clang 14"]]' ]
	[ "${stderr_lines[1]}" = "  suspect: compiler: cc 12 -> clang 14" ]
	[[ "${stderr_lines[2]}" == "  instructions did not move: 119.0 -> 119.0 a call (within 0.01): not more work; the cache misses below"* ]]
	# Within -e: 119 -> 349 has not moved by a fraction 2.
	run -0 --separate-stderr cgdiff -e 2 "$D/base.out" "$D/head.out"
	[ "$(head -n 1 <<< "$output" | jq .moved)" = false ]
}

@test "cgdiff refuses a truncated dump, another tool's file, an altered one, another program's: file and line, exit 2" {
	head -n 30 "$D/base.out" > "$T/truncated"
	run -2 --separate-stderr cgdiff "$T/truncated" "$D/head.out"
	[ "$stderr" = "cgdiff: $T/truncated:30: truncated: no totals line at the end" ]
	[ "$output" = "" ]
	head -c 400 "$D/base.out" > "$T/cut"
	run -2 --separate-stderr cgdiff "$D/base.out" "$T/cut"
	[[ "$stderr" == "cgdiff: $T/cut:"*": truncated: the last line has no newline" ]]
	run -2 --separate-stderr cgdiff "$D/cachegrind.out" "$D/head.out"
	[ "$stderr" = "cgdiff: $D/cachegrind.out:1: not a callgrind dump: its first line is not \"# callgrind format\" or \"version: 1\"" ]
	sed 's/^totals: 1190/totals: 1191/' "$D/base.out" > "$T/altered"
	run -2 --separate-stderr cgdiff "$T/altered" "$D/head.out"
	[ "$stderr" = "cgdiff: $T/altered:46: truncated or altered: its costs do not add up to its totals line" ]
	sed 's/^fn=(2) run_sum$/fn=(9)/' "$D/base.out" > "$T/garbled"
	run -2 --separate-stderr cgdiff "$T/garbled" "$D/head.out"
	[ "$stderr" = "cgdiff: $T/garbled:23: a compressed name used before it is named" ]
	run -2 --separate-stderr cgdiff -B /build/head/bench "$D/base.out" "$D/head.out"
	[ "$stderr" = "cgdiff: $D/base.out:5: a dump of /build/base/bench, not of /build/head/bench" ]
	run -2 --separate-stderr cgdiff -k rmsnorm_instr "$D/base.out" "$D/head.out"
	[ "$stderr" = "cgdiff: $D/base.out:8: the dump of sum_instr, not of rmsnorm_instr" ]
	mkdir "$T/empty"
	run -2 --separate-stderr cgdiff -k sum_instr "$T/empty" "$D/head.out"
	[ "$stderr" = "cgdiff: $T/empty: no dump of sum_instr (no trigger \"perfgate sum_instr\")" ]
	# A name is data: spaces, quotes, a leading dash.
	cp "$D/base.out" "$T/-a \"b\"; \$c"
	run -0 --separate-stderr cgdiff -M "x \"y\"" -- "$T/-a \"b\"; \$c" "$D/head.out"
	[ "$(head -n 1 <<< "$output" | jq -r .metric)" = 'x "y"' ]
}

@test "cgdiff (cgdiff(1) EXAMPLES): the kata against one accumulator names kata_sum, kernels.c and the line" {
	need_pkg valgrind valgrind
	cd "$F"
	rm -rf base.dumps head.dumps
	countof -d base.dumps ./base/bench > base.jsonl
	countof -d head.dumps ./head/bench > head.jsonl
	run -0 --separate-stderr cgdiff -k sum_instr base.dumps head.dumps
	[ "$(head -n 1 <<< "$output" | jq -c '[.top, .top_file, .moved, .lines, .head_instr == (input.sum_instr)]' - head.jsonl)" = '["kata_sum","kernels.c",true,true,true]' ]
	[ "$(head -n 1 <<< "$output" | jq .base_instr)" = "$(jq .sum_instr base.jsonl)" ]
	# The line that changed most is in kernels.c, and it gained.
	jq -s -e 'map(select(.kind == "line" and .file == "kernels.c" and .delta_instr > 10000)) | length > 0' <<< "$output" > /dev/null
	[[ "${stderr_lines[-1]}" == "  lines of kata_sum: kernels.c:"* ]]
	# With countof's records: the sum allocates nothing on either side.
	run -0 --separate-stderr cgdiff -k sum_instr base.dumps head.dumps base.jsonl head.jsonl
	[ "$(jq -s -c 'map(.kind) | unique' <<< "$output")" = '["function","line","summary"]' ]
	# -I: the same work, without cache simulation: exit 1, cache misses would say more.
	run -1 --separate-stderr cgdiff -I -k sum_instr base.dumps base.dumps
	[ "$(head -n 1 <<< "$output" | jq -c '[.moved, .cache]')" = '[false,false]' ]
	run -0 --separate-stderr cgdiff -I -k sum_instr base.dumps head.dumps
	rm -rf base.dumps head.dumps
	countof -c -d base.dumps ./base/bench > base.jsonl
	countof -c -d head.dumps ./head/bench > head.jsonl
	run -0 --separate-stderr cgdiff -k sum_instr base.dumps head.dumps
	[ "$(head -n 1 <<< "$output" | jq -c '[.top, .cache]')" = '["kata_sum",true]' ]
	jq -s -e 'map(select(.kind == "function") | has("base_l1_misses") and has("head_ll_misses")) | all' <<< "$output" > /dev/null
	# Did not move, but with the cache misses: nothing more to ask.
	run -0 --separate-stderr cgdiff -I -k sum_instr base.dumps base.dumps
	rm -rf base.dumps head.dumps
}

@test "cgdiff: the kata with its functions reordered did not move, every function the same, no lines without -g" {
	need_pkg valgrind valgrind
	countof -c -d "$T/a" "$F/kata" > /dev/null
	countof -c -d "$T/b" "$F/reorder/bench" > /dev/null
	for k in matmul sum rmsnorm count_below; do
		run -0 --separate-stderr cgdiff -k ${k}_instr "$T/a" "$T/b"
		[ "$(head -n 1 <<< "$output" | jq -c '[.moved, .delta_instr, .lines]')" = '[false,0,false]' ]
		[ "$(jq -s '[.[] | select(.kind == "function") | .delta_instr] | all(. == 0)' <<< "$output")" = true ]
		[[ "${stderr_lines[1]}" == "  instructions did not move:"* ]]
		[[ "${stderr_lines[-1]}" == *"none (a build without debug information: -g)" ]]
	done
}

# The corpus sweep, in a plain bash of its own (under bats, each command
# of a loop of hundreds runs bats' debug trap, and each $(...) forks bats'
# whole shell: they cost more than cgdiff): the files it read and refused,
# or the first file that breaks the rule, and exit 1.
sweep_corpus() {
	local T=$1 n=0 bad=0 f st err el fl
	for f in "$2"/*; do
		n=$((n + 1))
		st=0
		cgdiff "$f" "$f" > "$T/out" 2> "$T/err" || st=$?
		[ "$st" -eq 0 ] && continue
		[ "$st" -eq 2 ] || { echo "$f: exit $st"; false; }
		[ ! -s "$T/out" ] || { echo "$f: stdout $(cat "$T/out")"; false; }
		IFS= read -r -d '' err < "$T/err" || true
		mapfile -t el < "$T/err"
		[ "${#el[@]}" -eq 1 ] && [[ $err == *$'\n' ]] || { echo "$f: $err"; false; }
		err=${el[0]}
		[[ $err =~ ^cgdiff:\ "$f":([0-9]+):\ .+$ ]] || { echo "$f: $err"; false; }
		mapfile fl < "$f"
		[ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[1]}" -le "${#fl[@]}" ] ||
		    { echo "$f: no such line: $err"; false; }
		bad=$((bad + 1))
	done
	echo "$n $bad"
}

@test "cgdiff: every dump of the fuzz corpus is read, or refused with exit 2, nothing on stdout, one line naming file and a line it has" {
	run bash -euo pipefail -c "$(declare -f sweep_corpus); sweep_corpus \"\$@\"" sweep "$T" "$TOP/tests/fuzz/corpus/cgdiff"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	read -r n bad <<<"$(last)"
	[ "$n" -ge 100 ] && [ "$bad" -ge 50 ]
}

@test "cgdiff -B and -H take a side's bench command, split by the gate's one parser: its program is the dump's" {
	run -0 --separate-stderr cgdiff -B "X='a b' /build/base/bench --data=in" -H "cd /build && /build/head/bench" "$D/base.out" "$D/head.out"
	# A bare name is the path PATH found it at.
	run -0 --separate-stderr cgdiff -B "env -C /build -- LANG=C bench" "$D/base.out" "$D/head.out"
	run -2 --separate-stderr cgdiff -B "cd /build && ./other" "$D/base.out" "$D/head.out"
	[ "$stderr" = "cgdiff: $D/base.out:5: a dump of /build/base/bench, not of ./other" ]
	run -2 --separate-stderr cgdiff -H '/build/head/bench | cat' "$D/base.out" "$D/head.out"
	[ "$stderr" = "cgdiff: -H /build/head/bench | cat: a pipe (|) is a shell's: run the pipeline from a script the command names" ]
}

@test "cgdiff -U: a metric that could not be explained, its reason escaped as jsonwrite escapes (quote, backslash, tab, an invalid byte), its one line" {
	why=$(printf 'base: a "quoted" \\ path\twith a tab and \377 byte')
	run -0 --separate-stderr cgdiff -U "$why" -M sum_ns
	[ "$output" = '{"metric":"sum_ns","kind":"summary","explained":false,"error":"base: a \"quoted\" \\ path\twith a tab and \ufffd byte"}' ]
	[ "$(jq -r .error <<< "$output")" = "$(printf 'base: a "quoted" \\ path\twith a tab and \357\277\275 byte')" ]
	[ "$stderr" = "explain sum_ns: no explanation: $why" ]
	# The EXAMPLES line; no dumps are read, and none may be given.
	run -0 --separate-stderr cgdiff -U 'base: the build failed' -M sum_ns
	[ "$(jq -c '[.metric, .explained, .error]' <<< "$output")" = '["sum_ns",false,"base: the build failed"]' ]
	run -2 --separate-stderr cgdiff -U why "$D/base.out" "$D/head.out"
	[ -z "$output" ]
}

@test "cgdiff -M: a dump it refuses is said unexplained, in a record and the table's one line naming file and line, exit 2" {
	head -n 20 "$D/head.out" > "$T/cut"
	run -2 --separate-stderr cgdiff -k sum_instr -M sum_ns "$D/base.out" "$T/cut"
	[ "$(jq -c '[.metric, .kind, .explained]' <<< "$output")" = '["sum_ns","summary",false]' ]
	[ "$(jq -r .error <<< "$output")" = "$T/cut:20: truncated: no totals line at the end" ]
	[ "$stderr" = "explain sum_ns: no explanation: $T/cut:20: truncated: no totals line at the end" ]
	# Without -M, cgdiff's own line, nothing on stdout.
	run -2 --separate-stderr cgdiff -k sum_instr "$D/base.out" "$T/cut"
	[ -z "$output" ] && [ "$stderr" = "cgdiff: $T/cut:20: truncated: no totals line at the end" ]
	# A bench command cgdiff cannot split, the same way.
	run -2 --separate-stderr cgdiff -M sum_ns -B 'a | b' "$D/base.out" "$D/head.out"
	[ "$(jq -r .explained <<< "$output")" = false ]
	[[ "$stderr" == "explain sum_ns: no explanation: -B a | b: "* ]]
}

@test "cgdiff base head base-counts head-counts: the case's allocations a call, as countof wrote them, when they differ" {
	printf '{"side":"base","sum_instr":95,"sum_allocs":0,"sum_alloc_bytes":0}\n' > "$T/b.jsonl"
	printf '{"side":"head","sum_instr":325,"sum_allocs":1.0,"sum_alloc_bytes":1048576}\n\n' > "$T/h.jsonl"
	run -0 --separate-stderr cgdiff -k sum_instr -M sum_ns "$D/base.out" "$D/head.out" "$T/b.jsonl" "$T/h.jsonl"
	[ "$(tail -n 1 <<< "$output")" = '{"metric":"sum_ns","kind":"allocs","base_allocs":0,"head_allocs":1.0,"base_alloc_bytes":0,"head_alloc_bytes":1048576}' ]
	[ "${stderr_lines[-1]}" = "  allocations a call: 0 -> 1.0, bytes a call: 0 -> 1048576" ]
	# The same on both sides, or none: no record, no line.
	run -0 --separate-stderr cgdiff -k sum_instr "$D/base.out" "$D/head.out" "$T/b.jsonl" "$T/b.jsonl"
	[ "$(jq -s -c 'map(select(.kind == "allocs")) | length' <<< "$output")" = 0 ]
	[[ "$stderr" != *allocations* ]]
	# One side only has them: null for the other.
	printf '{"side":"base","sum_instr":95}\n' > "$T/none.jsonl"
	run -0 --separate-stderr cgdiff -k sum_instr "$D/base.out" "$D/head.out" "$T/none.jsonl" "$T/h.jsonl"
	[ "$(tail -n 1 <<< "$output")" = '{"metric":"sum_instr","kind":"allocs","base_allocs":null,"head_allocs":1.0,"base_alloc_bytes":null,"head_alloc_bytes":1048576}' ]
	[ "${stderr_lines[-1]}" = "  allocations a call: none -> 1.0, bytes a call: none -> 1048576" ]
	# Refused: a count that is not a number, a record that is not one, no -k.
	printf '{"sum_allocs":"1"}\n' > "$T/str.jsonl"
	run -2 --separate-stderr cgdiff -k sum_instr "$D/base.out" "$D/head.out" "$T/b.jsonl" "$T/str.jsonl"
	[ -z "$output" ] && [ "$stderr" = "cgdiff: $T/str.jsonl: sum_allocs is not a number" ]
	printf '{"a":1}\n{"a":\n' > "$T/bad.jsonl"
	run -2 --separate-stderr cgdiff -k sum_instr "$D/base.out" "$D/head.out" "$T/bad.jsonl" "$T/b.jsonl"
	[[ "$stderr" == "cgdiff: $T/bad.jsonl:2: "* ]]
	run -2 --separate-stderr cgdiff "$D/base.out" "$D/head.out" "$T/b.jsonl" "$T/h.jsonl"
	[ "$stderr" = "cgdiff: $T/b.jsonl, $T/h.jsonl: the counts of a case need -k key" ]
}

@test "cgdiff -q: the metrics a verdict asks to explain, regressed then layout suspects, each once, one a line" {
	mkdir -p "$T/build/gate"
	printf '{"metric":"x_ns","verdict":"regressed"}\n{"verdict":"regressed","regressed":["sum_ns","a-b.c_ns"],"layout_suspect":["sum_ns","chase_ns"],"metrics":4}\n\n' \
	    > "$T/build/gate/verdict.jsonl"
	cd "$T"
	# The EXAMPLES line.
	run -0 --separate-stderr cgdiff -q build/gate/verdict.jsonl
	[ "$output" = "$(printf 'sum_ns\na-b.c_ns\nchase_ns')" ] && [ -z "$stderr" ]
	printf '{"verdict":"ok","regressed":[],"metrics":4}\n' > ok.jsonl
	run -0 --separate-stderr cgdiff -q ok.jsonl
	[ -z "$output" ]
	printf '{"verdict":"regressed","regressed":["a\\nb"]}\n' > nl.jsonl
	run -2 --separate-stderr cgdiff -q nl.jsonl
	[ -z "$output" ] && [ "$stderr" = "cgdiff: nl.jsonl: regressed holds a name that is empty or holds a newline" ]
	printf '{"verdict":"regressed","regressed":"sum_ns"}\n' > str.jsonl
	run -2 --separate-stderr cgdiff -q str.jsonl
	[ "$stderr" = "cgdiff: str.jsonl: regressed is not an array" ]
	printf '{"verdict":"regressed","regressed":[1]}\n' > num.jsonl
	run -2 --separate-stderr cgdiff -q num.jsonl
	[ "$stderr" = "cgdiff: num.jsonl: regressed holds a value that is no name" ]
	printf '{"verdict":"regressed","regressed":["a"]\n' > cut.jsonl
	run -2 --separate-stderr cgdiff -q cut.jsonl
	[[ "$stderr" == "cgdiff: cut.jsonl:1: "* ]]
	run -2 --separate-stderr cgdiff -q missing.jsonl
	[ "$stderr" = "cgdiff: missing.jsonl: No such file or directory" ]
	: > empty.jsonl
	run -2 --separate-stderr cgdiff -q empty.jsonl
	[ "$stderr" = "cgdiff: empty.jsonl: no record" ]
	# A question alone: no dumps, no -M.
	run -2 --separate-stderr cgdiff -q ok.jsonl -M sum_ns
	run -2 --separate-stderr cgdiff -q ok.jsonl "$D/base.out" "$D/head.out"
}

@test "cgdiff -K: the suspects between two sides' key files: compiler, flags, build command read side-free, shared libraries by path" {
	G="$T/gate dir; \$x 'q' -d"
	mkdir -p "$G/base" "$G/head"
	B=$(cd "$G/base" && pwd -P) H=$(cd "$G/head" && pwd -P)
	printf 'src/kernels.c\n' > "$G/base.value"
	printf 'other/kernels.c\n' > "$G/head.value"
	{
		printf 'side base\nkind file\ncc_version gcc 12\ncflags -O2\n'
		printf "build cc -o '%s/bench' '%s/kernels.c'\n" "$B" "$B"
		printf 'lib %064d /lib/libc.so.6\nlib %064d /lib/libm.so.6\n' 1 2
	} > "$G/base.key"
	{
		printf 'side head\nkind file\ncc_version gcc 13\ncflags -O2\n'
		printf "build cc -o '%s/bench' '%s/kernels.c'\n" "$H" "$H"
		printf 'lib %064d /lib/libz.so.1\nlib %064d /lib/libc.so.6\n' 9 3
	} > "$G/head.key"
	run -0 --separate-stderr cgdiff -a first -K "$G/base.key" -K "$G/head.key" -k sum_instr "$D/base.out" "$D/head.out"
	[ "$(head -n 1 <<< "$output" | jq -c .suspects)" = '["first","compiler: gcc 12 -> gcc 13","shared library: /lib/libc.so.6 differs (sha256:0000000000000000 -> sha256:0000000000000000)","shared library: only base loads /lib/libm.so.6","shared library: only head loads /lib/libz.so.1"]' ]
	[[ "$stderr" == *"  suspect: compiler: gcc 12 -> gcc 13"$'\n'* ]]
	# Built otherwise: the build command, each side's directory as $GATE_SIDE.
	sed -i 's/^build cc /build clang /; s/^cc_version .*/cc_version gcc 12/; /^lib /d' "$G/head.key"
	sed -i '/^lib /d' "$G/base.key"
	run -0 --separate-stderr cgdiff -K "$G/base.key" -K "$G/head.key" -k sum_instr "$D/base.out" "$D/head.out"
	[ "$(head -n 1 <<< "$output" | jq -r '.suspects[]')" = "build command: cc -o '\$GATE_SIDE/bench' '\$GATE_SIDE/\$GATE_FILE' -> clang -o '\$GATE_SIDE/bench' '\$GATE_SIDE/\$GATE_FILE'" ]
	# Alike: no suspect.
	cp "$G/base.key" "$T/same.key"
	run -0 --separate-stderr cgdiff -K "$G/base.key" -K "$G/base.key" -k sum_instr "$D/base.out" "$D/head.out"
	[ "$(head -n 1 <<< "$output" | jq -c .suspects)" = '[]' ]
	# One key file is not a pair; a missing one is said, as unexplained under -M.
	run -2 --separate-stderr cgdiff -K "$G/base.key" -k sum_instr "$D/base.out" "$D/head.out"
	run -2 --separate-stderr cgdiff -M sum_ns -K "$G/base.key" -K "$T/none.key" -k sum_instr "$D/base.out" "$D/head.out"
	[ "$(jq -r .error <<< "$output")" = "$T/none.key: No such file or directory" ]
}
