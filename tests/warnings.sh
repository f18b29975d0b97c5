#!/bin/sh
# warnings.sh [CC...]: compile every C file of perfgate with each compiler
# (gcc, clang and tcc when none is named) at -O2 -Wall -Wextra, and fail
# on any warning. WARNINGS_JOBS (2) files compile at a time.
#
# gcc's warnings are partly its optimiser's (-Wmaybe-uninitialized, the
# -Wstringop and -Warray-bounds families): it compiles each file at -O2,
# to assembly (-S: the assembler warns of nothing). clang's are all its
# front end's (Sema and its flow analyses, -Wuninitialized among them), so
# -fsyntax-only finds what -c finds; and one clang -cc1 reads every file,
# where the driver starts a process a file, which costs 0.1 s before it
# reads a line (112 files, 2026-12-04: clang -c a file 28 s, -fsyntax-only
# a file 17 s, one -cc1 for all 3.5 s).
# That -cc1 command line is the driver's own (clang -###), for a probe
# file with one planted warning given first and again last: both warnings
# must be there, or every file is checked again a clang -fsyntax-only each.
out=build/warnings
mkdir -p "$out"
flags='-std=c11 -O2 -Wall -Wextra -D_GNU_SOURCE -Ilib -Ikata -Ibench -Itests/fuzz'
jobs=${WARNINGS_JOBS:-2}
status=0
[ $# -gt 0 ] || set -- gcc clang tcc

# The files, by glob (a glob no file matches is none).
globs='bin/*.c lib/*.c kata/*.c bench/*.c tests/unit/*.c tests/fuzz/*.c'

# each CC MODE: compile every file with CC, WARNINGS_JOBS at a time (an
# sh for 8 files: a process a file cost tcc more than its compiling), the
# Nth file's diagnostics in $out/CC-N.log; then name each file with any.
# MODE: s (gcc -S), c (-c), syntax (-fsyntax-only).
each() {
	rm -f "$out/$1-"*.log
	n=0
	# shellcheck disable=SC2086,SC2016 # the globs are words; sh -c's own
	for src in $globs; do
		[ -e "$src" ] && n=$((n + 1)) && printf '%s\0%s\0' "$n" "$src"
	done | xargs -0 -n 16 -P "$jobs" sh -c '
		cc=$1 mode=$2 out=$3 flags=$4
		shift 4
		while [ $# -gt 1 ]; do
			base=$out/$cc-$1 src=$2
			shift 2
			# shellcheck disable=SC2086 # the flags are words
			case $mode in
			s) "$cc" $flags -S -o "$base.s" "$src" ;;
			c) "$cc" $flags -c -o "$base.o" "$src" ;;
			*) "$cc" $flags -fsyntax-only "$src" ;;
			esac >"$base.log" 2>&1 ||
				echo "$cc exited with status $?" >>"$base.log"
		done' sh "$1" "$2" "$out" "$flags"
	ok=0 n=0
	# shellcheck disable=SC2086 # the globs are words
	for src in $globs; do
		[ -e "$src" ] || continue
		n=$((n + 1))
		if [ ! -e "$out/$1-$n.log" ]; then
			echo "warnings: $1 $src was not compiled" >&2
			ok=1
		elif [ -s "$out/$1-$n.log" ]; then
			cat "$out/$1-$n.log" >&2
			echo "warnings: $1 $src is not warning-free" >&2
			ok=1
		fi
	done
	return $ok
}

# clang_once CC: every file through one CC -cc1 (above): 1 for a warning,
# 2 when CC -### shows no -cc1 line to read as words, 3 when the probe shows that it did not
# read every file.
clang_once() {
	cc=$1 p1=$out/probe-first.c p2=$out/probe-last.c
	printf 'void probe(void);\nvoid probe(void) { int planted; }\n' >"$p1"
	cp "$p1" "$p2"
	# shellcheck disable=SC2086 # the flags are words
	# -ffile-compilation-dir=.: the checkout's directory, which may hold any
	# byte, is not in the line.
	line=$("$1" -### $flags -ffile-compilation-dir=. -fsyntax-only -fno-caret-diagnostics "$p1" 2>&1 | grep -e '"-cc1"')
	[ -n "$line" ] || return 2
	# The driver's words, its input "$p1" last; then the files, and "$p2".
	# -### escapes " \ and $ in its double quotes, not `: a line with one
	# is not read as shell words (each file is then checked apart).
	case $line in *'`'*) return 2 ;; esac
	eval "set -- $line"
	# shellcheck disable=SC2086 # the globs are words
	for src in $globs; do
		[ -e "$src" ] && set -- "$@" "$src"
	done
	log=$("$@" "$p2" 2>&1) || log="$log
$cc -cc1 exited with status $?"
	for p in "$p1" "$p2"; do
		printf '%s\n' "$log" | grep -F "$p:2:" | grep -qF "warning: unused variable 'planted' [-Wunused-variable]" || return 3
	done
	rest=$(printf '%s\n' "$log" | grep -vF -e "$p1:" -e "$p2:" | grep -vx -e '[0-9]* warnings\{0,1\} generated\.')
	[ -z "$rest" ] && return 0
	printf '%s\n' "$rest" >&2
	echo "warnings: $cc: the files above are not warning-free" >&2
	return 1
}

for cc in "$@"; do
	command -v "$cc" >/dev/null 2>&1 || { echo "warnings: $cc not found" >&2; status=1; continue; }
	case $cc in
	gcc*) each "$cc" s || status=1 ;;
	clang*)
		clang_once "$cc"
		r=$?
		case $r in
		0) ;;
		1) status=1 ;;
		*)
			[ $r = 2 ] && why="$cc -### shows no -cc1 line to read as words" || why="$cc -cc1 did not read every file"
			echo "warnings: $why: each file again, a $cc -fsyntax-only each" >&2
			each "$cc" syntax || status=1
			;;
		esac
		;;
	*) each "$cc" c || status=1 ;;
	esac
done
[ $status = 0 ] && echo "warnings: $* compile every file warning-free"
exit $status
