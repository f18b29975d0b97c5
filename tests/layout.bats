#!/usr/bin/env bats
# layout: the house's rules, as docs/DESIGN.md states them. bin/ holds the
# tools (each .c has a main) and nothing else that is source; lib/ the
# modules (none has a main, none includes a tool's file); bench/ is what a
# benchmark includes and is installed whole, so the installed default gate
# (the kata) builds from a prefix.

load common

@test "layout: every bin/*.c is a tool with a main, listed in the Makefile's TOOLS; lib/ has none" {
	cd "$TOP"
	tools=$(make -s --no-print-directory --eval 'print-tools: ; @echo $(TOOLS)' print-tools)
	for f in bin/*.c; do
		grep -q '^main(' "$f" || { echo "$f has no main"; false; }
		t=$(basename "$f" .c)
		[[ " $tools " == *" $t "* ]] || { echo "$t is not in TOOLS"; false; }
	done
	for f in lib/*.c; do
		if grep -q '^main(' "$f"; then echo "$f has a main"; false; fi
	done
	# ls bin: the tools' sources, perfgate, and what the build puts there.
	for f in $(git ls-files bin); do
		case $f in bin/*.c|bin/perfgate) ;; *) echo "$f does not belong in bin/"; false ;; esac
	done
	# No module outside lib/: every other C file is a tool, the kata, a benchmark or a test.
	for f in $(git ls-files '*.c' '*.h'); do
		case $f in bin/*.c|lib/*|bench/*|kata/*|lab/*|tests/*) ;; *) echo "$f is a module outside lib/"; false ;; esac
	done
}

@test "layout: a module of lib/ includes only lib/ and bench/ headers, never a tool's" {
	cd "$TOP"
	for f in lib/*.c lib/*.h; do
		for h in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
			[ -f "lib/$h" ] || [ -f "bench/$h" ] || { echo "$f includes $h"; false; }
		done
	done
}

@test "layout: every C file of bin/ and lib/ is at most 600 lines" {
	cd "$TOP"
	for f in bin/*.c lib/*.c; do
		n=$(wc -l < "$f")
		[ "$n" -le 600 ] || { echo "$f: $n lines"; false; }
	done
}

@test "layout: make install copies bench/ whole, and the installed default gate builds the kata from the prefix" {
	dest=$BATS_TEST_TMPDIR/dest
	run -0 make -C "$TOP" install DESTDIR="$dest" PREFIX=/usr/local
	share=$dest/usr/local/share/perfgate
	for f in "$TOP"/bench/*; do
		cmp "$f" "$share/bench/${f##*/}"
	done
	# The gate a user runs first: the kata against itself, from the prefix alone.
	mkdir "$BATS_TEST_TMPDIR/w" && cd "$BATS_TEST_TMPDIR/w"
	run --separate-stderr "$dest/usr/local/bin/perfgate" GATE_MK="$share/gate.mk" \
	    BASE="$share/kata/kernels.c" HEAD="$share/kata/kernels.c" BUDGET="$TOP/budget.toml"
	[ "$(last | jq -r .verdict)" != error ] || { printf '%s\n' "$stderr" | tail -n 5; false; }
	[[ "$stderr" != *"does not compile"* ]]
}

@test "layout: bench/ is what a benchmark includes, headers only; the kata's driver lives beside the kata" {
	cd "$TOP"
	for f in $(git ls-files bench); do
		case $f in bench/*.h) ;; *) echo "$f is not a header: bench/ is installed for benchmarks to include"; false ;; esac
	done
	[ -f kata/bench.c ] && [ ! -e bench/bench.c ]
	# Nothing in bench/ includes the kata (an arrow back up to what it serves).
	run -1 grep -l '^#include "\(kernels\|plain\|oracle\)\.h"' bench/*.h
	# gate.mk's default driver is the kata's.
	grep -q '^GATE_BENCH_SRC ?= $(GATE_SHARE)/kata/bench.c$' mk/gate.mk
}

@test "layout: no two headers of bench/ include each other, and none uses another's insides but bench_core.h's" {
	cd "$TOP"
	# Who includes whom among bench/'s headers: a circle would show as a pair both ways.
	for f in bench/*.h; do
		for h in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
			[ -f "bench/$h" ] || continue
			if grep -q "^#include \"${f#bench/}\"" "bench/$h"; then echo "$f and bench/$h include each other"; false; fi
		done
	done
	# bench_core.h includes no header of ours; bench_counts.h only bench_core.h.
	run -1 grep '^#include "' bench/bench_core.h
	[ "$(sed -n 's/^#include "\(.*\)"/\1/p' bench/bench_counts.h)" = bench_core.h ]
	# What the counts mode takes from the timer is in bench_core.h, not bench.h.
	for name in $(grep -o '\bbench_[a-z_]*_\b' bench/bench_counts.h | sort -u); do
		if grep -q "^$name(" bench/bench.h; then echo "bench_counts.h uses bench.h's $name"; false; fi
	done
}

@test "layout: the top level holds the project's folders and files, no stray output" {
	cd "$TOP"
	# A new top-level entry belongs in this list, with a reason in docs/DESIGN.md.
	for f in $(git ls-files | sed 's|/.*||' | sort -u); do
		case $f in .ci|.gitignore|LICENSE|Makefile|README.md|VERSION|bench|bin|budget.toml|ci|docs|kata|lab|lib|man|mk|tests) ;;
		*) echo "$f does not belong at the top level"; false ;;
		esac
	done
}

@test "layout: every document a source comment cites by name (DESIGN.md, STYLE.md, ...) exists" {
	cd "$TOP"
	for name in $(grep -ohE '\b[A-Z]+\.md\b' lib/*.[ch] bin/*.c bin/perfgate bench/*.h kata/*.[ch] mk/* ci/*.sh | sort -u); do
		[ -f "$name" ] || [ -f "docs/$name" ] || [ -f "kata/$name" ] || { echo "$name is cited but does not exist"; false; }
	done
}
