#!/usr/bin/env bats
# benchgate: the real harnesses' gates through benchrec (benchrec.bats
# has the parsers and the harnesses' runs): each fixture project of
# tests/fixtures/{gbench,gotest,hyperfine,pytest} in a git repository,
# its planted slowdown gated against the commit before it. These time
# real rounds: tests/run.sh runs this file alone, not beside another.

load common
load benchrec

# A machine shared with other work stretches every run: the default
# deadline (GATE_DEADLINE, 20 s) then ends a gate undecided before the
# 16 rounds a claim takes (perfgate(7), The rule): seen here at a CPU
# pressure of 99 %, an A/A gbench gate at 9 rounds, and hyperfine's 2x
# slower sum, its whole interval past the budget, at 13 rounds of 120 s.
# The deadline is pytest's below; on a quiet machine they decide in
# seconds.
DEADLINE=GATE_DEADLINE=400

@test "benchrec: gate: Google Benchmark, the same benchmark against itself passes" {
	need_gbench
	cp -R "$FIX/gbench" "$T/repo"
	cd "$T/repo"
	git init -q -b main && git add -A && git commit -q -m gbench
	run -0 --separate-stderr "$TOP/bin/perfgate" GATE_MK="$MK" "$DEADLINE"
	[ "$(last | jq -r .verdict)" = ok ]
	[ "$(last | jq -r .metrics)" = 3 ]
}

@test "benchrec: gate: Google Benchmark, a 2x slower sum regressed, the max unchanged ok" {
	need_gbench
	slowed_repo gbench src/work.c "$FIX/gbench/slow/work.c"
	run -1 --separate-stderr "$TOP/bin/perfgate" GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD "$DEADLINE"
	[ "$(last | jq -c .regressed)" = '["BM_Sum_4096_ns","BM_Sum_4096_items_per_s"]' ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "BM_Max_4096_ns") | .verdict')" = ok ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "BM_Sum_4096_items_per_s") | .better')" = higher ]
	# make gate says the same (the measurements reused), with make's own status 2.
	run -2 --separate-stderr make --no-print-directory gate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD "$DEADLINE"
	[ "$(last | jq -r .verdict)" = regressed ]
}

@test "benchrec: gate: go test, a 2x slower sum regressed, the max unchanged ok" {
	need go
	slowed_repo gotest work.go "$FIX/gotest/slow/work.go"
	run -1 --separate-stderr "$TOP/bin/perfgate" GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD "$DEADLINE"
	[ "$(last | jq -c .regressed)" = '["BenchmarkSum_n_4096_cpu_ns_per_op"]' ]
	[ "$(last | jq -c .unbudgeted)" = '["BenchmarkSum_n_4096_ns","BenchmarkSum_n_4096_items_per_s","BenchmarkMax_ns"]' ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "BenchmarkMax_cpu_ns_per_op") | .verdict')" = ok ]
}

@test "benchrec: gate: hyperfine, a 2x slower sum regressed, the max unchanged ok" {
	need hyperfine
	slowed_repo hyperfine work.c "$FIX/hyperfine/slow/work.c"
	run -1 --separate-stderr "$TOP/bin/perfgate" GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD "$DEADLINE"
	[ "$(last | jq -c .regressed)" = '["sum_user_ns"]' ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "max_user_ns") | .verdict')" = ok ]
}

@test "benchrec: gate: pytest-benchmark, a 4x slower total regressed, the largest unchanged ok" {
	need_pytest
	slowed_repo pytest work.py "$FIX/pytest/slow/work.py"
	# A claim takes 16 rounds (perfgate(7), The rule), and a pytest run
	# about 1.5 s, 5 s on a busy machine: more than the default deadline.
	run -1 --separate-stderr "$TOP/bin/perfgate" GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD GATE_DEADLINE=400
	[ "$(last | jq -c .regressed)" = '["test_total_ns"]' ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "test_largest_ns") | .verdict')" = ok ]
	[ -z "$(git status --porcelain)" ]
}
