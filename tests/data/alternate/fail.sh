#!/bin/sh
# A side that, on call $1 (counted in file ./calls), writes "boom" to stderr
# and exits with status $2; else prints a metric.
n=$(($(cat calls 2>/dev/null || echo 0) + 1))
echo "$n" >calls
if [ "$n" -eq "$1" ]; then
	echo boom >&2
	exit "$2"
fi
echo '{"t_ns":1}'
