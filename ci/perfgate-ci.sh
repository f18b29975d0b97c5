#!/bin/sh
# perfgate-ci.sh: the shell steps of perfgate's CI jobs, kept out of the
# YAML so that they can be run and tested anywhere.
#
#	perfgate-ci.sh gate [-s i/n] BRANCH [variable=value ...]
#	perfgate-ci.sh merge [-n shards] verdict.jsonl ...
#
# gate: gates the work tree (HEAD=.) against origin/BRANCH, fetching that
# branch when the clone lacks it, with `perfgate BASE=origin/BRANCH HEAD=.`
# and the variables given; -s i/n gates shard i of n (GATE_SHARD). merge:
# judges the shards' verdicts as one with mergeshards, writing
# build/gate/verdict.md and verdict.jsonl.
#
# The budget and the Makefile come from the pull request, so gate judges by
# the base's budget: the file the Makefile names (BUDGET), as the base
# commit holds it. Every change the head makes to it, as cmpbudget -O
# finds it (every section and key: `[budget] a_ns: 0.1 to 99, looser`), is
# reported first, on stderr and in the summary; a loosening (a budget
# raised, a metric removed or moved to another section, fewer runs,
# allow_loose), or a budget that cmpbudget refuses, fails the gate with
# status 1 unless PERFGATE_BUDGET_SIGNED=1, which the workflow sets from
# what only a maintainer can give (a label, a protected input): then the
# head's budget is the one judged by.
#
# Either way the Markdown verdict is appended to $GITHUB_STEP_SUMMARY when
# it is set (GitHub Actions) and printed on standard output (every CI's
# log), every picture and record stays in build/gate for the artifact, and
# the exit status is perfgate's: 0 ok, 1 regressed, 2 cannot decide.
usage() {
	echo "usage: perfgate-ci.sh gate [-s i/n] branch [variable=value ...]" >&2
	echo "       perfgate-ci.sh merge [-n shards] verdict.jsonl ..." >&2
	exit 2
}

gatedir=${GATEDIR:-build/gate}

# Whether file $1 exists and is newer than file $2 (test -nt is not POSIX).
newer() {
	[ -e "$1" ] && [ -n "$(find "$1" -prune -newer "$2" 2>/dev/null)" ]
}

# md_text: standard input as Markdown text that shows as written: what
# came from the machine (perfgate -V, PERFGATE_COMMIT) is neither HTML nor
# markup. The entities first, then a backslash before every ASCII
# punctuation character that Markdown reads. (What the tools say is in
# Markdown already, written by them.)
md_text() {
	sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/[][\\`*_{}()#+!|~"$]/\\&/g'
}

# summary STATUS OUT MARKER MD VERDICT: the Markdown verdict of this job.
# A verdict (0 or 1) comes with its table MD, written with the records
# VERDICT, even from the gate's cache, when VERDICT is what this gate
# printed (OUT), byte for byte: never a table of an earlier gate, another
# mode's or another GATEDIR's. An undecided gate shows its summary record,
# and the table only when this run wrote one (a budget naming a metric the
# bench lacks).
summary() {
	status=$1 out=$2 marker=$3 md=$4 verdict=$5
	{
		echo "### perfgate"
		echo
		if [ -s "$gatedir/budget-changes.md" ]; then
			echo "**The pull request changes the budget** ($budget_judged):"
			echo
			cat "$gatedir/budget-changes.md"
			echo
		fi
		if { [ "$status" -le 1 ] && [ -f "$md" ] && cmp -s "$out" "$verdict"; } || newer "$md" "$marker"; then
			cat "$md"
			echo
		elif [ "$status" -le 1 ]; then
			# A counts gate writes no table: its answer, by its status.
			if [ "$status" = 0 ]; then echo '**perfgate: ok** (status 0):'; else echo '**perfgate: regressed** (status 1):'; fi
			echo "this gate wrote no table; its records are in $(basename "$out"), kept with the artifact."
			echo
		fi
		if [ "$status" -gt 1 ]; then
			echo "**perfgate: cannot decide** (status $status):"
			echo
			echo '```'
			tail -n 1 "$out"
			echo '```'
		fi
		# The picture of rounds: a time gate's (a counts gate has none).
		if [ "$md" = "$gatedir/verdict.md" ] && [ -f "$gatedir/rounds.svg" ]; then
			echo
			echo "Every round is drawn in rounds.svg, kept with the records in the job's artifact."
		fi
		# Which perfgate judged: its version, and the commit the install
		# step checked it against (PERFGATE_COMMIT, from the template).
		v=$(${PERFGATE:-perfgate} -V 2>/dev/null) || v=perfgate
		echo
		if [ -n "${PERFGATE_COMMIT:-}" ]; then
			printf 'Gated by %s, commit %s.\n' "$v" "$PERFGATE_COMMIT" | md_text
		else
			printf 'Gated by %s (PERFGATE_COMMIT not set: the installed release was not checked).\n' "$v" | md_text
		fi
	} > "$gatedir/summary.md"
	cat "$gatedir/summary.md"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		cat "$gatedir/summary.md" >> "$GITHUB_STEP_SUMMARY"
	fi
}

# A marker older than anything this run writes, for summary's freshness:
# beside GATEDIR, not in it, which holds only what the gate writes (its
# mark, .perfgate-gatedir, is what lets make gate-clean remove it).
start() {
	# A GATEDIR this step makes is the gate's: it carries the gate's mark
	# (mk/store.sh, gatedir_claim), so that the gate takes it with the
	# files this step writes first, and make gate-clean removes it.
	if [ ! -d "$gatedir" ]; then
		mkdir -p "$gatedir" &&
		    printf "A gate's directory: make gate-clean removes it.\n" > "$gatedir/.perfgate-gatedir" || exit 2
	fi
	marker=$gatedir.ci-start
	: > "$marker" || exit 2
}

cmd_gate() {
	shard=
	while getopts :s: opt; do
		case $opt in
		s) shard=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -ge 1 ] || usage
	branch=$1
	shift
	# A shallow or single-branch clone (actions/checkout's default, GitLab's
	# GIT_DEPTH) lacks the base branch: fetch it whole, so that its commit
	# exists, whatever depth the clone has.
	if ! git rev-parse --verify --quiet "origin/$branch^{commit}" > /dev/null; then
		echo "perfgate-ci: fetching origin/$branch" >&2
		git fetch --no-tags origin "+refs/heads/$branch:refs/remotes/origin/$branch" || exit 2
	fi
	set -- BASE="origin/$branch" HEAD=. "$@"
	# Where the gate writes and which verdict it gives (time, counts or
	# both), and the budget the head's Makefile names: make's answers, for
	# the variables given here, in the environment or in the Makefile.
	# The $(...) are make's, expanded by make.
	# shellcheck disable=SC2016
	asked=$(${MAKE:-make} -s --no-print-directory "$@" --eval='perfgate-ci-ask: ; @printf "%s\n" \
	    $(call gate_q,$(GATEDIR)) $(call gate_q,$(GATE_MODE)) $(call gate_q,$(BUDGET))' perfgate-ci-ask 2>/dev/null) || asked=
	gatedir=$(printf '%s\n' "$asked" | sed -n 1p)
	mode=$(printf '%s\n' "$asked" | sed -n 2p)
	path=$(printf '%s\n' "$asked" | sed -n 3p)
	gatedir=${gatedir:-${GATEDIR:-build/gate}}
	case $mode in
	counts) verdict=$gatedir/counts/verdict.jsonl md=$gatedir/counts/verdict.md ;;
	both) verdict=$gatedir/both/verdict.jsonl md=$gatedir/verdict.md ;;
	*) verdict=$gatedir/verdict.jsonl md=$gatedir/verdict.md ;;
	esac
	start
	out=$gatedir/perfgate.out
	status=0
	# The budget, as the base holds it.
	rm -f "$gatedir/budget-changes.md"
	loosened=0 budget_judged="judged by the head's budget"
	case $path in
	''|/*) ;;
	*)	prefix=$(git rev-parse --show-prefix)
		if git show "origin/$branch:$prefix$path" > "$gatedir/base-budget.toml" 2>/dev/null && [ -f "$path" ]; then
			# cmpbudget -O: a line a change on stderr, the Markdown list for
			# the summary, status 1 when the head loosens, 2 when a file is
			# refused; either fails the gate until it is signed.
			"${CMPBUDGET:-cmpbudget}" -b "$path" -O "$gatedir/base-budget.toml" -m "$gatedir/budget-changes.md" \
			    > "$gatedir/budget-changes.jsonl" 2> "$gatedir/budget-changes.txt" || loosened=1
			sed 's/^/perfgate-ci: /' "$gatedir/budget-changes.txt" >&2
			if [ "${PERFGATE_BUDGET_SIGNED:-0}" = 1 ]; then
				budget_judged="signed (PERFGATE_BUDGET_SIGNED=1): judged by the head's budget"
			else
				budget_judged="judged by the base's budget"
				[ "$loosened" = 0 ] || budget_judged="$budget_judged; a loosening fails the gate until it is signed (PERFGATE_BUDGET_SIGNED=1)"
				set -- "$@" BUDGET="$(cd "$gatedir" && pwd)/base-budget.toml"
			fi
		fi ;;
	esac
	${PERFGATE:-perfgate} ${shard:+GATE_SHARD="$shard"} "$@" > "$out" || status=$?
	if [ "$loosened" = 1 ] && [ "${PERFGATE_BUDGET_SIGNED:-0}" != 1 ] && [ "$status" = 0 ]; then
		echo "perfgate-ci: the pull request loosens the budget, unsigned: status 1" >&2
		status=1
	fi
	# The picture, when the gate did not draw it already.
	if [ -f "$gatedir/runs.jsonl" ] && ! newer "$gatedir/rounds.svg" "$gatedir/runs.jsonl" &&
	    command -v plotrounds > /dev/null 2>&1; then
		plotrounds -v "$gatedir/verdict.jsonl" -o "$gatedir/rounds.svg" "$gatedir/runs.jsonl" || true
	fi
	summary "$status" "$out" "$marker" "$md" "$verdict"
	rm -f "$marker"
	exit "$status"
}

cmd_merge() {
	n=
	while getopts :n: opt; do
		case $opt in
		n) n=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -ge 1 ] || usage
	start
	out=$gatedir/verdict.jsonl
	status=0
	# Written beside, then renamed: make must never trust half a verdict.
	mergeshards ${n:+-n "$n"} -m "$gatedir/verdict.md" "$@" > "$out.tmp" || status=$?
	mv -f "$out.tmp" "$out"
	# One picture of every shard's rounds, from the runs kept beside each
	# verdict: each metric's panel holds its own shard's rounds.
	n=$#
	for v; do
		d=$(dirname "$v")
		if [ -f "$d/runs.jsonl" ]; then set -- "$@" "$d/runs.jsonl"; fi
	done
	shift "$n"
	if [ $# -gt 0 ] && command -v plotrounds > /dev/null 2>&1; then
		plotrounds -v "$out" -o "$gatedir/rounds.svg" "$@" || true
	fi
	summary "$status" "$out" "$marker" "$gatedir/verdict.md" "$out"
	rm -f "$marker"
	exit "$status"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
gate) cmd_gate "$@" ;;
merge) cmd_merge "$@" ;;
*) usage ;;
esac
