#!/usr/bin/env bats
# wside: the worker protocol (bench/worker.h): the C harness (kata/worker.c),
# the Python one (kata/numpy_worker.py --worker) and wside, perfgate's end:
# digests checked on L, one thread shown on V, T replies timed, E evaluated;
# what a worker must refuse, and what wside refuses of a worker.

load common

A=$DATA/accuracy

setup_file() {
	export B=$BATS_FILE_TMPDIR/b
	mkdir -p "$B"
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o "$B/worker" "$TOP/kata/worker.c" "$TOP/kata/kernels.c" -lm
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o "$B/bench" "$TOP/kata/bench.c" "$TOP/kata/kernels.c" -lm
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p run
	for c in sum rmsnorm; do
		BENCH_CASES=$c BENCH_INPUT=run/$c.arg "$B/bench"
	done
}

teardown() {
	[ -f run/pid ] && wside -q run || true
}

# The workers under test: the C harness, and NumPy's where NumPy is.
workers() {
	echo c
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null && echo python
	return 0
}

wcmd() {
	case $1 in
	c) echo "$B/worker" ;;
	python) echo "/usr/bin/python3 $TOP/kata/numpy_worker.py --worker" ;;
	esac
}

@test "wside: a request refused, one reply line each: a path outside the run directory, a 5000-byte line, an unloaded key" {
	ln -s /etc run/etc
	for w in $(workers); do
		out=$( { printf 'L k ../sum.arg 4\nL k /etc/passwd 4\nL k etc/passwd 4\n'
			python3 -c "print('V' * 5000)"
			printf 'T k sum 1\nL k sum.arg 99999\nT k sum 1\nV\n'; } | WORKER_DIR=run $(wcmd "$w"))
		[ "$out" = "err bad path: relative, printable, no ..
err bad path: relative, printable, no ..
err outside the run directory
err line longer than 4096 bytes
err key k not loaded
err truncated: fewer bytes than asked
err key k not loaded
$(echo "$out" | tail -n 1)" ] || { echo "$w: $out"; return 1; }
		[[ $(echo "$out" | tail -n 1) == "v harness=$w "*"threads=1 threads_from=/proc/self/status" ]]
	done
}

@test "wside: L's digest is the argument file's, T replies a time, E writes what BENCH_EVAL writes" {
	want=$(sha256sum < run/sum.arg | cut -c1-64)
	BENCH_CASES=rmsnorm BENCH_EVAL=want.bin "$B/bench"
	for w in $(workers); do
		out=$(printf 'L s sum.arg 32768\nW s sum\nT s sum 100\nL r rmsnorm.arg 69632\nE r rmsnorm got.bin\n' |
		    WORKER_DIR=run $(wcmd "$w"))
		[ "$(echo "$out" | sed -n 1p)" = "ok $want" ]
		[ "$(echo "$out" | sed -n 2p)" = "ok" ]
		[[ $(echo "$out" | sed -n 3p) =~ ^ns\ [0-9.e+]+$ ]]
		[ "$(echo "$out" | sed -n 5p)" = "ok 0" ]
		[ "$w" = python ] || cmp run/got.bin want.bin
	done
}

@test "wside: wside starts a worker once, loads and verifies, and times rounds by T replies" {
	run -0 --separate-stderr wside -s run -a sum=sum.arg -a rmsnorm=rmsnorm.arg -- "$B/worker"
	[ -z "$output$stderr" ]
	pid=$(cat run/pid)
	BENCH_CASES=sum BENCH_SHA256=1 run -0 --separate-stderr wside run
	echo "$output" | jq -e --arg d "$(sha256sum < run/sum.arg | cut -c1-64)" '.sum_ns > 0 and .sum_input_sha256 == $d'
	# The same worker for every round: started once.
	BENCH_CASES=rmsnorm_ns run -0 --separate-stderr wside run
	echo "$output" | jq -e '.rmsnorm_ns > 0 and (keys == ["rmsnorm_ns"])'
	[ "$(cat run/pid)" = "$pid" ] && kill -0 "$pid"
	BENCH_CASES=rmsnorm BENCH_EVAL=$PWD/e.bin run -0 --separate-stderr wside run
	[ "$(wc -c < e.bin)" -eq 65536 ]
	# A key never loaded is not timed.
	BENCH_CASES=matmul run -2 --separate-stderr wside run
	[ "$stderr" = "wside: run: key matmul was not loaded and verified" ]
	run -0 wside -q run
	# Gone, or a zombie its new parent has not reaped yet.
	gone() { [ ! -e "/proc/$pid" ] || grep -q '^State:.*Z' "/proc/$pid/status"; }
	gone || { sleep 0.5; gone; }
	[ ! -e run/pid ] && [ ! -e run/in ]
}

@test "wside: wside refuses a worker that lies about a digest, naming both digests" {
	want=$(sha256sum < run/sum.arg | cut -c1-64)
	run -2 --separate-stderr wside -s run -a sum=sum.arg -- "$A/liar.sh"
	[ "$stderr" = "wside: key sum: sum.arg has sha256 $want, the worker read 0000000000000000000000000000000000000000000000000000000000000000: refused" ]
	[ ! -e run/pid ]
}

@test "wside: wside refuses a worker that reports two threads, or sends a 5000-byte line" {
	FAKE_LIE=threads run -2 --separate-stderr wside -s run -a sum=sum.arg -- "$A/liar.sh"
	[ "$stderr" = "wside: run: the worker reports threads=2 (from test), not one: refused" ]
	FAKE_LIE=long run -2 --separate-stderr wside -s run -- "$A/liar.sh"
	[ "$stderr" = "wside: run: a reply to 'V' longer than 4096 bytes: refused" ]
	[ ! -e run/pid ]
}

@test "wside: wside refuses a path outside the run directory, and an argument file that does not fit" {
	echo x > outside.arg
	run -2 --separate-stderr wside -s run -a k=../outside.arg -- "$B/worker"
	[ "$stderr" = "wside: key k: L ../outside.arg: the worker refused it: bad path: relative, printable, no .." ]
	head -c 1000 run/sum.arg > run/short.arg
	run -0 --separate-stderr wside -s run -a sum=short.arg -- "$B/worker"
	BENCH_CASES=sum run -2 --separate-stderr wside run
	[ "$stderr" = "wside: W sum sum: arguments do not fit" ]
}

@test "wside: wside's usage is its man page's SYNOPSIS" {
	run -2 --separate-stderr wside -Z
	[ "${stderr_lines[0]}" = "wside: unknown option -Z" ]
	synopsis=$(mandoc -Tascii "$TOP/man/wside.1" | col -b | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    sed 's/^ *//' | grep .)
	[ "$(printf '%s\n' "${stderr_lines[@]:1}" | sed 's/^usage: //; s/^ *//')" = "$synopsis" ]
}

# make compare on a copy of the kata's sides with workers, one case.
compare_workers() {
	export PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/pressure
	setpressure 1.00
	cp -r "$TOP/kata" "$TOP/bench" "$TOP/mk" "$TOP/budget.toml" .
	printf 'include mk/compare.mk\n' > Makefile
	make -s --no-print-directory compare COMPARE_BIN="$BIN" COMPARE_CASES=rmsnorm \
	    COMPARE_ROUNDS=4 COMPARE_WAIT=5 COMPARE_WORKERS=1 "$@"
}

@test "wside: make compare COMPARE_WORKERS=1 times every side on its worker, started once, stopped at the end" {
	run -0 --separate-stderr compare_workers
	jq -e '.rows[0].valid and (.rows[0].sides | length) == 4 and .rows[0].accuracy.sides[1].max_ulp < 4' docs/perf.json
	for s in kata plain numpy blas; do
		grep -q '^rmsnorm [0-9a-f]\{64\}$' "build/compare/workers/$s/keys"
		[ ! -e "build/compare/workers/$s/pid" ]
	done
	grep -q '^v harness=python name=numpy ' build/compare/workers/numpy/keys
}

@test "wside: make compare refuses a worker showing two threads, perf.json untouched" {
	mkdir docs && echo keep > docs/perf.json
	FAKE_LIE=threads run -2 --separate-stderr compare_workers COMPARE_WORKER_numpy="$A/liar.sh"
	[ "${stderr_lines[0]}" = "wside: build/compare/workers/numpy: the worker reports threads=2 (from test), not one: refused" ]
	[ "$(cat docs/perf.json)" = keep ]
	[ ! -e build/compare/workers/kata/pid ]
}
