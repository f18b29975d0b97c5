#!/bin/sh
# deps.sh [-a | -l | -m] [LIST]: what the tests need, from one list
# (tests/packages, or LIST: a package, what shows it is installed, why).
#
#	deps.sh      as root with apt-get: install what is missing (make test,
#	             make deps); as anyone else: name the one apt-get line
#	             that would, and let the tests run what they can (they
#	             skip, naming what is missing), exit 0; exit 2 when bats
#	             itself is missing or the install fails
#	deps.sh -a   install every package of the list, present or not (CI)
#	deps.sh -l   the packages, one a line
#	deps.sh -m   the packages missing here, one a line
mode=check
case ${1-} in
-a|-l|-m) mode=$1; shift ;;
-*) echo "usage: deps.sh [-a | -l | -m] [list]" >&2; exit 2 ;;
esac
list=${1:-$(dirname "$0")/packages}
[ $# -le 1 ] || { echo "usage: deps.sh [-a | -l | -m] [list]" >&2; exit 2; }
[ -r "$list" ] || { echo "deps: $list: cannot be read" >&2; exit 2; }

# present PROBE: a command on PATH, a file (a glob), or python3:MODULE.
present() {
	case $1 in
	python3:*) /usr/bin/python3 -c "import ${1#python3:}" >/dev/null 2>&1 ;;
	/*)
		for f in $1; do
			[ -e "$f" ] && return 0
		done
		return 1 ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

# scan: every package of the list in $all, those not present here in $need.
scan() {
	all="" need="" lineno=0
	while read -r pkg probe _; do
		lineno=$((lineno + 1))
		case $pkg in '' | '#'*) continue ;; esac
		if [ -z "$probe" ]; then
			echo "deps: $list:$lineno: a package without what shows it is installed" >&2
			exit 2
		fi
		all="$all $pkg"
		present "$probe" || need="$need $pkg"
	done < "$list"
}
scan

install() {
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "deps: installing needs root and apt-get: sudo apt-get install -y$1" >&2
		exit 2
	fi
	echo "deps: installing$1" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! { apt-get update -qq && apt-get install -y -qq $1 >/dev/null; }; then
		echo "deps: apt-get install$1 failed" >&2
		exit 2
	fi
}

# Package names hold no blanks: one a word.
# shellcheck disable=SC2086
case $mode in
-l) printf '%s\n' $all; exit 0 ;;
-m) [ -z "$need" ] || printf '%s\n' $need; exit 0 ;;
-a) install "$all"; exit 0 ;;
esac
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	install "$need"
	# What the list says shows a package must show it once installed.
	scan
	[ -z "$need" ] && exit 0
	echo "deps: installed, and still missing here:$need (see $list)" >&2
	exit 2
fi
echo "deps: the tests need$need; the tests that need them are skipped. To run them: sudo apt-get install -y$need" >&2
command -v bats >/dev/null 2>&1 || exit 2
exit 0
