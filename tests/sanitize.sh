#!/bin/sh
# Build the tools with AddressSanitizer and UndefinedBehaviorSanitizer into
# build/san and run their tests against that build. A tool is a bin/*.c
# (each has a main) over the modules of lib/; its tests are
# tests/<tool>.bats, and the tests that drive several tools at once are
# named below.
out=build/san
mkdir -p "$out"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
tools='' lib=''
for src in bin/*.c; do tools="$tools $(basename "$src" .c)"; done
for src in lib/*.c; do lib="$lib $src"; done
bats=
for t in $tools; do
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -D_GNU_SOURCE -DPERFGATE_VERSION="\"$(cat VERSION)\"" -Ilib -Ibench $san -o "$out/$t" "bin/$t.c" $lib -lm || exit 2
	[ -f "tests/$t.bats" ] && bats="$bats tests/$t.bats"
done
# shellcheck disable=SC2043 # a list of one, for now
for extra in compare; do
	[ -f "tests/$extra.bats" ] && bats="$bats tests/$extra.bats"
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1
# shellcheck disable=SC2086
PERFGATE_BIN=$PWD/$out sh tests/run.sh $bats
