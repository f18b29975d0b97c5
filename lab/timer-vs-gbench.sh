#!/bin/sh
# timer-vs-gbench: cross-check bench/bench.h against Google Benchmark on the
# same kernel, a one-accumulator sum of 4096 floats (plain_sum of
# kata/plain.c, one object file linked into both sides), side by side: the
# two programs alternate for ROUNDS rounds and each side's figure is its
# minimum. Prints both figures, their ratio, and bench.h's overhead per call
# on an empty function. Exit 0 when they agree within 2 %, 1 when they do
# not, 2 when something cannot be built or run.
#
# Environment: CC (cc), CXX (g++), ROUNDS (5).
set -u
CC=${CC:-cc}
CXX=${CXX:-g++}
ROUNDS=${ROUNDS:-5}
out=build/timer
mkdir -p "$out" || exit 2

# The bench.h side: the sum, and an empty function for the overhead.
cat > "$out/timer_sum.c" <<'C'
#include "bench.h"

float plain_sum(const float *x, int n);

static float x[4096];

static void
run_sum(void *arg)
{
	(void)arg;
	bench_keep_float(plain_sum(x, 4096));
}

static void
run_empty(void *arg)
{
	(void)arg;
}

int
main(int argc, char *argv[])
{
	int i;

	(void)argc;
	bench_init(argv[0]);
	for (i = 0; i < 4096; i++)
		x[i] = (float)(i % 11 - 5) * 0.25f;
	bench_add("sum4096_ns", run_sum, NULL);
	bench_add("empty_ns", run_empty, NULL);
	return bench_report();
}
C

$CC -std=c11 -O2 -c -o "$out/plain.o" kata/plain.c || exit 2
$CC -std=c11 -O2 -Ibench -o "$out/timer_sum" "$out/timer_sum.c" "$out/plain.o" -lm || exit 2
$CXX -std=c++17 -O2 -o "$out/gbench_sum" lab/gbench_sum.cc "$out/plain.o" -lbenchmark -lpthread -lm || exit 2

: > "$out/gbench.txt"
: > "$out/bench.txt"
i=0
while [ $i -lt "$ROUNDS" ]; do
	# Google Benchmark at its defaults (0.5 s a run): "cpu_time real_time".
	"$out/gbench_sum" --benchmark_format=json 2>/dev/null | awk '
	    /"real_time"/ { r = $2 } /"cpu_time"/ { c = $2 }
	    END { gsub(/,/, "", r); gsub(/,/, "", c); print c, r }' >> "$out/gbench.txt" || exit 2
	# bench.h at about the same effort, on each of its clocks: "cpu wall".
	c=$(BENCH_REPS=10 BENCH_MIN_S=0.05 "$out/timer_sum" | tail -n 1) || exit 2
	w=$(BENCH_CLOCK=wall BENCH_REPS=10 BENCH_MIN_S=0.05 "$out/timer_sum" | tail -n 1) || exit 2
	echo "$c $w" >> "$out/bench.txt"
	i=$((i + 1))
done

awk -v rounds="$ROUNDS" '
function min(a, b) { return a == "" || b + 0 < a + 0 ? b + 0 : a }
function field(s, k) { sub(".*\"" k "\":", "", s); sub(/[,}].*/, "", s); return s + 0 }
FILENAME ~ /gbench/ { if ($1 > 0 && $2 > 0) { gc = min(gc, $1); gr = min(gr, $2); ng++ }; next }
{
	bc = min(bc, field($1, "sum4096_ns")); z = min(z, field($1, "empty_ns"))
	bw = min(bw, field($2, "sum4096_ns")); zw = min(zw, field($2, "empty_ns"))
	nb++
}
END {
	if (ng != rounds || nb != rounds || !(bc > 0 && bw > 0)) {
		print "timer-vs-gbench: a side printed no figure" > "/dev/stderr"
		exit 2
	}
	printf "sum of 4096 floats, ns per call, minimum of %d alternating rounds:\n", rounds
	printf "  %-10s %18s %10s %8s\n", "clock", "Google Benchmark", "bench.h", "ratio"
	printf "  %-10s %18.1f %10.1f %8.4f\n", "cpu", gc, bc, bc / gc
	printf "  %-10s %18.1f %10.1f %8.4f\n", "wall", gr, bw, bw / gr
	printf "bench.h overhead per call on an empty function: %.3f ns (cpu), %.3f ns (wall)\n", z, zw
	if (bc / gc < 0.98 || bc / gc > 1.02) {
		print "timer-vs-gbench: bench.h and Google Benchmark differ by more than 2 %" > "/dev/stderr"
		exit 1
	}
}' "$out/gbench.txt" "$out/bench.txt"
