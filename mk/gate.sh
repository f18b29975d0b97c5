#!/bin/sh
# gate.sh: the steps of gate.mk that need more than one shell line.
#
#	gate.sh id      GATEDIR SIDE KIND VALUE CC CFLAGS BUILD BENCH [FILE ...]
#	gate.sh build   GATEDIR SIDE KIND VALUE SIDEDIR TIMEOUT BUILD BENCH
#	gate.sh measure GATEDIR BINDIR RUNS TIMEOUT ALTERNATE_FLAGS
#	gate.sh judge   GATEDIR BINDIR BUDGET
#	gate.sh report  GATEDIR
#	gate.sh fail    GATEDIR SIDE STEP MESSAGE
#
# A step that cannot go on calls fail: it writes an "error" summary record
# to GATEDIR/verdict.jsonl and to stdout, so that whoever reads the gate's
# last line learns which side and step could not be decided, and exits 2.

# JSON string body of $1: escape backslashes and quotes, drop control bytes.
json_str() {
	printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g'
}

fail() {
	dir=$1 side=$2 step=$3 msg=$4
	mkdir -p "$dir"
	echo "gate: $side: $step: $msg" >&2
	line=$(printf '{"verdict":"error","error":"%s","side":"%s","step":"%s"}' \
	    "$(json_str "$side: $step: $msg")" "$side" "$step")
	printf '%s\n' "$line" > "$dir/verdict.jsonl.tmp" && mv -f "$dir/verdict.jsonl.tmp" "$dir/verdict.jsonl"
	printf '%s\n' "$line"
	exit 2
}

# The commit a revision names, or fail.
commit_of() {
	git rev-parse --verify --quiet "$1^{commit}" 2>/dev/null
}

# A digest of a work tree's uncommitted changes (tracked and untracked files,
# not ignored ones, not the gate's own directory); empty when it is clean.
dirty_digest() {
	tree=$1 gatedir=$2
	changes=$(cd "$tree" && {
		git diff HEAD --binary
		git ls-files -z --others --exclude-standard -- . ":(exclude)$gatedir" |
		    xargs -0 -r sha256sum --
	})
	[ -n "$changes" ] && printf '%s' "$changes" | sha256sum | cut -c1-16
}

# The source identity of a side: what decides which code it measures.
source_of() {
	kind=$1 value=$2 gatedir=$3
	case $kind in
	file)
		echo "sha256:$(sha256sum < "$value" | cut -c1-64)" ;;
	rev)
		c=$(commit_of "$value") || return 1
		echo "$c" ;;
	tree)
		c=$(cd "$value" && git rev-parse --verify --quiet HEAD) || return 1
		d=$(dirty_digest "$value" "$(realpath -m --relative-to="$value" "$gatedir")")
		echo "$c${d:++dirty:$d}" ;;
	esac
}

cmd_id() {
	dir=$1 side=$2 kind=$3 value=$4 cc=$5 cflags=$6 build=$7 bench=$8
	shift 8
	case $kind in
	file) ;;
	tree) [ -n "$(cd "$value" && git rev-parse --verify --quiet HEAD 2>/dev/null)" ] ||
		fail "$dir" "$side" identity "$value is not a git work tree with a commit" ;;
	rev) commit_of "$value" >/dev/null ||
		fail "$dir" "$side" identity "no such file, directory or git revision: $value" ;;
	esac
	src=$(source_of "$kind" "$value" "$dir") || fail "$dir" "$side" identity "cannot identify $value"
	ccver=$(cd /tmp && $cc --version 2>/dev/null | head -n 1)
	[ -n "$ccver" ] || ccver=$(cd /tmp && $cc -v 2>&1 | head -n 1)
	for f; do
		[ -f "$f" ] || fail "$dir" "$side" identity "missing $f"
	done
	id=$dir/$side.id
	{
		printf 'side %s\nkind %s\nsource %s\ncc %s\ncc_version %s\ncflags %s\nbuild %s\nbench %s\n' \
		    "$side" "$kind" "$src" "$cc" "$ccver" "$cflags" "$build" "$bench"
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
	case $kind in
	file)
		cp -f "$value" "$sidedir/$(basename "$value")" || fail "$dir" "$side" build "cannot copy $value" ;;
	rev)
		# An export at the exact commit: nothing is registered with git, so
		# nothing can leak into `git worktree list`.
		c=$(commit_of "$value") || fail "$dir" "$side" build "no such git revision: $value"
		rm -rf "$sidedir" "$sidedir.tmp"
		mkdir -p "$sidedir.tmp"
		git archive --format=tar "$c" | tar -x -C "$sidedir.tmp" ||
			fail "$dir" "$side" build "cannot export $value ($c)"
		mv "$sidedir.tmp" "$sidedir" ;;
	esac
	what=$(sed -n 's/^source //p' "$dir/$side.id")
	echo "gate: building $side ($value, $what)" >&2
	GATE_SIDE=$sidedir
	export GATE_SIDE
	# timeout(1) runs the build in its own process group and kills the whole
	# group when the time is up.
	timeout -k 5 "$timeout" sh -c "$build" > "$out/build.log" 2>&1
	status=$?
	if [ $status -ne 0 ]; then
		tail -n 20 "$out/build.log" >&2
		if [ $status -eq 124 ] || [ $status -eq 137 ]; then
			fail "$dir" "$side" build "timed out after $timeout s building $value; log in $out/build.log"
		fi
		fail "$dir" "$side" build "build of $value failed (status $status); log in $out/build.log"
	fi
	printf '%s\n' "$bench" > "$out/bench.cmd"
	cp -f "$dir/$side.id" "$out/built.tmp" && mv -f "$out/built.tmp" "$out/built"
}

# One side's identity as JSON members, for the records and the verdict.
id_members() {
	f=$1
	printf '"source":"%s","cc":"%s"' \
	    "$(json_str "$(sed -n 's/^source //p' "$f")")" "$(json_str "$(sed -n 's/^cc_version //p' "$f")")"
}

cmd_measure() {
	dir=$1 bin=$2 runs=$3 timeout=$4 flags=$5
	rm -f "$dir/runs.jsonl.tmp"
	echo "gate: measuring base and head, $runs rounds" >&2
	# alternate's stderr is kept as well as shown, so that the summary can
	# name the side and round that failed.
	# shellcheck disable=SC2086
	{ "$bin/alternate" -r "$runs" -t "$timeout" $flags -o "$dir/runs.jsonl.tmp" \
	    base="$(cat "$dir/base/bench.cmd")" head="$(cat "$dir/head/bench.cmd")"
	  echo $? > "$dir/alternate.status"; } 2>&1 | tee "$dir/alternate.log" >&2
	status=$(cat "$dir/alternate.status")
	if [ "$status" != 0 ]; then
		# What was measured is kept, beside the runs make would trust.
		[ -f "$dir/runs.jsonl.tmp" ] && mv -f "$dir/runs.jsonl.tmp" "$dir/runs.partial.jsonl"
		msg=$(grep '^alternate: ' "$dir/alternate.log" | tail -n 1 | sed 's/^alternate: //')
		side=$(printf '%s\n' "$msg" | sed -n 's/^side \([A-Za-z0-9_.-]*\),.*/\1/p')
		fail "$dir" "${side:-both}" run "${msg:-alternate exited with status $status}"
	fi
	# Every record carries its side's identity.
	b=$(id_members "$dir/base/built") h=$(id_members "$dir/head/built")
	sed -e "s/^{\"side\":\"base\",/{\"side\":\"base\",$(printf '%s' "$b" | sed 's/[\/&]/\\&/g'),/" \
	    -e "s/^{\"side\":\"head\",/{\"side\":\"head\",$(printf '%s' "$h" | sed 's/[\/&]/\\&/g'),/" \
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
	# The summary, last, carries both identities and the budget's digest.
	ids=$(printf '"base":{%s},"head":{%s},"budget_sha256":"%s"' \
	    "$(id_members "$dir/base/built")" "$(id_members "$dir/head/built")" \
	    "$(sha256sum < "$budget" | cut -c1-64)")
	ids=$(printf '%s' "$ids" | sed 's/[\/&]/\\&/g')
	sed "\$s/}\$/,$ids}/" "$dir/verdict.jsonl.tmp" > "$dir/verdict.jsonl.tmp2" &&
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
