#!/bin/sh
# A side that, on its first call only, raises the faked load average to 9
# and then leaves the flag file $1 for the test to lower it again later.
if [ ! -e "$1" ]; then
	echo '9.00 9.00 9.00 1/100 1' >"$PERFGATE_LOADAVG.tmp"
	mv "$PERFGATE_LOADAVG.tmp" "$PERFGATE_LOADAVG"
	: >"$1"
fi
echo '{"t_ns":2}'
