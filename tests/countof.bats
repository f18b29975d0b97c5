#!/usr/bin/env bats
# countof, bench.h's counts mode (bench/bench_counts.h) and the gate's
# counts and both modes (mk/counts.mk). Counts are exact, so every test
# here compares numbers for equality; none depends on timing.

load common

D=$DATA/countof

setup_file() {
	cd "$BATS_TEST_DIRNAME/.."
	F=$BATS_FILE_TMPDIR
	cc -std=c11 -O2 -Ikata -Ibench -o "$F/kata" kata/bench.c kata/kernels.c -lm
	patch -s -o "$F/s10.c" kata/kernels.c < kata/slowdowns/s10-defensive-copy.patch
	cc -std=c11 -O2 -Ikata -Ibench -o "$F/s10" kata/bench.c "$F/s10.c" -lm
}

setup() {
	# Most tests count under valgrind; without it, each is a skip naming
	# the package, not a failure.
	need_pkg valgrind valgrind
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS GATE_MODE BENCH_CALLS BENCH_MODE
	cd "$TOP"
	F=$BATS_FILE_TMPDIR
	T=$BATS_TEST_TMPDIR
}

teardown() {
	# The CPU hogs of the determinism test, should it fail half way.
	[ -z "${hogs:-}" ] || kill $hogs 2>/dev/null || true
}

KEYS='["matmul_instr","sum_instr","rmsnorm_instr","count_below_instr","matmul_allocs","matmul_alloc_bytes","sum_allocs","sum_alloc_bytes","rmsnorm_allocs","rmsnorm_alloc_bytes","count_below_allocs","count_below_alloc_bytes"]'

@test "countof rejects bad options in its own voice" {
	bad_options countof t
	run -2 --separate-stderr countof
	[ "${stderr_lines[0]}" = "usage: countof [-c] [-d dir] [-o log] [-s side] [-t timeout] [--] command [arg ...]" ]
}

@test "countof usage is the man page SYNOPSIS" {
	run -2 --separate-stderr countof -j -l
	# Joined into one line: the man page wraps a long form where usage does not.
	synopsis=$(mandoc -Tascii "$TOP/man/countof.1" | col -b | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')
	[ "$(printf '%s\n' "${stderr_lines[@]}" | sed 's/^usage: //' | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')" = "$synopsis" ]
}

@test "countof writes the kata's instructions and allocations a call, keys in order" {
	run -0 --separate-stderr countof "$F/kata"
	[ "$(jq -c keys_unsorted <<<"$output")" = "$KEYS" ]
	# Instructions a call: each kernel does work; nothing allocates.
	jq -e '.matmul_instr > 1e6 and .sum_instr > 1000 and .count_below_instr > 50' <<<"$output"
	jq -e '[to_entries[] | select(.key | test("alloc")) | .value] | all(. == 0)' <<<"$output"
}

@test "countof counts are identical twice in a row, idle and under two CPU hogs" {
	run -0 --separate-stderr countof -s base "$F/kata"
	first=$output
	run -0 --separate-stderr countof -s base "$F/kata"
	[ "$output" = "$first" ]
	sh -c 'while :; do :; done' &
	hogs=$!
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	run -0 --separate-stderr countof -s base "$F/kata"
	[ "$output" = "$first" ]
	run -0 --separate-stderr countof -s base "$F/kata"
	kill $hogs
	hogs=
	[ "$output" = "$first" ]
}

@test "countof sees a planted allocation: one 1 MiB malloc a call (s10)" {
	run -0 --separate-stderr countof "$F/s10"
	[ "$(jq -c '[.count_below_allocs, .count_below_alloc_bytes, .sum_allocs]' <<<"$output")" = "[1,1048576,0]" ]
}

@test "countof -s names the side first; -d keeps one dump a metric" {
	run -0 --separate-stderr countof -s head -d "$T/dumps" -- "$F/kata"
	[[ "$output" == '{"side":"head","matmul_instr":'* ]]
	[ "$(grep -l 'Trigger: Client Request: perfgate ' "$T"/dumps/callgrind.out.* | wc -l)" -eq 4 ]
	grep -q '^desc: Trigger: Client Request: perfgate sum_instr 10$' "$T"/dumps/callgrind.out.*
}

@test "countof BENCH_CALLS sets the calls counted, not the count a call" {
	run -0 --separate-stderr countof -d "$T/d" "$F/kata"
	ten=$(jq -c '[.matmul_instr, .rmsnorm_instr]' <<<"$output")
	BENCH_CALLS=3 run -0 --separate-stderr countof -d "$T/d" "$F/kata"
	grep -q '^desc: Trigger: Client Request: perfgate sum_instr 3$' "$T"/d/callgrind.out.*
	# matmul does the same work every call: 10 calls and 3 calls give one
	# count a call once the client requests' few instructions a metric (c)
	# are taken out: 10 x + c = 10 t10 and 3 x + c = 3 t3.
	jq -e --argjson t "$ten" '((10 * $t[0] - 3 * .matmul_instr) / 7) as $x | ($x | floor) == $x and $x < .matmul_instr and .matmul_instr - $x < 20' <<<"$output"
}

@test "countof -f runs the bench command as the gate keyed it: cd DIR &&, NAME=value words, quotes; an unkeyable form refused" {
	mkdir "$T/d i r"
	cp "$F/kata" "$T/d i r/kata"
	printf '%s\n' "cd '$T/d i r' && BENCH_CASES=sum ./kata" > "$T/bench.cmd"
	run -0 --separate-stderr countof -s head -f "$T/bench.cmd"
	jq -e '.side == "head" and .sum_instr > 1000 and .matmul_instr == null' <<<"$output"
	via=$output
	BENCH_CASES=sum run -0 --separate-stderr countof -s head "$F/kata"
	[ "$via" = "$output" ]
	printf '%s\n' "$F/kata | cat" > "$T/bad.cmd"
	run -2 --separate-stderr countof -f "$T/bad.cmd"
	[ "$stderr" = "countof: $T/bad.cmd: the bench command: a pipe (|) is a shell's: run the pipeline from a script the command names" ]
	run -2 --separate-stderr countof -f "$T/bench.cmd" "$F/kata"
}

@test "countof: bench.h counts mode without valgrind prints allocations only" {
	BENCH_MODE=counts run -0 --separate-stderr "$F/s10"
	[ "$output" = '{"matmul_allocs":0,"matmul_alloc_bytes":0,"sum_allocs":0,"sum_alloc_bytes":0,"rmsnorm_allocs":0,"rmsnorm_alloc_bytes":0,"count_below_allocs":1,"count_below_alloc_bytes":1048576}' ]
	BENCH_MODE=fast run -2 --separate-stderr "$F/kata"
	[ "$stderr" = "kata: BENCH_MODE=fast: not time or counts" ]
	BENCH_MODE=counts BENCH_CALLS=0 run -2 --separate-stderr "$F/kata"
	[ "$stderr" = "kata: BENCH_CALLS=0: out of range" ]
}

@test "countof: bench.h counts allocations under clang and tcc too; tcc counts instructions with -DBENCH_CALLGRIND=1" {
	clang -std=c11 -O2 -Ikata -Ibench -o "$T/clang" kata/bench.c "$F/s10.c" -lm
	BENCH_MODE=counts run -0 --separate-stderr "$T/clang"
	[ "$(jq -c '[.count_below_allocs, .count_below_alloc_bytes]' <<<"$output")" = "[1,1048576]" ]
	tcc -std=c11 -Ikata -Ibench -o "$T/tcc" kata/bench.c "$F/s10.c" -lm
	BENCH_MODE=counts run -0 --separate-stderr "$T/tcc"
	[ "$(jq -c '[.count_below_allocs, .count_below_alloc_bytes]' <<<"$output")" = "[1,1048576]" ]
	run -2 --separate-stderr countof "$T/tcc"
	[[ "$stderr" == *"no instruction counts"*"-DBENCH_CALLGRIND=1"* ]]
	tcc -std=c11 -DBENCH_CALLGRIND=1 -Ikata -Ibench -o "$T/tcc" kata/bench.c "$F/s10.c" -lm
	run -0 --separate-stderr countof "$T/tcc"
	jq -e '.sum_instr > 1000 and .count_below_allocs == 1' <<<"$output"
}

@test "countof: a command that is no bench.h benchmark, or fails, cannot be decided (exit 2)" {
	run -2 --separate-stderr countof printf '{"x_ns":1}\n'
	[ "$output" = "" ]
	[[ "$stderr" == "countof: printf: no instruction counts"* ]]
	run -2 --separate-stderr countof sh -c 'exit 3'
	[ "$stderr" = "countof: valgrind sh: exited with status 3" ]
	run -2 --separate-stderr countof -t 1 sleep 30
	[ "$stderr" = "countof: valgrind sleep: timed out after 1 s" ]
}

@test "countof -o: the command's and valgrind's stderr to the log, countof's one line of message apart" {
	L="$T/a log; \$x 'q'"
	echo stale > "$L"
	run -2 --separate-stderr countof -o "$L" sh -c 'echo from the bench >&2; exit 3'
	[ "$stderr" = "countof: valgrind sh: exited with status 3" ]
	[ "$(cat "$L")" = "from the bench" ]
	run -0 --separate-stderr countof -o "$L" -s head "$F/kata"
	[ "$(jq -r .side <<<"$output")" = head ] && [ -z "$stderr" ]
	run -2 --separate-stderr countof -o "$T/no/such/dir/log" "$F/kata"
	[ "$stderr" = "countof: $T/no/such/dir/log: No such file or directory" ]
	run -2 --separate-stderr countof -j -o "$L" "$D/base.jsonl"
}

@test "countof -j: equal counts are ok" {
	run -0 --separate-stderr countof -j -b "$D/plain.toml" "$D/base.jsonl" "$D/head-same.jsonl"
	[ "$(tail -n 1 <<<"$output")" = '{"verdict":"ok","regressed":[],"metrics":3,"mode":"counts"}' ]
	[ "${lines[0]}" = '{"metric":"sum_instr","base":1000,"head":1000,"delta":0,"budget":0.02,"verdict":"ok"}' ]
}

@test "countof -j: an allocation from 0 regresses at the default budget 0; instructions at 0.02" {
	run -1 --separate-stderr countof -j -b "$D/plain.toml" "$D/base.jsonl" "$D/head-alloc.jsonl"
	[ "${lines[0]}" = '{"metric":"sum_instr","base":1000,"head":1020,"delta":0.020000000000000018,"budget":0.02,"verdict":"ok"}' ]
	[ "${lines[1]}" = '{"metric":"sum_allocs","base":0,"head":0.5,"delta":null,"budget":0,"verdict":"regressed"}' ]
	[ "$(tail -n 1 <<<"$output")" = '{"verdict":"regressed","regressed":["sum_allocs","sum_alloc_bytes"],"metrics":3,"mode":"counts"}' ]
	run -1 --separate-stderr countof -j -b "$D/plain.toml" "$D/base.jsonl" "$D/head-instr.jsonl"
	[ "$(tail -n 1 <<<"$output")" = '{"verdict":"regressed","regressed":["sum_instr"],"metrics":3,"mode":"counts"}' ]
}

@test "countof -j: a delta beyond a double is null, and the record still JSON (it was inf)" {
	printf '{"side":"base","sum_instr":1e-300,"sum_allocs":0,"sum_alloc_bytes":0}\n' > "$T/b.jsonl"
	printf '{"side":"head","sum_instr":1e300,"sum_allocs":0,"sum_alloc_bytes":0}\n' > "$T/h.jsonl"
	run -1 --separate-stderr countof -j -b "$D/plain.toml" "$T/b.jsonl" "$T/h.jsonl"
	[ "${lines[0]}" = '{"metric":"sum_instr","base":1e-300,"head":1e300,"delta":null,"budget":0.02,"verdict":"regressed"}' ]
	jq -c . <<<"$output" > /dev/null
}

@test "countof -j: the [counts] section sets budgets; 0 may only stay 0 whatever the budget" {
	cat "$D/base.jsonl" "$D/head-instr.jsonl" | { run -0 --separate-stderr countof -j -b "$D/loose.toml"; }
	run -1 --separate-stderr countof -j -b "$D/loose.toml" "$D/base.jsonl" "$D/head-alloc.jsonl"
	[ "$(tail -n 1 <<<"$output")" = '{"verdict":"regressed","regressed":["sum_allocs","sum_alloc_bytes"],"metrics":3,"mode":"counts"}' ]
}

@test "countof -j: a missing side, metric or budget cannot be decided, with an error summary" {
	run -2 --separate-stderr countof -j -b "$D/plain.toml" "$D/base.jsonl"
	[ "$output" = '{"verdict":"error","regressed":[],"metrics":0,"mode":"counts","error":"no record of side head"}' ]
	printf '{"side":"head","sum_instr":1}\n' > "$T/h.jsonl"
	run -2 --separate-stderr countof -j -b "$D/plain.toml" "$D/base.jsonl" "$T/h.jsonl"
	[ "$output" = '{"verdict":"error","regressed":[],"metrics":0,"mode":"counts","error":"head: metric sum_allocs missing"}' ]
	run -2 --separate-stderr countof -j -b "$T/none.toml" "$D/base.jsonl" "$D/head-same.jsonl"
	[ "$(jq -r .verdict <<<"$output")" = "error" ]
	printf '[budget]\nsum_ns = 0.5\n[counts]\nsum_instr = -1\n' > "$T/bad.toml"
	run -2 --separate-stderr countof -j -b "$T/bad.toml" "$D/base.jsonl" "$D/head-same.jsonl"
	[ "$(jq -r .error <<<"$output")" = "$T/bad.toml:4: budget of sum_instr must be 0 or more in [counts]" ]
	[ "$stderr" = "countof: $T/bad.toml:4: budget of sum_instr must be 0 or more in [counts]" ]
}

@test "countof -j reads the budget file as cmpbudget does: the same file:line for a bad line" {
	for bad in 'sum_instr 1' 'sum_instr = 0x1' 'sum_ns = 0' 'sum_instr = 0\nsum_instr = 1'; do
		printf "[budget]\nsum_ns = 0.5\n[counts]\n$bad\n" > "$T/bad.toml"
		run -2 --separate-stderr cmpbudget -b "$T/bad.toml" "$D/base.jsonl"
		want=${stderr#cmpbudget: }
		[[ "$want" == "$T/bad.toml:4: "* || "$want" == "$T/bad.toml:5: "* ]]
		run -2 --separate-stderr countof -j -b "$T/bad.toml" "$D/base.jsonl" "$D/head-same.jsonl"
		[ "$(jq -r .error <<<"$output")" = "$want" ]
	done
	printf 'runs = 3\n[counts]\nsum_instr = 0\n' > "$T/nobudget.toml"
	run -2 --separate-stderr countof -j -b "$T/nobudget.toml" "$D/base.jsonl" "$D/head-same.jsonl"
	[ "$(jq -r .error <<<"$output")" = "$T/nobudget.toml: no [budget] section" ]
}

@test "countof -l names a time regression whose instructions did not move, not one whose did" {
	run -1 --separate-stderr countof -l "$D/time-verdict.jsonl" "$D/counts-verdict.jsonl"
	[ "${#lines[@]}" -eq 7 ]
	jq -e '.layout_suspect == ["matmul_ns"] and .regressed == ["matmul_ns","sum_ns","sum_instr"] and .time.metrics == 3 and .counts.mode == "counts"' <<<"${lines[6]}"
	[ "$stderr" = "countof: matmul_ns regressed while matmul_instr moved by 0: layout suspect: no more work, so code layout, noise or memory access is to blame" ]
	# A threshold below no movement at all still names it; none above the sum's.
	run -1 --separate-stderr countof -l -e 4 "$D/time-verdict.jsonl" "$D/counts-verdict.jsonl"
	jq -e '.layout_suspect == ["matmul_ns","sum_ns"]' <<<"${lines[6]}"
}

@test "countof: the kata against a copy with its functions in another order: every count identical" {
	patch -s -o "$T/reorder.c" kata/kernels.c < <(sed 1d "$D/reorder.patch")
	run -0 --separate-stderr "$TOP/bin/perfgate" GATE_MODE=counts HEAD="$T/reorder.c" GATEDIR="$T/g"
	[ "$(tail -n 1 <<<"$output")" = '{"verdict":"ok","regressed":[],"metrics":12,"mode":"counts"}' ]
	[ "$(grep '^{"metric"' <<<"$output" | jq -s 'map(.delta) | unique' -c)" = "[0]" ]
	[ "$(grep -c '^{"metric"' <<<"$output")" -eq 12 ]
	# A time verdict of the kata with matmul and sum slower, against these
	# counts: both layout suspects, named by the both mode's last step.
	run -1 --separate-stderr countof -l "$D/time-verdict.jsonl" "$T/g/counts/verdict.jsonl"
	jq -e '.layout_suspect == ["matmul_ns","sum_ns"]' <<<"$(tail -n 1 <<<"$output")"
}

@test "countof: a slowdown by memory access order alone (tests/data/countof/chase.c) does not move instructions" {
	for o in seq random; do
		cc -std=c11 -O2 -Ibench -o "$T/$o" "$D/chase.c" "$D/order-$o.c"
	done
	run -0 --separate-stderr countof "$T/seq"
	seq=$output
	jq -e '.chase_instr > 65536 * 2' <<<"$seq"
	run -0 --separate-stderr countof "$T/random"
	[ "$output" = "$seq" ]
}

@test "countof -c adds simulated cache misses: the chase's random order shows, twice the same" {
	for o in seq random; do
		cc -std=c11 -O2 -Ibench -o "$T/$o" "$D/chase.c" "$D/order-$o.c"
	done
	run -0 --separate-stderr countof -c "$T/seq"
	seq=$output
	[ "$(jq -c keys_unsorted <<<"$seq")" = '["chase_instr","chase_l1_misses","chase_ll_misses","chase_allocs","chase_alloc_bytes"]' ]
	run -0 --separate-stderr countof -c "$T/random"
	random=$output
	run -0 --separate-stderr countof -c "$T/random"
	[ "$output" = "$random" ]
	jq -e --argjson s "$seq" '.chase_instr == $s.chase_instr and .chase_l1_misses > 10 * $s.chase_l1_misses' <<<"$random"
	# Misses moved, so a time regression is not a layout suspect.
	printf '%s\n' "{\"side\":\"base\",${seq#\{}" "{\"side\":\"head\",${random#\{}" > "$T/c.jsonl"
	run -1 --separate-stderr countof -j -b "$D/chase.toml" "$T/c.jsonl"
	printf '%s\n' "$output" > "$T/counts.jsonl"
	[ "$(tail -n 1 "$T/counts.jsonl")" = '{"verdict":"regressed","regressed":["chase_l1_misses","chase_ll_misses"],"metrics":5,"mode":"counts"}' ]
	printf '%s\n' '{"metric":"chase_ns","base":1,"head":30,"delta":29,"budget":0.2,"verdict":"regressed"}' \
	    '{"verdict":"regressed","regressed":["chase_ns"],"metrics":1}' > "$T/time.jsonl"
	run -1 --separate-stderr countof -l "$T/time.jsonl" "$T/counts.jsonl"
	jq -e '.layout_suspect == []' <<<"${lines[-1]}"
}

@test "countof: make gate GATE_MODE=counts (man page EXAMPLES) regresses on s10, count_below's allocation named" {
	run -1 --separate-stderr "$TOP/bin/perfgate" GATE_MODE=counts HEAD="$F/s10.c" GATEDIR="$T/g"
	[ "$(tail -n 1 <<<"$output")" = '{"verdict":"regressed","regressed":["count_below_instr","count_below_allocs","count_below_alloc_bytes"],"metrics":12,"mode":"counts"}' ]
	[[ "$stderr" == *"gate: counting head, once under valgrind"* ]]
}

@test "countof: make gate GATE_MODE=both (man page EXAMPLES) joins both verdicts; a bad mode is exit 2" {
	run -0 --separate-stderr "$TOP/bin/perfgate" GATE_MODE=both GATEDIR="$T/g"
	jq -e '.verdict == "ok" and .layout_suspect == [] and .time.verdict == "ok" and .counts.verdict == "ok"' <<<"$(tail -n 1 <<<"$output")"
	[ -s "$T/g/runs.jsonl" ] && [ -s "$T/g/counts/base.jsonl" ]
	run -2 --separate-stderr "$TOP/bin/perfgate" GATE_MODE=fast GATEDIR="$T/g"
	[ "$(tail -n 1 <<<"$output")" = '{"verdict":"error","error":"both: mode: GATE_MODE=fast: not time, counts or both","side":"both","step":"mode"}' ]
}

@test "countof: a gate whose side cannot be counted says which side, exit 2" {
	printf '#include <stdio.h>\nint main(void) { puts("{\\"x_ns\\":1}"); return 0; }\n' > "$T/plain.c"
	printf 'int unused;\n' > "$T/side.c"
	run -2 --separate-stderr "$TOP/bin/perfgate" GATE_MODE=counts GATE_BENCH_SRC="$T/plain.c" BASE="$T/side.c" HEAD="$T/side.c" GATEDIR="$T/g"
	[[ "$(tail -n 1 <<<"$output")" == '{"verdict":"error","error":"'*': count: '*'no instruction counts'* ]]
}

# The man page's EXAMPLES, line for line.
examples=(
	"countof build/bench/bench"
	"countof -s base ./old/bench > c.jsonl; countof -s head ./new/bench >> c.jsonl; countof -j c.jsonl"
	"make gate GATE_MODE=counts"
	"make gate GATE_MODE=both"
)

@test "countof man page EXAMPLES are the ones tested here" {
	run -0 sh -c "sed -n '/^\\.Sh EXAMPLES/,/^\\.Sh /p' '$TOP/man/countof.1' | sed -n 's/^\\.Dl \\$ //p'"
	[ "${#lines[@]}" -eq "${#examples[@]}" ]
	for i in "${!examples[@]}"; do
		[ "${lines[$i]}" = "${examples[$i]}" ]
	done
}

@test "countof example: the kata's counts, and two sides judged against budget.toml" {
	mkdir -p "$T/build/bench" "$T/old" "$T/new"
	cp "$F/kata" "$T/build/bench/bench"
	cp "$F/kata" "$T/old/bench"
	cp "$F/s10" "$T/new/bench"
	cp budget.toml "$T/"
	cd "$T"
	run -0 --separate-stderr bash -c "${examples[0]}"
	[ "$(jq -c keys_unsorted <<<"$output")" = "$KEYS" ]
	run -1 --separate-stderr bash -c "${examples[1]}"
	jq -e '.regressed == ["count_below_instr","count_below_allocs","count_below_alloc_bytes"]' <<<"$(tail -n 1 <<<"$output")"
}
