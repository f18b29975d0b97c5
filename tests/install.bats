#!/usr/bin/env bats
# install: a fresh `make install PREFIX=dir` is enough for a newcomer:
# pkg-config finds bench.h through the installed perfgate.pc (for a
# PREFIX with blanks and quotes too), a benchmark built with it runs, and
# the installed default gate runs from any directory.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	V=$(cat "$TOP/VERSION")
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS PKG_CONFIG_PATH
	command -v pkg-config >/dev/null || skip "pkg-config (pkgconf) not installed"
}

# A benchmark of the kind a user writes: bench.h, one metric.
mkbench() {
	cat > "$1" <<'C'
#include "bench.h"

static void
run_add(void *arg)
{
	bench_keep_int(*(int *)arg + 1);
}

int
main(int argc, char *argv[])
{
	static int x = 41;

	(void)argc;
	bench_init(argv[0]);
	bench_add("add_ns", run_add, &x);
	return bench_report();
}
C
}

@test "install: make install PREFIX=dir installs perfgate.pc; pkg-config --cflags finds bench.h, a benchmark built with it runs" {
	P=$T/prefix
	run -0 make -C "$TOP" --no-print-directory install PREFIX="$P"
	[ -f "$P/share/pkgconfig/perfgate.pc" ] && [ -f "$P/share/perfgate/bench/bench.h" ]
	export PKG_CONFIG_PATH=$P/share/pkgconfig
	run -0 --separate-stderr pkg-config --cflags perfgate
	# pkg-config ends the flags with a blank.
	[ "${output% }" = "-I$P/share/perfgate/bench" ]
	run -0 --separate-stderr pkg-config --modversion perfgate
	[ "$output" = "$V" ]
	run -0 --separate-stderr pkg-config --variable=gatemk perfgate
	[ "$output" = "$P/share/perfgate/gate.mk" ] && [ -f "$output" ]
	cd "$T" && mkbench b.c
	run -0 --separate-stderr sh -c 'cc -std=c11 -O2 $(pkg-config --cflags perfgate) -o b b.c && BENCH_REPS=2 ./b'
	[ "$(last | jq -r 'keys | join(",")')" = add_ns ]
	# uninstall takes it away again.
	run -0 make -C "$TOP" --no-print-directory uninstall PREFIX="$P"
	[ ! -e "$P/share/pkgconfig/perfgate.pc" ]
}

@test "install: the installed default gate, the kata against itself, runs from an empty directory" {
	P=$T/prefix
	make -C "$TOP" -s install PREFIX="$P" > /dev/null
	mkdir "$T/empty" && cd "$T/empty"
	run -0 --separate-stderr make --no-print-directory -f "$P/share/perfgate/gate.mk" gate
	[ "$(last | jq -r .verdict)" = ok ]
	[ "$(last | jq -r .budget)" = "$P/share/perfgate/budget.toml" ]
	[[ "${stderr_lines[0]}" == "gate: building "*", $P/share/perfgate/kata/kernels.c (sha256:"* ]]
	# So does perfgate, with the exact status.
	run -0 --separate-stderr "$P/bin/perfgate" -f "$P/share/perfgate/gate.mk"
	[ "$(last | jq -r .verdict)" = ok ]
}

# pcprefix P: perfgate.pc for PREFIX P, and bench/'s headers where it says.
pcprefix() {
	mkdir -p "$1/share/pkgconfig" "$1/share/perfgate/bench"
	cp "$TOP"/bench/*.h "$1/share/perfgate/bench/"
	run -0 --separate-stderr sh "$TOP/mk/perfgate-pc.sh" "$TOP/mk/perfgate.pc.in" "$1" "$1/share/perfgate" "$V"
	printf '%s\n' "$output" > "$1/share/pkgconfig/perfgate.pc"
	export PKG_CONFIG_PATH=$1/share/pkgconfig
}

@test "install: perfgate.pc for a PREFIX with blanks, quotes, '#', ';', '\`' and a backslash gives bench.h's directory back as one word" {
	P="$T/my \"pre'fix\" #1; a\\b \`x\`"
	pcprefix "$P"
	run -0 --separate-stderr pkg-config --modversion perfgate
	[ "$output" = "$V" ]
	# pkg-config escapes for the shell: eval gives one word, the directory.
	flags=$(pkg-config --cflags perfgate)
	eval "set -- $flags"
	[ $# -eq 1 ] && [ "$1" = "-I$P/share/perfgate/bench" ]
}

@test "install: a benchmark's Makefile builds with \$(shell pkg-config --cflags perfgate) under a PREFIX with blanks, '#' and ';'" {
	# Not a double quote or a backslash: gcc writes the include path into
	# its assembly unescaped, and the assembler refuses it.
	P="$T/my pre'fix #1; x"
	pcprefix "$P"
	cd "$T" && mkbench b.c
	printf 'b: b.c\n\tcc -std=c11 $(shell pkg-config --cflags perfgate) -o $@ b.c\n' > Makefile
	run -0 make --no-print-directory b
	run -0 --separate-stderr env BENCH_REPS=2 ./b
	[ "$(last | jq -r 'keys | join(",")')" = add_ns ]
}

@test "install: perfgate-pc.sh refuses a PREFIX with a '\$', which pkg-config cannot pass to a shell, exit 2" {
	for P in '/opt/${x}' '/opt/$HOME'; do
		run -2 --separate-stderr sh "$TOP/mk/perfgate-pc.sh" "$TOP/mk/perfgate.pc.in" "$P" "$P/share/perfgate" "$V"
		[ "$output" = "" ]
		[ "$stderr" = "perfgate-pc.sh: $P: pkg-config cannot pass a '\$' or a newline to the shell" ]
	done
}
