#!/bin/sh
# A fake worker for tests/wside.bats, speaking just enough of the protocol
# to misbehave as FAKE_LIE says: digest (an L reply of zeros), threads (V
# reports two), blas (V reports one thread, OpenBLAS four), long (a
# 5000-byte reply to V).
while read -r op rest; do
	case $op in
	V)
		if [ "${FAKE_LIE-}" = long ]; then
			printf 'v a=%05000d\n' 0
		elif [ "${FAKE_LIE-}" = threads ]; then
			echo "v harness=sh threads=2 threads_source=proc"
		elif [ "${FAKE_LIE-}" = blas ]; then
			echo "v harness=sh threads=1 threads_source=proc openblas_threads=4"
		else
			echo "v harness=sh threads=1 threads_source=assumed"
		fi ;;
	L) echo "ok 0000000000000000000000000000000000000000000000000000000000000000" ;;
	*) echo "err not served" ;;
	esac
done
