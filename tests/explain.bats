#!/usr/bin/env bats
# The gate's explanation of a regression (mk/explain.sh, cgdiff): on each
# of the ten planted slowdowns, in counts and in time mode, the top
# function by instruction difference is the kernel that was changed; a
# change of memory access order regresses in time with instructions that
# did not move, and is said to be so; an ok gate pays nothing. Each
# slowdown is built once, in its own GATEDIR, for both modes, and counted
# over BENCH_CALLS=3 calls rather than 10: a third of valgrind's time, and
# the same functions on top.

load common

setup_file() {
	cd "$BATS_TEST_DIRNAME/.."
	F=$BATS_FILE_TMPDIR
	for p in kata/slowdowns/s*.patch; do
		n=$(basename "$p" .patch)
		mkdir -p "$F/src/$n"
		patch -s -o "$F/src/$n/kernels.c" kata/kernels.c < "$p"
	done
	mkdir -p "$F/src/reorder"
	patch -s -o "$F/src/reorder/kernels.c" kata/kernels.c < tests/data/countof/reorder.patch
}

setup() {
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS GATE_MODE BENCH_CALLS BENCH_MODE BENCH_CASES
	cd "$TOP"
	F=$BATS_FILE_TMPDIR
	T=$BATS_TEST_TMPDIR
}

# The kernel a slowdown changed.
kernel() {
	case $1 in
	s0[123]-*) echo kata_matmul ;;
	s0[45]-*) echo kata_sum ;;
	s0[678]-*) echo kata_rmsnorm ;;
	s09-*|s10-*) echo kata_count_below ;;
	esac
}

# check_top NAME METRIC: in GATEDIR F/g/NAME, METRIC was explained and its
# top function by instruction difference is NAME's kernel (s10: malloc or
# memcpy among the top three).
check_top() {
	local e=$F/g/$1/explain.jsonl top
	top=$(jq -r --arg m "$2" 'select(.metric == $m and .kind == "summary") | .top' "$e")
	if [ "${1%%-*}" = s10 ]; then
		jq -r --arg m "$2" 'select(.metric == $m and .kind == "function" and .self) | .function' "$e" |
		    head -n 3 | grep -E 'malloc|memcpy' || { echo "$1 $2: top three: $(jq -r --arg m "$2" 'select(.metric == $m and .kind == "function" and .self) | .function' "$e" | head -n 3 | tr '\n' ' ')"; return 1; }
	else
		[ "$top" = "$(kernel "$1")" ] || { echo "$1 $2: top $top, not $(kernel "$1")"; return 1; }
	fi
	# Records name the metric and function, with both sides' counts.
	jq -s -e --arg m "$2" 'map(select(.metric == $m and .kind == "function") | has("file") and has("base_instr") and has("head_instr") and has("delta_instr") and has("self")) | length > 0 and all' "$e" > /dev/null
}

@test "explain: counts mode, each of the ten slowdowns: the top function of the regressed metric is the changed kernel" {
	for p in kata/slowdowns/s*.patch; do
		n=$(basename "$p" .patch)
		BENCH_CALLS=3 run -1 --separate-stderr perfgate GATE_MODE=counts HEAD="$F/src/$n/kernels.c" GATEDIR="$F/g/$n"
		[ "$(tail -n 1 <<< "$output" | jq -r .verdict)" = regressed ]
		m=$(tail -n 1 <<< "$output" | jq -r '.regressed[] | select(endswith("_instr"))')
		[ -n "$m" ]
		check_top "$n" "$m"
		# After the verdict's table, from the dumps the counts gate kept.
		[[ "$stderr" == *"verdict"*"explain $m:"* ]]
		[[ "$stderr" != *"gate: explaining"* ]]
		grep -q '^<details><summary>Why it regressed: ' "$F/g/$n/counts/verdict.md"
	done
	# s10's allocations: one a call more, said and recorded.
	[ "$(jq -c 'select(.kind == "allocs" and .metric == "count_below_instr") | [.base_allocs, .head_allocs, .head_alloc_bytes]' "$F/g/s10-defensive-copy/explain.jsonl")" = '[0,1,1048576]' ]
	grep -q '^  allocations a call: 0 -> 1, bytes a call: 0 -> 1048576$' "$F/g/s10-defensive-copy/explain.txt"
}

@test "explain: time mode, each of the ten slowdowns: the top function of the regressed metric is the changed kernel" {
	local seen=' ' c
	for p in kata/slowdowns/s*.patch; do
		n=$(basename "$p" .patch)
		BENCH_CALLS=3 run -1 --separate-stderr perfgate HEAD="$F/src/$n/kernels.c" GATEDIR="$F/g/$n"
		m=$(tail -n 1 <<< "$output" | jq -r '.regressed[]' | head -n 1)
		check_top "$n" "$m"
		# The base's dumps of a case an earlier gate explained are the
		# store's (GATE_OBJECTS, shared by these GATEDIRs).
		c=${m%_ns}
		case $seen in
		*" $c "*) [[ "$stderr" == *"gate: explaining $m: head once under callgrind, $c alone"*"explain $m:"* ]] ;;
		*) [[ "$stderr" == *"gate: explaining $m: base and head once under callgrind, $c alone"*"explain $m:"* ]] ;;
		esac
		seen="$seen$c "
		[ "$(jq -r --arg m "$m" 'select(.metric == $m and .kind == "summary") | .moved' "$F/g/$n/explain.jsonl")" = true ]
		# Under the table in verdict.md, once.
		[ "$(grep -c '^<details><summary>Why it regressed: ' "$F/g/$n/verdict.md")" -eq 1 ]
	done
}

@test "explain: a time regression of the same work (memory access order): instructions did not move, said first, the cache misses shown" {
	D=$DATA/countof
	G=$T/gate
	run -1 --separate-stderr perfgate GATE_MODE=both GATE_BENCH_SRC="$D/chase.c" BASE="$D/order-seq.c" \
	    HEAD="$D/order-random.c" BUDGET="$D/chase.toml" GATEDIR="$G"
	[ "$(tail -n 1 <<< "$output" | jq -c .layout_suspect)" = '["chase_ns"]' ]
	s=$(jq -c 'select(.kind == "summary" and .metric == "chase_ns")' "$G/explain.jsonl")
	[ "$(jq -c '[.moved, .delta_instr, .cache]' <<< "$s")" = '[false,0,true]' ]
	grep -q '^  instructions did not move: .* not more work; the cache misses below' "$G/explain.txt"
	# The chase's own function misses many times more in random order.
	jq -s -e 'map(select(.kind == "function" and .self and .metric == "chase_ns") | select(.base_l1_misses * 4 < .head_l1_misses)) | length > 0' "$G/explain.jsonl" > /dev/null
	[[ "$stderr" == *"gate: explaining chase_ns: its instructions did not move; base and head once under callgrind, chase alone, with cache simulation"* ]]
}

@test "explain: the kata with its functions reordered: nothing regressed by instructions; a time regression of it would be explained as instructions that did not move" {
	G=$T/gate
	run -0 --separate-stderr perfgate GATE_MODE=counts HEAD="$F/src/reorder/kernels.c" GATEDIR="$G"
	[ "$(tail -n 1 <<< "$output" | jq -c .regressed)" = '[]' ]
	[ ! -e "$G/explain.jsonl" ]
	# A time verdict of it, as a noisy machine or code layout could give
	# it: two metrics regressed. make explain explains that last verdict.
	printf '{"verdict":"regressed","regressed":["matmul_ns","sum_ns"],"metrics":4}\n' > "$G/verdict.jsonl"
	run -0 --separate-stderr make --no-print-directory explain GATEDIR="$G"
	[ "$(jq -r 'select(.kind == "summary") | .moved' "$G/explain.jsonl" | sort -u)" = false ]
	[ "$(jq -s 'map(select(.kind == "function") | .delta_instr) | all(. == 0)' "$G/explain.jsonl")" = true ]
	[ "$(grep -c '^  instructions did not move' "$G/explain.txt")" -eq 2 ]
	[ "$(jq -r 'select(.kind == "summary") | .cache' "$G/explain.jsonl" | sort -u)" = true ]
}

@test "explain: an ok gate pays nothing; GATE_EXPLAIN=off leaves it out; make explain explains the last gate again without measuring" {
	G=$F/g/s04-sum-one-accumulator
	[ -s "$G/explain.jsonl" ] || skip "needs the time-mode test's gate"
	run -0 --separate-stderr perfgate GATEDIR="$T/ok"
	[[ "$stderr" != *"explain"* ]]
	[ ! -e "$T/ok/explain" ] && [ ! -e "$T/ok/explain.jsonl" ]
	BENCH_CALLS=3 run -1 --separate-stderr perfgate GATE_EXPLAIN=off HEAD="$F/src/s04-sum-one-accumulator/kernels.c" GATEDIR="$G"
	[[ "$stderr" != *"explain"* ]]
	[ ! -e "$G/explain.jsonl" ]
	rm -f "$G/verdict.md.before"
	cp "$G/verdict.md" "$G/verdict.md.before"
	BENCH_CALLS=3 run -0 --separate-stderr make --no-print-directory explain GATEDIR="$G"
	[[ "$stderr" != *"measuring"* ]] && [[ "$stderr" != *"explaining"* ]] || { echo "$stderr"; false; }
	[ "$(jq -r 'select(.kind == "summary") | .top' "$G/explain.jsonl")" = kata_sum ]
	BENCH_CALLS=3 run -0 --separate-stderr make --no-print-directory explain GATEDIR="$G"
	[ "$(grep -c '^<details>' "$G/verdict.md")" -eq 1 ]
}

@test "explain: a gate of the same sides in another GATEDIR runs nothing under callgrind; an entry whose files changed is not read, and is made again" {
	local g o e
	# GATEDIRs with hostile names (not those make cannot name: hostile.bats);
	# their store is their parent's gate-objects.
	local h="$T/-x'q\"&"
	mkdir -p "$h"
	g=("$h/one" "$h/-two'q'" "$h/three\"=" "$h/four")
	o="$h/gate-objects/explain"
	BENCH_CALLS=3 run -1 --separate-stderr perfgate HEAD="$F/src/s08-rmsnorm-twice/kernels.c" GATEDIR="${g[0]}"
	[[ "$stderr" == *"gate: explaining rmsnorm_ns: base and head once under callgrind, rmsnorm alone"* ]]
	[ "$(ls "$o" | wc -l)" -eq 2 ]
	BENCH_CALLS=3 run -1 --separate-stderr perfgate HEAD="$F/src/s08-rmsnorm-twice/kernels.c" GATEDIR="${g[1]}"
	[[ "$stderr" != *"once under callgrind"* ]] && [[ "$stderr" == *"explain rmsnorm_ns:"*"kata_rmsnorm"* ]]
	# countof's log is written only when it runs.
	[ -z "$(find "${g[1]}/explain" -name '*.log')" ]
	cmp "${g[0]}/explain.jsonl" "${g[1]}/explain.jsonl"
	[ "$(jq -r 'select(.kind == "summary") | .top' "${g[1]}/explain.jsonl")" = kata_rmsnorm ]
	# The head's entry changed under its content list: not read, made again.
	for e in "$o"/*; do
		grep -q '^side head$' "$e/key" || continue
		printf 'x\n' >> "$(ls -d "$e"/dumps/* | head -n 1)"
	done
	BENCH_CALLS=3 run -1 --separate-stderr perfgate HEAD="$F/src/s08-rmsnorm-twice/kernels.c" GATEDIR="${g[2]}"
	[[ "$stderr" == *"gate: explaining rmsnorm_ns: head once under callgrind, rmsnorm alone"* ]]
	cmp "${g[0]}/explain.jsonl" "${g[2]}/explain.jsonl"
	BENCH_CALLS=3 run -1 --separate-stderr perfgate HEAD="$F/src/s08-rmsnorm-twice/kernels.c" GATEDIR="${g[3]}"
	[[ "$stderr" != *"once under callgrind"* ]]
	# Another case's settings (BENCH_CALLS) are another key.
	BENCH_CALLS=4 run -1 --separate-stderr perfgate HEAD="$F/src/s08-rmsnorm-twice/kernels.c" GATEDIR="${g[3]}"
	[[ "$stderr" == *"gate: explaining rmsnorm_ns: base and head once under callgrind"* ]]
	[ "$(ls "$o" | wc -l)" -eq 4 ]
}

@test "explain: a dump cgdiff refuses: one line naming file and line, the verdict stands without an explanation" {
	G=$F/g/s04-sum-one-accumulator
	[ -d "$G/explain/head.sum" ] || skip "needs the time-mode test's gate"
	for f in "$G"/explain/head.sum/callgrind.out.*; do
		grep -q 'perfgate sum_instr' "$f" && head -n 20 "$f" > "$f.tmp" && mv "$f.tmp" "$f"
	done
	BENCH_CALLS=3 run -1 --separate-stderr perfgate HEAD="$F/src/s04-sum-one-accumulator/kernels.c" GATEDIR="$G"
	[ "$(tail -n 1 <<< "$output" | jq -r .verdict)" = regressed ]
	grep -q "^explain sum_ns: no explanation: $G/explain/head.sum/callgrind.out.[0-9.]*:20: truncated: no totals line at the end$" "$G/explain.txt"
	[ "$(jq -c 'select(.kind == "summary") | [.metric, .explained]' "$G/explain.jsonl")" = '["sum_ns",false]' ]
	BENCH_CALLS=3 run -2 --separate-stderr make --no-print-directory explain GATEDIR="$G"
	rm -rf "$G/explain"
}

@test "explain: perfgate HEAD=build/slow/kernels.c (perfgate(1) EXAMPLES): regressed, exit 1, and why" {
	mkdir -p build/slow
	patch -s -o "build/slow/kernels.c.$$" kata/kernels.c < kata/slowdowns/s04-sum-one-accumulator.patch
	mv -f "build/slow/kernels.c.$$" build/slow/kernels.c
	run -1 --separate-stderr perfgate HEAD=build/slow/kernels.c GATEDIR="$T/g"
	[ "$(tail -n 1 <<< "$output" | jq -r .verdict)" = regressed ]
	[[ "$stderr" == *"explain sum_ns:"*"kata_sum "* ]]
	[[ "$stderr" != *"make: ***"* ]]
}
