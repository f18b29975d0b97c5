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
