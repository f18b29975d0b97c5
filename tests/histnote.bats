#!/usr/bin/env bats
# perfgate history (histnote): records in git notes, the chain, the
# confirming gate, the page. On a generated history of the kata
# (tests/history-fixture.sh): three commits each slow rmsnorm by about 10 %
# (HISTORY_CREEP_DIV=4), one changes nothing, the last runs sum twice. Real
# gates are few (they are slow on a shared machine): one record, reused
# by the others, and one gate per confirmation; the chain's own tests use
# notes made from that record with other ratios, so that no test of the
# chain can fail on noise.

load common

# histnote(1)'s EXAMPLES, in order.
EXAMPLES=(
	'perfgate history record HEAD'
	'perfgate history check HEAD~3..HEAD'
	'perfgate history report -o build/history/report'
	'git push origin refs/notes/perfgate'
	'perfgate history record v1.4..v1.5'
	'perfgate history check v1.4..v1.5'
)

gitenv() {
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$1
}

setup_file() {
	gitenv "$BATS_FILE_TMPDIR"
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS PERFGATE_MACHINE
	HISTORY_CREEP_DIV=4 sh "$TOP/tests/history-fixture.sh" "$BATS_FILE_TMPDIR/kata" \
	    'creep creep creep same sum2x'
	cd "$BATS_FILE_TMPDIR/kata"
	# The one real record, HEAD (sum twice) against its parent: exit 1.
	# Example 1 of histnote(1).
	PERFGATE_MACHINE=a ${EXAMPLES[0]} > "$BATS_FILE_TMPDIR/record.out" \
	    2> "$BATS_FILE_TMPDIR/record.err" && echo 0 > "$BATS_FILE_TMPDIR/record.st" ||
	    echo $? > "$BATS_FILE_TMPDIR/record.st"
}

setup() {
	gitenv "$BATS_TEST_TMPDIR"
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS PERFGATE_MACHINE
	REPO=$BATS_TEST_TMPDIR/kata
	git clone -q "$BATS_FILE_TMPDIR/kata" "$REPO"
	cd "$REPO"
	git fetch -q origin refs/notes/perfgate:refs/notes/perfgate
	TEMPLATE=$(cat "$BATS_FILE_TMPDIR/record.out")
}

# fake COMMIT MACHINE RMSNORM SUM [SUMVERDICT]: a note line for COMMIT
# made from the real record, with these ratios (intervals ±2 %).
fake() {
	local c p
	c=$(git rev-parse "$1") p=$(git rev-parse "$1^")
	jq -c --arg c "$c" --arg p "$p" --arg m "$2" --argjson r "$3" --argjson s "$4" \
	    --arg sv "${5:-ok}" '.commit = $c | .parent = $p | .machine = $m |
	    .metrics = [.metrics[] | if .metric == "rmsnorm_ns" then .ratio = $r | .ratio_lo = ($r * 0.98) |
	    .ratio_hi = ($r * 1.02) | .verdict = "ok" else .ratio = $s | .ratio_lo = ($s * 0.98) |
	    .ratio_hi = ($s * 1.02) | .verdict = $sv end]' <<< "$TEMPLATE"
}

# note COMMIT LINE...: COMMIT's note, exactly these lines.
note() {
	local c=$1
	shift
	printf '%s\n' "$@" | git notes --ref=perfgate add -f -F - "$c" 2>/dev/null
}

@test "history: record gates HEAD against its parent and keeps one line, the gate's numbers" {
	[ "$(cat "$BATS_FILE_TMPDIR/record.st")" = 1 ]
	cat "$BATS_FILE_TMPDIR/record.err"
	[ "$(git notes --ref=perfgate show HEAD | wc -l)" = 1 ]
	run -0 jq -r '[.perfgate_history, .commit == $c, .parent == $p, .machine,
	    (.metrics[] | select(.metric == "sum_ns") | .verdict)] | @tsv' \
	    --arg c "$(git rev-parse HEAD)" --arg p "$(git rev-parse HEAD^)" <<< "$TEMPLATE"
	[ "$output" = "$(printf '1\ttrue\ttrue\ta\tregressed')" ]
	# The note is the line printed.
	[ "$(git notes --ref=perfgate show HEAD)" = "$TEMPLATE" ]
}

@test "history: record on a second machine adds a line; again on it, the newer replaces the older and says so" {
	PERFGATE_MACHINE=b run -1 --separate-stderr perfgate history record HEAD
	[ "$(git notes --ref=perfgate show HEAD | jq -r .machine | sort | tr '\n' ' ')" = "a b " ]
	PERFGATE_MACHINE=b run -1 --separate-stderr perfgate history record HEAD
	[[ "$stderr" == *"this record replaces this machine's of "* ]]
	[ "$(git notes --ref=perfgate show HEAD | jq -r .machine | sort | tr '\n' ' ')" = "a b " ]
	[ "$(git notes --ref=perfgate show HEAD | jq -r 'select(.machine == "b") | .recorded')" = "$(jq -r .recorded <<< "$output")" ]
}

@test "history: check finds the creep, confirms it by one gate, names its commits, and the regression" {
	note HEAD~4 "$(fake HEAD~4 a 1.04 1.0)"
	note HEAD~3 "$(fake HEAD~3 a 1.04 1.0)"
	note HEAD~2 "$(fake HEAD~2 a 1.04 1.0)"
	note HEAD~1 "$(fake HEAD~1 a 1.0 1.0)"
	# Room for the confirming gate on a busy machine: +46 %, judged at 10 %.
	run -1 --separate-stderr perfgate history check HEAD~5..HEAD GATE_DEADLINE=60
	echo "$stderr"
	creep=$(jq -c 'select(.history == "creep")' <<< "$output")
	[ "$(jq -r '[.metric, .status, .from == $f, .confirm.verdict] | @tsv' --arg f "$(git rev-parse HEAD~5)" <<< "$creep")" = \
	    "$(printf 'rmsnorm_ns\tconfirmed\ttrue\tregressed')" ]
	# The chained estimate: 1.04^3, and HEAD's measured ratio may join it.
	jq -e '.chained > 1.124 and .interval[0] < .chained and .chained < .interval[1]' <<< "$creep"
	for c in HEAD~4 HEAD~3 HEAD~2; do
		jq -e --arg c "$(git rev-parse $c)" '[.top[].commit] | index($c) != null' <<< "$creep"
	done
	[ "$(jq -r 'select(.history == "regression") | [.metric, .commit] | @tsv' <<< "$output")" = \
	    "$(printf 'sum_ns\t%s' "$(git rev-parse HEAD)")" ]
	[ "$(jq -r 'select(.history == "summary") | .verdict' <<< "$output")" = regressed ]
	[[ "$stderr" == *"rmsnorm_ns: a creep confirmed: "* ]]
}

@test "history: a proposal the gate of the two ends does not bear out is rejected (or undecided), both figures shown" {
	# HEAD~1 changes nothing; its record claims +15 %, within the gate's 20 %.
	note HEAD~1 "$(fake HEAD~1 a 1.15 1.0)"
	# A short deadline: undecided is an answer here too, and cheaper.
	run --separate-stderr perfgate history check HEAD~2..HEAD~1 GATE_DEADLINE=6
	echo "$stderr"
	creep=$(jq -c 'select(.history == "creep")' <<< "$output")
	st=$(jq -r .status <<< "$creep")
	[ "$st" = rejected ] || [ "$st" = undecided ]
	[ "$status" = $([ "$st" = rejected ] && echo 0 || echo 2) ]
	jq -e '.chained > 1.14 and (.confirm.ratio | type) == "number"' <<< "$creep"
}

@test "history: an A/A history proposes nothing, and exits 0 with no gate" {
	for c in HEAD~4 HEAD~3 HEAD~2 HEAD~1; do note $c "$(fake $c a 1.01 0.99)"; done
	run -0 --separate-stderr perfgate history check HEAD~5..HEAD~1
	[ "$(jq -r 'select(.history == "summary") | [.verdict, .recorded, .gaps] | @tsv' <<< "$output")" = "$(printf 'ok\t4\t0')" ]
	[[ "$stderr" != *confirming* ]]
}

@test "history: a missing note is a gap, named, and exit 2" {
	note HEAD~4 "$(fake HEAD~4 a 1.0 1.0)"
	note HEAD~2 "$(fake HEAD~2 a 1.0 1.0)"
	note HEAD~1 "$(fake HEAD~1 a 1.0 1.0)"
	run -2 --separate-stderr perfgate history check HEAD~4..HEAD~1
	[ "$(jq -r 'select(.history == "gap") | .commit' <<< "$output")" = "$(git rev-parse HEAD~3)" ]
	[[ "$stderr" == *"$(git rev-parse HEAD~3) has no record"* ]]
}

@test "history: a corrupt line and a line not perfgate's are named with the commit and skipped" {
	note HEAD~1 '{"perfgate_history":1,"commit":' '{"tool":"other","ms":12}' "$(fake HEAD~1 a 1.0 1.0)"
	note HEAD~2 "$(fake HEAD~3 a 1.0 1.0)"
	run -2 --separate-stderr perfgate history check HEAD~3..HEAD~1
	[[ "$stderr" == *"note of $(git rev-parse HEAD~1): line 1: "* ]]
	[[ "$stderr" == *"note of $(git rev-parse HEAD~1): line 2: not a record of perfgate's; skipped"* ]]
	# A record copied from another commit is not this commit's.
	[[ "$stderr" == *"note of $(git rev-parse HEAD~2): line 1: a record of another commit"* ]]
	[ "$(jq -r 'select(.history == "summary") | [.recorded, .gaps] | @tsv' <<< "$output")" = "$(printf '1\t1')" ]
}

@test "history: two runners' notes combine by git notes merge -s union, one line each" {
	git notes --ref=perfgate remove HEAD 2>/dev/null
	note HEAD~1 "$(fake HEAD~1 a 1.0 1.0)"
	git clone -q . ../other && (cd ../other && git fetch -q origin refs/notes/perfgate:refs/notes/perfgate &&
	    printf '%s\n' "$(fake HEAD~1 b 1.01 1.0)" | git notes --ref=perfgate append -F - HEAD~1 2>/dev/null) &&
	    fake HEAD~1 c 1.02 1.0 | git notes --ref=perfgate append -F - HEAD~1
	git fetch -q ../other refs/notes/perfgate:refs/notes/other
	git notes --ref=perfgate merge -q -s union refs/notes/other
	# union keeps both notes whole, so the line both had appears twice: one record.
	[ "$(git notes --ref=perfgate show HEAD~1 | jq -r .machine | sort -u | tr '\n' ' ')" = "a b c " ]
	# check reads the merged note: one commit recorded.
	PERFGATE_MACHINE=b run -0 --separate-stderr perfgate history check HEAD~2..HEAD~1
	[ "$(jq -r 'select(.history == "summary") | .recorded' <<< "$output")" = 1 ]
}

@test "history: a range off the first-parent path, an unknown revision, a shallow clone, BASE=: one line, exit 2" {
	run -2 --separate-stderr perfgate history check HEAD..HEAD~2
	[[ "$stderr" == "histnote: HEAD..HEAD~2: no commits"* ]]
	git checkout -q -b side HEAD~3 && echo x > side.txt && git add side.txt && git commit -qm side &&
	    git checkout -q main && git merge -q --no-ff -m merge side
	run -2 --separate-stderr perfgate history check side..HEAD
	[ "$stderr" = "histnote: side..HEAD: side is not on the first-parent path of HEAD" ]
	run -2 --separate-stderr perfgate history record no-such-rev
	[ "$stderr" = "histnote: no-such-rev: not a commit" ]
	run -2 --separate-stderr perfgate history record -- '-x'
	run -2 --separate-stderr perfgate history record HEAD BASE=HEAD~1
	[[ "$stderr" == "histnote: BASE is the history's own"* ]]
	git clone -q --depth 2 "file://$REPO" ../shallow
	run -2 --separate-stderr perfgate history -C ../shallow check 2>&1 || true
	run -2 --separate-stderr perfgate history check -C ../shallow
	[[ "$stderr" == "histnote: a shallow clone: "* ]]
}

@test "history: a bad [history] creep budget is named by file and line" {
	printf 'runs = 3\n[budget]\nsum_ns = 0.2\nrmsnorm_ns = 0.2\n[history]\nsum_ns = 0\n' > budget.toml
	note HEAD~1 "$(fake HEAD~1 a 1.0 1.0)"
	run -2 --separate-stderr perfgate history check HEAD~2..HEAD~1
	[ "$stderr" = "histnote: budget.toml:6: creep budget of sum_ns must be above 0" ]
	printf 'runs = 3\n[budget]\nsum_ns = 0.2\n[history]\nsum_ns = 1.5\n' > budget.toml
	run -2 --separate-stderr cmpbudget -q budget.toml
	[[ "$stderr" == *"budget.toml:5: creep budget of sum_ns must be below 1 in [history]"* ]]
}

@test "history: report writes index.html and an SVG a metric, one point a recorded commit, names escaped" {
	git commit -q --allow-empty -m 'a <b> & "c" $HOME; -x'
	for c in HEAD~5 HEAD~4 HEAD~3 HEAD~1; do note $c "$(fake $c a 1.03 1.0)"; done
	note HEAD "$(fake HEAD a 1.0 1.0)"
	printf '%s\n' '{"history":"creep","metric":"rmsnorm_ns","status":"confirmed","from":"'"$(git rev-parse HEAD~6)"'","to":"'"$(git rev-parse HEAD~3)"'"}' > check.jsonl
	run -0 --separate-stderr perfgate history report -c check.jsonl -o 'out dir' -u 'https://example.org/c/%H?a&b'
	[ -s 'out dir/index.html' ] && [ -s 'out dir/rmsnorm_ns.svg' ] && [ -s 'out dir/sum_ns.svg' ]
	[ "$(grep -o '<circle' 'out dir/rmsnorm_ns.svg' | wc -l)" = 5 ]
	[ "$(grep -o '<circle' 'out dir/index.html' | wc -l)" = 10 ]
	grep -q 'a &lt;b&gt; &amp; &quot;c&quot; $HOME; -x' 'out dir/index.html'
	grep -q "https://example.org/c/$(git rev-parse HEAD)?a&amp;b" 'out dir/sum_ns.svg'
	grep -q 'class="creep confirmed"' 'out dir/rmsnorm_ns.svg'
	grep -q 'class="gap"' 'out dir/rmsnorm_ns.svg'
	! grep -qi '<script' 'out dir/index.html'
	xmllint --noout 'out dir/rmsnorm_ns.svg' 2>/dev/null || ! command -v xmllint
}

@test "history: histnote's usage is its man page's SYNOPSIS" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	run -2 --separate-stderr histnote -Z
	[ "$(printf '%s\n' "${stderr_lines[@]:1}" | sed 's/^usage: //' | tr -s ' \n' '  ' | sed 's/ $//; s/^ //')" = "$(man_synopsis histnote)" ]
}

@test "history: histnote(1)'s examples are these, and run" {
	check_examples histnote "${EXAMPLES[@]}"
	# 1 ran in setup_file: HEAD's record.
	[ "$(git notes --ref=perfgate show HEAD | wc -l)" = 1 ]
	for c in HEAD~2 HEAD~1; do note $c "$(fake $c a 1.0 1.0)"; done
	run -1 --separate-stderr ${EXAMPLES[1]}
	[ "$(jq -r 'select(.history == "summary") | [.recorded, .regressions] | @tsv' <<< "$output")" = "$(printf '3\t1')" ]
	run -0 --separate-stderr ${EXAMPLES[2]}
	[ -s build/history/report/index.html ]
	git clone -q --bare . ../remote.git && git remote set-url origin ../remote.git
	run -0 ${EXAMPLES[3]}
	[ "$(git --git-dir=../remote.git notes --ref=perfgate list | wc -l)" = 3 ]
	# 5 and 6: HEAD~1 is recorded, HEAD~2 is not yet: the backfill gates it alone.
	git tag v1.4 HEAD~3 && git tag v1.5 HEAD~1
	git notes --ref=perfgate remove HEAD~2 2>/dev/null
	# A real gate of a 10 % slower rmsnorm at a 20 % budget: ok, or undecided on a busy machine.
	PERFGATE_MACHINE=a run --separate-stderr ${EXAMPLES[4]}
	[ "$status" = 0 ] || [ "$status" = 2 ]
	[[ "$stderr" == *"1 of the 2 commits of v1.4..v1.5 are not recorded on this machine"* ]]
	[ "$(jq -r .commit <<< "$output")" = "$(git rev-parse HEAD~2)" ]
	PERFGATE_MACHINE=a run --separate-stderr ${EXAMPLES[5]}
	[ "$(jq -r 'select(.history == "summary") | [.recorded, .gaps] | @tsv' <<< "$output")" = "$(printf '2\t0')" ]
}

@test "history: the page in headless Chromium: not blank, one point a recorded commit, no console message" {
	command -v chromium >/dev/null || skip "chromium is not installed"
	for c in HEAD~4 HEAD~3 HEAD~1; do note $c "$(fake $c a 1.04 1.0)"; done
	run -0 --separate-stderr perfgate history report -o page
	# One profile of its own, no network: the page needs none.
	b() { timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$BATS_TEST_TMPDIR/profile" \
	    --enable-logging=stderr --v=0 --window-size=1000,1600 "$@" "file://$PWD/page/index.html"; }
	run -0 --separate-stderr b --dump-dom
	# Recorded: HEAD~4, HEAD~3, HEAD~1 and HEAD, in each of the two metrics' drawings.
	[ "$(grep -o '<circle class="point' <<< "$output" | wc -l)" = 8 ]
	[[ "$stderr" != *CONSOLE* ]]
	run -0 --separate-stderr b --screenshot="$BATS_TEST_TMPDIR/shot.png"
	[[ "$stderr" != *CONSOLE* ]]
	# Not blank: the image's rows hold many byte values, a blank page's few.
	run -0 python3 -c '
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
i, idat = 8, b""
while i < len(d):
    n, t = struct.unpack(">I4s", d[i:i + 8])
    if t == b"IDAT":
        idat += d[i + 8:i + 8 + n]
    i += 12 + n
print(len(set(zlib.decompress(idat))))' "$BATS_TEST_TMPDIR/shot.png"
	[ "$output" -gt 32 ]
}

@test "history: record interrupted leaves no note, and no process" {
	# Each run of the benchmark starts 0.2 s late (its times are not
	# touched), so that the gate is still measuring when it is stopped,
	# however fast the machine.
	{ printf '#define _POSIX_C_SOURCE 200809L\n#include <time.h>\n'
	  printf '__attribute__((constructor)) static void late(void) { struct timespec t = { 0, 200000000 }; nanosleep(&t, 0); }\n'
	  cat kata/slow.c; } > slow.c && mv slow.c kata/slow.c
	git commit -q -am 'bench: each run starts late'
	echo late >> notes.txt
	git commit -q -am 'notes: late'
	# A group of its own, as a terminal's ^C reaches the whole job.
	setsid perfgate history record HEAD > /dev/null 2>&1 &
	pid=$!
	# Until a round is measured (a run of a side's benchmark, in a group of
	# its own), then stop the whole job.
	ran="^$REPO/build/history/record/(base|head)/tree/bench"
	for i in $(seq 100); do
		pgrep -f "$ran" > /dev/null && break
		sleep 0.1
	done
	pgrep -f "$ran" > /dev/null
	kill -TERM -- "-$pid"
	wait "$pid" || true
	run -1 git notes --ref=perfgate show HEAD
	sleep 1
	run -1 pgrep -g "$pid"
	run -1 pgrep -f "$REPO/build/history/record"
}
