#!/bin/sh
# Fuzz perfgate's parsers (make fuzz), or replay every committed input
# through every target without a fuzzer (tests/fuzz.bats).
#
#   sh tests/fuzz/run.sh [target ...]        fuzz each target FUZZ_S seconds
#   sh tests/fuzz/run.sh -r [target ...]     build the replay drivers, replay
#   sh tests/fuzz/run.sh -m [target ...]     merge what fuzzing found into the
#                                            committed seeds, minimized
#
# A target is tests/fuzz/NAME.c defining LLVMFuzzerTestOneInput. Fuzzing
# builds it with clang -fsanitize=fuzzer,address,undefined (libFuzzer, from
# Debian's libclang-rt-14-dev, which clang pulls in), or with FUZZ_ENGINE=afl
# with afl-clang-fast (AFL++); FUZZ_RUNS=N runs N executions a target instead
# of FUZZ_S seconds (libFuzzer); FUZZ_SAN=undefined leaves AddressSanitizer
# out, for speed; FUZZ_MAXLEN=N caps every input at N bytes. The committed seeds are tests/fuzz/corpus/NAME
# (minimized) and tests/fuzz/badinput/NAME (the bats tests' bad inputs, kept
# whole); what a run adds stays in build/fuzz/corpus/NAME. A crash is copied to
# tests/fuzz/crashes/NAME/, where the replay test runs it from then on.
# Prints a table (also build/fuzz/table.md): executions, exec/s, coverage
# (libFuzzer: edges; AFL++: bitmap), corpus (paths), crashes. Exit 0, 1 if
# a target crashed, 2 if something could not be built or run. FUZZ_OUT
# moves build/fuzz elsewhere.
cd "$(dirname "$0")/../.." || exit 2
out=${FUZZ_OUT:-build/fuzz}
secs=${FUZZ_S:-10}
runs=${FUZZ_RUNS:-}
engine=${FUZZ_ENGINE:-libfuzzer}
san="-fsanitize=${FUZZ_SAN:-address,undefined} -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
flags="-std=c11 -D_GNU_SOURCE -Ilib -Ibench -Itests/fuzz"
lib=$(echo lib/*.c)
mode=fuzz
case ${1:-} in
-r) mode=replay; shift ;;
-m) mode=merge; shift ;;
esac
targets=$*
[ -n "$targets" ] || targets=$(grep -l '^LLVMFuzzerTestOneInput' tests/fuzz/*.c | sed 's|.*/||; s|\.c$||')
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$out"

# The largest input worth trying: records are lines, numbers and names short.
maxlen() {
	[ -n "${FUZZ_MAXLEN:-}" ] && { echo "$FUZZ_MAXLEN"; return; }
	case $1 in
	number) echo 64 ;;
	benchenv|side) echo 256 ;;
	*) echo 2048 ;;
	esac
}

# What a target's head comment asks for: " * LDFLAGS: ..." for the link;
# " * LEAKS: why" when a refusal that jumps out of the code under test
# loses memory the real program frees by exiting, so leaks are not checked.
ldflags() {
	sed -n 's/^ \* LDFLAGS: //p' "tests/fuzz/$1.c"
}
asanopts() {
	if grep -q '^ \* LEAKS: ' "tests/fuzz/$1.c"; then
		echo "$ASAN_OPTIONS" | sed 's/detect_leaks=1/detect_leaks=0/; /detect_leaks/!s/$/:detect_leaks=0/'
	else
		echo "$ASAN_OPTIONS"
	fi
}

if [ $mode = replay ]; then
	# Every committed input, whichever target it was found by, through every target.
	mkdir -p "$out/replay"
	status=0
	dirs=
	for d in tests/fuzz/badinput tests/fuzz/corpus tests/fuzz/crashes; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	# The library's objects once for every target, and for every later
	# replay of one target alone (tests/fuzz.bats replays each in a run of
	# its own): keyed by the compiler, the flags and every source and header.
	key=$({ echo "${CC:-cc} $flags $san"; cat $lib lib/*.h bench/*.h tests/fuzz/*.h; } | sha256sum | cut -c1-16)
	objdir=$out/replay/obj-$key
	if [ ! -d "$objdir" ]; then
		rm -rf "$objdir.$$"
		mkdir -p "$objdir.$$"
		for c in $lib; do
			${CC:-cc} $flags $san -c -o "$objdir.$$/$(basename "$c" .c).o" "$c" || exit 2
		done
		mv -T "$objdir.$$" "$objdir" 2>/dev/null || rm -rf "$objdir.$$"
	fi
	objs=$(for c in $lib; do printf '%s ' "$objdir/$(basename "$c" .c).o"; done)
	for t in $targets; do
		${CC:-cc} $flags $san -o "$out/replay/$t" tests/fuzz/driver.c "tests/fuzz/$t.c" $objs -lm \
		    $(ldflags "$t") || exit 2
		ASAN_OPTIONS=$(asanopts "$t") "$out/replay/$t" -v $dirs 2>"$out/replay/$t.log" ||
		    { tail -n 40 "$out/replay/$t.log" >&2; status=1; }
		tail -n 1 "$out/replay/$t.log" | sed "s/^driver:/fuzz: $t:/"
	done
	exit $status
fi

# The library once, instrumented, then each target against it.
fcc=clang
[ "$engine" = afl ] && fcc=afl-clang-fast
export AFL_QUIET=1
objs=
build() {	# build TARGET -> $out/bin/TARGET
	mkdir -p "$out/bin" "$out/obj"
	if [ -z "$objs" ]; then
		for c in $lib; do
			o=$out/obj/$(basename "$c" .c).o
			$fcc $flags $san -fsanitize=fuzzer-no-link -c -o "$o" "$c" || return 2
			objs="$objs $o"
		done
	fi
	$fcc $flags $san -fsanitize=fuzzer -o "$out/bin/$1" "tests/fuzz/$1.c" $objs -lm $(ldflags "$1")
}

if [ $mode = merge ]; then
	for t in $targets; do
		build "$t" || exit 2
		rm -rf "$out/merged"
		mkdir -p "$out/merged" "$out/corpus/$t" "tests/fuzz/corpus/$t"
		ASAN_OPTIONS=$(asanopts "$t") "$out/bin/$t" -merge=1 -artifact_prefix="$out/" -max_len="$(maxlen "$t")" "$out/merged" \
		    "tests/fuzz/corpus/$t" "$out/corpus/$t" >"$out/$t.merge.log" 2>&1 || { tail "$out/$t.merge.log" >&2; exit 2; }
		rm -f "tests/fuzz/corpus/$t"/*
		cp "$out/merged"/* "tests/fuzz/corpus/$t/"
		echo "fuzz: $t: $(ls "tests/fuzz/corpus/$t" | wc -l) seeds"
	done
	exit 0
fi

case $engine in
libfuzzer)
	command -v clang >/dev/null || { echo "fuzz: clang not found (apt-get install clang)" >&2; exit 2; } ;;
afl)
	command -v afl-fuzz >/dev/null || { echo "fuzz: afl-fuzz not found (apt-get install afl++)" >&2; exit 2; } ;;
*)
	echo "fuzz: FUZZ_ENGINE is libfuzzer or afl, not $engine" >&2; exit 2 ;;
esac

table=$out/table.md
{
	echo "| target | engine | s | executions | exec/s | coverage | corpus | crashes |"
	echo "|---|---|--:|--:|--:|--:|--:|--:|"
} >"$table"
status=0
for t in $targets; do
	build "$t" || { echo "fuzz: cannot build $t" >&2; exit 2; }
	mkdir -p "$out/corpus/$t" "$out/crashes/$t" "tests/fuzz/corpus/$t" "tests/fuzz/badinput/$t"
	rm -f "$out/crashes/$t"/*
	log=$out/$t.log
	start=$(date +%s)
	if [ "$engine" = afl ]; then
		rm -rf "$out/afl/$t"
		mkdir -p "$out/afl/$t.in"
		cp "tests/fuzz/corpus/$t"/* "tests/fuzz/badinput/$t"/* "$out/afl/$t.in/" 2>/dev/null
		cp "$out/corpus/$t"/* "$out/afl/$t.in/" 2>/dev/null
		# afl-fuzz wants symbolize=0: it symbolizes nothing, it keeps inputs.
		ASAN_OPTIONS="$(asanopts "$t"):symbolize=0" \
		    AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
		    AFL_SKIP_CRASHES=1 afl-fuzz -V "$secs" -i "$out/afl/$t.in" -o "$out/afl/$t" \
		    -- "$out/bin/$t" >"$log" 2>&1
		st=$out/afl/$t/default/fuzzer_stats
		[ -f "$st" ] || { tail "$log" >&2; exit 2; }
		execs=$(sed -n 's/^execs_done *: //p' "$st")
		cov=$(sed -n 's/^bitmap_cvg *: //p' "$st")
		corp=$(sed -n 's/^corpus_count *: //p' "$st")
		for f in "$out/afl/$t/default/crashes"/id*; do
			[ -e "$f" ] && cp "$f" "$out/crashes/$t/afl-$(sha1sum <"$f" | cut -c1-16)"
		done
		cp "$out/afl/$t/default/queue"/id* "$out/corpus/$t/" 2>/dev/null
	else
		if [ -n "$runs" ]; then limit="-runs=$runs"; else limit="-max_total_time=$secs"; fi
		ASAN_OPTIONS=$(asanopts "$t") "$out/bin/$t" $limit -max_len="$(maxlen "$t")" -timeout=10 -rss_limit_mb=2048 \
		    -print_final_stats=1 -artifact_prefix="$out/crashes/$t/" \
		    "$out/corpus/$t" "tests/fuzz/corpus/$t" "tests/fuzz/badinput/$t" >"$log" 2>&1
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		# A crash ends the run before the final statistics: take the last status line.
		[ -n "$execs" ] || execs=$(grep -E '^#[0-9]+[[:space:]]+[A-Z]' "$log" | tail -n 1 | sed 's/^#\([0-9]*\).*/\1/')
		[ -n "$execs" ] || execs=0
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
		corp=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | sed 's/corp: //')
		[ -n "$execs" ] || { tail -n 30 "$log" >&2; echo "fuzz: $t did not run (see $log)" >&2; exit 2; }
	fi
	took=$(($(date +%s) - start))
	[ "$took" -gt 0 ] || took=1
	crashes=$(ls "$out/crashes/$t" | wc -l)
	if [ "$crashes" -gt 0 ]; then
		status=1
		mkdir -p "tests/fuzz/crashes/$t"
		cp "$out/crashes/$t"/* "tests/fuzz/crashes/$t/"
		echo "fuzz: $t crashed; input(s) in tests/fuzz/crashes/$t, log in $log" >&2
	fi
	echo "| $t | $engine | $took | $execs | $((execs / took)) | ${cov:-?} | ${corp:-?} | $crashes |" >>"$table"
done
cat "$table"
exit $status
