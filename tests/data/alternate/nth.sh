#!/bin/sh
# A side that counts its calls in file $1 and dies of SIGSEGV on call $2,
# after a line on stderr.
n=$(($(cat "$1" 2>/dev/null || echo 0) + 1))
echo "$n" >"$1"
if [ "$n" -eq "$2" ]; then
	echo "nth: dying on call $n" >&2
	kill -SEGV $$
fi
printf '{"call":%d}\n' "$n"
