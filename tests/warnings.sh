#!/bin/sh
# warnings.sh [CC...]: compile every C file of perfgate with each compiler
# (gcc, clang and tcc when none is named) at -Wall -Wextra, and fail on
# any warning.
out=build/warnings
mkdir -p "$out"
status=0
[ $# -gt 0 ] || set -- gcc clang tcc
for cc in "$@"; do
	command -v "$cc" >/dev/null 2>&1 || { echo "warnings: $cc not found" >&2; status=1; continue; }
	for src in bin/*.c lib/*.c kata/*.c bench/*.c tests/unit/*.c tests/fuzz/*.c; do
		[ -e "$src" ] || continue
		obj="$out/$cc-$(echo "$src" | tr / _).o"
		log=$("$cc" -std=c11 -O2 -Wall -Wextra -D_GNU_SOURCE -Ilib -Ikata -Ibench -Itests/fuzz -c -o "$obj" "$src" 2>&1)
		if [ -n "$log" ]; then
			printf '%s\n' "$log" >&2
			echo "warnings: $cc $src is not warning-free" >&2
			status=1
		fi
	done
done
[ $status = 0 ] && echo "warnings: $* compile every file warning-free"
exit $status
