# Shared by every tests/*.bats file: the tools under test come first in PATH
# (PERFGATE_BIN, default the checkout's bin/, lets test-san swap them).
bats_require_minimum_version 1.5.0
TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
BIN=${PERFGATE_BIN:-$TOP/bin}
PATH="$BIN:$PATH"
DATA=$TOP/tests/data

# A tool refuses an unknown option and an option missing its value in its
# own voice, with the usage line, exit 2 and nothing on stdout.
# bad_options TOOL OPTION-THAT-TAKES-A-VALUE
bad_options() {
	run -2 --separate-stderr "$1" -Z
	[ "${stderr_lines[0]}" = "$1: unknown option -Z" ]
	[[ "${stderr_lines[1]}" == "usage: $1 "* ]]
	run -2 --separate-stderr "$1" "-$2"
	[ "${stderr_lines[0]}" = "$1: option -$2 needs an argument" ]
	[ "$output" = "" ]
}
