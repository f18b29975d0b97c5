#!/usr/bin/env bats
# The kata (kata/), its checker, its benchmark (bench/) and budget.toml.

load common

CFLAGS_KATA="-std=c11 -O2 -Wall -Wextra"

# Build kata_check against a kernels.c into the test's temp dir.
build_check() {
	cc $CFLAGS_KATA -I"$TOP/kata" -o "$BATS_TEST_TMPDIR/kata_check" \
	    "$TOP/kata/kata_check.c" "$TOP/kata/plain.c" "$1" -lm
}

# Build bench against a kernels.c (default the kata) into the temp dir.
build_bench() {
	cc $CFLAGS_KATA -I"$TOP/kata" -I"$TOP/bench" -o "$BATS_TEST_TMPDIR/bench" \
	    "$TOP/kata/bench.c" "${1:-$TOP/kata/kernels.c}" -lm
}

# The kata with one sed edit: a kernel that is wrong in one way.
wrong_kata() {
	sed "$1" "$TOP/kata/kernels.c" > "$BATS_TEST_TMPDIR/wrong.c"
	# The edit must change the kata (cmp says 1), or the test would test nothing.
	run -1 cmp -s "$TOP/kata/kernels.c" "$BATS_TEST_TMPDIR/wrong.c"
	build_check "$BATS_TEST_TMPDIR/wrong.c"
}

# Quick effort: the tests check what bench prints, not how fast.
quick() {
	BENCH_REPS=1 BENCH_MIN_S=0.001 "$@"
}

@test "kata: kernels.h declares exactly the four kernels of the contract" {
	run -0 grep -c '^[a-z].*kata_[a-z_]*(' "$TOP/kata/kernels.h"
	[ "$output" = 4 ]
	grep -q '^void  kata_matmul(const float \*A, const float \*B, float \*C, int n);' "$TOP/kata/kernels.h"
	grep -q '^float kata_sum(const float \*x, int n);' "$TOP/kata/kernels.h"
	grep -q '^void  kata_rmsnorm(const float \*x, const float \*w, float \*y, int rows, int d, float eps);' "$TOP/kata/kernels.h"
	grep -q '^int   kata_count_below(const float \*sorted, int n, float t);' "$TOP/kata/kernels.h"
}

@test "kata: kata_check passes on the kata and exits 0" {
	build_check "$TOP/kata/kernels.c"
	run -0 --separate-stderr "$BATS_TEST_TMPDIR/kata_check"
	[[ "$output" =~ ^kata_check:\ the\ kata\ agrees\ with\ the\ plain\ kernels\ in\ [0-9]+\ cases$ ]]
	[ -z "$stderr" ]
}

@test "kata: kata_check accepts a kata that only sums in another order" {
	# Every sum backwards: not bit-exact, but within the tolerances.
	cat > "$BATS_TEST_TMPDIR/reversed.c" <<'C'
#include <math.h>
#include "kernels.h"
void kata_matmul(const float *A, const float *B, float *C, int n) {
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float s = 0;
			for (int k = n - 1; k >= 0; k--)
				s += A[i * n + k] * B[k * n + j];
			C[i * n + j] = s;
		}
}
float kata_sum(const float *x, int n) {
	float s = 0;
	for (int i = n - 1; i >= 0; i--)
		s += x[i];
	return s;
}
void kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps) {
	for (int r = 0; r < rows; r++) {
		float ss = 0;
		for (int i = d - 1; i >= 0; i--)
			ss += x[r * d + i] * x[r * d + i];
		float inv = 1.0f / sqrtf(ss / d + eps);
		for (int i = 0; i < d; i++)
			y[r * d + i] = x[r * d + i] * inv * w[i];
	}
}
int kata_count_below(const float *s, int n, float t) {
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (s[mid] < t) lo = mid + 1; else hi = mid;
	}
	return lo;
}
C
	build_check "$BATS_TEST_TMPDIR/reversed.c"
	run -0 "$BATS_TEST_TMPDIR/kata_check"
}

@test "kata: kata_check names a wrong matmul: kernel, size, index, both values" {
	wrong_kata 's/for (; k < kw; k++) {/for (; k < kw - 1; k++) {/'
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/kata_check"
	[ -z "$output" ]
	[[ "$stderr" =~ ^kata_check:\ matmul\ n=[0-9]+:\ C\[[0-9]+\]\[[0-9]+\]\ =\ [-0-9.e]+,\ plain\ [-0-9.e]+\ \(tolerance\ .*\)$ ]]
	[ "${#stderr_lines[@]}" = 1 ]
}

@test "kata: kata_check names a wrong sum" {
	wrong_kata 's/for (j = 0; i < n; i++, j++)$/for (j = 0; i < n - 1; i++, j++)/'
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/kata_check"
	[[ "$stderr" =~ ^kata_check:\ sum\ n=[0-9]+:\ kata\ [-0-9.e]+,\ plain\ [-0-9.e]+ ]]
}

@test "kata: kata_check names a wrong rmsnorm (eps left out)" {
	wrong_kata 's|ss / d + eps|ss / d|'
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/kata_check"
	[[ "$stderr" =~ ^kata_check:\ rmsnorm\ rows=[0-9]+\ d=[0-9]+\ eps=.*:\ y\[[0-9]+\]\[[0-9]+\]\ = ]]
}

@test "kata: kata_check names a wrong count_below (<= for <)" {
	wrong_kata 's/base\[half\] < t/base[half] <= t/'
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/kata_check"
	[[ "$stderr" =~ ^kata_check:\ count_below\ n=[0-9]+:\ t=.*:\ kata\ [0-9]+,\ plain\ [0-9]+$ ]]
}

@test "kata: kata_check catches a kernel that writes past its output" {
	wrong_kata 's/for (; i < d; i++)$/for (; i <= d; i++)/'
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/kata_check"
	[[ "$stderr" =~ rmsnorm:\ wrote\ past\ the\ end ]]
}

@test "kata: kata_check exits 2 on an argument" {
	build_check "$TOP/kata/kernels.c"
	run -2 --separate-stderr "$BATS_TEST_TMPDIR/kata_check" extra
	[ "$stderr" = "usage: kata_check" ]
}

@test "kata: bench.c includes bench.h, calls the four kernels, never rand()" {
	grep -q '^#include "bench.h"' "$TOP/kata/bench.c"
	grep -q '^#include "kernels.h"' "$TOP/kata/bench.c"
	for k in kata_matmul kata_sum kata_rmsnorm kata_count_below; do
		grep -q "$k(" "$TOP/kata/bench.c"
	done
	run -1 grep -E '\b(s?rand|random|drand48)\(' "$TOP/kata/bench.c"
}

@test "kata: bench prints one JSON line with exactly the four metrics, last" {
	build_bench
	run -0 --separate-stderr quick "$BATS_TEST_TMPDIR/bench"
	[ "${#lines[@]}" = 1 ]
	[ -z "$stderr" ]
	last=${lines[-1]}
	run -0 jq -c 'keys_unsorted' <<<"$last"
	[ "$output" = '["matmul_ns","sum_ns","rmsnorm_ns","count_below_ns"]' ]
	run -0 jq -e '[.[] | numbers | select(. > 0)] | length == 4' <<<"$last"
}

@test "kata: bench times on the wall clock with BENCH_CLOCK=wall" {
	build_bench
	BENCH_CLOCK=wall run -0 quick "$BATS_TEST_TMPDIR/bench"
	run -0 jq -e 'keys | length == 4' <<<"$output"
}

@test "kata: bench takes BENCH_REPS batches of at least BENCH_MIN_S each" {
	build_bench
	# BENCH_MAX_S far off: on a loaded machine its default (four times the
	# batches' time) may end a metric before its third batch.
	BENCH_VERBOSE=1 BENCH_REPS=3 BENCH_MIN_S=0.002 BENCH_MAX_S=100 run -0 --separate-stderr "$BATS_TEST_TMPDIR/bench"
	for m in matmul_ns sum_ns rmsnorm_ns count_below_ns; do
		grep -q "^bench: $m: 3 batches of [0-9]* calls, best .* ns a call" <<<"$stderr"
	done
}

@test "kata: bench takes one call after the warm-up as the measurement when the warm-up exceeds BENCH_MAX_S" {
	build_bench
	BENCH_VERBOSE=1 BENCH_REPS=50 BENCH_MIN_S=0.000001 BENCH_MAX_S=0.000001 \
	    run -0 --separate-stderr "$BATS_TEST_TMPDIR/bench"
	# matmul (milliseconds a call) is over the budget at once.
	[[ "$stderr" =~ bench:\ matmul_ns:\ the\ warm-up\ call\ took\ .*\ over\ BENCH_MAX_S:\ one\ more\ call\ is\ the\ measurement ]]
}

@test "kata: bench stops taking batches once BENCH_MAX_S is spent" {
	build_bench
	BENCH_VERBOSE=1 BENCH_REPS=1000000 BENCH_MIN_S=0.001 BENCH_MAX_S=0.01 \
	    run -0 --separate-stderr "$BATS_TEST_TMPDIR/bench"
	# Far fewer than a million batches: about ten of 1 ms in 10 ms.
	run -0 grep -c '^bench: [a-z_]*: [0-9]\{1,2\} batches of' <<<"$stderr"
	[ "$output" = 4 ]
}

@test "kata: bench rejects bad effort values with exit 2" {
	build_bench
	for kv in BENCH_REPS=abc BENCH_REPS=0 BENCH_REPS=-3 BENCH_REPS=1.5 BENCH_REPS= \
	    BENCH_REPS=1e7 BENCH_MIN_S=x BENCH_MIN_S=0 BENCH_MIN_S=-1 BENCH_MIN_S=nan \
	    BENCH_MIN_S=inf BENCH_MIN_S=0.1s BENCH_MAX_S=0 BENCH_CLOCK=tsc BENCH_VERBOSE=2; do
		run -2 --separate-stderr env "$kv" "$BATS_TEST_TMPDIR/bench"
		[ -z "$output" ]
		[[ "$stderr" =~ ^bench:\ ${kv%%=*}=.*:\ (not\ a\ number|not\ a\ whole\ number|out\ of\ range|not\ cpu\ or\ wall)$ ]] ||
		    { echo "$kv: $stderr"; false; }
		[ "${#stderr_lines[@]}" = 1 ]
	done
	BENCH_MIN_S=0.1 BENCH_MAX_S=0.01 run -2 --separate-stderr "$BATS_TEST_TMPDIR/bench"
	[ "$stderr" = "bench: BENCH_MAX_S=0.01 is below BENCH_MIN_S=0.1" ]
}

@test "kata: bench exits 2 on an argument" {
	build_bench
	run -2 --separate-stderr "$BATS_TEST_TMPDIR/bench" -x
	[ "$stderr" = "usage: bench" ]
}

@test "kata: bench exits 2 when stdout cannot be written" {
	build_bench
	run -2 --separate-stderr sh -c 'BENCH_REPS=1 BENCH_MIN_S=0.001 "$1" > /dev/full' sh "$BATS_TEST_TMPDIR/bench"
	[ "$stderr" = "bench: write stdout: No space left on device" ]
}

@test "kata: bench.h writes metrics in the shortest round-trip form" {
	cat > "$BATS_TEST_TMPDIR/fmt.c" <<'C'
#include "bench.h"
int main(void) {
	bench_metric("a_ns", 0.1);
	bench_metric("b_ns", 812.25);
	bench_metric("c_ns", 1e300);
	bench_metric("d_ns", 1.0 / 3.0);
	bench_metric("e_ns", 7);
	return bench_report();
}
C
	for c in gcc clang tcc; do
		command -v $c >/dev/null || continue
		$c -std=c11 -Wall -Wextra -Werror -I"$TOP/bench" -o "$BATS_TEST_TMPDIR/fmt" "$BATS_TEST_TMPDIR/fmt.c"
		run -0 "$BATS_TEST_TMPDIR/fmt"
		[ "$output" = '{"a_ns":0.1,"b_ns":812.25,"c_ns":1e+300,"d_ns":0.3333333333333333,"e_ns":7}' ]
	done
}

@test "kata: bench.h rejects a metric name that is not a JSON-safe word" {
	printf '#include "bench.h"\nint main(void) { bench_metric("a\\"b", 1); return bench_report(); }\n' \
	    > "$BATS_TEST_TMPDIR/name.c"
	cc -std=c11 -I"$TOP/bench" -o "$BATS_TEST_TMPDIR/name" "$BATS_TEST_TMPDIR/name.c"
	run -2 --separate-stderr "$BATS_TEST_TMPDIR/name"
	[ -z "$output" ]
	[[ "$stderr" =~ ^bench:\ metric\ name ]]
}

@test "kata: budget.toml has runs >= 2 and a fraction in (0, 1) for each metric, count_below the most room" {
	run -1 grep -q '^allow_loose' "$TOP/budget.toml"
	# cmpbudget, the file's reader, refuses runs below 2 and a [budget] of 1 or more.
	run -0 --separate-stderr cmpbudget -b "$TOP/budget.toml" -E
	[ "${lines[0]}" -ge 2 ]
	# The gate's document (2.3): 0.30 for each, and more room for the binary
	# search timed over nanoseconds, the noisiest, 0.50.
	[ "$(printf '%s\n' "${lines[@]:1}" | paste -sd' ')" = 'budget matmul_ns 0.3 budget sum_ns 0.3 budget rmsnorm_ns 0.3 budget count_below_ns 0.5' ]
}
