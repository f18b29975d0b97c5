#!/bin/sh
# worker-overhead: a round's cost with and without long-lived workers, side
# by side in one alternate run: NumPy and the kata each as a fresh process
# (python3 kata/numpy_worker.py, build/compare/kata/bench) and as a worker
# (wside on numpy_worker.py --worker, kata/worker.c), every side under
# bestof for its wall time, ROUNDS rounds (default 8) of CASE (default
# sum). At EFFORT=min (BENCH_REPS=1, BENCH_MIN_S=1e-6) a round times
# almost nothing, so its wall time is its overhead: start-up, inputs,
# round trips. Prints minjson's median and quartiles per side and effort.
# Run from the checkout after make and make compare-sides.
set -u
top=$(pwd) bin=$(pwd)/bin case=${CASE:-sum} rounds=${ROUNDS:-8}
py=${PYTHON:-/usr/bin/python3}
w=$(mktemp -d "$top/build/overhead.XXXXXX") || exit 2
trap '"$bin/wside" -q "$w/np" 2>/dev/null; "$bin/wside" -q "$w/kt" 2>/dev/null; rm -rf "$w"' EXIT
mkdir -p "$w/np" "$w/kt"
BENCH_CASES=$case BENCH_INPUT=$w/np/$case.arg build/compare/kata/bench || exit 2
cp "$w/np/$case.arg" "$w/kt/"
# The case's shape, COLSxROWS of its float64 matrix (compare.mk's COMPARE_SHAPE_<case>).
case $case in
matmul) shape=384x192 ;;
sum) shape=1x8192 ;;
rmsnorm) shape=17x1024 ;;
count_below) shape=257x1024 ;;
*) echo "worker-overhead: CASE=$case: not a case of the kata" >&2; exit 2 ;;
esac
OPENBLAS_NUM_THREADS=1 "$bin/wside" -s "$w/np" -j -a "$case=$shape:$case.arg" -- "$py" "$top/kata/numpy_worker.py" --worker || exit 2
"$bin/wside" -s "$w/kt" -a "$case=$shape:$case.arg" -- build/compare/kata/worker || exit 2
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(head -n 1 /proc/pressure/cpu 2>/dev/null)"
for effort in min default; do
	e=
	[ "$effort" = min ] && e="BENCH_REPS=1 BENCH_MIN_S=0.000001"
	# shellcheck disable=SC2086
	env $e BENCH_CASES="$case" OPENBLAS_NUM_THREADS=1 "$bin/alternate" -r "$rounds" -o "$w/$effort.jsonl" \
	    numpy_process="$bin/bestof -n 1 -- $py $top/kata/numpy_worker.py" \
	    numpy_worker="$bin/bestof -n 1 -- $bin/wside $w/np" \
	    kata_process="$bin/bestof -n 1 -- build/compare/kata/bench" \
	    kata_worker="$bin/bestof -n 1 -- $bin/wside $w/kt" >/dev/null || exit 2
	echo "effort $effort:"
	"$bin/minjson" -s q1,median,q3 -x round,slot,load,pressure,threads,discarded,runs,user_ns,sys_ns,maxrss_kb \
	    "$w/$effort.jsonl" | grep '"median"'
done
