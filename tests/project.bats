#!/usr/bin/env bats
# The gate of a whole project at two git revisions: tests/fixtures/project
# is a small C project whose Makefile includes gate.mk as a user's would;
# each test copies it into a throwaway git repository and gates commits of
# it. Its planted slowdown (tests/fixtures/variants/slow-fx.c) is several
# times slower against a budget of 0.5, so that no test can fail on noise.

load common

FIX=$TOP/tests/fixtures
MK=$TOP/mk/gate.mk

setup() {
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$BATS_TEST_TMPDIR
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS
	REPO=$BATS_TEST_TMPDIR/repo
}

# A repository holding the fixture as its first commit, on branch main.
mkrepo() {
	cp -R "$FIX/project" "$REPO"
	cd "$REPO"
	git init -q -b main
	git add -A
	git commit -q -m 'fx: a sum and a max'
}

# commit FILE MESSAGE: replace FILE with what is on standard input, commit.
commit() {
	cat > "$1"
	git add -A
	git commit -q -m "$2"
}

# A change that changes no code: a comment in src/fx.c.
comment_commit() {
	sed 's|^/\* The largest|/* The very largest|' src/fx.c > "$BATS_TEST_TMPDIR/fx.c"
	commit src/fx.c "fx: $1" < "$BATS_TEST_TMPDIR/fx.c"
}

@test "project: an unchanged pair of revisions passes, each side's commit named" {
	mkrepo
	comment_commit 'a comment'
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	[ "$(last | jq -r .verdict)" = ok ]
	[ "$(last | jq -r .base.commit)" = "$(git rev-parse HEAD~1)" ]
	[ "$(last | jq -r .head.commit)" = "$(git rev-parse HEAD)" ]
	[ "$(last | jq -r .head.dirty)" = null ]
	[ "$(last | jq -r .budget_sha256)" = "$(sha256sum < perf/budget.toml | cut -c1-64)" ]
	[ "$(last | jq -r .head.cc)" = "$(cc --version | head -n 1)" ]
	# Both metrics judged, each record naming the budget.
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .metric' | sort | tr '\n' ' ')" = "fx_max_ns fx_sum_ns " ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .budget_sha256' | sort -u | wc -l)" -eq 1 ]
	# Every round of both sides carries its side's commit and compiler.
	[ "$(jq -r 'select(.side == "base") | .commit' build/gate/runs.jsonl | sort -u)" = "$(git rev-parse HEAD~1)" ]
	[ "$(jq -r 'select(.side == "head") | .commit' build/gate/runs.jsonl | sort -u)" = "$(git rev-parse HEAD)" ]
	[ "$(jq -r .cc build/gate/runs.jsonl | sort -u)" = "$(cc --version | head -n 1)" ]
	# One to three rounds (runs = 3), the block ending once it is settled.
	n=$(wc -l < build/gate/runs.jsonl)
	[ "$n" -ge 2 ] && [ "$n" -le 6 ] && [ $((n % 2)) -eq 0 ]
	[[ "$stderr" == *"gate: building base, HEAD~1 (commit $(git rev-parse HEAD~1))"* ]]
}

@test "project: by default the last commit is gated against the clean work tree" {
	mkrepo
	run -0 --separate-stderr perfgate GATE_MK="$MK"
	[ "$(last | jq -r .verdict)" = ok ]
	[ "$(last | jq -r .base.commit)" = "$(git rev-parse HEAD)" ]
	[ "$(last | jq -r .head.commit)" = "$(git rev-parse HEAD)" ]
	[ "$(last | jq -r .head.source)" = "$(git rev-parse HEAD)" ]
	# The build's outputs are ignored by git: the tree stays clean.
	[ -z "$(git status --porcelain)" ]
}

@test "project: a slowed pair of revisions regresses, naming the metric" {
	mkrepo
	commit src/fx.c 'fx: a volatile sum' < "$FIX/variants/slow-fx.c"
	run -1 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	[ "$(last | jq -c .regressed)" = '["fx_sum_ns"]' ]
	[ "$(last | jq -r .verdict)" = regressed ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "fx_max_ns") | .verdict')" = ok ]
	[[ "$(printf '%s\n' "$stderr" | grep '^fx_sum_ns ')" == *regressed* ]]
	# make gate says the same in its summary, with make's own status 2.
	run -2 --separate-stderr make --no-print-directory gate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	[ "$(last | jq -r .verdict)" = regressed ]
}

@test "project: uncommitted changes are measured, and the same identity is measured once" {
	mkrepo
	cp "$FIX/variants/slow-fx.c" src/fx.c
	run -1 --separate-stderr perfgate GATE_MK="$MK" BASE=main HEAD=.
	digest=$(last | jq -r .head.dirty)
	[[ "$digest" =~ ^[0-9a-f]{16}$ ]]
	[ "$(last | jq -r .head.source)" = "$(git rev-parse HEAD)+dirty:$digest" ]
	[ "$(jq -r 'select(.side == "head") | .dirty' build/gate/runs.jsonl | sort -u)" = "$digest" ]
	[ "$(jq -r 'select(.side == "base") | .dirty' build/gate/runs.jsonl | sort -u)" = null ]
	before=$(stat -c '%i %y' build/gate/runs.jsonl)
	# Nothing changed: the runs are reused, the verdict is the same.
	run -1 --separate-stderr perfgate GATE_MK="$MK" BASE=main HEAD=.
	[ "$(stat -c '%i %y' build/gate/runs.jsonl)" = "$before" ]
	[ "$(last | jq -r .head.dirty)" = "$digest" ]
	[[ "$stderr" != *measuring* ]]
	# A new identity (the tree made clean again) is measured again.
	cp "$FIX/project/src/fx.c" src/fx.c
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=main HEAD=.
	[ "$(stat -c '%i %y' build/gate/runs.jsonl)" != "$before" ]
	[ "$(last | jq -r .head.dirty)" = null ]
	[[ "$stderr" == *measuring* ]]
}

@test "project: an ignored benchmark outside history, edited, is measured again with the new answer" {
	mkrepo
	# As one benchmarks old revisions: today's perf/xbench.c, ignored by
	# git, built against each side's src/fx.c.
	printf '/perf/xbench.c\n/xbench\n' >> .gitignore
	git commit -q -am 'ignore the benchmark'
	xbench() {
		printf '#include <stdio.h>\n#include "fx.h"\nstatic int a[4] = { 1, 2, 3, 4 };\n'
		printf 'int main(void) { printf("{\\"fx_sum_ns\\":%%d,\\"fx_max_ns\\":%s}\\n", 100 + fx_sum(a, 4) - 10); return 0; }\n' "$1"
	}
	xbench 50 > perf/xbench.c
	set -- perfgate GATE_MK="$MK" BASE=HEAD HEAD=. \
	    GATE_BUILD='$(CC) -std=c11 -O2 -I$(GATE_SIDE)/src -o $(GATE_SIDE)/xbench $(CURDIR)/perf/xbench.c $(GATE_SIDE)/src/fx.c' \
	    GATE_BENCH='$(GATE_SIDE)/xbench'
	run -0 --separate-stderr "$@"
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "fx_max_ns") | .head')" = 50 ]
	[ -z "$(git status --porcelain)" ]
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gate: reused the measurements"* ]]
	# The edited benchmark is no part of either side's tree: what runs
	# changed all the same.
	xbench 40 > perf/xbench.c
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "fx_max_ns") | .head')" = 40 ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric == "fx_max_ns") | .base')" = 40 ]
}

@test "project: a revision that does not exist cannot be decided, naming side, revision and step" {
	mkrepo
	run -2 --separate-stderr perfgate GATE_MK="$MK" BASE=no-such-branch HEAD=.
	[ "$(last | jq -r '[.verdict, .side, .step, .revision] | join(" ")')" = "error base identity no-such-branch" ]
	[[ "$stderr" == *"gate: base: identity: no-such-branch: no such file, directory or git revision"* ]]
	[ ! -e build/gate/runs.jsonl ]
	run -125 --separate-stderr perfgate -s GATE_MK="$MK" BASE=no-such-branch HEAD=.
	[ "$(last | jq -r .verdict)" = error ]
}

@test "project: a side whose build fails cannot be decided, naming side, commit and step" {
	mkrepo
	commit src/fx.c 'fx: does not compile' < "$FIX/variants/broken-fx.c"
	run -2 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	[ "$(last | jq -r '[.verdict, .side, .step, .revision, .commit] | join(" ")')" = "error head build HEAD $(git rev-parse HEAD)" ]
	[[ "$stderr" == *"gate: head: build: HEAD (commit $(git rev-parse HEAD)): the build failed"* ]]
	# The compiler's complaint is shown, and kept.
	[[ "$stderr" == *"undeclared"* ]]
	grep -q undeclared build/gate/head/build.log
	run -125 --separate-stderr perfgate -s GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	[ "$(last | jq -r .step)" = build ]
}

@test "project: a bench that prints no metrics line cannot be decided, naming side, commit and step" {
	mkrepo
	commit bench/bench.c 'bench: print nothing' < "$FIX/variants/silent-bench.c"
	run -2 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	[ "$(last | jq -r '[.verdict, .side, .step, .commit] | join(" ")')" = "error head run $(git rev-parse HEAD)" ]
	[[ "$(last | jq -r .error)" == "head: run: HEAD (commit $(git rev-parse HEAD)): side head, round 1: "* ]]
	run -125 --separate-stderr perfgate -s GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	# A failed gate is never trusted later: the good pair is judged afresh.
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD~1
	[ "$(last | jq -r .verdict)" = ok ]
}

@test "project: a budget file that does not exist cannot be decided, before anything is built" {
	mkrepo
	run -2 --separate-stderr perfgate GATE_MK="$MK" BUDGET=perf/none.toml
	[ "$(last | jq -r '[.verdict, .side, .step] | join(" ")')" = "error both budget" ]
	[[ "$stderr" == *"gate: both: budget: no budget file perf/none.toml"* ]]
	[ ! -e build/gate/base.key ]
}

@test "project: a gate leaves git's worktrees, refs and work tree as they were" {
	mkrepo
	comment_commit 'a comment'
	git worktree list --porcelain > "$BATS_TEST_TMPDIR/before"
	git for-each-ref > "$BATS_TEST_TMPDIR/refs"
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=HEAD
	git worktree list --porcelain | cmp - "$BATS_TEST_TMPDIR/before"
	git for-each-ref | cmp - "$BATS_TEST_TMPDIR/refs"
	[ ! -d .git/worktrees ]
	[ -z "$(git status --porcelain)" ]
	# The exports are kept under GATEDIR, at their commits, for the next gate.
	[ -f build/gate/base/tree/src/fx.c ]
	[ ! -e build/gate/base/tree/.git ]
}

@test "project: a project in a subdirectory of its repository is exported whole" {
	mkdir -p "$REPO"
	cp -R "$FIX/project" "$REPO/sub"
	cd "$REPO"
	echo 'shared file' > TOP.txt
	git init -q -b main
	git add -A
	git commit -q -m 'a project in sub/'
	cd sub
	comment_commit 'a comment'
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=.
	[ "$(last | jq -r .base.commit)" = "$(git rev-parse HEAD~1)" ]
	[ -f build/gate/base/tree/TOP.txt ]
	[ -f build/gate/base/tree/sub/bench/bench ]
}

@test "project: a GATE_BUILD of \$(MAKE) shares make's job slots: no jobserver warning" {
	mkrepo
	comment_commit 'a comment'
	run -0 --separate-stderr perfgate GATE_MK="$MK" BASE=HEAD~1 HEAD=.
	[[ "$stderr" != *jobserver* ]]
	run -1 grep -l jobserver build/gate/base/build.log build/gate/head/build.log
	# The sub-make ran: both sides were built by the project's own Makefile.
	grep -q 'bench/bench' build/gate/base/build.log
}

@test "project: gate.mk rebuilds a tool when any source of bin/ changes, not only its own" {
	mkrepo
	run -0 make --no-print-directory -n GATE_MK="$MK" -W "$TOP/lib/util.c" "$TOP/bin/alternate"
	[[ "$output" == *"-C $TOP bin/alternate"* ]]
	run -0 make --no-print-directory -n GATE_MK="$MK" -W "$TOP/bench/sha256.h" "$TOP/bin/cmpbudget"
	[[ "$output" == *"-C $TOP bin/cmpbudget"* ]]
}

@test "project: including gate.mk keeps the includer's default goal" {
	mkrepo
	printf 'include $(GATE_MK)\nfirst:\n\t@echo first goal\n' > first.mk
	run -0 make --no-print-directory -f first.mk GATE_MK="$MK"
	[ "$output" = "first goal" ]
	run -0 make --no-print-directory GATE_MK="$MK"
	[ -x bench/bench ]
}

@test "project: the installed gate.mk works, with the tools installed beside it" {
	mkrepo
	comment_commit 'a comment'
	dest=$BATS_TEST_TMPDIR/dest
	run -0 make -C "$TOP" install DESTDIR="$dest" PREFIX=/usr/local
	share=$dest/usr/local/share/perfgate
	[ -f "$share/gate.mk" ] && [ -f "$share/gate.sh" ] && [ -f "$share/store.sh" ] && [ -f "$share/noise.sh" ] && [ -f "$share/bench/bench.h" ]
	# The installed gate finds the installed tools, not the checkout's.
	run -0 make --no-print-directory -s GATE_MK="$share/gate.mk" --eval 'print-bin: ; @echo $(PERFGATE_BIN) $(GATE_INCLUDES)' print-bin
	[ "$output" = "$dest/usr/local/bin -I$share/bench" ]
	run -0 --separate-stderr "$dest/usr/local/bin/perfgate" GATE_MK="$share/gate.mk" BASE=HEAD~1 HEAD=.
	[ "$(last | jq -r .verdict)" = ok ]
	grep -q -- "-I$share/bench" build/gate/head/build.log
}

@test "project: perfgate(7) EXAMPLES: perfgate BASE=origin/main HEAD=." {
	mkrepo
	git update-ref refs/remotes/origin/main HEAD
	cp "$FIX/variants/slow-fx.c" src/fx.c
	run -1 --separate-stderr perfgate GATE_MK="$MK" BASE=origin/main HEAD=.
	[ "$(last | jq -c .regressed)" = '["fx_sum_ns"]' ]
}

@test "project: perfgate(7) EXAMPLES: git bisect run perfgate -s names the planted commit" {
	mkrepo
	good=$(git rev-parse HEAD)
	comment_commit 'a comment'
	echo 'fx: two kernels' | commit README 'a README'
	commit src/fx.c 'fx: does not compile' < "$FIX/variants/broken-fx.c"
	commit src/fx.c 'fx: compiles again' < "$FIX/project/src/fx.c"
	commit src/fx.c 'fx: a sum eight times over' < "$FIX/variants/slow-fx.c"
	planted=$(git rev-parse HEAD)
	echo 'and a benchmark' >> README && git commit -q -am 'README: the benchmark'
	echo 'run make gate' >> README && git commit -q -am 'README: the gate'
	[ "$(git rev-list --count HEAD)" -eq 8 ]
	bad=$(git rev-parse HEAD)
	git bisect start "$bad" "$good"
	run -0 git bisect run perfgate -s GATE_MK="$MK" BASE="$good" HEAD=.
	[[ "$output" == *"$planted is the first bad commit"* ]]
	# The commit that does not compile was tested, and skipped.
	git bisect log | grep -q '^git bisect skip'
	git bisect reset --quiet 2>/dev/null || git bisect reset
}

@test "project: a build that hangs is killed with its children, and cannot be decided" {
	mkrepo
	run -2 --separate-stderr perfgate -C "$REPO" GATE_MK="$MK" GATE_BUILD_TIMEOUT=1 \
	    GATE_BUILD='sleep 31.25 & sleep 31.25'
	[[ "$(last | jq -r '[.side, .step, .commit] | join(" ")')" =~ ^(base|head)" build $(git rev-parse HEAD)"$ ]]
	[[ "$(last | jq -r .error)" == *"the build timed out after 1 s"* ]]
	# Both sides time out at once; one summary tells.
	[ "$(printf '%s\n' "$output" | grep -c '"verdict"')" -eq 1 ]
	sleep 1
	run -1 pgrep -f 'sleep 31[.]25'
}

@test "project: perfgate -C and -f run the gate of another directory's makefile" {
	mkrepo
	sed 's/^GATE_BUDGET = .*/GATE_BUDGET = other.toml/' Makefile > other.mk
	{ cat perf/budget.toml; echo '# the other budget'; } > other.toml
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr perfgate -C "$REPO" -f other.mk GATE_MK="$MK"
	[ "$(last | jq -r .verdict)" = ok ]
	# Judged by other.mk's budget, and other.mk is the work tree's change.
	[ "$(last | jq -r .budget_sha256)" = "$(sha256sum < "$REPO/other.toml" | cut -c1-64)" ]
	[ "$(last | jq -r .head.dirty)" != null ]
	[ -f "$REPO/build/gate/verdict.jsonl" ]
}

@test "project: perfgate usage errors exit 2, or 125 with -s" {
	run -2 --separate-stderr perfgate -x
	[ "${stderr_lines[0]}" = "perfgate: -x: unknown option" ]
	[ "${stderr_lines[1]}" = "usage: perfgate [-isV] [-C dir] [-f makefile] [variable=value ...]" ]
	[ "${stderr_lines[2]}" = "       perfgate [-i] [-C dir] [-f makefile] bisect good bad [variable=value ...]" ]
	run -2 --separate-stderr perfgate gate
	[ "${stderr_lines[0]}" = "perfgate: not a variable assignment: gate" ]
	run -125 --separate-stderr perfgate -s -C
	[ "${stderr_lines[0]}" = "perfgate: -C needs an argument" ]
	[ -z "$output" ]
}
