#!/usr/bin/env bats
# blas: make compare measures the references people use: NumPy and the C
# side kata/blas.c on an optimized BLAS, a reference BLAS refused unless
# asked (COMPARE_REFERENCE_BLAS=1), the library and kernel recorded.

load common

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset COMPARE_REFERENCE_BLAS
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' || skip "python3-numpy is not installed"
	# netlib's libblas.so.3, put ahead of the alternatives' choice: the
	# reference BLAS as Debian's python3-numpy gets it without OpenBLAS.
	REFBLAS=$(dirname "$(ls /usr/lib/*/blas/libblas.so.3 2>/dev/null | head -n 1)")
	mkdir -p b && cd b
	cc -std=c11 -O2 -I"$TOP/kata" -o about "$TOP/kata/blas_about.c" -lblas -ldl
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o bench "$TOP/kata/bench.c" \
	    "$TOP/kata/blas.c" "$TOP/kata/plain.c" -lblas -lm
}

@test "blas: NumPy and the C side say which BLAS and kernel ran, one thread" {
	OPENBLAS_NUM_THREADS=1 run -0 --separate-stderr /usr/bin/python3 "$TOP/kata/numpy_worker.py" --about
	echo "$output" | jq -e '.blas_kind == "optimized" and (.blas_sgemm | test("openblas")) and (.openblas_corename | length > 0)'
	OPENBLAS_NUM_THREADS=1 run -0 --separate-stderr ./about
	echo "$output" | jq -e '.blas_kind == "optimized" and (.openblas_config | startswith("OpenBLAS ")) and .openblas_threads == 1 and (.kernels | test("cblas_sgemm"))'
}

@test "blas: a NumPy on the reference BLAS is refused with one line naming the library and the package" {
	[ "$REFBLAS" != . ] || skip "libblas-dev (netlib's libblas.so.3) is not installed"
	LD_LIBRARY_PATH=$REFBLAS run -2 --separate-stderr /usr/bin/python3 "$TOP/kata/numpy_worker.py" --about
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "numpy_worker: NumPy's cblas_sgemm is the reference BLAS's ($REFBLAS/libblas.so.3"*"): apt-get install libopenblas0-serial, or COMPARE_REFERENCE_BLAS=1 to measure it anyway" ]]
	COMPARE_REFERENCE_BLAS=1 LD_LIBRARY_PATH=$REFBLAS run -0 --separate-stderr /usr/bin/python3 "$TOP/kata/numpy_worker.py" --about
	echo "$output" | jq -e '.blas_kind == "reference"'
}

@test "blas: the C side on the reference BLAS is refused the same way" {
	[ "$REFBLAS" != . ] || skip "libblas-dev (netlib's libblas.so.3) is not installed"
	LD_LIBRARY_PATH=$REFBLAS run -2 --separate-stderr ./about
	[ "$output" = "" ]
	[[ $stderr == "blas_about: cblas_sgemm is the reference BLAS's ($REFBLAS/libblas.so.3"*"): apt-get install libopenblas0-serial, or COMPARE_REFERENCE_BLAS=1 to measure it anyway" ]]
	COMPARE_REFERENCE_BLAS=1 LD_LIBRARY_PATH=$REFBLAS run -0 --separate-stderr ./about
	echo "$output" | jq -e '.blas_kind == "reference"'
}

@test "blas: make compare refuses a NumPy on the reference BLAS and leaves perf.json untouched" {
	[ "$REFBLAS" != . ] || skip "libblas-dev (netlib's libblas.so.3) is not installed"
	cd "$BATS_TEST_TMPDIR"
	cp -r "$TOP/kata" "$TOP/bench" "$TOP/mk" .
	mkdir docs && echo keep > docs/perf.json
	printf 'include mk/compare.mk\n' > Makefile
	LD_LIBRARY_PATH=$REFBLAS run -2 --separate-stderr make -s --no-print-directory compare COMPARE_BIN="$BIN" COMPARE_LOCK=
	[[ $stderr == *"numpy_worker: NumPy's cblas_sgemm is the reference BLAS's"*"apt-get install libopenblas0-serial"* ]]
	[ "$(cat docs/perf.json)" = keep ]
}

@test "blas: the C side computes what plain.c computes on the kata's inputs" {
	# The same input bytes as the kata's benchmark, and a finite result.
	run -0 --separate-stderr env BENCH_SHA256=1 BENCH_REPS=1 BENCH_MIN_S=0.0001 ./bench
	echo "$output" | jq -e '(.matmul_input_sha256 | length) == 64 and .matmul_ns > 0 and .count_below_ns > 0'
}
