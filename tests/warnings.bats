#!/usr/bin/env bats
# warnings: every C file compiles warning-free under gcc, clang and tcc at
# -Wall -Wextra (tests/warnings.sh, make warnings), and the man pages are
# mandoc -Tlint clean (make lint-man). Here, so that a compiler or mandoc
# missing is a skip naming it, and make test still runs the rest.

load common

setup() {
	cd "$TOP"
}

compiles() {
	command -v "$1" >/dev/null || skip "$1 is not installed"
	run -0 sh tests/warnings.sh "$1"
}

@test "warnings: gcc compiles every C file warning-free" {
	compiles gcc
}

@test "warnings: clang compiles every C file warning-free" {
	compiles clang
}

@test "warnings: tcc compiles every C file warning-free" {
	compiles tcc
}

# A scratch tree of three files, the middle one with a warning planted for
# each compiler: an unused variable (clang: one -cc1 for every file, so a
# file between others), a use gcc finds uninitialized only at -O2, a call
# tcc finds undeclared. Each must fail, naming the file and the warning.
planted() {
	command -v "$1" >/dev/null || skip "$1 is not installed"
	mkdir -p "$BATS_TEST_TMPDIR/tree/bin" "$BATS_TEST_TMPDIR/tree/lib"
	cd "$BATS_TEST_TMPDIR/tree"
	printf 'int clean(int);\nint clean(int c)\n{\n\treturn c;\n}\n' >bin/a.c
	cp bin/a.c lib/z.c
	cat >bin/planted.c <<-'EOF'
	int g(int);
	int f(int c);
	int f(int c)
	{
		int x;
		int unused;
		if (c & 1)
			x = g(1);
		if (c & 2)
			return x;
		return h(c);
	}
	EOF
	run -1 sh "$TOP/tests/warnings.sh" "$1"
	[[ "$output" != *"did not read every file"* ]]
	[[ "$output" != *a.c* && "$output" != *z.c* ]]
}

@test "warnings: a planted warning fails each compiler, naming the file" {
	planted gcc
	[[ "$output" == *"bin/planted.c:10:"*"may be used uninitialized"* ]]
	[[ "$output" == *"warnings: gcc bin/planted.c is not warning-free"* ]]
	planted clang
	[[ "$output" == *"bin/planted.c:6:"*"unused variable 'unused'"* ]]
	[[ "$output" == *"warnings: clang: the files above are not warning-free"* ]]
	planted tcc
	[[ "$output" == *"bin/planted.c:11: warning: implicit declaration of function 'h'"* ]]
	[[ "$output" == *"warnings: tcc bin/planted.c is not warning-free"* ]]
}

@test "warnings: a -cc1 line holding a backquote is never run as shell code: each file is checked apart" {
	command -v clang >/dev/null || skip "clang is not installed"
	T=$BATS_TEST_TMPDIR
	mkdir "$T/bin"
	# A clang whose -### line would run touch if the shell read it as code.
	printf '#!/bin/sh\ncase "$*" in *-###*) echo " \\"/usr/bin/clang\\" \\"-cc1\\" \\"-x\\`touch %s/pwned\\`\\"" >&2; exit 0 ;; esac\nexec %s "$@"\n' \
	    "$T" "$(command -v clang)" > "$T/bin/clang"
	chmod +x "$T/bin/clang"
	PATH=$T/bin:$PATH run -0 --separate-stderr sh tests/warnings.sh clang
	[ ! -e "$T/pwned" ]
	[[ "$stderr" == *"clang -### shows no -cc1 line to read as words: each file again"* ]]
}

@test "warnings: make lint-man: mandoc -Tlint finds nothing in the man pages" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	run -0 make -s --no-print-directory lint-man
	[ "$output" = "" ]
}

@test "warnings: no script of the project points a compiler at /dev/null" {
	# tcc -c -o FILE unlinks FILE and writes a new one: as root, tcc -o
	# /dev/null replaces the device with a regular file for every process
	# (seen on this machine, 2026-12-03: tcc -c -o /dev/null lib/plot*.c).
	# Objects go to build/ (tests/warnings.sh: build/warnings/).
	run -1 git -C "$TOP" grep -nE '(cc|tcc|clang|gcc|CC\)|CC}?|ld) [^|;&]*-o *"?/dev/' -- Makefile 'mk/*' 'tests/*.sh' 'tests/*.bats' 'tests/*.py' 'lab/*' 'kata/*.sh' 'ci/*' bin/perfgate .ci/run ':!tests/warnings.bats'
	[ "$output" = "" ]
}
