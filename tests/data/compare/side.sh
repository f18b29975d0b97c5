#!/bin/sh
# A fake side for tests/compare.bats: prints the metric and the input digest
# of the case in BENCH_CASES. impl takes 100 ns, ref 200 (FAKE_SLOW=impl:
# impl takes 400). FAKE_BYTE=side changes one byte of that side's inputs;
# FAKE_THREAD=side makes that side start a thread; FAKE_CLOSE_AT=N makes
# call N (counted in ./calls) raise the faked CPU pressure to 90.
name=$1 c=$BENCH_CASES
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
