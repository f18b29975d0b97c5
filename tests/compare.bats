#!/usr/bin/env bats
# compare: make compare, RESUME=1, compare-check and compare-drafts, on a
# fake project (tests/data/compare) and on the kata's own sides.

load common

C=$DATA/compare

setup() {
	cd "$BATS_TEST_TMPDIR"
	export PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/pressure
	setpressure 1.00
	unset RESUME KATA CC CFLAGS
}

fake() {
	make -s --no-print-directory -f "$C/Makefile" "$@"
}

@test "compare: one row per case, each judged against the reference" {
	run -0 --separate-stderr fake compare
	[ "$(jq -r '.status, .rows_valid, .rows_total' docs/perf.json | paste -sd ' ')" = "complete 3 3" ]
	[ "$(jq -c '.rows[] | [.case, .valid, .references[0].ratio, .references[0].verdict, .fastest]' docs/perf.json | paste -sd ' ')" = \
	    '["alpha",true,0.5,"faster","impl"] ["beta",true,0.5,"faster","impl"] ["gamma",true,0.5,"faster","impl"]' ]
	# Each row its own Williams-ordered rounds, every side pinned and watched.
	[ "$(jq -c '[.side, .round, .threads]' build/compare/rows/beta.jsonl | paste -sd ' ')" = \
	    '["impl",1,1] ["ref",1,1] ["ref",2,1] ["impl",2,1]' ]
	jq -e '.rows[0] | .gauge == "pressure" and .pressure == [1,1] and .retries == 0' docs/perf.json
	# The gauge read before each round, which opened the gate, is kept too.
	jq -e '.rows[0].pressure_before == [1,1]' docs/perf.json
	jq -e '.sides.impl.version == "gcc 12" and .run.cpu == 0 and .run.gauge == "pressure"' docs/perf.json
	[ "$(sed -n '/^| alpha/p' docs/perf-table.md)" = '| alpha | 100 (100–100) | 200 (200–200) | 0.5 faster | fastest |' ]
	run -0 --separate-stderr fake compare-check
}

@test "compare: COMPARE_CPU=auto: each row on a CPU no gate holds, the records say which; a bad value is refused before anything runs" {
	taskset -c 0,1 true 2>/dev/null || skip "needs CPUs 0 and 1"
	# A gate holds CPU 1 (alternate -c 1, waiting on a file).
	taskset -c 0,1 alternate -c 1 -r 1 a="sh -c 'touch held; while [ ! -e go ]; do sleep 0.1; done; echo {\\\"t\\\":1}'" > held.jsonl &
	while [ ! -e held ]; do sleep 0.1; done
	run --separate-stderr taskset -c 0,1 make -s --no-print-directory -f "$C/Makefile" compare COMPARE_CPU=auto
	touch go
	wait
	[ "$status" -eq 0 ]
	jq -e '.run.cpu == "auto"' docs/perf.json
	[ "$(jq -c '[.pinned, .shared]' build/compare/rows/*.jsonl | sort -u)" = "[0,0]" ]
	rm -rf docs build
	run -2 --separate-stderr fake compare COMPARE_CPU=last
	[ "${stderr_lines[0]}" = "compare: COMPARE_CPU=last: not auto or a CPU number" ]
	[ ! -e docs/perf.json ] && [ -z "$(ls build/compare/rows)" ]
}

@test "compare: a gate that closes mid-run leaves a partial document, exit 2; RESUME=1 completes it" {
	# Call 6 (row beta, round 1) raises the pressure and keeps it up:
	# beta's round ends above the gate with no retry left, gamma waits in
	# vain, and delta is not tried. An incomplete document is no success.
	FAKE_CLOSE_AT=6 COMPARE_RETRIES=0 run -2 --separate-stderr fake compare COMPARE_CASES='alpha beta gamma delta'
	[[ $stderr == *"partial: deferred beta, gamma, delta; make compare RESUME=1 measures them again"* ]]
	[[ $stderr == *"wrote docs/perf.json and docs/perf-table.md, partial"* ]]
	# Every deferred row says how many retries it used.
	[ "$(jq -c '[.rows[] | .retries]' docs/perf.json)" = '[0,0,0,0]' ]
	[ "$(jq -r '.status, .rows_valid, .rows_total' docs/perf.json | paste -sd ' ')" = "partial 1 4" ]
	[ "$(jq -c '.rows[] | [.case, .valid, .deferred]' docs/perf.json | paste -sd ' ')" = \
	    '["alpha",true,null] ["beta",false,"retries"] ["gamma",false,"wait"] ["delta",false,"stopped"]' ]
	grep -qx 'partial: 1 of 4 rows valid' docs/perf-table.md
	[ "$(sed -n '/^| beta/p' docs/perf-table.md)" = '| beta | deferred: round 1: the load gate stayed closed: CPU pressure 90 at or above 30 after the round, and all 0 retries are used | | | |' ]
	alpha=$(jq -c '.rows[0]' docs/perf.json)
	# The machine is quiet again: only the deferred rows run, and merge.
	setpressure 2.00
	rm -f calls
	RESUME=1 run -0 --separate-stderr fake compare COMPARE_CASES='alpha beta gamma delta'
	[ "$(cat calls)" -eq 12 ]
	[ "$(jq -r '.status, .rows_valid' docs/perf.json | paste -sd ' ')" = "complete 4" ]
	[ "$(jq -c '.rows[0]' docs/perf.json)" = "$alpha" ]
	[ "$(jq -c '.rows[] | .case' docs/perf.json | paste -sd ' ')" = '"alpha" "beta" "gamma" "delta"' ]
	run -1 grep -q partial docs/perf-table.md
	# Nothing deferred: nothing to do.
	RESUME=1 run -0 --separate-stderr fake compare COMPARE_CASES='alpha beta gamma delta'
	[[ $stderr == *"has no deferred row: nothing to resume"* ]]
}

@test "compare: names are data: a build directory and a document with blanks, quotes and ;" {
	# (make itself expands a $ in a variable given on its command line.)
	run -0 --separate-stderr fake compare COMPARE_DIR="b \"d\";'x/c" COMPARE_DOC="my docs/perf 'q'.json" COMPARE_TABLE='my docs/t;.md'
	[ "$(jq -r '.rows_valid' "my docs/perf 'q'.json")" = 3 ]
	[ -s "b \"d\";'x/c/rows/alpha.row" ]
	run -0 --separate-stderr fake compare-check COMPARE_DOC="my docs/perf 'q'.json" COMPARE_TABLE='my docs/t;.md'
	FAKE_SLOW=impl run -0 --separate-stderr fake compare COMPARE_DIR="b \"d\";'x/c" COMPARE_DOC="my docs/perf 'q'.json" COMPARE_TABLE='my docs/t;.md'
	run -0 --separate-stderr fake compare-drafts COMPARE_DIR="b \"d\";'x/c" COMPARE_DOC="my docs/perf 'q'.json"
	[[ $stderr$output == *"draft: b \"d\";'x/c/drafts/alpha.md"* ]]
}

@test "compare: a gate closed from the start measures nothing and writes nothing" {
	setpressure 50.00
	run -2 --separate-stderr fake compare
	[[ $stderr == *"perfdoc: no row was measured: docs/perf.json not written"* ]]
	[ ! -e docs/perf.json ]
	[ ! -e docs/perf-table.md ]
}

@test "compare: a faked load average gates when the pressure is not faked" {
	unset PERFGATE_PRESSURE
	export PERFGATE_LOADAVG=$BATS_TEST_TMPDIR/loadavg
	echo '0.50 0.50 0.50 1/100 1' >"$PERFGATE_LOADAVG"
	run -0 --separate-stderr fake compare COMPARE_MAXLOAD=3 COMPARE_CASES=alpha
	jq -e '.run.gauge == "load" and .run.maxload == 3 and .rows[0].load == [0.5,0.5]' docs/perf.json
	rm -f docs/perf.json
	echo '5.00 5.00 5.00 1/100 1' >"$PERFGATE_LOADAVG"
	run -2 --separate-stderr fake compare COMPARE_MAXLOAD=3 COMPARE_CASES=alpha
	[[ $stderr == *"alternate: round 1: the load gate stayed closed: load average 5 still at or above 3 after 0.5 s"* ]]
	[ ! -e docs/perf.json ]
}

@test "compare: RESUME=1 on another compiler is refused, naming the field and both values" {
	FAKE_CLOSE_AT=6 COMPARE_RETRIES=0 run -2 --separate-stderr fake compare
	cp docs/perf.json before.json
	setpressure 1.00
	rm -f calls
	RESUME=1 run -2 --separate-stderr fake compare FAKE_CC=tcc
	[[ $stderr == *'perfdoc: resume refused: sides.impl.version differs: was "gcc 12", now "tcc"'* ]]
	[ ! -e calls ]
	cmp docs/perf.json before.json
	# Another gate is refused too.
	RESUME=1 run -2 --separate-stderr fake compare COMPARE_MAXPRESSURE=50
	[[ $stderr == *'perfdoc: resume refused: run.maxload differs: was 30, now 50'* ]]
}

# A git project of the fake sides: the files a run writes beside it (the
# calls counted, the faked pressure) are ignored, as a build is.
gitproject() {
	git init -q .
	printf 'calls\npressure*\nseparate-stderr-*\n%s' "${1-}" >.gitignore
	echo 'int x;' >kept.c
	git add .gitignore kept.c
	git -c user.name=t -c user.email=t@t commit -qm one
}

@test "compare: RESUME=1 resumes a project's first partial run, its document not yet committed" {
	gitproject
	FAKE_CLOSE_AT=6 COMPARE_RETRIES=0 run -2 --separate-stderr fake compare
	[ "$(jq -r .run.commit docs/perf.json)" = "$(git rev-parse HEAD)" ]
	setpressure 1.00
	RESUME=1 run -0 --separate-stderr fake compare
	[ "$(jq -r '.status' docs/perf.json)" = complete ]
}

@test "compare: an untracked source changed between a partial run and its resume is refused" {
	gitproject 'docs/'
	echo 'int y;' >new.c
	FAKE_CLOSE_AT=6 COMPARE_RETRIES=0 run -2 --separate-stderr fake compare
	cp docs/perf.json before.json
	setpressure 1.00
	echo 'int y = 1;' >new.c
	RESUME=1 run -2 --separate-stderr fake compare
	[[ $stderr == *"perfdoc: resume refused: run."* ]]
	cmp docs/perf.json before.json
}

@test "compare: RESUME=1 with nothing deferred builds no side and needs no NumPy" {
	perfdoc -o perf.json -s kata,plain,numpy -C sum "$DATA/perfdoc/sum.row"
	run -0 --separate-stderr make -s --no-print-directory -C "$TOP" compare RESUME=1 COMPARE_PYTHON= \
	    COMPARE_DOC="$PWD/perf.json" COMPARE_TABLE="$PWD/table.md" COMPARE_DIR="$PWD/b"
	[[ $stderr == *"has no deferred row: nothing to resume"* ]]
	[ ! -e b/kata ]
	[ ! -e table.md ]
}

@test "compare: alternate -r 4 with 3 sides runs whole Williams periods, 6 rounds, and says so" {
	s='echo {\"x_ns\":1}'
	run -0 --separate-stderr alternate -r 4 a="$s" b="$s" c="$s"
	[ "$(echo "$output" | jq -s 'map(.round) | max')" -eq 6 ]
	[ "$stderr" = "alternate: -r 4 rounded up to 6: a Williams design of 3 sides balances over whole periods of 6 rounds" ]
	# Every side takes every slot equally often.
	[ "$(echo "$output" | jq -sc 'group_by(.side) | map([group_by(.slot)[] | length])')" = '[[2,2,2],[2,2,2],[2,2,2]]' ]
	# A block of a longer run (-n) is its caller's to balance.
	run -0 --separate-stderr alternate -n 1 -r 4 a="$s" b="$s" c="$s"
	[ "$(echo "$output" | jq -s 'map(.round) | max')" -eq 4 ]
	[ -z "$stderr" ]
}

@test "compare: two sides alternate exactly: COMPARE_ROUNDS=3 runs ab, ba, ab and says so" {
	run -0 --separate-stderr fake compare COMPARE_ROUNDS=3 COMPARE_CASES=alpha
	[ "$(jq -r '[.round, .side] | @tsv' build/compare/rows/alpha.jsonl | paste -sd ' ')" = \
	    "$(printf '1\timpl 1\tref 2\tref 2\timpl 3\timpl 3\tref')" ]
	[[ $stderr == *"compare: COMPARE_ROUNDS=3: impl and ref alternate exactly: impl ref, ref impl, impl ref"* ]]
	jq -e '.run.rounds == 3 and .rows[0].rounds == 3' docs/perf.json
}

@test "compare: four sides run whole Williams periods, and say how many" {
	run -0 --separate-stderr fake compare COMPARE_SIDES='impl ref r2 r3' COMPARE_CMD_r2='$(COMPARE_CMD_ref)' \
	    COMPARE_CMD_r3='$(COMPARE_CMD_ref)' COMPARE_LICENSE_r2=MIT COMPARE_LICENSE_r3=MIT COMPARE_ROUNDS=5 COMPARE_CASES=alpha
	[[ $stderr == *"compare: COMPARE_ROUNDS=5 rounded up to 8: whole Williams periods of 4 sides"* ]]
	[ "$(jq -s 'map(.round) | max' build/compare/rows/alpha.jsonl)" -eq 8 ]
	run -0 --separate-stderr fake compare COMPARE_SIDES='impl ref r2 r3' COMPARE_CMD_r2='$(COMPARE_CMD_ref)' \
	    COMPARE_CMD_r3='$(COMPARE_CMD_ref)' COMPARE_LICENSE_r2=MIT COMPARE_LICENSE_r3=MIT COMPARE_ROUNDS=4 COMPARE_CASES=alpha
	[[ $stderr == *"compare: COMPARE_ROUNDS=4: 1 whole Williams period of 4 sides, 4 rounds each"* ]]
}

@test "compare: bench.h never takes the warm-up call as the measurement, however long it took" {
	cat >first.c <<-'EOF'
	#include "bench.h"
	#include <time.h>
	static int calls;
	/* The first call loads something for 50 ms of CPU; the others return at once. */
	static void f(void *arg)
	{
		struct timespec a, b;

		(void)arg;
		if (calls++ > 0)
			return;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		do
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 5e7);
	}
	int main(int argc, char *argv[])
	{
		(void)argc;
		bench_init(argv[0]);
		bench_add("first_ns", f, NULL);
		return bench_report();
	}
	EOF
	cc -std=c11 -O2 -I"$TOP/bench" -o first first.c
	BENCH_MIN_S=0.001 BENCH_MAX_S=0.001 run -0 --separate-stderr ./first
	echo "$output" | jq -e '.first_ns < 1e6'
}

@test "compare: a side that starts a thread is refused, naming it" {
	FAKE_THREAD=ref run -2 --separate-stderr fake compare
	[[ $stderr == *"alternate: side ref, round 1: ran with 2 threads, more than the 1 asked for"* ]]
	[[ $stderr == *"refjudge: row alpha: side ref, round 1: ran with 2 threads, more than the 1 asked for"* ]]
	[ ! -e docs/perf.json ]
}

@test "compare: a side whose inputs differ by one byte is refused, naming both digests" {
	a=$(printf 'input:alpha:0' | sha256sum | cut -c1-64)
	b=$(printf 'input:alpha:1' | sha256sum | cut -c1-64)
	FAKE_BYTE=ref run -2 --separate-stderr fake compare
	[[ $stderr == *"refjudge: row alpha: the inputs differ: side impl timed sha256 $a, side ref sha256 $b"* ]]
	[ ! -e docs/perf.json ]
}

@test "compare: a hand-edited table fails compare-check, naming the first differing line" {
	run -0 --separate-stderr fake compare
	sed -i 's/| 0.5 faster |/| 0.4 faster |/' docs/perf-table.md
	line=$(grep -n '0.4 faster' docs/perf-table.md | head -1 | cut -d: -f1)
	run -2 --separate-stderr fake compare-check
	[ "${stderr_lines[0]}" = "perfdoc: docs/perf-table.md:$line: not what docs/perf.json generates (make compare-table writes it)" ]
	[ "${stderr_lines[1]}" = "  expected: | alpha | 100 (100–100) | 200 (200–200) | 0.5 faster | fastest |" ]
	[ "${stderr_lines[2]}" = "  found:    | alpha | 100 (100–100) | 200 (200–200) | 0.4 faster | fastest |" ]
	# The table is made again from the document, never typed.
	run -0 --separate-stderr fake compare-table
	run -0 --separate-stderr fake compare-check
	run -1 grep -q '0.4 faster' docs/perf-table.md
}

@test "compare: compare-drafts drafts the slower rows only, and files nothing" {
	FAKE_SLOW=impl run -0 --separate-stderr fake compare
	run -0 --separate-stderr fake compare-drafts
	[ "$(ls build/compare/drafts | paste -sd ' ')" = \
	    "alpha.labels.txt alpha.md alpha.title.txt beta.labels.txt beta.md beta.title.txt gamma.labels.txt gamma.md gamma.title.txt" ]
	[ "$(cat build/compare/drafts/alpha.title.txt)" = "perf: alpha is 2x slower than ref on one core" ]
	grep -qF '| alpha | 400 (400–400) | 200 (200–200) | 2 slower | 2x slower than ref |' build/compare/drafts/alpha.md
	grep -qF -- '- ref: ratio 2 (slower); licence BSD-3-Clause, version ref 1.0; version ref 1.0' build/compare/drafts/alpha.md
	grep -qF 'The pressure after each round: [1,1]' build/compare/drafts/alpha.md
	grep -q '^Run: commit none' build/compare/drafts/alpha.md
	# A faster implementation drafts nothing.
	run -0 --separate-stderr fake compare
	run -0 --separate-stderr fake compare-drafts
	[ -z "$(ls build/compare/drafts)" ]
}

@test "compare: the kata's benchmark and the NumPy worker time the same input bytes" {
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' || skip "python3-numpy is not installed"
	mkdir -p b
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o b/bench "$TOP/kata/bench.c" "$TOP/kata/kernels.c" -lm
	for c in matmul sum rmsnorm count_below; do
		want=$(BENCH_CASES=$c BENCH_SHA256=1 BENCH_REPS=1 BENCH_MIN_S=0.0001 b/bench | jq -r ".${c}_input_sha256")
		got=$(BENCH_CASES=$c BENCH_SHA256=1 BENCH_REPS=1 BENCH_MIN_S=0.0001 /usr/bin/python3 "$TOP/kata/numpy_worker.py" | jq -r ".${c}_input_sha256")
		[ "${#want}" -eq 64 ]
		[ "$want" = "$got" ]
	done
	# One case only, by case or metric name; an unknown one is refused.
	[ "$(BENCH_CASES=sum_ns BENCH_REPS=1 b/bench | jq -c keys)" = '["sum_ns"]' ]
	[ "$(BENCH_CASES=sum BENCH_REPS=1 /usr/bin/python3 "$TOP/kata/numpy_worker.py" | jq -c keys)" = '["sum_ns"]' ]
	BENCH_CASES=nope run -2 --separate-stderr b/bench
	[ "$stderr" = "bench: BENCH_CASES=nope: no case 'nope'" ]
	BENCH_CASES=nope run -2 --separate-stderr /usr/bin/python3 "$TOP/kata/numpy_worker.py"
	[ "$stderr" = "numpy_worker: BENCH_CASES=nope: no case 'nope'" ]
	# What NumPy ran with, never changed.
	OPENBLAS_CORETYPE=Haswell run -0 --separate-stderr /usr/bin/python3 "$TOP/kata/numpy_worker.py" --about
	echo "$output" | jq -e '.openblas_coretype == "Haswell" and (.numpy | length > 0) and has("openblas_corename")'
}

@test "compare: the kata's C references are built at -O2 -ffp-contract=off, processes and workers alike, and recorded so" {
	run -0 --separate-stderr make -n -s --no-print-directory -C "$TOP" compare COMPARE_DIR=x COMPARE_PYTHON=python3 CC=clang CFLAGS=-O3
	for s in plain blas; do
		for b in bench worker; do
			echo "$output" | grep -q "^cc -std=c11 -O2 -ffp-contract=off .*-o x/$s/$b "
		done
		# compare.sh is given the same flags to record, whatever CC and CFLAGS say.
		echo "$output" | grep -q "COMPARE_CC_$s='cc' "
		echo "$output" | grep -q "COMPARE_CFLAGS_$s='-std=c11 -O2 -ffp-contract=off -Ikata -Ibench"
	done
	# The implementation is built as CC and CFLAGS say, its worker too.
	echo "$output" | grep -q '^clang -O3 -Ikata -Ibench -o x/kata/worker '
	jq -e '.sides.plain.cflags | startswith("-std=c11 -O2 -ffp-contract=off ")' "$TOP/docs/perf.json"
}

@test "compare: the committed table is what the committed document generates" {
	run -0 --separate-stderr perfdoc -c "$TOP/docs/perf-table.md" "$TOP/docs/perf.json"
}

@test "compare: make compare records the implementation's allocations a call; compare-ci passes on them" {
	FAKE_ALLOCS=2 run -0 --separate-stderr fake compare
	[ "$(jq -c '[.rows[] | [.allocs, .alloc_bytes]]' docs/perf.json)" = '[[2,32],[2,32],[2,32]]' ]
	# Nothing timed: the sides are not run, only the implementation counted.
	rm -f calls
	FAKE_ALLOCS=2 run -0 --separate-stderr fake compare-ci
	[ ! -e calls ]
	[[ $stderr == *"compare-ci: the licences, every row's references, docs/perf-table.md, the allocations and the cases agree with docs/perf.json"* ]]
}

@test "compare: compare-ci fails on an added allocation, and on a removed one until it is recorded" {
	run -0 --separate-stderr fake compare
	FAKE_ALLOCS=1 run -2 --separate-stderr fake compare-ci
	[[ $stderr == *"perfdoc: row alpha: 1 allocations a call, 0 in perf.json: more than recorded, a regression"* ]]
	FAKE_ALLOCS=3 run -0 --separate-stderr fake compare-allocs
	FAKE_ALLOCS=2 run -2 --separate-stderr fake compare-ci
	[[ $stderr == *"perfdoc: row beta: 2 allocations a call, 3 in perf.json: fewer than recorded; record them: make compare-allocs"* ]]
	FAKE_ALLOCS=2 run -0 --separate-stderr fake compare-allocs
	FAKE_ALLOCS=2 run -0 --separate-stderr fake compare-ci
}

@test "compare: compare-allocs keeps the rows' timings, and a new case becomes a deferred row" {
	run -0 --separate-stderr fake compare
	alpha=$(jq -c '.rows[0].sides' docs/perf.json)
	FAKE_ALLOCS=1 run -0 --separate-stderr fake compare-allocs COMPARE_CASES='alpha beta gamma delta'
	[ "$(jq -c '[.rows[] | [.case, .valid, .deferred, .allocs]]' docs/perf.json)" = \
	    '[["alpha",true,null,1],["beta",true,null,1],["gamma",true,null,1],["delta",false,"allocs",1]]' ]
	jq -e '.status == "partial" and .rows_valid == 3 and .rows_total == 4' docs/perf.json
	[ "$(jq -c '.rows[0].sides' docs/perf.json)" = "$alpha" ]
	run -0 --separate-stderr fake compare-check
	# CI now wants delta timed no more than it wants it counted: its allocations are there.
	FAKE_ALLOCS=1 run -0 --separate-stderr fake compare-ci COMPARE_CASES='alpha beta gamma delta'
	# A case perf.json has never heard of fails CI until compare-allocs adds it.
	FAKE_ALLOCS=1 run -2 --separate-stderr fake compare-ci COMPARE_CASES='alpha beta gamma delta epsilon'
	[[ $stderr == *"perfdoc: row epsilon: not in docs/perf.json: make compare-allocs adds it"* ]]
}

@test "compare: compare-allocs keeps the measurement's run, date and commit, whatever this run's gate and tree" {
	gitproject 'docs/'
	run -0 --separate-stderr fake compare
	cp docs/perf.json before.json
	sleep 1
	echo 'int y;' >new.c
	# Another gate and a dirty tree: the timings are the measurement's, kept valid.
	FAKE_ALLOCS=2 run -0 --separate-stderr fake compare-allocs COMPARE_MAXPRESSURE=50
	[ "$(jq -c '.run, .machine, .sides' docs/perf.json)" = "$(jq -c '.run, .machine, .sides' before.json)" ]
	[ "$(jq -c '.rows | map(del(.allocs, .alloc_bytes))' docs/perf.json)" = "$(jq -c '.rows | map(del(.allocs, .alloc_bytes))' before.json)" ]
	jq -e '.status == "complete" and ([.rows[] | .valid and .allocs == 2] | all)' docs/perf.json
	run -0 --separate-stderr fake compare-check
	FAKE_ALLOCS=2 run -0 --separate-stderr fake compare-ci
}

@test "compare: compare-allocs with no document writes one of deferred rows, status deferred" {
	FAKE_ALLOCS=1 run -0 --separate-stderr fake compare-allocs
	[ ! -e calls ]
	jq -e '.status == "deferred" and .rows_valid == 0 and ([.rows[] | .deferred == "allocs" and .allocs == 1] | all)' docs/perf.json
	grep -qx 'partial: 0 of 3 rows valid' docs/perf-table.md
	# make compare times them then.
	run -0 --separate-stderr fake compare
	jq -e '.status == "complete"' docs/perf.json
}

@test "compare: make compare-allocs in a fresh clone builds the kata alone, needs no NumPy, keeps the committed timings" {
	cp "$TOP/docs/perf.json" perf.json
	run -0 --separate-stderr make -s --no-print-directory -C "$TOP" compare-allocs COMPARE_PYTHON= \
	    COMPARE_DOC="$PWD/perf.json" COMPARE_TABLE="$PWD/table.md" COMPARE_DIR="$PWD/b" COMPARE_MAXPRESSURE=50
	[ "$(jq -c '.run, .sides, [.rows[] | .sides]' perf.json)" = "$(jq -c '.run, .sides, [.rows[] | .sides]' "$TOP/docs/perf.json")" ]
	jq -e '.status == "complete" and ([.rows[] | .valid and .allocs == 0] | all)' perf.json
	[ ! -e b/blas ] && [ ! -e b/plain ]
	perfdoc -c table.md perf.json
}

@test "compare: compare-ci wants a case or an exemption for every public function of COMPARE_HEADER" {
	run -0 --separate-stderr fake compare
	printf '/* the API */\nint impl_alpha(const char *s);\nvoid impl_beta(void), gamma(int);\n' >api.h
	run -0 --separate-stderr fake compare-ci COMPARE_HEADER=api.h
	# A new public function without a case.
	printf 'int impl_delta(void);\n' >>api.h
	run -2 --separate-stderr fake compare-ci COMPARE_HEADER=api.h
	[[ $stderr == *"perfdoc: api.h:4: impl_delta has no case in docs/perf.json and no line in docs/perf-exempt.md"* ]]
	# Exempt, with a reason: passes.
	mkdir -p docs
	printf '# Not benchmarked\n\n- `impl_delta`: a constant, nothing to time\n' >docs/perf-exempt.md
	run -0 --separate-stderr fake compare-ci COMPARE_HEADER=api.h
	# An exemption that names nothing public is refused too.
	printf -- '- `impl_gone`: removed last year\n' >>docs/perf-exempt.md
	run -2 --separate-stderr fake compare-ci COMPARE_HEADER=api.h
	[[ $stderr == *"perfdoc: docs/perf-exempt.md:4: impl_gone is not a public function of api.h"* ]]
}

@test "compare: COMPARE_COMMIT must be HEAD in full and the tree clean; else the commit says -dirty-" {
	gitproject
	head=$(git rev-parse HEAD)
	run -0 --separate-stderr fake compare COMPARE_COMMIT="$head"
	[ "$(jq -r .run.commit docs/perf.json)" = "$head" ]
	run -2 --separate-stderr fake compare COMPARE_COMMIT="${head:0:12}"
	[[ $stderr == *"compare: COMPARE_COMMIT=${head:0:12} is not HEAD, $head: give the full commit checked out"* ]]
	# A dirty tree: the paths named, a name with a space, a quote, ; and $ too.
	echo 'int x = 1;' >kept.c
	echo new >'-a b;$x'
	run -2 --separate-stderr fake compare COMPARE_COMMIT="$head"
	[[ $stderr == *"compare: COMPARE_COMMIT=$head: the work tree is not clean: kept.c, -a b;\$x"* ]]
	# Without it, the commit carries the changes' digest.
	run -0 --separate-stderr fake compare
	digest=$(jq -r .run.uncommitted_sha256 docs/perf.json)
	[ "$(jq -r .run.commit docs/perf.json)" = "$head-dirty-${digest:0:8}" ]
	# Another untracked file's content, another commit.
	echo other >'-a b;$x'
	run -0 --separate-stderr fake compare
	[ "$(jq -r .run.commit docs/perf.json)" != "$head-dirty-${digest:0:8}" ]
}

@test "compare: a C side's provenance: every source and header it is built from, digested" {
	mkdir -p 'src dir'
	printf '#include "api.h"\nint impl_alpha(void) { return 1; }\n' >'src dir/impl.c'
	printf 'int impl_alpha(void);\n' >'src dir/api.h'
	run -0 --separate-stderr fake compare COMPARE_CC_impl=cc COMPARE_CFLAGS_impl='-O2 -I"src dir"' \
	    COMPARE_SOURCES_impl='"src dir/impl.c"'
	h=$(sha256sum <'src dir/api.h' | cut -c1-64)
	c=$(sha256sum <'src dir/impl.c' | cut -c1-64)
	[ "$(jq -c '.sides.impl.files' docs/perf.json)" = "{\"src dir/impl.c\":\"$c\",\"src dir/api.h\":\"$h\"}" ]
	jq -e '.sides.impl.cc == "cc" and .sides.impl.cflags == "-O2 -I\"src dir\"" and (.sides.impl.system_sha256 | length) == 64' docs/perf.json
}

@test "compare: a reference's compiler and flags are fixed by its name" {
	run -0 --separate-stderr fake compare COMPARE_CC_ref=cc COMPARE_CFLAGS_ref=-O2
	cp docs/perf.json before.json
	rm -f calls
	run -2 --separate-stderr fake compare COMPARE_CC_ref=cc COMPARE_CFLAGS_ref=-O3
	[[ $stderr == *'perfdoc: reference ref: cflags "-O3", but docs/perf.json has "-O2": a reference'"'"'s compiler and flags are fixed by its name: give this one another'* ]]
	[ ! -e calls ]
	cmp docs/perf.json before.json
	# The implementation's flags are its own to change.
	run -0 --separate-stderr fake compare COMPARE_CC_ref=cc COMPARE_CFLAGS_ref=-O2 COMPARE_CFLAGS_impl=-O3
}

@test "compare: a licence per side, an SPDX expression; a GPL reference only as a black box" {
	run -0 --separate-stderr fake compare COMPARE_LICENSE_ref='MIT OR Apache-2.0'
	jq -e '.sides.impl.license == "MIT" and .sides.ref.license == "MIT OR Apache-2.0"' docs/perf.json
	grep -qF -- '- ref: version ref 1.0, license MIT OR Apache-2.0' docs/perf-table.md
	rm -f calls
	run -2 --separate-stderr fake compare COMPARE_LICENSE_ref='MIT-ish'
	[[ $stderr == *'perfdoc: side ref: licence "MIT-ish": MIT-ish is not an SPDX licence identifier (LicenseRef-name is one of your own)'* ]]
	run -2 --separate-stderr fake compare COMPARE_LICENSE_ref='(MIT'
	[[ $stderr == *"perfdoc: side ref: licence \"(MIT\": a '(' without its ')'"* ]]
	run -2 --separate-stderr fake compare COMPARE_LICENSE_ref='GPL-3.0-or-later'
	[[ $stderr == *'perfdoc: side ref: its licence needs the GPL: a GPL reference runs only as a black box, a separate program never linked (-b; make compare: COMPARE_BLACKBOX_ref = 1)'* ]]
	[ ! -e calls ]
	# Dual-licensed: taken under MIT, no GPL needed.
	run -0 --separate-stderr fake compare COMPARE_LICENSE_ref='GPL-2.0-only OR MIT'
	run -0 --separate-stderr fake compare COMPARE_LICENSE_ref='GPL-3.0-only' COMPARE_BLACKBOX_ref=1
	jq -e '.sides.ref.blackbox == true' docs/perf.json
	# A black box is never built from sources here.
	printf 'int f(void);\n' >ref.c
	run -2 --separate-stderr fake compare COMPARE_LICENSE_ref='GPL-3.0-only' COMPARE_BLACKBOX_ref=1 COMPARE_SOURCES_ref=ref.c
	[[ $stderr == *'perfdoc: side ref: a black box is never built and linked here'* ]]
	# The implementation's own licence is its own.
	run -0 --separate-stderr fake compare COMPARE_LICENSE_impl='GPL-3.0-only'
}

@test "compare: every side states a licence: none, NOASSERTION or NONE is refused before anything runs" {
	for l in '' NOASSERTION NONE; do
		rm -f calls
		run -2 --separate-stderr fake compare COMPARE_LICENSE_ref="$l"
		[[ $stderr == *"perfdoc: build/compare/check.json: side ref states no licence${l:+, only $l}: every side needs one (make compare: COMPARE_LICENSE_ref)"* ]]
		[ ! -e calls ] && [ ! -e docs/perf.json ]
	done
	run -2 --separate-stderr fake compare COMPARE_LICENSE_impl=
	[[ $stderr == *"side impl states no licence: every side needs one (make compare: COMPARE_LICENSE_impl)"* ]]
}

@test "compare: compare-ci refuses a row short of a reference, a side without a licence, a GPL reference" {
	run -0 --separate-stderr fake compare
	cp docs/perf.json good.json
	# A row that lost its one reference: compare-ci fails, and no table renders it.
	jq '.rows[1].references = []' good.json > docs/perf.json
	run -2 --separate-stderr fake compare-ci
	[[ $stderr == *'perfdoc: docs/perf.json: row beta: "references" has no entry for reference ref'* ]]
	run -2 --separate-stderr perfdoc -t docs/perf.json
	[ "$stderr" = 'perfdoc: docs/perf.json: row beta: "references" has no entry for reference ref' ]
	jq '.rows[0].sides |= reverse' good.json > docs/perf.json
	run -1 --separate-stderr perfdoc -R docs/perf.json
	[ "$stderr" = 'perfdoc: docs/perf.json: row alpha: "sides" has ref where impl is due' ]
	# A reference under the GPL that is no black box, and a side with no licence.
	jq '.sides.ref.license = "GPL-3.0-only"' good.json > docs/perf.json
	run -2 --separate-stderr fake compare-ci
	[[ $stderr == *"perfdoc: docs/perf.json: side ref: licence GPL-3.0-only: a GPL reference runs only as a black box, a separate program never linked (make compare: COMPARE_BLACKBOX_ref = 1)"* ]]
	jq '.sides.ref.license = "GPL-3.0-only" | .sides.ref.blackbox = true' good.json > docs/perf.json
	run -0 --separate-stderr perfdoc -R docs/perf.json
	jq 'del(.sides.impl.license)' good.json > docs/perf.json
	run -1 --separate-stderr perfdoc -R docs/perf.json
	[ "$stderr" = "perfdoc: docs/perf.json: side impl states no licence: every side needs one (make compare: COMPARE_LICENSE_impl)" ]
}

@test "compare: a pinned reference environment: compare-lock writes it, make compare refuses another, naming file, versions and digests" {
	mkdir lib && echo one > lib/ref.so
	locked() { fake "$@" COMPARE_LOCK=refs.lock COMPARE_LOCK_ref="$C/lock.sh"; }
	run -2 --separate-stderr locked compare
	[[ $stderr == *"compare: no refs.lock, the pinned references: make compare-lock writes it"* ]]
	run -0 --separate-stderr locked compare-lock
	[[ $stderr == *"compare: wrote refs.lock: the references of this machine, pinned"* ]]
	one=$(sha256sum < lib/ref.so | cut -c1-64)
	[ "$(cat refs.lock)" = "{\"reference\":\"ref\",\"package\":\"ref\",\"version\":\"1.0\",\"files\":{\"$PWD/lib/ref.so\":\"$one\"}}" ]
	run -0 --separate-stderr locked compare
	jq -e --arg d "$(sha256sum < refs.lock | cut -c1-64)" '.run.refs_lock_sha256 == $d' docs/perf.json
	# Another build of the library, another version: refused before anything runs.
	echo two > lib/ref.so
	two=$(sha256sum < lib/ref.so | cut -c1-64)
	rm -f calls
	FAKE_REFVER=1.1 run -2 --separate-stderr locked compare
	[[ $stderr == *"perfdoc: refs.lock:1: reference ref: ref 1.0 locked, ref 1.1 here"* ]]
	[[ $stderr == *"perfdoc: refs.lock:1: reference ref: $PWD/lib/ref.so: sha256 $one locked (ref 1.0), $two here (ref 1.1)"* ]]
	[[ $stderr == *"compare: the references here are not those refs.lock pins: make compare-lock rewrites it, on purpose"* ]]
	[ ! -e calls ]
	# A library loaded that the lock does not name, one it names not loaded.
	echo three > lib/other.so
	FAKE_LIBS="lib/other.so" run -2 --separate-stderr locked compare
	[[ $stderr == *"reference ref: $PWD/lib/other.so: loaded here (sha256 "*", ref 1.0), not locked (ref 1.0)"* ]]
	[[ $stderr == *"reference ref: $PWD/lib/ref.so: locked (sha256 $one, ref 1.0), not loaded here (ref 1.0)"* ]]
	# A reference without its command is not pinned: refused.
	run -2 --separate-stderr fake compare COMPARE_LOCK=refs.lock
	[[ $stderr == *"compare: reference ref: COMPARE_LOCK_ref is empty: every reference is pinned in refs.lock"* ]]
	# On purpose, it is rewritten, and the run goes on.
	FAKE_REFVER=1.1 run -0 --separate-stderr locked compare-lock
	FAKE_REFVER=1.1 run -0 --separate-stderr locked compare
}

@test "compare: RESUME=1 refuses a run under another lock" {
	mkdir lib && echo one > lib/ref.so
	locked() { fake "$@" COMPARE_LOCK=refs.lock COMPARE_LOCK_ref="$C/lock.sh"; }
	run -0 --separate-stderr locked compare-lock
	FAKE_CLOSE_AT=6 COMPARE_RETRIES=0 run -2 --separate-stderr locked compare
	cp docs/perf.json before.json
	setpressure 1.00
	echo two > lib/ref.so
	run -0 --separate-stderr locked compare-lock
	RESUME=1 run -2 --separate-stderr locked compare
	[[ $stderr == *'perfdoc: resume refused: run.refs_lock_sha256 differs: was "'* ]]
	cmp docs/perf.json before.json
}

@test "compare: the kata's references say what pins them: NumPy's modules and BLAS, the C references' libraries" {
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' || skip "python3-numpy is not installed"
	run -0 --separate-stderr /usr/bin/python3 "$TOP/kata/numpy_worker.py" --lock
	echo "$output" | jq -e '.package == "numpy" and (.version | length) > 0'
	echo "$output" | jq -e '[.files[] | select(test("numpy/core/_multiarray_umath"))] | length == 1'
	echo "$output" | jq -e '[.files[] | select(test("blas"))] | length >= 1'
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -DPLAIN_AS_KATA -o plainw "$TOP/kata/worker.c" "$TOP/kata/plain.c" -lm
	run -0 --separate-stderr ./plainw --lock
	echo "$output" | jq -e '.package == "plain" and (.version | startswith("cc ")) and ([.files[] | select(test("libm[.]so"))] | length == 1)'
	# The committed lock names every reference of the kata.
	[ "$(jq -r .reference "$TOP/docs/refs.lock" | paste -sd ' ')" = "plain numpy blas" ]
}

@test "compare: a document that cannot be read fixes no reference: a full run replaces it" {
	mkdir docs && echo keep >docs/perf.json
	run -0 --separate-stderr fake compare COMPARE_CC_ref=cc COMPARE_CFLAGS_ref=-O3
	[ "$(jq -r .sides.ref.cflags docs/perf.json)" = -O3 ]
}
