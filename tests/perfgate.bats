#!/usr/bin/env bats
# perfgate, the script, and what a newcomer's first gates meet: a bench
# command that finds its data through the environment (leading VAR=value
# words), and a gate that cannot decide, whose own one-line reason comes
# last on standard error, after make's and git's lines, while the summary
# record stays the last line on standard output.

load common

FIX=$TOP/tests/fixtures
MK=$TOP/mk/gate.mk

setup() {
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$BATS_TEST_TMPDIR
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS GATE_REASON
	export GATE_OBJECTS=$BATS_TEST_TMPDIR/objects
	REPO=$BATS_TEST_TMPDIR/repo
}

# A repository holding the fixture project as its first commit.
mkrepo() {
	cp -R "$FIX/project" "$REPO"
	cd "$REPO"
	git init -q -b main
	git add -A
	git commit -q -m 'fx: a sum and a max'
}

@test "perfgate: a bench command's leading VAR=value words are the program's environment, as a shell's; the key digests the program" {
	mkrepo
	# A benchmark that finds its data by $srcdir and refuses to run
	# without it, and a second variable whose value holds a blank.
	sed 's|^\tbench_init(argv\[0\]);|\tif (getenv("srcdir") == NULL \|\| strcmp(getenv("MSG") ? getenv("MSG") : "", "a b") != 0) return 3;\n&|' \
	    bench/bench.c > bench/bench.c.new
	mv bench/bench.c.new bench/bench.c
	grep -q 'getenv("srcdir")' bench/bench.c
	printf '#include <stdlib.h>\n#include <string.h>\n' | cat - bench/bench.c > bench/bench.c.new && mv bench/bench.c.new bench/bench.c
	git commit -q -am 'bench: needs srcdir'
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD HEAD=. \
	    'GATE_BENCH=srcdir=$(GATE_SIDE) MSG="a b" $(GATE_SIDE)/bench/bench'
	[ "$(last | jq -r .verdict)" = ok ]
	# What the key digests is the benchmark, never env.
	[ "$(last | jq -r .head.bench_sha256)" = "$(sha256sum < bench/bench | cut -d' ' -f1)" ]
	[ "$(grep '^run ' build/gate/head.key)" = "run $(sha256sum < bench/bench | cut -d' ' -f1) $REPO/bench/bench" ]
	! grep -q '/env$' build/gate/head.key
	# The same, run again: every key matched, nothing measured again.
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD HEAD=. \
	    'GATE_BENCH=srcdir=$(GATE_SIDE) MSG="a b" $(GATE_SIDE)/bench/bench'
	[[ "$stderr" == *"gate: reused the measurements in build/gate/runs.jsonl"* ]]
	# Without the words the benchmark cannot run: they did reach it.
	run -2 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD HEAD=.
	[[ "$(last | jq -r .error)" == *"exited with status 3"* ]]
}

# check_last STATUS-LINE: the gate's reason is the last line on stderr,
# the summary record (an error) the last on stdout, and it says the same.
check_last() {
	[ "${stderr_lines[-1]}" = "$1" ]
	[ "$(last | jq -r .verdict)" = error ]
	[ "gate: $(last | jq -r .error)" = "$1" ] || [[ "$1" == "gate: $(last | jq -r .side): $(last | jq -r .step): "* ]]
}

@test "perfgate: a revision that does not exist: the gate's reason is the last line on stderr, after make's" {
	mkrepo
	run -2 --separate-stderr perfgate GATE_MK="$MK" BASE=v0.9-nosuch HEAD=.
	check_last 'gate: base: identity: v0.9-nosuch: no such file, directory or git revision'
	# make's own lines came before it.
	printf '%s\n' "${stderr_lines[@]}" | grep -q '^make: \*\*\* '
}

@test "perfgate: a commit git cannot export: its reason follows git's and make's lines" {
	mkrepo
	git checkout -q -b broken
	echo 'lost' > lost.txt && git add lost.txt && git commit -q -m 'a file whose blob goes missing'
	broken=$(git rev-parse HEAD)
	blob=$(git rev-parse HEAD:lost.txt)
	git checkout -q main
	rm -f ".git/objects/${blob:0:2}/${blob:2}"
	run -2 --separate-stderr perfgate GATE_MK="$MK" BASE="$broken" HEAD=.
	check_last "gate: base: build: $broken (commit $broken): git cannot export it"
	printf '%s\n' "${stderr_lines[@]}" | grep -q '^make: \*\*\* '
	printf '%s\n' "${stderr_lines[@]}" | grep -q "$blob"
}

@test "perfgate: a benchmark that lacks a metric: cmpbudget's reason is the gate's last line" {
	mkrepo
	run -2 --separate-stderr perfgate GATE_MK="$MK" 'GATE_BENCH=echo {\"fx_sum_ns\":1}'
	check_last 'gate: fx_max_ns: missing on side "base"'
	# A verdict that says why is an answer: make's Error line is a crash's.
	[[ "$stderr" != *'make: *** ['*'gate] Error 2'* ]]
}

@test "perfgate: a gate that stops before it can decide, without a reason of its own, says so last" {
	mkdir "$BATS_TEST_TMPDIR/empty" && cd "$BATS_TEST_TMPDIR/empty"
	run -2 --separate-stderr perfgate -f no-such.mk
	[ "${stderr_lines[-1]}" = 'perfgate: the gate stopped before it could decide (make exited with status 2)' ]
	[ "$output" = "" ]
	run -125 --separate-stderr perfgate -s -f no-such.mk
	[ "${stderr_lines[-1]}" = 'perfgate: the gate stopped before it could decide (make exited with status 2)' ]
}

# signalled SIGNAL STATUS: a gate whose benchmark sleeps for hours, sent
# SIGNAL once its rounds run: perfgate exits STATUS within 2 s, and nothing
# it started is left: no process of its session (setsid: the session is
# perfgate's pid), no benchmark, no temporary file. (INT is ignored in a
# command started with & unless env gives it back.)
signalled() {
	local mark pid i
	mkrepo
	mark=$((RANDOM + 40000))
	printf 'sleep %s.5\nexec "$@"\n' "$mark" > "$BATS_TEST_TMPDIR/slow.sh"
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR"
	setsid env --default-signal=INT perfgate GATE_MK="$MK" BASE=HEAD HEAD=. \
	    GATE_BENCH="sh $BATS_TEST_TMPDIR/slow.sh \$(GATE_SIDE)/bench/bench" > "$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	for i in $(seq 300); do
		pgrep -f "sleep $mark.5" > /dev/null && break
		sleep 0.1
	done
	pgrep -f "sleep $mark.5" > /dev/null
	signal_wait "$1" "$pid"
	[ "$signal_status" = "$2" ]
	[ "$signal_ms" -lt 2000 ]
	sleep 0.3
	[ -z "$(in_session "$pid")" ]
	[ -z "$(ls -A "$TMPDIR")" ]
}

@test "perfgate: TERM while the rounds run stops the gate and everything under it within 2 s, exit 143" {
	signalled TERM 143
}

@test "perfgate: INT while the rounds run stops the gate and everything under it within 2 s, exit 130" {
	signalled INT 130
}

@test "perfgate: run from a subdirectory of the project: one line saying to run it at the top or with -C" {
	mkrepo
	cd src
	run -2 --separate-stderr perfgate GATE_MK="$MK"
	[ "$stderr" = "perfgate: no makefile in $REPO/src: run perfgate at the project's top ($REPO), or with -C $REPO" ]
	[ "$output" = "" ]
	run -125 --separate-stderr perfgate -s GATE_MK="$MK"
	[ "$stderr" = "perfgate: no makefile in $REPO/src: run perfgate at the project's top ($REPO), or with -C $REPO" ]
	# Outside any repository: where the Makefile is, or -C, or -f.
	mkdir "$BATS_TEST_TMPDIR/none" && cd "$BATS_TEST_TMPDIR/none"
	run -2 --separate-stderr perfgate -C "$BATS_TEST_TMPDIR/none" GATE_MK="$MK"
	[ "$stderr" = "perfgate: no makefile in $BATS_TEST_TMPDIR/none: run perfgate where the project's Makefile is, or with -C dir or -f makefile" ]
	# -C to the top works from anywhere.
	cd "$REPO/src"
	run -0 --separate-stderr perfgate -C "$REPO" GATE_MK="$MK" BASE=HEAD HEAD=.
}
