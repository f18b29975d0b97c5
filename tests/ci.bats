#!/usr/bin/env bats
# perfgate-ci: the shell steps of the CI templates (ci/perfgate-ci.sh), run
# in throwaway git repositories of tests/fixtures/project as a CI runner
# runs them: a pull request's work tree against origin/<base>, the job
# summary in $GITHUB_STEP_SUMMARY, build/gate kept for the artifact.

load common

FIX=$TOP/tests/fixtures
MK=$TOP/mk/gate.mk
CI=$TOP/ci/perfgate-ci.sh

setup() {
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$BATS_TEST_TMPDIR
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS GITHUB_STEP_SUMMARY
	T=$BATS_TEST_TMPDIR
	REPO=$T/repo
}

# The fixture as the first commit of branch main of a repository "origin",
# and a clone of it with a pull request's branch "pr" checked out.
mkorigin() {
	cp -R "$FIX/project" "$T/origin"
	git -C "$T/origin" init -q -b main
	git -C "$T/origin" add -A
	git -C "$T/origin" commit -q -m 'fx: a sum and a max'
	git clone -q "$T/origin" "$REPO"
	cd "$REPO"
	git checkout -q -b pr
}

@test "perfgate-ci: a slowed pull request regresses: status 1, the table in the job summary, build/gate kept" {
	mkorigin
	cp "$FIX/variants/slow-fx.c" src/fx.c
	git commit -q -am 'fx: a volatile sum'
	export GITHUB_STEP_SUMMARY=$T/summary.md
	echo 'an earlier step' > "$GITHUB_STEP_SUMMARY"
	run -1 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	# Appended to the job summary, and shown in the log.
	[ "$(head -n 1 "$GITHUB_STEP_SUMMARY")" = 'an earlier step' ]
	grep -qx '### perfgate' "$GITHUB_STEP_SUMMARY"
	grep -qx '\*\*cmpbudget: regressed\*\*: `fx_sum_ns`' "$GITHUB_STEP_SUMMARY"
	grep -q '^| fx_sum_ns | .* | \*\*regressed\*\* |' "$GITHUB_STEP_SUMMARY"
	[[ "$output" == *'**cmpbudget: regressed**: `fx_sum_ns`'* ]]
	# The artifact: records, statistics, verdict, picture, perfgate's output.
	[ "$(tail -n 1 build/gate/perfgate.out | jq -r .verdict)" = regressed ]
	[ "$(tail -n 1 build/gate/perfgate.out | jq -r .base.commit)" = "$(git rev-parse origin/main)" ]
	[ -s build/gate/runs.jsonl ] && [ -s build/gate/verdict.md ]
	xmllint --noout build/gate/rounds.svg
	grep -q 'fx_sum_ns: regressed' build/gate/rounds.svg
	[ ! -e build/gate/.ci-start ]
}

@test "perfgate-ci: a clone without the base branch fetches it, and an unchanged pull request passes" {
	mkorigin
	echo 'a README' > README && git add README && git commit -q -m README
	git push -q origin pr
	# A single-branch clone of the pull request, as actions/checkout makes one.
	git clone -q --single-branch --branch pr "$T/origin" "$T/single"
	cd "$T/single"
	run -1 git rev-parse --verify --quiet origin/main
	export GITHUB_STEP_SUMMARY=$T/summary.md
	run -0 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[[ "$stderr" == *"perfgate-ci: fetching origin/main"* ]]
	grep -q '^\*\*cmpbudget: ok\*\*: 2 metrics within budget' "$GITHUB_STEP_SUMMARY"
	[ "$(tail -n 1 build/gate/perfgate.out | jq -r .base.commit)" = "$(git -C "$T/origin" rev-parse main)" ]
}

@test "perfgate-ci: a pull request that does not build cannot be decided: status 2, the reason in the summary" {
	mkorigin
	cp "$FIX/variants/broken-fx.c" src/fx.c
	git commit -q -am 'fx: does not compile'
	export GITHUB_STEP_SUMMARY=$T/summary.md
	run -2 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	grep -qx '\*\*perfgate: cannot decide\*\* (status 2):' "$GITHUB_STEP_SUMMARY"
	[ "$(sed -n '/^```$/,/^```$/p' "$GITHUB_STEP_SUMMARY" | sed -n 2p | jq -r '[.side, .step] | join(" ")')" = "head build" ]
	run -1 grep -q cmpbudget "$GITHUB_STEP_SUMMARY"
	# A base branch that is nowhere cannot be decided either.
	run -2 --separate-stderr sh "$CI" gate no-such-branch GATE_MK="$MK"
}

@test "perfgate-ci: without GITHUB_STEP_SUMMARY (GitLab), the verdict is in the log and in build/gate/summary.md" {
	mkorigin
	run -0 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[ "${lines[0]}" = '### perfgate' ]
	[[ "$output" == *'**cmpbudget: ok**'* ]]
	cmp -s build/gate/summary.md <(printf '%s\n' "$output")
}

@test "perfgate-ci: usage errors exit 2" {
	run -2 --separate-stderr sh "$CI"
	[ "${stderr_lines[0]}" = "usage: perfgate-ci.sh gate [-s i/n] branch [variable=value ...]" ]
	run -2 --separate-stderr sh "$CI" gate
	run -2 --separate-stderr sh "$CI" merge
	run -2 --separate-stderr sh "$CI" deploy
}

@test "perfgate-ci: the templates are YAML that call the script, with the base branch and the artifact" {
	y() { /usr/bin/python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' "$1"; }
	run -0 y "$TOP/ci/github/perfgate.yml"
	[ "$(printf '%s' "$output" | jq -r '.jobs.perfgate.steps[] | select(.run) | .run' | grep -c 'perfgate-ci.sh gate "$GITHUB_BASE_REF"')" -eq 1 ]
	[ "$(printf '%s' "$output" | jq -r '.jobs.perfgate.steps[] | select(.uses // "" | startswith("actions/upload-artifact")) | .if')" = 'always()' ]
	[ "$(printf '%s' "$output" | jq -r '.jobs.perfgate.steps[0].with["fetch-depth"]')" = 0 ]
	run -0 y "$TOP/ci/github/perfgate-shards.yml"
	[ "$(printf '%s' "$output" | jq -c .jobs.shard.strategy.matrix.shard)" = '[1,2,3]' ]
	[ "$(printf '%s' "$output" | jq -r .env.SHARDS)" = 3 ]
	printf '%s' "$output" | jq -r '.jobs.merge.steps[] | select(.run) | .run' | grep -q 'perfgate-ci.sh merge -n "$SHARDS"'
	run -0 y "$TOP/ci/gitlab/perfgate.gitlab-ci.yml"
	printf '%s' "$output" | jq -r '.perfgate.script[0]' | grep -q 'perfgate-ci.sh gate "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"'
	[ "$(printf '%s' "$output" | jq -r '.perfgate.artifacts.when')" = always ]
	[ "$(printf '%s' "$output" | jq -r '.["perfgate:shards"].parallel')" = 3 ]
	# Every action pinned by a commit, no token left in the checkout, the
	# installed release checked against its commit.
	for f in github/perfgate.yml github/perfgate-shards.yml; do
		run -0 grep -c 'uses: ' "$TOP/ci/$f"
		[ "$(grep -c 'uses: [a-z-]*/[a-z-]*@[0-9a-f]\{40\} # v' "$TOP/ci/$f")" -eq "$output" ]
		run -0 y "$TOP/ci/$f"
		printf '%s' "$output" | jq -e '[.jobs[].steps[] | select(.uses // "" | startswith("actions/checkout")) | .with["persist-credentials"]] | all(. == false)'
		grep -q 'rev-parse HEAD)" = "$PERFGATE_COMMIT"' "$TOP/ci/$f"
	done
	grep -q 'rev-parse HEAD)" = "$PERFGATE_COMMIT"' "$TOP/ci/gitlab/perfgate.gitlab-ci.yml"
	# Every path the templates install to is where make install puts it.
	grep -q 'perfgate-ci.sh' "$TOP/Makefile"
}

@test "perfgate-ci: merge judges the shards' verdicts as one: the summary, the merged records, one picture" {
	cd "$T"
	D=$DATA/cmpbudget
	# Two shards of the worked example, as two runners leave them: a verdict
	# and the rounds beside it.
	for i in 1 2; do
		mkdir -p "shards/$i"
		cmpbudget -b "$D/budget.toml" -M "$(sh "$TOP/mk/shard.sh" $i/2 "$D/budget.toml")" "$D/worked.jsonl" 2>/dev/null |
		    sed "\$s|}\$|,\"base\":{\"commit\":\"c1\"},\"head\":{\"commit\":\"c2\"}}|" > "shards/$i/verdict.jsonl"
		for r in 1 2; do
			echo '{"side":"base","round":'$r',"slot":0,"a_ns":8.0,"b_ns":8.0,"c_ns":8.0,"d_ns":8.0}'
			echo '{"side":"head","round":'$r',"slot":1,"a_ns":9.6,"b_ns":16.0,"c_ns":10.0,"d_ns":10.01}'
		done > "shards/$i/runs.jsonl"
	done
	export GITHUB_STEP_SUMMARY=$T/summary.md
	run -1 --separate-stderr sh "$CI" merge -n 2 shards/1/verdict.jsonl shards/2/verdict.jsonl
	grep -qx '\*\*cmpbudget: regressed\*\*: `b_ns`, `d_ns`' "$GITHUB_STEP_SUMMARY"
	[ "$(tail -n 1 build/gate/verdict.jsonl | jq -c '[.verdict, .metrics, .shards]')" = '["regressed",4,2]' ]
	[ "$(grep -c '"metric"' build/gate/verdict.jsonl)" -eq 4 ]
	xmllint --noout build/gate/rounds.svg
	[ "$(grep -c 'font-weight="bold"' build/gate/rounds.svg)" -eq 4 ]
	# A missing shard: the merge cannot decide, and says why.
	run -2 --separate-stderr sh "$CI" merge -n 2 shards/1/verdict.jsonl
	grep -q '^\*\*cmpbudget: error\*\*: 1 shard given, 2 expected' "$GITHUB_STEP_SUMMARY"
}

@test "perfgate-ci: a pull request that loosens its own budget is judged by the base's, the change reported first, and fails unless signed" {
	mkorigin
	cp "$FIX/variants/slow-fx.c" src/fx.c
	sed -i 's/^fx_sum_ns = 0.5$/fx_sum_ns = 99/; s/^runs = 3$/&\nallow_loose = true/' perf/budget.toml
	git commit -q -am 'fx: slower, and a budget that lets it pass'
	export GITHUB_STEP_SUMMARY=$T/summary.md
	run -1 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[[ "$stderr" == *"perfgate-ci: [budget] fx_sum_ns: 0.5 to 99, looser"* ]]
	[ "$(tail -n 1 build/gate/perfgate.out | jq -r .verdict)" = regressed ]
	# First in the summary, before the table.
	[ "$(sed -n 3p "$GITHUB_STEP_SUMMARY")" = "**The pull request changes the budget** (judged by the base's budget; a loosening fails the gate until it is signed (PERFGATE_BUDGET_SIGNED=1)):" ]
	[ "$(sed -n 5p "$GITHUB_STEP_SUMMARY")" = '- `allow_loose`: added (now true; false by default), looser' ]
	[ "$(sed -n 6p "$GITHUB_STEP_SUMMARY")" = '- `[budget]` `fx_sum_ns`: 0.5 to 99, looser' ]
	# Code unchanged, the budget loosened: still a no, until it is signed.
	git checkout -q origin/main -- src/fx.c
	git commit -q -am 'fx: as it was'
	run -1 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[[ "$stderr" == *"the pull request loosens the budget, unsigned: status 1"* ]]
	PERFGATE_BUDGET_SIGNED=1 run -0 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[ "$(tail -n 1 build/gate/perfgate.out | jq -r .budget)" = perf/budget.toml ]
}

# The base's budget for the kinds of change below: a time, a throughput's
# future name, a count and an accuracy, each section cmpbudget -O compares.
CI_BASE='runs = 3\n[budget]\nfx_sum_ns = 0.5\nfx_max_ns = 0.5\nx_ops = 0.1\n[counts]\nx_instr = 0.02\n[accuracy]\nsum = 0\n'

# ci_budget HEAD STATUS LINE ITEM: a pull request that changes only the
# budget, from CI_BASE to HEAD (printf %b), its gate stubbed to pass
# (PERFGATE), so that the status is the budget check's: STATUS, the change
# said as LINE in the log and as the summary's list item ITEM.
ci_budget() {
	mkorigin
	printf '%b' "$CI_BASE" > "$T/origin/perf/budget.toml"
	git -C "$T/origin" commit -q -am 'budget: every section'
	git fetch -q origin && git reset -q --hard origin/main
	printf '%b' "$1" > perf/budget.toml
	git commit -q -am 'budget: the pull request'
	printf '#!/bin/sh\nexit 0\n' > "$T/pass" && chmod +x "$T/pass"
	export GITHUB_STEP_SUMMARY=$T/summary.md
	PERFGATE=$T/pass run -"$2" --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[[ "$stderr" == *"perfgate-ci: $3"* ]] || { echo "$stderr"; return 1; }
	grep -qxF -- "- $4" "$GITHUB_STEP_SUMMARY" || { cat "$GITHUB_STEP_SUMMARY"; return 1; }
}

@test "perfgate-ci: a metric moved from [budget] to [higher] (its direction reversed) loosens: status 1" {
	ci_budget "$(printf '%b' "$CI_BASE" | sed '/^x_ops/d; s/^\[counts\]$/[higher]\nx_ops = 0.1\n&/')" 1 \
	    'x_ops: moved from [budget] to [higher], 0.1 to 0.1, looser' \
	    '`x_ops`: moved from `[budget]` to `[higher]`, 0.1 to 0.1, looser'
	[[ "$stderr" == *"the pull request loosens the budget, unsigned: status 1"* ]]
}

@test "perfgate-ci: a [counts] budget raised from 0.02 to 99 loosens: status 1" {
	ci_budget "$(printf '%b' "$CI_BASE" | sed 's/^x_instr = 0.02$/x_instr = 99/')" 1 \
	    '[counts] x_instr: 0.02 to 99, looser' '`[counts]` `x_instr`: 0.02 to 99, looser'
}

@test "perfgate-ci: an [accuracy] budget raised loosens: status 1" {
	ci_budget "$(printf '%b' "$CI_BASE" | sed 's/^sum = 0$/sum = 4/')" 1 \
	    '[accuracy] sum: 0 to 4, looser' '`[accuracy]` `sum`: 0 to 4, looser'
}

@test "perfgate-ci: a metric removed from the budget loosens: status 1" {
	ci_budget "$(printf '%b' "$CI_BASE" | sed '/^fx_max_ns/d')" 1 \
	    '[budget] fx_max_ns: removed (was 0.5), looser' '`[budget]` `fx_max_ns`: removed (was 0.5), looser'
}

@test "perfgate-ci: runs lowered loosens: status 1" {
	ci_budget "$(printf '%b' "$CI_BASE" | sed 's/^runs = 3$/runs = 2/')" 1 'runs: 3 to 2, looser' '`runs`: 3 to 2, looser'
}

@test "perfgate-ci: a [budget] fraction raised loosens: status 1" {
	ci_budget "$(printf '%b' "$CI_BASE" | sed 's/^fx_sum_ns = 0.5$/fx_sum_ns = 0.9/')" 1 \
	    '[budget] fx_sum_ns: 0.5 to 0.9, looser' '`[budget]` `fx_sum_ns`: 0.5 to 0.9, looser'
}

@test "perfgate-ci: a budget tightened is reported and passes: status 0" {
	ci_budget "$(printf '%b' "$CI_BASE" | sed 's/^fx_sum_ns = 0.5$/fx_sum_ns = 0.3/')" 0 \
	    '[budget] fx_sum_ns: 0.5 to 0.3, tighter' '`[budget]` `fx_sum_ns`: 0.5 to 0.3, tighter'
	grep -qxF "**The pull request changes the budget** (judged by the base's budget):" "$GITHUB_STEP_SUMMARY"
	[[ "$stderr" != *"loosens the budget"* ]]
}

@test "perfgate-ci: a base branch whose name holds \$(E) is the branch named, not another" {
	mkorigin
	git -C "$T/origin" branch 'v1$(E)'
	git -C "$T/origin" branch v1
	cp "$FIX/variants/slow-fx.c" "$T/origin/src/fx.c"
	git -C "$T/origin" checkout -q 'v1$(E)'
	cp "$FIX/variants/slow-fx.c" "$T/origin/src/fx.c"
	git -C "$T/origin" commit -q -am 'fx: slow on v1$(E)'
	git fetch -q origin
	run --separate-stderr sh "$CI" gate 'v1$(E)' GATE_MK="$MK"
	[ "$(tail -n 1 build/gate/perfgate.out | jq -r .base.commit)" = "$(git rev-parse 'origin/v1$(E)')" ]
}

@test "perfgate-ci: a head budget that cmpbudget refuses is a change that fails, said in Markdown that shows as text" {
	mkorigin
	# The old reader (awk) took this for a metric and put it in the summary raw.
	printf '<img src=x onerror=alert(1)> = 99\n' >> perf/budget.toml
	git commit -q -am 'budget: a key that is HTML'
	export GITHUB_STEP_SUMMARY=$T/summary.md
	run -1 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[[ "$stderr" == *"perfgate-ci: cmpbudget: perf/budget.toml:8: expected 'key = value', a [section] or a comment"* ]]
	run -1 grep -q '<img' "$GITHUB_STEP_SUMMARY"
	grep -qF -- "- **cmpbudget: error**: perf/budget.toml:8: expected 'key = value', a \[section\] or a comment" "$GITHUB_STEP_SUMMARY"
}

@test "perfgate-ci: md_text shows text as written: no HTML, no markup" {
	eval "$(sed -n '/^md_text()/,/^}/p' "$CI")"
	run -0 sh -c "$(sed -n '/^md_text()/,/^}/p' "$CI"); printf '%s\n' \"\$1\" | md_text" sh 'a_ns <img src=x> `c` *b* [l](u) & | # \'
	[ "$output" = 'a\_ns &lt;img src=x&gt; \`c\` \*b\* \[l\]\(u\) &amp; \| \# \\' ]
}

@test "perfgate-ci: the summary names the perfgate that judged and PERFGATE_COMMIT, which a release's templates carry" {
	mkorigin
	export GITHUB_STEP_SUMMARY=$T/summary.md
	PERFGATE_COMMIT=0123abc run -0 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	[ "$(tail -n 1 "$GITHUB_STEP_SUMMARY")" = "Gated by perfgate $(cat "$TOP/VERSION"), commit 0123abc." ]
	# The source tree's templates cannot name their own release's commit;
	# make dist from a clean commit writes it in.
	git clone -q "$TOP" "$T/src"
	make -s -C "$T/src" dist DISTDIR="$T" > /dev/null
	c=$(git -C "$T/src" rev-parse HEAD)
	for f in github/perfgate.yml github/perfgate-shards.yml gitlab/perfgate.gitlab-ci.yml; do
		[ "$(tar -xzOf "$T/perfgate-$(cat "$TOP/VERSION").tar.gz" "perfgate-$(cat "$TOP/VERSION")/ci/$f" |
		    sed -n 's/^ *PERFGATE_COMMIT: "\(.*\)"$/\1/p')" = "$c" ] || { echo "$f"; false; }
	done
	grep -q '^ *PERFGATE_COMMIT: ""$' "$TOP/ci/github/perfgate.yml"
}

@test "perfgate-ci: the job summary is this gate's or none: GATEDIR given as a variable, a counts gate after a time gate" {
	mkorigin
	run -0 --separate-stderr sh "$CI" gate main GATE_MK="$MK"
	grep -q '^\*\*cmpbudget: ok\*\*' build/gate/summary.md
	cp "$FIX/variants/slow-fx.c" src/fx.c
	git commit -q -am 'fx: a volatile sum'
	export GITHUB_STEP_SUMMARY=$T/summary.md
	# The gate in another GATEDIR, named on the command line.
	run -1 --separate-stderr sh "$CI" gate main GATE_MK="$MK" GATEDIR="$T/g"
	grep -qx '\*\*cmpbudget: regressed\*\*: `fx_sum_ns`' "$GITHUB_STEP_SUMMARY"
	run -1 grep -q 'cmpbudget: ok' "$GITHUB_STEP_SUMMARY"
	[ -s "$T/g/summary.md" ]
	# A counts gate, with the time gate's ok table still in build/gate.
	rm "$GITHUB_STEP_SUMMARY"
	run -1 --separate-stderr sh "$CI" gate main GATE_MK="$MK" GATE_MODE=counts GATE_EXPLAIN=off
	[ "$(tail -n 1 build/gate/perfgate.out | jq -r .verdict)" = regressed ]
	run -1 grep -q 'cmpbudget: ok' "$GITHUB_STEP_SUMMARY"
	grep -qx '\*\*perfgate: regressed\*\* (status 1):' "$GITHUB_STEP_SUMMARY"
}
