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
