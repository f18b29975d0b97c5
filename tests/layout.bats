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

@test "layout: every C file of bin/ and lib/ is at most 600 lines, but the three still to split, which may only shrink" {
	cd "$TOP"
	# Still to split (issue 19): their ceilings may go down, never up.
	declare -A ceiling=([bin/cmpbudget.c]=735 [bin/alternate.c]=674 [bin/minjson.c]=631)
	for f in bin/*.c lib/*.c; do
		n=$(wc -l < "$f")
		[ "$n" -le "${ceiling[$f]:-600}" ] || { echo "$f: $n lines"; false; }
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
