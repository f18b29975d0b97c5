#!/bin/sh
# A fake side for tests/compare.bats: prints the metric and the input digest
# of the case in BENCH_CASES. impl takes 100 ns, ref 200 (FAKE_SLOW=impl:
# impl takes 400). FAKE_BYTE=side changes one byte of that side's inputs;
# FAKE_THREAD=side makes that side start a thread; FAKE_CLOSE_AT=N makes
# call N (counted in ./calls) raise the faked CPU pressure to 90.
# BENCH_MODE=counts prints allocations instead (FAKE_ALLOCS).
name=$1 c=$BENCH_CASES
# Counts mode (make compare-ci, compare-allocs): FAKE_ALLOCS allocations a
# call (default 0), 16 bytes each, for every case of BENCH_CASES.
if [ "${BENCH_MODE-}" = counts ]; then
	line= a=${FAKE_ALLOCS:-0}
	for k in $(echo "$c" | tr ',' ' '); do
		line="$line${line:+,}\"${k}_allocs\":$a,\"${k}_alloc_bytes\":$((a * 16))"
	done
	echo "{$line}"
	exit 0
fi
n=$(($(cat calls 2>/dev/null || echo 0) + 1))
echo "$n" >calls
if [ "$n" = "${FAKE_CLOSE_AT-}" ]; then
	echo 'some avg10=90.00 avg60=0.00 avg300=0.00 total=1' >"$PERFGATE_PRESSURE.tmp"
	mv "$PERFGATE_PRESSURE.tmp" "$PERFGATE_PRESSURE"
fi
t=100
[ "$name" = ref ] && t=200
[ "$name" = "${FAKE_SLOW-}" ] && t=400
b=0
[ "$name" = "${FAKE_BYTE-}" ] && b=1
d=$(printf 'input:%s:%s' "$c" "$b" | sha256sum | cut -c1-64)
line="{\"${c}_ns\":$t,\"${c}_input_sha256\":\"$d\"}"
if [ "$name" = "${FAKE_THREAD-}" ]; then
	exec /usr/bin/python3 -c 'import sys, threading, time
t = threading.Thread(target=time.sleep, args=(0.2,))
t.start()
t.join()
print(sys.argv[1])' "$line"
fi
echo "$line"
