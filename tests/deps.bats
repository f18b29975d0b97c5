#!/usr/bin/env bats
# deps: what the tests need is one list, tests/packages, that make test
# (tests/deps.sh) and CI (.ci/run) both install from; and tests/run.sh,
# which runs the bats files, checks /dev/null, /dev/zero and /dev/full
# after each and ends with the counts and the skips' reasons.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T"
	mkdir fake
	# apt-get and id as the test wants them: apt-get logs what it is asked.
	printf '#!/bin/sh\necho "$*" >> "%s/apt.log"\n' "$T" > fake/apt-get
	printf '#!/bin/sh\necho "${FAKE_UID:-0}"\n' > fake/id
	chmod +x fake/apt-get fake/id
}

# runsh ARGS: tests/run.sh as make test runs it, not inside this bats: its
# bats found on PATH (not bats' own libexec) and none of bats' variables.
runsh() {
	local p=:$PATH:
	p=${p//:$BATS_LIBEXEC:/:}
	p=${p#:} p=${p%:}
	env $(compgen -e | grep '^BATS_' | sed 's/^/-u /') PATH="$p" sh "$TOP/tests/run.sh" "$@"
}

@test "deps: .ci/run installs every package of tests/packages, through deps.sh -a, before make test" {
	cp -R "$TOP/.ci" "$TOP/tests" .
	printf '#!/bin/sh\necho "make $*" >> "%s/apt.log"\n' "$T" > fake/make
	chmod +x fake/make
	PATH=$T/fake:$PATH run -0 --separate-stderr bash .ci/run
	# One install, of the list, in its order, then the tests.
	[ "$(sed -n 1p apt.log)" = "update -qq" ]
	[ "$(sed -n 2p apt.log)" = "install -y -qq $(sh tests/deps.sh -l | tr '\n' ' ' | sed 's/ $//')" ]
	[ "$(sed -n 3p apt.log)" = "make test" ]
	[ "$(grep -c '^install' apt.log)" -eq 1 ]
	# make test's deps: the same script, on the same list.
	run -0 make -s -n --no-print-directory -C "$TOP" deps
	[ "$output" = "sh tests/deps.sh" ]
	# The list holds what the tests skip without.
	for p in golang-go hyperfine python3-pytest-benchmark libbenchmark-dev libopenblas0-serial python3-numpy valgrind tcc clang mandoc; do
		sh tests/deps.sh -l | grep -qx -- "$p"
	done
}

@test "deps: as a user, a missing package is one line naming the apt-get command, exit 0, so the rest runs" {
	printf '# a comment\nbats bats the tests\nno-such-pkg /no/such/file why\nother-pkg python3:no_such_module why\n' > list
	FAKE_UID=1000 PATH=$T/fake:$PATH run -0 --separate-stderr sh "$TOP/tests/deps.sh" list
	[ "$output" = "" ]
	[ "$stderr" = "deps: the tests need no-such-pkg other-pkg; the tests that need them are skipped. To run them: sudo apt-get install -y no-such-pkg other-pkg" ]
	[ ! -e apt.log ]
	run -0 --separate-stderr sh "$TOP/tests/deps.sh" -m list
	[ "$output" = $'no-such-pkg\nother-pkg' ]
	# Without bats nothing runs: exit 2.
	mkdir tools && ln -s "$(command -v dirname)" tools/dirname
	printf 'bats bats the tests\n' > list
	run -2 --separate-stderr env FAKE_UID=1000 PATH="$T/fake:$T/tools" /bin/sh "$TOP/tests/deps.sh" list
	[[ $stderr == "deps: the tests need bats; "*"sudo apt-get install -y bats" ]]
}

@test "deps: as root, what is missing is installed with one apt-get install, then looked for again" {
	printf 'bats bats the tests\nno-such-pkg %s/made why\n' "$T" > list
	# An apt-get that installs: the probe is there after it.
	printf '#!/bin/sh\necho "$*" >> "%s/apt.log"\ntouch "%s/made"\n' "$T" "$T" > fake/apt-get
	PATH=$T/fake:$PATH run -0 --separate-stderr sh "$TOP/tests/deps.sh" list
	[ "$stderr" = "deps: installing no-such-pkg" ]
	[ "$(cat apt.log)" = $'update -qq\ninstall -y -qq no-such-pkg' ]
	# Present now: nothing to do.
	rm apt.log
	PATH=$T/fake:$PATH run -0 --separate-stderr sh "$TOP/tests/deps.sh" list
	[ ! -e apt.log ] && [ "$stderr" = "" ]
	# An install after which the probe is still missing is exit 2, naming it.
	rm made
	printf '#!/bin/sh\nexit 0\n' > fake/apt-get
	PATH=$T/fake:$PATH run -2 --separate-stderr sh "$TOP/tests/deps.sh" list
	[ "${stderr_lines[1]}" = "deps: installed, and still missing here: no-such-pkg (see list)" ]
	# A failed install is exit 2.
	printf '#!/bin/sh\nexit 100\n' > fake/apt-get
	PATH=$T/fake:$PATH run -2 --separate-stderr sh "$TOP/tests/deps.sh" list
	[ "${stderr_lines[1]}" = "deps: apt-get install no-such-pkg failed" ]
}

@test "deps: a line without what shows the package is installed is exit 2 naming the list and the line" {
	printf 'bats bats\n\nlonely\n' > list
	run -2 --separate-stderr sh "$TOP/tests/deps.sh" -l list
	[ "$stderr" = "deps: list:3: a package without what shows it is installed" ]
	run -2 --separate-stderr sh "$TOP/tests/deps.sh" -x
	[ "$stderr" = "usage: deps.sh [-a | -l | -m] [list]" ]
}

@test "deps: run.sh ends with the counts, the skips' reasons and the apt-get line for what is missing" {
	printf '@test "a" { true; }\n@test "b" { skip "no-such-pkg is not installed"; }\n' > s.bats
	printf 'bats bats why\nno-such-pkg /no/such/file why\n' > list
	TESTS_PACKAGES=list run -0 --separate-stderr runsh s.bats
	[ "${lines[-1]}" = "tests: 1 passed, 0 failed, 1 skipped" ]
	[[ ${lines[-3]} == *"1 no-such-pkg is not installed" ]]
	[ "${lines[-2]}" = "tests: to run them: sudo apt-get install -y no-such-pkg" ]
	[ "$(cat build/tests.times | cut -d' ' -f1)" = s.bats ]
	# Every package here, yet a skip: the list misses what the test needs.
	printf 'bats bats why\n' > list
	TESTS_PACKAGES=list run -1 --separate-stderr runsh s.bats
	[ "${lines[-1]}" = "tests: 1 passed, 0 failed, 1 skipped" ]
	[ "$stderr" = "tests: every package of list is here, yet 1 skipped: the list misses what they need" ]
	# A failure, and a file bats cannot load, are exit 1, counted.
	printf '@test "c" { false; }\n' > f.bats
	printf '@test "d" {\n' > broken.bats
	TESTS_PACKAGES=list run -1 --separate-stderr runsh f.bats broken.bats
	[ "${lines[-1]}" = "tests: 0 passed, 2 failed, 0 skipped" ]
	[[ $stderr == *"tests: bats exited with status 1 on broken.bats"* ]]
}

@test "deps: run.sh names the bats file after which /dev/null, /dev/zero or /dev/full is no longer a device" {
	printf '@test "a" { true; }\n' > a.bats
	run -0 --separate-stderr runsh a.bats
	[ "${lines[-1]}" = "tests: 1 passed, 0 failed, 0 skipped" ] && [ "$stderr" = "" ]
	# A scratch /dev whose null a rename made a regular file; zero a FIFO.
	mkdir dev && : > dev/null && mkfifo dev/zero
	mknod dev/full c 1 7 2>/dev/null || ln -s /dev/full dev/full
	TESTS_DEV=$T/dev run -1 --separate-stderr runsh a.bats
	[ "${lines[-1]}" = "tests: 1 passed, 0 failed, 0 skipped" ]
	[ "${stderr_lines[0]}" = "tests: $T/dev/null is no longer a character device after a.bats: regular empty file" ]
	[[ $stderr == *"tests: $T/dev/zero is no longer a character device after a.bats: fifo"* ]]
	[[ $stderr != *"dev/full"* ]]
	# As root, made again for the files after it.
	if [ "$(id -u)" = 0 ]; then
		[ -c dev/null ] && [ "$(stat -c '%t %T' dev/null)" = "1 3" ] && [ -c dev/zero ]
	fi
}

@test "deps: run.sh starts the longest untimed file first: by the last run's wall clock, else by tests/untimed's seconds" {
	for f in a b c; do printf '@test "%s" { true; }\n' "$f" > "$f.bats"; done
	printf '# a comment\na.bats 1\nb.bats 5\n' > untimed
	TESTS_UNTIMED=untimed run -0 --separate-stderr runsh a.bats b.bats c.bats
	[ "$(cat build/tests/untimed.order | tr '\n' ' ')" = "b.bats a.bats " ]
	[ "${lines[-1]}" = "tests: 3 passed, 0 failed, 0 skipped" ]
	# The last run's times, when there are some, come before the list's.
	printf 'a.bats 9000 10\nb.bats 20 10\nc.bats 99999 10\n' > build/tests.times
	TESTS_UNTIMED=untimed run -0 --separate-stderr runsh a.bats b.bats c.bats
	[ "$(cat build/tests/untimed.order | tr '\n' ' ')" = "a.bats b.bats " ]
}

@test "deps: tests/untimed names bats files that are there, each once with its seconds" {
	run -0 awk '!/^#/ && !(NF == 2 && $2 ~ /^[0-9]+$/) { print FILENAME ":" FNR ": " $0 }' "$TOP/tests/untimed"
	[ "$output" = "" ]
	while read -r f _; do
		case $f in '#'*) continue ;; esac
		[ -f "$TOP/tests/$f" ] || { echo "tests/untimed: no tests/$f"; false; }
	done < "$TOP/tests/untimed"
	[ -z "$(grep -v '^#' "$TOP/tests/untimed" | cut -d' ' -f1 | sort | uniq -d)" ]
}
