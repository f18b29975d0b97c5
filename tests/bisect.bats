#!/usr/bin/env bats
# perfgate's answers for git bisect, and perfgate bisect: on a generated
# history of 64 commits of tests/fixtures/project (one planted slowdown,
# one commit that does not build), in counts mode, which is exact, so that
# no test can fail on noise.

load common

FIX=$TOP/tests/fixtures
MK=$TOP/mk/gate.mk

gitenv() {
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$1
}

# The two histories, made once and cloned by each test.
setup_file() {
	gitenv "$BATS_FILE_TMPDIR"
	REPO=$BATS_FILE_TMPDIR/slow BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR make_history slow 45 32
	REPO=$BATS_FILE_TMPDIR/fast BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR make_history fast 23 50
}

setup() {
	gitenv "$BATS_TEST_TMPDIR"
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS
	REPO=$BATS_TEST_TMPDIR/repo
}

# history slow|fast: a clone of that history (below), at its last commit.
history() {
	git clone -q "$BATS_FILE_TMPDIR/$1" "$REPO"
	cd "$REPO"
}

# make_history PLANT AT BROKEN: 64 commits, the first the fixture; commit AT
# (1-based) puts variants/PLANT in src/fx.c (slow-fx.c) or takes it out
# (fast: the fixture's own, after a slow start); commit BROKEN does not
# compile and the one after it mends it; every other commit changes a
# note only. Prints nothing; leaves the repository at its last commit.
make_history() {
	local plant=$1 at=$2 broken=$3 i m
	cp -R "$FIX/project" "$REPO"
	cd "$REPO"
	printf 'runs = 3\n\n[budget]\nfx_sum_ns = 0.5\nfx_max_ns = 0.5\n\n[counts]\nfx_sum_instr = 0.02\nfx_max_instr = 0.02\n' \
	    > perf/budget.toml
	cp src/fx.c "$BATS_TEST_TMPDIR/fast.c"
	[ "$plant" = fast ] && cp "$FIX/variants/slow-fx.c" src/fx.c
	git init -q -b main
	git add -A
	git commit -q -m 'fx: a sum and a max'
	for i in $(seq 2 64); do
		if [ "$i" = "$at" ]; then
			case $plant in
			slow) cp "$FIX/variants/slow-fx.c" src/fx.c; m='fx: the sum eight times over' ;;
			fast) cp "$BATS_TEST_TMPDIR/fast.c" src/fx.c; m='fx: the sum once' ;;
			esac
		elif [ "$i" = "$broken" ]; then
			cp src/fx.c "$BATS_TEST_TMPDIR/mend.c"
			cp "$FIX/variants/broken-fx.c" src/fx.c
			m='fx: does not compile'
		elif [ "$i" = $((broken + 1)) ]; then
			cp "$BATS_TEST_TMPDIR/mend.c" src/fx.c
			m='fx: compiles again'
		else
			echo "$i" >> notes.txt
			m="notes: $i"
		fi
		git add -A
		git commit -q -m "$m"
	done
}

# The repository as the bisect must leave it: on main at its last commit,
# clean, no bisect under way, no bisect ref, no worktree.
as_found() {
	[ "$(git rev-parse --abbrev-ref HEAD)" = main ]
	[ "$(git rev-parse HEAD)" = "$1" ]
	[ -z "$(git status --porcelain --untracked-files=no)" ]
	[ ! -e "$(git rev-parse --git-path BISECT_START)" ]
	[ -z "$(git for-each-ref refs/bisect)" ]
	[ "$(git worktree list | wc -l)" -eq 1 ]
}

@test "bisect: perfgate bisect names the planted slowdown of 64 commits, confirmed, skipping the one that does not build" {
	# The first commit bisect tries (the middle) is the one that does not build.
	history slow
	[ "$(git rev-list --bisect HEAD ^HEAD~63)" = "$(git rev-parse HEAD~32)" ]
	[ "$(git log -1 --format=%s HEAD~32)" = 'fx: does not compile' ]
	last=$(git rev-parse HEAD)
	# How long it takes is a figure to measure side by side, not a test
	# (the closing note of this change has it); the seconds are printed.
	start=$(date +%s)
	run -0 --separate-stderr perfgate bisect HEAD~63 HEAD GATE_MK="$MK" GATE_MODE=counts
	echo "$stderr"
	echo "took $(($(date +%s) - start)) s"
	planted=$(git rev-parse HEAD~19)
	[ "$(git log -1 --format=%s "$planted")" = 'fx: the sum eight times over' ]
	[ "$(jq -r .commit <<< "$output")" = "$planted" ]
	[ "$(jq -r .confirmed <<< "$output")" = true ]
	[ "$(jq -r .culprit_vs_parent <<< "$output")" = regressed ]
	[ "$(jq -r .parent_vs_good <<< "$output")" = ok ]
	[ "$(jq -r .skipped <<< "$output")" -ge 1 ]
	# The commit, its subject, the verdict table and the explanation.
	[[ "$stderr" == *"commit $planted"*"fx: the sum eight times over"* ]]
	[[ "$stderr" == *"fx_sum_instr "*" regressed"* ]]
	[[ "$stderr" == *"explain fx_sum_instr:"*"fx_sum "* ]]
	as_found "$last"
}

@test "bisect: perfgate -i bisect names the commit that made it fast" {
	history fast
	last=$(git rev-parse HEAD)
	run -0 --separate-stderr perfgate -i bisect HEAD~63 HEAD GATE_MK="$MK" GATE_MODE=counts
	echo "$stderr"
	[ "$(jq -r .commit <<< "$output")" = "$(git rev-parse HEAD~41)" ]
	[ "$(git log -1 --format=%s HEAD~41)" = 'fx: the sum once' ]
	[ "$(jq -r .bisect <<< "$output")" = improved ]
	[ "$(jq -r .confirmed <<< "$output")" = true ]
	as_found "$last"
}

@test "bisect: refused before anything runs: GOOD not an ancestor of BAD, BAD equal to GOOD, a dirty work tree" {
	history slow
	last=$(git rev-parse HEAD)
	run -2 --separate-stderr perfgate bisect HEAD HEAD~3 GATE_MK="$MK"
	[ "$stderr" = "perfgate: bisect: HEAD is not an ancestor of HEAD~3" ]
	run -2 --separate-stderr perfgate bisect HEAD main GATE_MK="$MK"
	[ "$stderr" = "perfgate: bisect: HEAD and main are the same commit, $last" ]
	echo more >> notes.txt
	run -2 --separate-stderr perfgate bisect HEAD~3 HEAD GATE_MK="$MK"
	[ "$stderr" = "perfgate: bisect: the work tree has uncommitted changes, which the bisect would overwrite (commit or stash them)" ]
	git checkout -q notes.txt
	run -2 --separate-stderr perfgate bisect nosuch HEAD GATE_MK="$MK"
	[ "$stderr" = "perfgate: bisect: nosuch: not a commit" ]
	run -2 --separate-stderr perfgate bisect HEAD~3 HEAD BASE=x GATE_MK="$MK"
	[[ "$stderr" == "perfgate: bisect: BASE is the bisect's own"* ]]
	# Nothing ran: nothing built, nothing gated.
	[ ! -e build ]
	as_found "$last"
}

@test "bisect: git bisect run perfgate -s -i (perfgate(1) EXAMPLES) names the commit that made it fast" {
	history fast
	last=$(git rev-parse HEAD) good=$(git rev-parse HEAD~63) fast=$(git rev-parse HEAD~41)
	git bisect start --term-old=slow --term-new=fast HEAD HEAD~63 > /dev/null
	run git bisect run perfgate -s -i BASE="$good" HEAD=. GATE_MK="$MK" GATE_MODE=counts
	[[ "$output" == *"$fast is the first fast commit"* ]]
	git bisect reset > /dev/null 2>&1
	as_found "$last"
}

@test "bisect: a regression through perfgate is an answer: exit 1 and no make Error line; make gate keeps make's 2" {
	history slow
	run -1 --separate-stderr perfgate BASE=HEAD~63 HEAD=HEAD GATE_MK="$MK" GATE_MODE=counts GATE_EXPLAIN=off
	[ "$(tail -n 1 <<< "$output" | jq -r .verdict)" = regressed ]
	[[ "$stderr" != *"make: ***"* ]]
	[[ "$stderr" != *"Error 1"* ]]
	run -2 --separate-stderr make gate BASE=HEAD~63 HEAD=HEAD GATE_MK="$MK" GATE_MODE=counts GATE_EXPLAIN=off
	[ "$(tail -n 1 <<< "$output" | jq -r .verdict)" = regressed ]
	[[ "$stderr" == *"make: *** "*"Error 1"* ]]
	# -i: nothing improved is 0; the other way round, 1.
	run -0 --separate-stderr perfgate -i BASE=HEAD~63 HEAD=HEAD GATE_MK="$MK" GATE_MODE=counts GATE_EXPLAIN=off
	run -1 --separate-stderr perfgate -i BASE=HEAD HEAD=HEAD~63 GATE_MK="$MK" GATE_MODE=counts GATE_EXPLAIN=off
	run -0 --separate-stderr perfgate -i BASE=HEAD HEAD=HEAD GATE_MK="$MK" GATE_MODE=counts
}

@test "bisect: git bisect run perfgate -s (perfgate(1) EXAMPLES) names the planted slowdown, skipping the commit that does not build" {
	history slow
	last=$(git rev-parse HEAD) good=$(git rev-parse HEAD~63) slow=$(git rev-parse HEAD~19)
	git bisect start HEAD HEAD~63 > /dev/null
	run git bisect run perfgate -s BASE="$good" HEAD=. GATE_MK="$MK" GATE_MODE=counts GATE_EXPLAIN=off
	[[ "$output" == *"$slow is the first bad commit"* ]]
	[ "$(git bisect log | grep -c '^git bisect skip')" -ge 1 ]
	git bisect reset > /dev/null 2>&1
	as_found "$last"
}

@test "bisect: perfgate -i in time mode: the kata against its one-accumulator sum improved, 1; the other way, 0" {
	cd "$TOP"
	patch -s -o "$BATS_TEST_TMPDIR/kernels.c" kata/kernels.c < kata/slowdowns/s04-sum-one-accumulator.patch
	run -1 --separate-stderr perfgate -i BASE="$BATS_TEST_TMPDIR/kernels.c" HEAD=kata/kernels.c GATEDIR="$BATS_TEST_TMPDIR/g"
	[ "$(tail -n 1 <<< "$output" | jq -c .improved)" = '["sum_ns"]' ]
	run -0 --separate-stderr perfgate -i BASE=kata/kernels.c HEAD="$BATS_TEST_TMPDIR/kernels.c" GATEDIR="$BATS_TEST_TMPDIR/g2" GATE_EXPLAIN=off
	[ "$(tail -n 1 <<< "$output" | jq -r .verdict)" = regressed ]
}

@test "bisect: perfgate's usage is perfgate(1)'s SYNOPSIS" {
	run -2 --separate-stderr perfgate -Z
	synopsis=$(mandoc -Tascii "$TOP/man/perfgate.1" | col -b | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')
	[ "$(printf '%s\n' "${stderr_lines[@]:1}" | sed 's/^usage: //' | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//')" = "$synopsis" ]
	run -2 --separate-stderr perfgate bisect HEAD
	[ "${stderr_lines[0]}" = "perfgate: bisect needs a good and a bad revision" ]
}

# bisect_termed WHEN: perfgate bisect in time mode, its benchmark wrapped
# in a sleep of hours: on every gate (WHEN=steps), or only in the
# confirmation's gate of the culprit against its parent (WHEN=confirm,
# its GATEDIR bisect-culprit), sent TERM once that sleep runs. perfgate
# exits 143 within 2 s, the repository as it was, nothing of its session
# left running (setsid: the session is perfgate's pid), no temporary file.
bisect_termed() {
	local mark pid i last
	history slow
	last=$(git rev-parse HEAD)
	mark=$((RANDOM + 40000))
	case $1 in
	steps) printf 'sleep %s.5\nexec "$@"\n' "$mark" ;;
	confirm) printf 'case $1 in *bisect-culprit*) sleep %s.5 ;; esac\nexec "$@"\n' "$mark" ;;
	esac > "$BATS_TEST_TMPDIR/slow.sh"
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR"
	setsid perfgate bisect HEAD~63 HEAD GATE_MK="$MK" \
	    GATE_BENCH="sh $BATS_TEST_TMPDIR/slow.sh \$(GATE_SIDE)/bench/bench" > "$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	for i in $(seq 1200); do
		pgrep -f "sleep $mark.5" > /dev/null && break
		sleep 0.1
	done
	pgrep -f "sleep $mark.5" > /dev/null
	[ "$1" = steps ] || grep -q 'confirming it' "$BATS_TEST_TMPDIR/out"
	signal_wait TERM "$pid"
	[ "$signal_status" = 143 ]
	[ "$signal_ms" -lt 2000 ]
	sleep 0.3
	[ -z "$(in_session "$pid")" ]
	[ -z "$(ls -A "$TMPDIR")" ]
	as_found "$last"
}

@test "bisect: TERM while git bisect run gates a commit: exit 143 within 2 s, the repository as it was, nothing left" {
	bisect_termed steps
}

@test "bisect: TERM while the culprit is confirmed: its two gates stop with it, exit 143 within 2 s, nothing left" {
	bisect_termed confirm
}
