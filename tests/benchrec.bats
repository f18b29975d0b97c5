#!/usr/bin/env bats
# benchrec: other harnesses' benchmarks as perfgate's metrics line. The
# parser tests read the recorded outputs in tests/data/benchrec (one per
# harness version); the rest run the real harnesses (Debian's
# libbenchmark-dev, golang-go, hyperfine, python3-pytest-benchmark) on the
# projects in tests/fixtures/{gbench,gotest,hyperfine,pytest}; their
# gates, which time real rounds, are benchgate.bats. Nothing here judges
# a timing, so this file runs beside others (tests/untimed).

load common
load benchrec

@test "benchrec: Google Benchmark's JSON: the best repetition in ns, counters, rates as _per_s, no aggregates" {
	run -0 --separate-stderr benchrec gbench -f "$D/gbench-1.7.1.json"
	[ "$output" = "$(cat "$D/gbench-1.7.1.out")" ]
	[ "$stderr" = "" ]
	# The least of the three repetitions, as written; the largest rate.
	[ "$(jq -r .BM_Sort_64_ns <<<"$output")" = "$(jq '[.benchmarks[] | select(.run_type == "iteration" and .name == "BM_Sort/64") | .real_time] | min' "$D/gbench-1.7.1.json")" ]
	[ "$(jq -r .BM_Sort_64_items_per_s <<<"$output")" = "$(jq '[.benchmarks[] | select(.run_type == "iteration" and .name == "BM_Sort/64") | .items_per_second] | max' "$D/gbench-1.7.1.json")" ]
	[[ "$output" == *'"BM_Sort_64_ns":2.6991888082739035e+02,'* ]]
	# A benchmark in us, its point moved: 1.8145909183086746e+00 us.
	[[ "$output" == *'"BM_Copy_real_time_threads_2_ns":1814.5909183086746}' ]]
	[[ "$output" != *mean* && "$output" != *stddev* && "$output" != *_cv* ]]
	run -0 benchrec -c gbench -f "$D/gbench-1.7.1.json"
	[ "$output" = "$(cat "$D/gbench-1.7.1-cpu.out")" ]
	run -0 benchrec gbench -c -f - < "$D/gbench-1.7.1.json"
	[ "$output" = "$(cat "$D/gbench-1.7.1-cpu.out")" ]
}

@test "benchrec: go test's text: ns/op, B/op, allocs/op, ReportMetric units, the best of -count, the -cpu suffix kept" {
	run -0 --separate-stderr benchrec gotest -f "$D/gotest-go1.19.txt"
	[ "$output" = "$(cat "$D/gotest-go1.19.out")" ]
	# -count 2: 4410 and 4921 ns/op at -cpu 1 (no suffix), 5123 and 5149 at -cpu 2.
	[ "$(jq -c '[.BenchmarkSort_n_64_ns, .BenchmarkSort_n_64_2_ns, .BenchmarkSort_n_64_B_per_op, .BenchmarkSort_n_64_allocs_per_op]' <<<"$output")" = '[4410,5123,536,2]' ]
	[[ "$output" == *'"BenchmarkSort_n_64_items_per_op":64.00,'* ]]
}

@test "benchrec: hyperfine's JSON: each command's fastest run, its user and system time, in ns" {
	run -0 --separate-stderr benchrec hyperfine -f "$D/hyperfine-1.15.0.json"
	[ "$output" = "$(cat "$D/hyperfine-1.15.0.out")" ]
	# -n 'sleep short' names the first; the second is named by its command, true.
	[[ "$output" == '{"sleep_short_ns":11704735,'*',"true_ns":1311924.0000000001,'* ]]
}

@test "benchrec: pytest-benchmark's JSON: each test's fastest round in ns" {
	run -0 --separate-stderr benchrec pytest -f "$D/pytest-benchmark-3.2.2.json"
	[ "$output" = "$(cat "$D/pytest-benchmark-3.2.2.out")" ]
	[ "$output" = '{"test_sort_100_ns":948.999968386488,"test_sort_1000_ns":8752.999974603881}' ]
}

@test "benchrec: a benchmark's error, only aggregates, a failed go test: exit 2 naming file, line and benchmark" {
	run -2 --separate-stderr benchrec gbench -f "$D/gbench-1.7.1-error.json"
	[ "$stderr" = "benchrec: $D/gbench-1.7.1-error.json:39: benchmark \"BM_Err\" reported an error: input file \"x.dat\" is missing" ]
	[ "$output" = "" ]
	run -2 --separate-stderr benchrec gbench -f "$D/gbench-1.7.1-aggregates.json"
	[ "$stderr" = "benchrec: $D/gbench-1.7.1-aggregates.json:38: no benchmark runs (only aggregates: --benchmark_report_aggregates_only?)" ]
	run -2 --separate-stderr benchrec gotest -f "$D/gotest-go1.19-fail.txt"
	[ "$stderr" = "benchrec: $D/gotest-go1.19-fail.txt:1: --- FAIL: BenchmarkBad: f_test.go:6: broken on purpose" ]
	run -2 --separate-stderr benchrec gotest -f /dev/null
	[ "$stderr" = "benchrec: /dev/null:1: no benchmark results (does -bench select any?)" ]
}

@test "benchrec: truncated JSON, not JSON, empty, another harness's document: exit 2 naming file and line" {
	head -c 1000 "$D/gbench-1.7.1.json" > "$T/cut.json"
	run -2 --separate-stderr benchrec gbench -f "$T/cut.json"
	[ "$stderr" = "benchrec: $T/cut.json:$(wc -l < "$T/cut.json" | awk '{ print $1 + 1 }'): cut short (unexpected end of file)" ]
	printf '{\n  "results": [\n    {"command": "x", "min": 1,}\n  ]\n}\n' > "$T/comma.json"
	run -2 --separate-stderr benchrec hyperfine -f "$T/comma.json"
	[ "$stderr" = "benchrec: $T/comma.json:3: expected a key in quotes" ]
	: > "$T/empty.json"
	run -2 --separate-stderr benchrec pytest -f "$T/empty.json"
	[ "$stderr" = "benchrec: $T/empty.json:1: empty, no benchmark results" ]
	run -2 --separate-stderr benchrec gbench -f "$D/pytest-benchmark-3.2.2.json"
	[ "$stderr" = "benchrec: $D/pytest-benchmark-3.2.2.json:1: a pytest-benchmark document, not Google Benchmark's" ]
	run -2 --separate-stderr benchrec hyperfine -f "$D/gbench-1.7.1.json"
	[ "$stderr" = "benchrec: $D/gbench-1.7.1.json:1: a Google Benchmark document, not hyperfine's" ]
	run -2 --separate-stderr benchrec pytest -f "$D/hyperfine-1.15.0.json"
	[ "$stderr" = "benchrec: $D/hyperfine-1.15.0.json:1: a hyperfine document, not pytest-benchmark's" ]
	printf '{"a": 1}\n' > "$T/other.json"
	run -2 --separate-stderr benchrec gbench -f "$T/other.json"
	[ "$stderr" = "benchrec: $T/other.json:1: not Google Benchmark's document (no \"context\" and \"benchmarks\")" ]
	run -2 --separate-stderr benchrec gbench -f "$T/none.json"
	[ "$stderr" = "benchrec: $T/none.json: No such file or directory" ]
	printf '{"results": []}\n' > "$T/noruns.json"
	run -2 --separate-stderr benchrec hyperfine -f "$T/noruns.json"
	[ "$stderr" = "benchrec: $T/noruns.json:1: no results" ]
}

@test "benchrec: names are data: any bytes make a key by the rule; two names of one key are refused, naming both" {
	printf '%s\n' '{"context": {}, "benchmarks": [' \
	    '{"name": "-x \"q\" ;$y/1", "run_type": "iteration", "real_time": 5, "time_unit": "ms"},' \
	    '{"name": "BM_Sort/1024", "run_type": "iteration", "real_time": 7, "time_unit": "ns"},' \
	    '{"name": "BM_Sort_1024", "run_type": "iteration", "real_time": 8, "time_unit": "ns"}]}' > "$T/names.json"
	run -2 --separate-stderr benchrec gbench -f "$T/names.json"
	[ "$stderr" = "benchrec: $T/names.json:4: \"BM_Sort/1024\" and \"BM_Sort_1024\" make the same key BM_Sort_1024_ns" ]
	sed -i '4d; 3s/},$/}]}/' "$T/names.json"
	run -0 --separate-stderr benchrec gbench -f "$T/names.json"
	[ "$output" = '{"x_q_y_1_ns":5000000,"BM_Sort_1024_ns":7}' ]
	# A name with nothing to make a key of, and a file named like an option.
	printf '{"context": {}, "benchmarks": [{"name": "//", "run_type": "iteration", "real_time": 5}]}' > "$T/-f x;\$y.json"
	run -2 --separate-stderr benchrec gbench -f "$T/-f x;\$y.json"
	[ "$stderr" = "benchrec: $T/-f x;\$y.json:1: \"//\": the name has no letter or digit to make a key of" ]
	# A newline in a name, or in a message, stays on the message's one line.
	printf '{"context": {}, "benchmarks": [{"name": "a\\nb", "error_occurred": true, "error_message": "x\\ty\\u0001"}]}' > "$T/nl.json"
	run -2 --separate-stderr benchrec gbench -f "$T/nl.json"
	[ "$stderr" = "benchrec: $T/nl.json:1: benchmark \"a\\nb\" reported an error: x\\ty\\x01" ]
	# go test: one name in two packages.
	printf 'pkg: a\nBenchmarkX-2 10 5 ns/op\npkg: b\nBenchmarkX-2 10 6 ns/op\n' > "$T/two.txt"
	run -2 --separate-stderr benchrec gotest -f "$T/two.txt"
	[ "$stderr" = "benchrec: $T/two.txt:4: a: \"BenchmarkX-2\" ns/op and b: \"BenchmarkX-2\" ns/op make the same key BenchmarkX_2_ns" ]
	printf 'BenchmarkX-2 10 NaN ns/op\n' > "$T/nan.txt"
	run -2 --separate-stderr benchrec gotest -f "$T/nan.txt"
	[ "$stderr" = "benchrec: $T/nan.txt:1: \"BenchmarkX-2\" ns/op: not a finite number" ]
}

@test "benchrec: BENCH_CASES selects metrics by key or stem; a case that selects none is exit 2" {
	BENCH_CASES=BM_Sort_64_ns,BM_Sort_1024 run -0 --separate-stderr benchrec gbench -f "$D/gbench-1.7.1.json"
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["BM_Sort_64_ns","BM_Sort_1024_ns","BM_Sort_1024_bytes_per_s","BM_Sort_1024_items_per_s","BM_Sort_1024_swaps"]' ]
	BENCH_CASES=BM_Sort_64_ns,BM_Nope run -2 --separate-stderr benchrec gbench -f "$D/gbench-1.7.1.json"
	[ "$stderr" = "benchrec: $D/gbench-1.7.1.json: BENCH_CASES=BM_Sort_64_ns,BM_Nope: no case 'BM_Nope'" ]
	[ "$output" = "" ]
	# A benchmark not selected is skipped whole, its error too.
	printf '%s\n' '{"context": {}, "benchmarks": [' \
	    '{"name": "BM_Bad", "run_type": "iteration", "error_occurred": true, "real_time": 0},' \
	    '{"name": "BM_Good", "run_type": "iteration", "real_time": 3}]}' > "$T/skip.json"
	BENCH_CASES=BM_Good_ns run -0 benchrec gbench -f "$T/skip.json"
	[ "$output" = '{"BM_Good_ns":3}' ]
	# A run that Google Benchmark 1.8 skipped (SkipWithMessage) has no time to keep.
	sed -i 's/"error_occurred": true/"skipped": true, "skip_message": "no GPU"/' "$T/skip.json"
	run -0 benchrec gbench -f "$T/skip.json"
	[ "$output" = '{"BM_Good_ns":3}' ]
}

# The corpus sweep, in a plain bash of its own (under bats, each command
# of the loop runs bats' debug trap, and each $(...) forks bats' whole
# shell): the inputs it judged and refused, or the first that breaks the
# rule, and exit 1. One input in eight: the sweep's time kept to seconds
# (the fuzz target checks the metrics line of every one).
sweep_corpus() {
	local T=$1 f pick harness n=0 bad=0 i=0 status output stderr ol el
	local harnesses=(gbench gotest hyperfine pytest)
	for f in "$2"/*; do
		i=$((i + 1))
		[ $((i % 8)) -eq 0 ] || continue
		pick=$(od -An -tu1 -N1 "$f" | tr -d ' ')
		[ $((pick % 10)) -lt 8 ] || continue
		harness=${harnesses[$((pick % 4))]}
		tail -c +2 "$f" > "$T/in"
		status=0
		benchrec "$harness" -f "$T/in" > "$T/out" 2> "$T/err" || status=$?
		mapfile -t ol < "$T/out"
		mapfile -t el < "$T/err"
		output=$(cat "$T/out") stderr=$(cat "$T/err")
		n=$((n + 1))
		if [ "$status" -eq 0 ]; then
			[ "${#ol[@]}" -eq 1 ] && [[ "$output" == "{"*"}" ]] && [ -z "$stderr" ] ||
			    { echo "$f ($harness): $output"; false; }
			continue
		fi
		bad=$((bad + 1))
		[ "$status" -eq 2 ] && [ -z "$output" ] && [ "${#el[@]}" -eq 1 ] ||
		    { echo "$f ($harness): exit $status: $output / $stderr"; false; }
		[[ "$stderr" == "benchrec: $T/in:"* ]] || { echo "$f ($harness): $stderr"; false; }
	done
	echo "$n $bad"
}

@test "benchrec: every input of the fuzz corpus is a metrics line, or exit 2 with one line naming the file" {
	run bash -euo pipefail -c "$(declare -f sweep_corpus); sweep_corpus \"\$@\"" sweep "$T" "$TOP/tests/fuzz/corpus/benchrec"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	read -r n bad <<<"$(last)"
	[ "$n" -gt 80 ] && [ "$bad" -gt 30 ]
}

@test "benchrec: a metrics line that cannot be written is exit 2" {
	run -2 --separate-stderr bash -c 'benchrec gbench -f "$1" > /dev/full' sh "$D/gbench-1.7.1.json"
	[ "$stderr" = "benchrec: write stdout: No space left on device" ]
}

@test "benchrec: a harness that is not installed, a command that fails: exit 2 naming the command and its status" {
	TMPDIR=$T run -2 --separate-stderr benchrec gbench -- "$T/no such bench" --x
	[ "$stderr" = "benchrec: cannot run $T/no such bench: No such file or directory" ]
	TMPDIR=$T run -2 --separate-stderr benchrec hyperfine -- false -x
	[ "$stderr" = "benchrec: false -x: exited with status 1" ]
	[ "$output" = "" ]
	[ -z "$(find "$T" -name 'benchrec.*')" ]
	# The harness's document is written under TMPDIR and removed.
	TMPDIR=$T run -2 --separate-stderr benchrec pytest -- sh -c 'echo partial > "${1#*=}"; echo out; exit 3' sh
	[ "$stderr" = "$(printf 'out\nbenchrec: sh -c echo partial > "${1#*=}"; echo out; exit 3 sh: exited with status 3')" ]
	[ -z "$(find "$T" -name 'benchrec.*')" ]
}

@test "benchrec: usage: a bad option, no harness, an unknown one, a file and a command, neither" {
	bad_options benchrec f
	check_synopsis benchrec
	run -2 --separate-stderr benchrec
	[[ "$stderr" == "usage: benchrec "* ]]
	run -2 --separate-stderr benchrec criterion -f x
	[ "${stderr_lines[0]}" = 'benchrec: unknown harness "criterion" (gbench, gotest, hyperfine, pytest)' ]
	run -2 --separate-stderr benchrec gbench -f x -- ./bench
	[ "$stderr" = "benchrec: -f x and a command: give one of them" ]
	run -2 --separate-stderr benchrec gbench
	[ "$stderr" = "benchrec: gbench: no command to run and no -f file to read" ]
	run -0 benchrec -V
	[[ "$output" == "benchrec "* ]]
}

@test "benchrec: gbench gives a run 0.1 s (--benchmark_min_time) unless the command sets its own" {
	# A stand-in for a benchmark binary: its arguments kept, a document written.
	printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "$0.args"\nfor a; do case $a in --benchmark_out=*) cp "$0.json" "${a#*=}" ;; esac; done\n' > "$T/gb"
	chmod +x "$T/gb"
	cp "$D/gbench-1.7.1.json" "$T/gb.json"
	run -0 --separate-stderr benchrec gbench -- "$T/gb" --x
	[ "$output" = "$(cat "$D/gbench-1.7.1.out")" ]
	[ "$(grep -c '^--benchmark_min_time' "$T/gb.args")" = 1 ]
	grep -qx -- '--benchmark_min_time=0.1' "$T/gb.args"
	run -0 --separate-stderr benchrec gbench -- "$T/gb" --benchmark_min_time=2
	[ "$(grep -c '^--benchmark_min_time' "$T/gb.args")" = 1 ]
	grep -qx -- '--benchmark_min_time=2' "$T/gb.args"
}

@test "benchrec: a real Google Benchmark binary, run and converted; BENCH_CASES reaches --benchmark_filter" {
	need_gbench
	build_gbench
	run -0 --separate-stderr benchrec gbench -- "$T/gb/bench/bench" --benchmark_min_time=0.01 --benchmark_repetitions=2
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["BM_Sum_4096_ns","BM_Sum_4096_items_per_s","BM_Max_4096_ns"]' ]
	# Neither the console table nor the context reaches the terminal.
	[ "$stderr" = "" ]
	BENCH_CASES=BM_Max_4096_ns run -0 --separate-stderr benchrec -v gbench -- "$T/gb/bench/bench" --benchmark_min_time=0.01
	[ "$output" = "$(printf '%s\n' "$output" | grep '^{"BM_Max_4096_ns":[0-9.e+-]*}$')" ]
	# The filter ran BM_Max alone: its JSON, shown with -v, has no BM_Sum.
	[[ "$stderr" == *'"name": "BM_Max/4096"'* ]]
	[[ "$stderr" != *BM_Sum* ]]
}

@test "benchrec: a real go test -bench, run and converted; BENCH_CASES replaces -bench" {
	need go
	cp -R "$FIX/gotest" "$T/go"
	cd "$T/go"
	run -0 --separate-stderr benchrec gotest -- go test -run '^$' -bench . -benchtime 10ms -count 2 -cpu 1 .
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["BenchmarkSum_n_4096_ns","BenchmarkSum_n_4096_cpu_ns_per_op","BenchmarkSum_n_4096_items_per_s","BenchmarkMax_ns","BenchmarkMax_cpu_ns_per_op"]' ]
	BENCH_CASES=BenchmarkMax_ns run -0 --separate-stderr benchrec -v gotest -- go test -run '^$' -bench . -benchtime 10ms -cpu 1 .
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["BenchmarkMax_ns"]' ]
	[[ "$stderr" != *BenchmarkSum* ]]
	# A test binary's -test.bench=, its value replaced.
	go test -c -o bench.test .
	BENCH_CASES=BenchmarkSum_n_4096 run -0 --separate-stderr benchrec -v gotest -- ./bench.test -test.run '^$' -test.bench=Max -test.benchtime 10ms -test.cpu 1
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["BenchmarkSum_n_4096_ns","BenchmarkSum_n_4096_cpu_ns_per_op","BenchmarkSum_n_4096_items_per_s"]' ]
	[[ "$stderr" != *BenchmarkMax* ]]
	# A failing test binary: go test's status and its FAIL line.
	printf 'package work\n\nimport "testing"\n\nfunc BenchmarkBad(b *testing.B) { b.Fatal("no input") }\n' > bad_test.go
	run -2 --separate-stderr benchrec gotest -- go test -run '^$' -bench Bad -cpu 1 .
	[ "${stderr_lines[-1]}" = "benchrec: go output:1: --- FAIL: BenchmarkBad: bad_test.go:5: no input (exited with status 1)" ]
}

@test "benchrec: a real hyperfine run, converted, named by -n and by the command line" {
	need hyperfine
	run -0 --separate-stderr benchrec hyperfine -- hyperfine -N --runs 2 -n 'the "true" one' true 'sleep 0.001'
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["the_true_one_ns","the_true_one_user_ns","the_true_one_sys_ns","sleep_0_001_ns","sleep_0_001_user_ns","sleep_0_001_sys_ns"]' ]
	[ "$(jq '.sleep_0_001_ns > 1000000' <<<"$output")" = true ]
}

@test "benchrec: BENCH_CASES takes the commands it does not select, and their names, out of hyperfine's command line" {
	need hyperfine
	BENCH_CASES=max_ns run -0 --separate-stderr benchrec -v hyperfine -- hyperfine -N -r 2 -n sum true --command-name=max 'sleep 0.001' -n 'a;$b' 'sleep 0.002'
	[ "$output" = "$(printf '%s\n' "$output" | grep '^{"max_ns":[0-9.]*}$')" ]
	[[ "$stderr" == *"Benchmark 1: max"* && "$stderr" != *"Benchmark 2"* ]]
	# Unnamed commands, by their command line.
	BENCH_CASES=sleep_0_002_ns,true run -0 --separate-stderr benchrec -v hyperfine -- hyperfine -N -r 2 true 'sleep 0.001' 'sleep 0.002'
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["true_ns","true_user_ns","true_sys_ns","sleep_0_002_ns"]' ]
	[[ "$stderr" == *"Benchmark 2: sleep 0.002"* && "$stderr" != *"Benchmark 3"* ]]
	# Commands made from a template run whole; only the selected are written.
	BENCH_CASES=sleep_0_002_ns run -0 --separate-stderr benchrec -v hyperfine -- hyperfine -N -r 2 -P x 1 2 'sleep 0.00{x}'
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["sleep_0_002_ns"]' ]
	[[ "$stderr" == *"Benchmark 2: sleep 0.002"* ]]
	BENCH_CASES=nope run -2 --separate-stderr benchrec hyperfine -- hyperfine -N -r 2 true
	[ "$stderr" = "benchrec: hyperfine output: BENCH_CASES=nope: no case 'nope'" ]
}

@test "benchrec: a real pytest-benchmark run, converted" {
	need_pytest
	cp -R "$FIX/pytest" "$T/py"
	cd "$T/py"
	PYTHONDONTWRITEBYTECODE=1 run -0 --separate-stderr benchrec pytest -- pytest -q -p no:cacheprovider --benchmark-max-time=0.001 --benchmark-min-rounds=3 test_work.py
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["test_total_ns","test_largest_ns"]' ]
	# BENCH_CASES deselects the others inside pytest, by the same rule as the keys.
	printf 'import pytest\n\n\n@pytest.mark.parametrize("n", ["a b", "a-c"])\ndef test_p(benchmark, n):\n    benchmark(len, n)\n' > test_p.py
	mkdir "$T/tmp"
	BENCH_CASES=test_p_a_c,test_largest_ns TMPDIR=$T/tmp PYTHONDONTWRITEBYTECODE=1 run -0 --separate-stderr benchrec -v pytest -- pytest -q -p no:cacheprovider --benchmark-max-time=0.001 --benchmark-min-rounds=3 test_work.py test_p.py
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["test_largest_ns","test_p_a_c_ns"]' ]
	[[ "$stderr" == *"2 passed, 2 deselected"* ]]
	[ -z "$(ls -A "$T/tmp")" ]
	run -2 --separate-stderr benchrec pytest -- pytest -q -p no:cacheprovider -k nothing_matches test_work.py
	[[ "${stderr_lines[-1]}" == "benchrec: pytest -q -p no:cacheprovider -k nothing_matches test_work.py: exited with status 5" ]]
}

examples=(
	"benchrec gbench -- ./bench_sort --benchmark_repetitions=5"
	"benchrec gotest -- go test -run '^\$' -bench . -count 5 ./..."
	"benchrec hyperfine -- hyperfine -N -r 5 -n sum './work sum' -n max './work max'"
	"benchrec -c gbench -f out.json"
)

@test "benchrec: man page EXAMPLES are the ones tested here" {
	check_examples benchrec "${examples[@]}"
}

@test "benchrec: man example: benchrec gbench -- ./bench_sort --benchmark_repetitions=5" {
	need_gbench
	build_gbench
	cd "$T"
	cp gb/bench/bench bench_sort
	run -0 --separate-stderr bash -c "${examples[0]} --benchmark_min_time=0.01"
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["BM_Sum_4096_ns","BM_Sum_4096_items_per_s","BM_Max_4096_ns"]' ]
}

@test "benchrec: man example: benchrec gotest -- go test -run '^\$' -bench . -count 5 ./..." {
	need go
	cp -R "$FIX/gotest" "$T/go"
	cd "$T/go"
	run -0 --separate-stderr bash -c "${examples[1]} -benchtime 5ms -cpu 1"
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["BenchmarkSum_n_4096_ns","BenchmarkSum_n_4096_cpu_ns_per_op","BenchmarkSum_n_4096_items_per_s","BenchmarkMax_ns","BenchmarkMax_cpu_ns_per_op"]' ]
}

@test "benchrec: man example: benchrec hyperfine -- hyperfine -N -r 5 -n sum './work sum' -n max './work max'" {
	need hyperfine
	cp -R "$FIX/hyperfine" "$T/hf"
	cd "$T/hf"
	make -s GATE_MK="$MK" work
	run -0 --separate-stderr bash -c "${examples[2]}"
	[ "$(jq -c 'keys_unsorted' <<<"$output")" = '["sum_ns","sum_user_ns","sum_sys_ns","max_ns","max_user_ns","max_sys_ns"]' ]
}

@test "benchrec: man example: benchrec -c gbench -f out.json" {
	cd "$T"
	cp "$D/gbench-1.7.1.json" out.json
	run -0 bash -c "${examples[3]}"
	[ "$output" = "$(cat "$D/gbench-1.7.1-cpu.out")" ]
}

@test "benchrec: a go test result whose name holds a blank, or one cut short, is said, not dropped; a name alone or a log line is not a result" {
	printf 'BenchmarkY-2 10 5 ns/op\nBenchmarkX/a b-2 10 5 ns/op\n' > "$T/blank.txt"
	run -2 --separate-stderr benchrec gotest -f "$T/blank.txt"
	[ "$stderr" = "benchrec: $T/blank.txt:2: BenchmarkX/a b-2 10 5 ns/op: a result whose name holds a blank (go test writes one as _)" ]
	printf 'BenchmarkY-2 10 5 ns/op\nBenchmarkX-2 \t  10\n' > "$T/cut.txt"
	run -2 --separate-stderr benchrec gotest -f "$T/cut.txt"
	[ "$stderr" = "benchrec: $T/cut.txt:2: \"BenchmarkX-2\": a result cut short: its iterations and no value" ]
	printf 'BenchmarkX\n    x_test.go:9: a log line\nBenchmarking the rest\nBenchmarkX-2 10 5 ns/op\n' > "$T/log.txt"
	run -0 --separate-stderr benchrec gotest -f "$T/log.txt"
	[ "$output" = '{"BenchmarkX_2_ns":5}' ]
}
