#!/bin/sh
# gate.sh: the steps of gate.mk that need more than one shell line.
#
#	gate.sh id      GATEDIR SIDE KIND VALUE CC CFLAGS BUILD BENCH [FILE ...]
#	gate.sh build   GATEDIR SIDE KIND VALUE SIDEDIR TIMEOUT BUILD BENCH
#	gate.sh measure GATEDIR BINDIR RUNS TIMEOUT ALTERNATE_FLAGS [BUDGET CONFIRM]
#	gate.sh judge   GATEDIR BINDIR BUDGET
#	gate.sh report  GATEDIR
#	gate.sh fail    GATEDIR SIDE STEP MESSAGE
#
# A step that cannot go on calls fail: it writes an "error" summary record
# to GATEDIR/verdict.jsonl and to stdout, so that whoever reads the gate's
# last line learns which side, revision and step could not be decided, and
# exits 2.
#
# A side's identity lives in GATEDIR/SIDE.id, one "key value" a line; the
# id step rewrites it only when it changes, since its timestamp is what make
# compares. GATEDIR/SIDE.value holds what the side was named on the command
# line (a revision, a path), kept apart so that two names for one commit
# share their measurements.

# JSON string body of $1: escape backslashes and quotes, drop control bytes.
json_str() {
	printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g'
}

# The value of key $2 in the identity file $1.
id_get() {
	sed -n "s/^$2 //p" "$1" 2>/dev/null
}

# How a side is named in messages: what the user gave, and what it is.
describe() {
	value=$1 src=$2
	case $src in
	'') printf '%s' "$value" ;;
	sha256:*) printf '%s (%s)' "$value" "$src" ;;
	*+dirty:*) printf '%s (commit %s with uncommitted changes %s)' "$value" "${src%%+*}" "${src#*+dirty:}" ;;
	*) printf '%s (commit %s)' "$value" "$src" ;;
	esac
}

# fail GATEDIR SIDE STEP MESSAGE: report, record and exit 2. The side's
# revision and commit, when known, are in fail_value and fail_source.
fail_value= fail_source=
fail() {
	dir=$1 side=$2 step=$3 msg=$4
	mkdir -p "$dir"
	what=
	[ -n "$fail_value" ] && what="$(describe "$fail_value" "$fail_source"): "
	echo "gate: $side: $step: $what$msg" >&2
	extra=
	case $fail_source in
	sha256:*) key=file ;;
	*) key=revision ;;
	esac
	[ -n "$fail_value" ] && extra=$(printf ',"%s":"%s"' "$key" "$(json_str "$fail_value")")
	case $fail_source in
	''|sha256:*) ;;
	*) extra=$extra$(printf ',"commit":"%s"' "$(json_str "${fail_source%%+*}")")
	   case $fail_source in
	   *+dirty:*) extra=$extra$(printf ',"dirty":"%s"' "$(json_str "${fail_source#*+dirty:}")") ;;
	   esac ;;
	esac
	line=$(printf '{"verdict":"error","error":"%s","side":"%s","step":"%s"%s}' \
	    "$(json_str "$side: $step: $what$msg")" "$side" "$step" "$extra")
	printf '%s\n' "$line" > "$dir/verdict.jsonl.tmp" && mv -f "$dir/verdict.jsonl.tmp" "$dir/verdict.jsonl"
	# Dated 1970, so that make never trusts it as a verdict: the next gate
	# judges again even when every identity is the same.
	touch -t 197001010000 "$dir/verdict.jsonl"
	printf '%s\n' "$line"
	exit 2
}

# What is known of a side for fail, from the identity its step used.
fail_side() {
	fail_value=$(cat "$1/$2.value" 2>/dev/null)
	fail_source=$(id_get "$3" source)
}

# The commit a revision names, or nothing and status 1.
commit_of() {
	git rev-parse --verify --quiet "$1^{commit}" 2>/dev/null
}

# A digest of the uncommitted changes of the work tree holding directory $1
# (staged, unstaged and untracked files, not ignored ones, not the gate's
# own directory $2, absolute); empty when it is clean. Status 1 when git
# cannot tell.
dirty_digest() {
	(
	cd "$1" || exit 1
	top=$(git rev-parse --show-toplevel) || exit 1
	set -- ':/'
	case $2/ in
	"$top"/*) set -- "$@" ":(top,exclude)${2#"$top"/}" ;;
	esac
	list=$(mktemp) || exit 1
	trap 'rm -f "$list"' EXIT
	git ls-files -z --others --exclude-standard -- "$@" > "$list" || exit 1
	changes=$(git diff HEAD --binary -- "$@" && xargs -0 -r sha256sum -- < "$list") || exit 1
	[ -z "$changes" ] || printf '%s' "$changes" | sha256sum | cut -c1-16
	)
}

cmd_id() {
	dir=$1 side=$2 kind=$3 value=$4 cc=$5 cflags=$6 build=$7 bench=$8
	shift 8
	printf '%s\n' "$value" > "$dir/$side.value"
	fail_value=$value
	commit= dirty=
	case $kind in
	file)
		src="sha256:$(sha256sum < "$value" | cut -c1-64)" ;;
	rev)
		commit=$(commit_of "$value") ||
			fail "$dir" "$side" identity "no such file, directory or git revision"
		src=$commit ;;
	tree)
		commit=$(cd "$value" && git rev-parse --verify --quiet HEAD 2>/dev/null) ||
			fail "$dir" "$side" identity "not a git work tree with a commit"
		gatedir=$(cd "$dir" && pwd -P)
		dirty=$(dirty_digest "$value" "$gatedir") ||
			fail "$dir" "$side" identity "git cannot list the uncommitted changes"
		src=$commit${dirty:++dirty:$dirty} ;;
	esac
	fail_source=$src
	ccver=$(cd /tmp && $cc --version 2>/dev/null | head -n 1)
	[ -n "$ccver" ] || ccver=$(cd /tmp && $cc -v 2>&1 | head -n 1)
	[ -n "$ccver" ] || fail "$dir" "$side" identity "compiler $cc prints no version"
	for f; do
		[ -f "$f" ] || fail "$dir" "$side" identity "missing $f"
	done
	id=$dir/$side.id
	{
		printf 'side %s\nkind %s\nsource %s\ncommit %s\ndirty %s\ncc %s\ncc_version %s\ncflags %s\nbuild %s\nbench %s\n' \
		    "$side" "$kind" "$src" "$commit" "$dirty" "$cc" "$ccver" "$cflags" "$build" "$bench"
		for f; do
			echo "input $(sha256sum < "$f" | cut -c1-64) $f"
		done
	} > "$id.tmp"
	# Rewritten only when it changes: its timestamp is what make compares.
	if cmp -s "$id.tmp" "$id"; then rm -f "$id.tmp"; else mv -f "$id.tmp" "$id"; fi
}

cmd_build() {
	dir=$1 side=$2 kind=$3 value=$4 sidedir=$5 timeout=$6 build=$7 bench=$8
	out=$dir/$side
	mkdir -p "$out"
	rm -f "$out/built"
	fail_side "$dir" "$side" "$dir/$side.id"
	case $kind in
	file)
		cp -f "$value" "$sidedir/$(basename "$value")" || fail "$dir" "$side" build "cannot copy $value" ;;
	rev)
		# An export of the whole repository at the exact commit, through an
		# index of its own (git archive would drop export-ignore files), the
		# side being the directory of the Makefile within it. Nothing is
		# registered with git, so nothing can leak into `git worktree list`.
		c=$(id_get "$dir/$side.id" commit)
		root=$out/tree
		rm -rf "$root" "$root.tmp" "$out/index.tmp"
		mkdir -p "$root.tmp"
		abs=$(cd "$out" && pwd -P)
		top=$(git rev-parse --show-toplevel) &&
		    GIT_INDEX_FILE=$abs/index.tmp git -C "$top" read-tree "$c" &&
		    GIT_INDEX_FILE=$abs/index.tmp git -C "$top" checkout-index -a --prefix="$abs/tree.tmp/" ||
		    fail "$dir" "$side" build "git cannot export it"
		rm -f "$out/index.tmp"
		mv "$root.tmp" "$root"
		[ -d "$sidedir" ] || fail "$dir" "$side" build "it has no directory $sidedir"
		;;
	esac
	echo "gate: building $side, $(describe "$value" "$fail_source")" >&2
	GATE_SIDE=$sidedir
	export GATE_SIDE GATE_CC GATE_CFLAGS GATE_INCLUDES
	# timeout(1) runs the build in its own process group and kills the whole
	# group when the time is up.
	timeout -k 5 "$timeout" sh -c "$build" > "$out/build.log" 2>&1
	status=$?
	if [ $status -ne 0 ]; then
		tail -n 20 "$out/build.log" >&2
		if [ $status -eq 124 ] || [ $status -eq 137 ]; then
			fail "$dir" "$side" build "the build timed out after $timeout s; log in $out/build.log"
		fi
		fail "$dir" "$side" build "the build failed (status $status); log in $out/build.log"
	fi
	printf '%s\n' "$bench" > "$out/bench.cmd"
	cp -f "$dir/$side.id" "$out/built.tmp" && mv -f "$out/built.tmp" "$out/built"
}

# One side's identity as JSON members, for the records and the verdict:
# "source" always, "commit" for a git side, "dirty" for uncommitted
# changes, and "cc", the compiler's version line.
id_members() {
	f=$1
	printf '"source":"%s"' "$(json_str "$(id_get "$f" source)")"
	v=$(id_get "$f" commit)
	[ -n "$v" ] && printf ',"commit":"%s"' "$(json_str "$v")"
	v=$(id_get "$f" dirty)
	[ -n "$v" ] && printf ',"dirty":"%s"' "$(json_str "$v")"
	printf ',"cc":"%s"' "$(json_str "$(id_get "$f" cc_version)")"
}

# A sed replacement text: escape what sed would read as special.
sed_rhs() {
	printf '%s' "$1" | sed 's/[\/&]/\\&/g'
}

# alternate_block GATEDIR BINDIR RUNS TIMEOUT ALTERNATE_FLAGS FIRST SECOND:
# RUNS rounds of both sides, FIRST first in the first round, into
# GATEDIR/block.jsonl. alternate's stderr is kept as well as shown, so
# that the summary can name the side and round that failed.
alternate_block() {
	rm -f "$1/block.jsonl"
	# shellcheck disable=SC2086
	{ "$2/alternate" -r "$3" -t "$4" $5 -o "$1/block.jsonl" \
	    "$6=$(cat "$1/$6/bench.cmd")" "$7=$(cat "$1/$7/bench.cmd")"
	  echo $? > "$1/alternate.status"; } 2>&1 | tee "$1/alternate.log" >&2
	status=$(cat "$1/alternate.status")
	# Appended with their rounds counted on from the rounds before.
	have=$(grep -c . "$1/runs.jsonl.tmp" 2>/dev/null) || have=0
	[ -f "$1/block.jsonl" ] && awk -v off=$((have / 2)) '
	    match($0, /"round":[0-9]+/) {
		n = substr($0, RSTART + 8, RLENGTH - 8) + off
		$0 = substr($0, 1, RSTART + 7) n substr($0, RSTART + RLENGTH)
	    }
	    { print }' "$1/block.jsonl" >> "$1/runs.jsonl.tmp"
	rm -f "$1/block.jsonl"
	return "$status"
}

# regresses GATEDIR BINDIR BUDGET: whether the rounds so far regress, by
# cmpbudget's rule on each side's minimum.
regresses() {
	[ -n "$3" ] && [ -f "$3" ] || return 1
	"$2/minjson" -x round,slot,load,pressure -s min "$1/runs.jsonl.tmp" > "$1/doubt.min" 2>/dev/null || return 1
	"$2/cmpbudget" -b "$3" "$1/doubt.min" > /dev/null 2>&1
	[ $? = 1 ]
}

# doubtful GATEDIR BINDIR BUDGET: whether the rounds so far regress only
# through the noise of this very measurement: some metric regresses (head's
# minimum over base's minimum), but none would against base's slowest
# round. The rule is the same (cmpbudget's), only the base figure differs.
doubtful() {
	regresses "$@" || return 1
	# Base's maximum, renamed its minimum, against head's minimum.
	"$2/minjson" -x round,slot,load,pressure -s max "$1/runs.jsonl.tmp" 2>/dev/null |
	    sed -n 's/^{"side":"base","stat":"max",/{"side":"base","stat":"min",/p' > "$1/doubt.max" &&
	    grep '^{"side":"head","stat":"min",' "$1/doubt.min" >> "$1/doubt.max" || return 1
	# Status 0: ok against base's slowest round, so doubtful.
	"$2/cmpbudget" -b "$3" "$1/doubt.max" > /dev/null 2>&1
}

cmd_measure() {
	dir=$1 bin=$2 runs=$3 timeout=$4 flags=$5 budget=${6-} confirm=${7:-0}
	rm -f "$dir/runs.jsonl.tmp" "$dir/doubt.min" "$dir/doubt.max"
	echo "gate: measuring base and head, $runs rounds" >&2
	alternate_block "$dir" "$bin" "$runs" "$timeout" "$flags" base head
	# A regression is measured again before it is reported: one more block
	# of RUNS rounds always, and up to CONFIRM in all while it stays within
	# the noise of this very measurement, each block starting with the side
	# the last one did not, judged over all rounds. A few rounds of one side
	# can all fall in a slow spell of the machine; more rounds can only
	# lower each side's minimum towards its true figure, so a real
	# regression stays one: the rule is not loosened.
	first=head second=base
	blocks=0
	while [ "$status" = 0 ] && [ "$blocks" -lt "$confirm" ]; do
		if [ $blocks = 0 ]; then
			regresses "$dir" "$bin" "$budget" || break
			echo "gate: a regression, measured again to confirm it: $runs more rounds" >&2
		else
			doubtful "$dir" "$bin" "$budget" || break
			echo "gate: a regression within this measurement's own noise: $runs more rounds" >&2
		fi
		alternate_block "$dir" "$bin" "$runs" "$timeout" "$flags" "$first" "$second"
		blocks=$((blocks + 1))
		set -- "$second" "$first"
		first=$1 second=$2
	done
	rm -f "$dir/doubt.min" "$dir/doubt.max"
	if [ "$status" != 0 ]; then
		# What was measured is kept, beside the runs make would trust.
		[ -f "$dir/runs.jsonl.tmp" ] && mv -f "$dir/runs.jsonl.tmp" "$dir/runs.partial.jsonl"
		msg=$(grep '^alternate: ' "$dir/alternate.log" | tail -n 1 | sed 's/^alternate: //')
		side=$(printf '%s\n' "$msg" | sed -n 's/^side \([A-Za-z0-9_.+-]*\),.*/\1/p')
		case $side in
		base|head) fail_side "$dir" "$side" "$dir/$side/built" ;;
		*) side= ;;
		esac
		fail "$dir" "${side:-both}" run "${msg:-alternate exited with status $status}"
	fi
	# Every record carries its side's identity.
	b=$(id_members "$dir/base/built") h=$(id_members "$dir/head/built")
	sed -e "s/^{\"side\":\"base\",/{\"side\":\"base\",$(sed_rhs "$b"),/" \
	    -e "s/^{\"side\":\"head\",/{\"side\":\"head\",$(sed_rhs "$h"),/" \
	    "$dir/runs.jsonl.tmp" > "$dir/runs.jsonl.tmp2" && rm -f "$dir/runs.jsonl.tmp" &&
	    mv -f "$dir/runs.jsonl.tmp2" "$dir/runs.jsonl"
}

cmd_judge() {
	dir=$1 bin=$2 budget=$3
	"$bin/cmpbudget" -b "$budget" -m "$dir/verdict.md" "$dir/stats.jsonl" \
	    > "$dir/verdict.jsonl.tmp" 2> "$dir/verdict.txt"
	status=$?
	if [ $status -gt 2 ] || [ ! -s "$dir/verdict.jsonl.tmp" ]; then
		cat "$dir/verdict.txt" >&2
		fail "$dir" both judge "cmpbudget failed (status $status)"
	fi
	# Every record names the budget it was judged by; the summary, last,
	# also carries both sides' identities.
	sum=$(sha256sum < "$budget" | cut -c1-64)
	ids=$(printf '"base":{%s},"head":{%s}' \
	    "$(id_members "$dir/base/built")" "$(id_members "$dir/head/built")")
	sed -e "\$s/}\$/,$(sed_rhs "$ids")}/" -e "s/}\$/,\"budget_sha256\":\"$sum\"}/" \
	    "$dir/verdict.jsonl.tmp" > "$dir/verdict.jsonl.tmp2" &&
	    rm -f "$dir/verdict.jsonl.tmp" && mv -f "$dir/verdict.jsonl.tmp2" "$dir/verdict.jsonl"
}

cmd_report() {
	dir=$1
	[ -f "$dir/verdict.txt" ] && cat "$dir/verdict.txt" >&2
	cat "$dir/verdict.jsonl"
	case $(tail -n 1 "$dir/verdict.jsonl") in
	'{"verdict":"ok"'*) exit 0 ;;
	'{"verdict":"regressed"'*) exit 1 ;;
	*) exit 2 ;;
	esac
}

cmd=$1
shift
case $cmd in
id) cmd_id "$@" ;;
build) cmd_build "$@" ;;
measure) cmd_measure "$@" ;;
judge) cmd_judge "$@" ;;
report) cmd_report "$@" ;;
fail) fail "$@" ;;
*) echo "gate.sh: unknown step $cmd" >&2; exit 2 ;;
esac
