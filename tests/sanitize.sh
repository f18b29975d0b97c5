#!/bin/sh
# Build the tools with AddressSanitizer and UndefinedBehaviorSanitizer into
# build/san and run their tests against that build.
out=build/san
mkdir -p "$out"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
lib=$(ls bin/*.c | grep -Ev '/(bestof|alternate|minjson|cmpbudget|refjudge|perfdoc)\.c$')
for t in bestof alternate minjson cmpbudget refjudge perfdoc; do
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Ibin -Ibench $san -o "$out/$t" "bin/$t.c" $lib -lm || exit 2
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1
PERFGATE_BIN=$PWD/$out sh tests/run.sh tests/bestof.bats tests/alternate.bats tests/minjson.bats tests/cmpbudget.bats tests/refjudge.bats tests/perfdoc.bats tests/compare.bats
