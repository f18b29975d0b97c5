#!/usr/bin/env bats
# wside: the worker protocol, the reference-benchmark contract's rbw1
# (bench/worker.h): the C harness (kata/worker.c), the Python one in JSON
# lines (kata/numpy_worker.py --worker), a worker written from the
# contract's text alone (tests/fixtures/rbw1/worker.py), and wside,
# perfgate's end: float64 column-major arguments, digests checked on L, one
# thread shown on V (every *_threads too, threads_source recorded), T
# replies timed, E's float64 results converted; what a worker must refuse,
# and what wside refuses of a worker.

load common

A=$DATA/accuracy
F=$TOP/tests/fixtures/rbw1/worker.py

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
	# The same values as float64, little-endian: what L loads.
	python3 -c 'import struct, sys
for c in ("sum", "rmsnorm"):
    b = open("run/%s.arg" % c, "rb").read()
    v = struct.unpack("<%df" % (len(b) // 4), b)
    open("run/%s.f64" % c, "wb").write(struct.pack("<%dd" % len(v), *v))'
}

teardown() {
	[ -f run/pid ] && wside -q run || true
}

numpy() {
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null
}

@test "wside: the C harness refuses a request in one reply line: a path outside, a 5000-byte line, an unloaded key, a size past 256 MiB" {
	ln -s /etc run/etc
	out=$( { printf 'L k ../sum.f64 1 1\nL k /etc/passwd 1 1\nL k etc/passwd 1 1\n'
		python3 -c "print('V' * 5000)"
		printf 'T k sum 1\nL k sum.f64 1 9000\nT k sum 1\nL k sum.f64 4096 8193\nL k sum.f64 0 1\nL k sum.f64 1024\nL k sum.f64 2 4096\nE k sum e.f64\nV\n'; } |
	    WORKER_DIR=run "$B/worker")
	[ "$out" = "err bad path: relative, printable, no ..
err bad path: relative, printable, no ..
err outside the run directory
err line longer than 4096 bytes
err key k not loaded
err truncated: fewer than cols x rows values
err key k not loaded
err too large: more than 256 MiB
err bad size: cols and rows from 1
err wrong number of fields
ok $(sha256sum < run/sum.f64 | cut -c1-64)
err arguments do not fit
v harness=c name=kata threads=1 threads_source=proc" ]
	# A file with more values than asked is refused too.
	[ "$(printf 'L k sum.f64 1 8191\n' | WORKER_DIR=run "$B/worker")" = "err the file holds more than cols x rows values" ]
}

@test "wside: the C harness: L's digest is the float64 bytes', T replies a time, E writes float64 and counts" {
	BENCH_CASES=rmsnorm BENCH_EVAL=want.bin "$B/bench"
	out=$(printf 'L s sum.f64 1 8192\nW s sum\nT s sum 100\nL r rmsnorm.f64 17 1024\nE r rmsnorm got.f64\n' |
	    WORKER_DIR=run "$B/worker")
	[ "$(echo "$out" | sed -n 1p)" = "ok $(sha256sum < run/sum.f64 | cut -c1-64)" ]
	[ "$(echo "$out" | sed -n 2p)" = "ok" ]
	[[ $(echo "$out" | sed -n 3p) =~ ^ns\ [0-9.e+]+$ ]]
	[ "$(echo "$out" | sed -n 5p)" = "ok 0 0" ]
	# The float32 results of bench.c, each as float64.
	python3 -c 'import struct, sys
w = open("want.bin", "rb").read(); g = open("run/got.f64", "rb").read()
sys.exit(struct.unpack("<%df" % (len(w) // 4), w) != struct.unpack("<%dd" % (len(g) // 8), g))'
}

@test "wside: wside starts a worker once, writes and verifies its float64 arguments, and times rounds by T replies" {
	run -0 --separate-stderr wside -s run -a sum=1x8192:sum.arg -a rmsnorm=17x1024:rmsnorm.arg -- "$B/worker"
	[ -z "$output$stderr" ]
	cmp run/sum.f64 run/sum.f64
	[ "$(sha256sum < run/sum.arg | cut -c1-64)" = "$(sed -n 's/^sum //p' run/keys)" ]
	jq -e '.worker == "harness=c name=kata threads=1 threads_source=proc" and .threads_source == "proc" and .threads_verified' run/worker.json
	pid=$(cat run/pid)
	# The digest of the inputs as given: the same as bench.c's, whichever side measures.
	BENCH_CASES=sum BENCH_SHA256=1 run -0 --separate-stderr wside run
	echo "$output" | jq -e --arg d "$(BENCH_CASES=sum BENCH_SHA256=1 BENCH_REPS=1 "$B/bench" | jq -r .sum_input_sha256)" \
	    '.sum_ns > 0 and .sum_input_sha256 == $d'
	# The same worker for every round: started once.
	BENCH_CASES=rmsnorm_ns run -0 --separate-stderr wside run
	echo "$output" | jq -e '.rmsnorm_ns > 0 and (keys == ["rmsnorm_ns"])'
	[ "$(cat run/pid)" = "$pid" ] && kill -0 "$pid"
	# E's results, float64, written as bench.c's BENCH_EVAL writes them.
	BENCH_CASES=rmsnorm BENCH_EVAL=$PWD/want.bin "$B/bench"
	BENCH_CASES=rmsnorm BENCH_EVAL=$PWD/e.bin run -0 --separate-stderr wside run
	cmp e.bin want.bin
	BENCH_CASES=rmsnorm BENCH_EVAL=$PWD/e.bin BENCH_RESULT=i32 run -2 --separate-stderr wside run
	[[ $stderr == "wside: "*"/eval.f64: value 1 is "*", not an int32" ]]
	# A key never loaded is not timed.
	BENCH_CASES=matmul run -2 --separate-stderr wside run
	[ "$stderr" = "wside: run: key matmul was not loaded and verified" ]
	run -0 wside -q run
	# Gone, or a zombie its new parent has not reaped yet.
	gone() { [ ! -e "/proc/$pid" ] || grep -q '^State:.*Z' "/proc/$pid/status"; }
	gone || { sleep 0.5; gone; }
	[ ! -e run/pid ] && [ ! -e run/in ]
}

@test "wside: a worker written from the contract's text alone is started, verified, timed and evaluated" {
	run -0 --separate-stderr wside -s run -a sum=1x8192:sum.arg -a twice=17x1024:rmsnorm.arg \
	    -a halfraise=17x1024:rmsnorm.arg -a allraise=1x8192:sum.arg -- "$F"
	jq -e '.threads_source == "assumed" and (.threads_verified | not)' run/worker.json
	BENCH_CASES=sum BENCH_SHA256=1 BENCH_REPS=2 run -0 --separate-stderr wside run
	echo "$output" | jq -e '.sum_ns > 0 and (.sum_input_sha256 | length) == 64'
	BENCH_CASES=sum BENCH_EVAL=$PWD/want.bin "$B/bench"
	BENCH_CASES=sum BENCH_EVAL=$PWD/got.bin run -0 --separate-stderr wside run
	cmp got.bin want.bin
	BENCH_CASES=twice BENCH_EVAL=$PWD/twice.bin run -0 --separate-stderr wside run
	[ "$(wc -c < twice.bin)" -eq $((17 * 1024 * 4)) ]
	# Raised on half the points: NaN there, scored as not covered; on every point: broken.
	BENCH_CASES=halfraise BENCH_EVAL=$PWD/half.bin run -0 --separate-stderr wside run
	python3 -c 'import math, struct
v = struct.unpack("<%df" % (17 * 1024), open("half.bin", "rb").read())
assert sum(map(math.isnan, v)) == 17 * 512, v[:4]'
	BENCH_CASES=allraise BENCH_EVAL=$PWD/all.bin run -2 --separate-stderr wside run
	[ "$stderr" = "wside: E allraise allraise: the kernel raised on every point (8192): a broken kernel, refused" ]
	[ ! -e all.bin ]
}

@test "wside: V must show threads=1 and every *_threads at 1, with threads_source omp, proc or assumed" {
	for v in 'threads=1 openblas_threads=4 threads_source=proc' 'threads=2 threads_source=proc' \
	    'threads=1' 'threads=1 threads_source=guessed' 'openblas_threads=1 threads_source=omp'; do
		FIXTURE_V=$v run -2 --separate-stderr wside -s run -a sum=1x8192:sum.arg -- "$F"
		case $v in
		*openblas_threads=4*) want="reports openblas_threads=4, not one" ;;
		threads=2*) want="reports threads=2, not one" ;;
		'threads=1') want="reports no threads_source, not threads_source omp, proc or assumed" ;;
		*guessed) want="reports threads_source=guessed, not threads_source omp, proc or assumed" ;;
		*) want="reports no threads" ;;
		esac
		[ "$stderr" = "wside: run: the worker $want: refused (V: $v)" ]
		[ ! -e run/pid ]
	done
	FIXTURE_V='threads=1 omp_threads=1 threads_source=omp' run -0 --separate-stderr wside -s run -- "$F"
}

@test "wside: wside refuses a worker that lies about a digest, naming both digests" {
	want=$(sha256sum < run/sum.f64 | cut -c1-64)
	run -2 --separate-stderr wside -s run -a sum=1x8192:sum.arg -- "$A/liar.sh"
	[ "$stderr" = "wside: key sum: sum.f64 has sha256 $want, the worker read 0000000000000000000000000000000000000000000000000000000000000000: refused" ]
	[ ! -e run/pid ]
}

@test "wside: wside refuses a worker that reports two threads, OpenBLAS's four, or sends a 5000-byte line" {
	FAKE_LIE=threads run -2 --separate-stderr wside -s run -a sum=1x8192:sum.arg -- "$A/liar.sh"
	[ "$stderr" = "wside: run: the worker reports threads=2, not one: refused (V: harness=sh threads=2 threads_source=proc)" ]
	FAKE_LIE=blas run -2 --separate-stderr wside -s run -- "$A/liar.sh"
	[ "$stderr" = "wside: run: the worker reports openblas_threads=4, not one: refused (V: harness=sh threads=1 threads_source=proc openblas_threads=4)" ]
	FAKE_LIE=long run -2 --separate-stderr wside -s run -- "$A/liar.sh"
	[ "$stderr" = "wside: run: a reply to 'V' longer than 4096 bytes: refused" ]
	[ ! -e run/pid ]
}

@test "wside: wside refuses a key that is no name, an argument of another size or past 256 MiB" {
	echo x > outside.arg
	run -2 --separate-stderr wside -s run -a k=1x1:../outside.arg -- "$B/worker"
	[ "$stderr" = "wside: key k: ../outside.arg holds 2 bytes, not 1 values of float32 or float64" ]
	for k in ../k 'a b' .hidden; do
		run -2 --separate-stderr wside -s run -a "$k=1x8192:sum.arg" -- "$B/worker"
		[ "$stderr" = "wside: -a $k: the key is not a name: letters, digits, _ . -, at most 64" ]
	done
	run -2 --separate-stderr wside -s run -a sum=1x8000:sum.arg -- "$B/worker"
	[ "$stderr" = "wside: key sum: sum.arg holds 32768 bytes, not 8000 values of float32 or float64" ]
	run -2 --separate-stderr wside -s run -a sum=8192x4097:sum.arg -- "$B/worker"
	[ "$stderr" = "wside: -a sum: 8192x4097:sum.arg values are more than 256 MiB as float64" ]
	run -2 --separate-stderr wside -s run -a sum=0x8192:sum.arg -- "$B/worker"
	[ "$stderr" = "wside: -a sum: expected key=COLSxROWS:file, COLS and ROWS from 1" ]
	# The right size, the wrong shape for the fn: refused when it is called.
	run -0 --separate-stderr wside -s run -a sum=2x4096:sum.arg -- "$B/worker"
	BENCH_CASES=sum run -2 --separate-stderr wside run
	[ "$stderr" = "wside: W sum sum: arguments do not fit" ]
}

@test "wside: the NumPy worker speaks JSON lines, refusing what the C harness refuses" {
	numpy || skip "python3-numpy is not installed"
	out=$( { printf '%s\n' '{"op":"L","key":"k","path":"../sum.f64","cols":1,"rows":1}' \
		'{"op":"T","key":"k","fn":"sum","iters":1}' '{"op":"L","key":"k","path":"sum.f64","cols":4096,"rows":8193}' \
		'{"op":"L","key":"k","path":"sum.f64","cols":1,"rows":8192,"x":1}' 'L k sum.f64 1 8192' \
		'{"op":"L","key":"s","path":"sum.f64","cols":1,"rows":8192}' '{"op":"W","key":"s","fn":"sum"}' \
		'{"op":"T","key":"s","fn":"sum","iters":10}' '{"op":"L","key":"r","path":"rmsnorm.f64","cols":17,"rows":1024}' \
		'{"op":"E","key":"r","fn":"rmsnorm","path":"got.f64"}' '{"op":"V"}'; } |
	    WORKER_DIR=run /usr/bin/python3 "$TOP/kata/numpy_worker.py" --worker)
	[ "$(echo "$out" | sed -n 1,5p)" = '{"ok":false,"error":"bad path: relative, printable, no .."}
{"ok":false,"error":"key k not loaded"}
{"ok":false,"error":"too large: more than 256 MiB"}
{"ok":false,"error":"wrong fields"}
{"ok":false,"error":"not a JSON object"}' ]
	[ "$(echo "$out" | sed -n 6p | jq -r .sha256)" = "$(sha256sum < run/sum.f64 | cut -c1-64)" ]
	echo "$out" | sed -n 8p | jq -e '.ok and .ns > 0'
	echo "$out" | sed -n 10p | jq -e '.ok and .n_nonfinite == 0 and .n_raised == 0'
	[ "$(wc -c < run/got.f64)" -eq $((16 * 1024 * 8)) ]
	echo "$out" | sed -n 11p | jq -e '.threads == 1 and .threads_source == "proc" and (.numpy | length) > 0'
	# Through wside -j, as make compare starts it.
	OPENBLAS_NUM_THREADS=1 run -0 --separate-stderr wside -s run -j -a rmsnorm=17x1024:rmsnorm.arg -- \
	    /usr/bin/python3 "$TOP/kata/numpy_worker.py" --worker
	jq -e '.protocol == "rbw1-json" and .threads_source == "proc"' run/worker.json
	BENCH_CASES=rmsnorm BENCH_EVAL=$PWD/np.bin run -0 --separate-stderr wside run
	BENCH_CASES=rmsnorm BENCH_EVAL=$PWD/want.bin /usr/bin/python3 "$TOP/kata/numpy_worker.py"
	cmp np.bin want.bin
}

@test "wside: wside's usage is its man page's SYNOPSIS" {
	run -2 --separate-stderr wside -Z
	[ "${stderr_lines[0]}" = "wside: unknown option -Z" ]
	[ "$(printf '%s\n' "${stderr_lines[@]:1}" | sed 's/^usage: //' | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')" = \
	    "$(man_synopsis wside)" ]
}

@test "wside: every EXAMPLES line of the man page runs" {
	mkdir -p build/compare/kata
	cp "$B/bench" "$B/worker" build/compare/kata/
	mapfile -t ex < <(man_examples wside)
	[ "${#ex[@]}" -eq 4 ]
	for e in "${ex[@]}"; do
		run -0 --separate-stderr sh -c "$e"
	done
}

# make compare on a copy of the kata's sides with workers, one case.
compare_workers() {
	export PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/pressure
	setpressure 1.00
	cp -r "$TOP/kata" "$TOP/bench" "$TOP/mk" "$TOP/budget.toml" .
	printf 'include mk/compare.mk\n' > Makefile
	make -s --no-print-directory compare COMPARE_BIN="$BIN" COMPARE_CASES=rmsnorm COMPARE_LOCK= \
	    COMPARE_ROUNDS=4 COMPARE_WAIT=5 COMPARE_WORKERS=1 "$@"
}

@test "wside: make compare COMPARE_WORKERS=1 times every side on its worker, in a run directory keyed by the commit" {
	run -0 --separate-stderr compare_workers
	jq -e '.rows[0].valid and (.rows[0].sides | length) == 4 and .rows[0].accuracy.sides[1].max_ulp < 4' docs/perf.json
	for s in kata plain numpy blas; do
		grep -q '^rmsnorm [0-9a-f]\{64\}$' "build/compare/workers/none/$s/keys"
		[ ! -e "build/compare/workers/none/$s/pid" ]
	done
	grep -q '^v harness=python name=numpy ' build/compare/workers/none/numpy/keys
	# What each worker said of itself is the side's record.
	jq -e '.sides.numpy.threads_source == "proc" and .sides.numpy.protocol == "rbw1-json"' docs/perf.json
	jq -e '.sides.blas.worker | test("name=blas threads=1 threads_source=proc openblas_threads=1")' docs/perf.json
}

@test "wside: make compare refuses a worker showing two threads, perf.json untouched" {
	mkdir docs && echo keep > docs/perf.json
	FAKE_LIE=threads run -2 --separate-stderr compare_workers COMPARE_WORKER_numpy="$A/liar.sh" COMPARE_WORKER_JSON_numpy=
	[[ $stderr == *"
wside: build/compare/workers/none/numpy: the worker reports threads=2, not one: refused (V: harness=sh threads=2 threads_source=proc)
compare: side numpy: its worker was refused"* ]]
	[ "$(cat docs/perf.json)" = keep ]
	[ ! -e build/compare/workers/none/kata/pid ]
}

@test "wside: a round moves its worker onto the CPU it was pinned to (alternate -c), so the worker computes there" {
	taskset -c 0,1 true 2>/dev/null || skip "needs CPUs 0 and 1"
	run -0 --separate-stderr taskset -c 0,1 wside -s run -a sum=1x8192:sum.arg -- "$B/worker"
	pid=$(cat run/pid)
	for cpu in 0 1; do
		BENCH_CASES=sum run -0 --separate-stderr taskset -c $cpu wside run
		[ "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")" = $cpu ]
	done
	# Through alternate -c auto, as make compare runs it: the CPU alternate took.
	BENCH_CASES=sum run -0 --separate-stderr taskset -c 0,1 alternate -c auto -r 1 w="wside run"
	[ "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")" = "$(echo "$output" | jq .pinned)" ]
	# A worker that is gone is one line, exit 2.
	printf '999999999\n' > run/pid.bad
	mv run/pid run/pid.ok && mv run/pid.bad run/pid
	BENCH_CASES=sum run -2 --separate-stderr wside run
	[ "$stderr" = "wside: run: cannot move the worker (pid 999999999) onto this process's CPUs: No such process" ]
	mv run/pid.ok run/pid
}
