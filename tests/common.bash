# Shared by every tests/*.bats file: the tools under test come first in PATH
# (PERFGATE_BIN, default the checkout's bin/, lets test-san swap the C
# tools; the shell tools, bin/perfgate, are always the checkout's).
bats_require_minimum_version 1.5.0
TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
BIN=${PERFGATE_BIN:-$TOP/bin}
PATH="$BIN:$TOP/bin:$PATH"
DATA=$TOP/tests/data
# make test runs under perfgate's own Makefile, which includes gate.mk and
# so exports its GATE_* settings (GATE_TREE_FILE, the kata's, among them):
# a test's gates and projects start from none of them, as a user's do.
# shellcheck disable=SC2046
unset MAKEFLAGS MFLAGS MAKELEVEL $(env | sed -n 's/^\(GATE_[A-Za-z0-9_]*\)=.*/\1/p')
# A bats run's pinned runs hold their CPUs among its own gates alone
# (lib/pin.c): the machine's other gates, other test runs among them, do
# not move them. Outside every test's directory: a test's work tree (a git
# project, a compare's digest of untracked files) holds no lock.
export PERFGATE_CPU_LOCKS="$BATS_RUN_TMPDIR/cpu locks"

# need_pkg COMMAND PACKAGE: the test needs COMMAND, which PACKAGE (a line
# of tests/packages) installs: without it, the test is skipped, naming the
# package, and run.sh's last lines name the apt-get line for it.
need_pkg() {
	command -v "$1" >/dev/null || skip "$2 is not installed"
}

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

# The SYNOPSIS of man/TOOL.1 on one line, as mandoc renders it.
# man_synopsis TOOL
man_synopsis() {
	mandoc -Tascii "$TOP/man/$1.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//'
}

# The usage TOOL prints (the last lines on stderr after an unknown option,
# from the one that begins "usage: ", a form a line) is "usage: " and the
# man page's SYNOPSIS, word for word.
# check_synopsis TOOL
check_synopsis() {
	local synopsis usage i
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	synopsis=$(man_synopsis "$1")
	[ -n "$synopsis" ]
	run -2 --separate-stderr "$1" -Z
	for ((i = ${#stderr_lines[@]} - 1; i > 0; i--)); do
		[[ "${stderr_lines[i]}" == "usage: "* ]] && break
	done
	usage=$(printf '%s\n' "${stderr_lines[@]:i}" | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')
	[ "$usage" = "usage: $synopsis" ] ||
	    { echo "usage:    $usage"; echo "SYNOPSIS: $synopsis"; return 1; }
}

# The EXAMPLES of man/TOOL.1, one command a line as a reader types it:
# each .Dl line, a leading "$ " prompt taken off, mdoc's escapes \(dq, \-
# and \e undone.
# man_examples TOOL
man_examples() {
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /s/^\.Dl //p' "$TOP/man/$1.1" |
	    sed 's/^\$ //; s/\\(dq/"/g; s/\\-/-/g; s/\\e/\\/g'
}

# The man page's EXAMPLES are exactly these commands, in this order: the
# bats file keeps them in an array and runs each in a test of its own.
# check_examples TOOL COMMAND ...
check_examples() {
	local tool=$1 i=0 want ex
	shift
	mapfile -t ex < <(man_examples "$tool")
	[ "${#ex[@]}" -eq "$#" ] ||
	    { echo "$tool.1 has ${#ex[@]} examples, the tests $#"; return 1; }
	for want in "$@"; do
		[ "${ex[$i]}" = "$want" ] ||
		    { echo "example $((i + 1)) of $tool.1: ${ex[$i]}"; echo "tested:       $want"; return 1; }
		i=$((i + 1))
	done
}

# The last line of the output of the last run.
last() {
	printf '%s\n' "$output" | tail -n 1
}

# Replace the faked pressure file (PERFGATE_PRESSURE) in one step, so
# alternate never reads half of it: $1 is the "some" line's avg10.
setpressure() {
	printf 'some avg10=%s avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
	    "$1" >"$PERFGATE_PRESSURE.tmp"
	mv "$PERFGATE_PRESSURE.tmp" "$PERFGATE_PRESSURE"
}

# signal_wait SIGNAL PID: sends SIGNAL to PID (a command started with
# `setsid ... &`, so that its session is PID) and waits 5 s at most for it
# to end: its status in signal_status, the milliseconds it took in
# signal_ms. One still running then is killed with its session, and its
# status is 999, so that a test of code that ignores the signal fails
# quickly instead of hanging.
signal_wait() {
	local t0 t1 i p
	t0=$(date +%s%N)
	kill "-$1" "$2"
	for i in $(seq 50); do
		case $(ps -o stat= -p "$2") in Z*|'') break ;; esac
		sleep 0.1
	done
	t1=$(date +%s%N)
	signal_ms=$(((t1 - t0) / 1000000))
	case $(ps -o stat= -p "$2") in
	Z*|'') signal_status=0; wait "$2" || signal_status=$? ;;
	*)	for p in $(pgrep -s "$2"); do kill -9 "$p" 2> /dev/null || true; done
		wait "$2" || true
		signal_status=999 ;;
	esac
	echo "status $signal_status after $signal_ms ms"
}

# in_session SID: the processes of session SID still running (a zombie
# has ended: only its parent's wait is missing), killed after they are
# listed, so that a failing test leaves none behind.
in_session() {
	local p
	p=$(ps -o stat=,pid= -s "$1" | awk '$1 !~ /^Z/ { print $2 }')
	[ -z "$p" ] || { ps -o pid,args -p "$(echo $p | tr ' ' ,)"; kill -9 $p 2> /dev/null || true; }
	printf '%s' "$p"
}
