#!/bin/sh
# shellcheck disable=SC2154 # nl, ccv_* come from store.sh (sourced), rule_*, runs_*, *_cmd and *_members from ids and sides (eval of a key file)
# gate.sh: the steps of gate.mk that need more than one shell line.
#
#	gate.sh settings GATEDIR BINDIR BUDGET RUNS TIMEOUT ALTERNATE_FLAGS
#	gate.sh rule     GATEDIR BUDGET CONFIRM NOISE UNBUDGETED
#	gate.sh driver   GATEDIR OBJECT CC CFLAGS INCLUDES SOURCE
#	gate.sh object   OBJECT CC CFLAGS INCLUDES SOURCE
#	gate.sh side     GATEDIR SIDE KIND VALUE SIDEDIR TIMEOUT BUILD BENCH [FILE ...]
#	gate.sh measure  GATEDIR BINDIR
#	gate.sh judge    GATEDIR BINDIR
#	gate.sh report   GATEDIR BINDIR [STATUSFILE]
#	gate.sh fail     GATEDIR SIDE STEP MESSAGE
#	gate.sh lock     GATEDIR PID
#
# The shell never edits a JSON line: gaterun writes the rounds (each
# side's identity added with -a) and the verdict (its exit status is the
# gate's). A step that cannot
# go on calls fail: gaterun -F writes an "error" summary record to
# GATEDIR/verdict.jsonl and to stdout, so that whoever reads the gate's last
# line learns which side, revision and step could not be decided, and exits
# 2.
#
# The files make compares, each rewritten only when its content changes:
# GATEDIR/runs.id (the rounds' settings), GATEDIR/SIDE.key (the side's
# identity and what would run: the digests of the built benchmark and of
# the files and libraries it uses) and GATEDIR/judge.id (the budget's path
# and digest, the rule's settings). One "key value" a line.
# GATEDIR/SIDE.value holds what the side was named on the command line (a
# revision, a path), kept apart so that two names for one commit share
# their measurements.

# The value of key $2 in the key file $1.
id_get() {
	sed -n "s/^$2 //p" "$1" 2>/dev/null
}

# Write $1.tmp's content to $1 only when it differs: $1's timestamp is what
# make compares.
replace() {
	if cmp -s "$1.tmp" "$1"; then rm -f "$1.tmp"; else mv -f "$1.tmp" "$1"; fi
}

# What is built and digested, keyed by content: sha, shas, compile,
# cmd_program, runs_of.
case $0 in
*/*) gate_dir=${0%/*} ;;
*) gate_dir=. ;;
esac
# shellcheck disable=SC1091 # store.sh is checked on its own
. "$gate_dir/store.sh"

# The writer of the gate's records (gaterun(1)): gate.mk names it in
# GATE_GATERUN; in a checkout it is beside mk/, in bin/.
gaterun_bin=${GATE_GATERUN:-$gate_dir/../bin/gaterun}

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
# revision (or file) and its source, when known, are in fail_value and
# fail_source. The record is gaterun's (-F), the writer of every verdict.
fail_value='' fail_source=''
fail() {
	dir=$1 side=$2 step=$3 msg=$4
	mkdir -p "$dir"
	# Both sides are built at once and may both fail: the first to fail
	# writes the one summary (the settings step, before, clears the mark);
	# the other is told, not recorded.
	if [ "$step" = build ] || [ "$step" = identity ]; then
		if ! mkdir "$dir/failed" 2>/dev/null; then
			what=
			[ -n "$fail_value" ] && what="$(describe "$fail_value" "$fail_source"): "
			echo "gate: $side: $step: $what$msg" >&2
			exit 2
		fi
	fi
	# Dated 1970, so that make never trusts it as a verdict; for perfgate,
	# the reason in GATE_REASON, said again after make's and git's lines.
	"$gaterun_bin" -F "$step" ${GATE_REASON:+-e "$GATE_REASON"} -- "$dir" "$side" "$msg" "$fail_value" "$fail_source"
	exit 2
}

# What is known of a side for fail, from the identity its step used.
fail_side() {
	fail_value=$(cat "$1/$2.value" 2>/dev/null)
	fail_source=$(id_get "$1/$2.id" source)
}

# The commit a revision names, or nothing and status 1.
commit_of() {
	git rev-parse --verify --quiet "$1^{commit}" 2>/dev/null
}

# dirty_digest DIR GATEDIR: in store.sh, with the nested repositories.

# proc_id PID: the process and when it started (field 22 of its stat,
# after the name, which may hold blanks and parentheses), so that a pid
# reused by another process is not taken for the gate that held a lock;
# status 1 when there is no such live process.
proc_id() {
	kill -0 "$1" 2>/dev/null || return 1
	# read, not cat: one line, and no process started for it.
	pi_stat=
	{ IFS= read -r pi_stat < "/proc/$1/stat"; } 2>/dev/null
	[ -n "$pi_stat" ] || { printf '%s\n' "$1"; return 0; }
	set -f
	# shellcheck disable=SC2086
	set -- "$1" ${pi_stat##*) }
	set +f
	# A zombie (killed, not yet reaped) answers kill -0 but holds nothing.
	[ "$2" != Z ] || return 1
	printf '%s %s\n' "$1" "${21}"
}

# lock GATEDIR PID: GATEDIR is this gate's (make's PID) for as long as that
# process lives, or the gate refuses: status 2 and one line on stdout. A
# lock whose holder is gone (killed, or ended) is taken over. The holder is
# checked and replaced under flock(1), so that two gates that start at once
# cannot both take it.
cmd_lock() {
	dir=$1 pid=$2
	# Made and marked as a gate's, or refused (store.sh).
	claim=$(gatedir_claim "$dir") || { echo "$claim"; exit 2; }
	me=$(proc_id "$pid") || { echo "no process $pid to hold GATEDIR $dir"; exit 2; }
	# A GATEDIR that cannot be written is said so, with the system's reason,
	# not as an empty lock line after a shell's error.
	if ! w=$({ : > "$dir/lock.why"; } 2>&1); then
		echo "cannot write in GATEDIR $dir: ${w##*: }"
		exit 2
	fi
	# shellcheck disable=SC2016 # the script's $1 and $2 are its own
	flock "$dir/lock.mutex" sh -c '
		held=$(cat "$1/lock" 2>/dev/null)
		[ "$held" = "$2" ] && exit 0
		if [ -n "$held" ] && now=$(sh "$3" proc-id "${held%% *}") && [ "$now" = "$held" ]; then
			echo "GATEDIR $1 is in use by pid ${held%% *}"
			exit 2
		fi
		printf "%s\n" "$2" > "$1/lock.tmp" && mv -f "$1/lock.tmp" "$1/lock"' sh "$dir" "$me" "$0" > "$dir/lock.why" || {
		# make says the line (its $(error)); perfgate says it again, last.
		why=$(cat "$dir/lock.why")
		echo "$why"
		[ -n "${GATE_REASON:-}" ] && echo "gate: both: lock: $why" > "$GATE_REASON"
		exit 2
	}
}

cmd_settings() {
	dir=$1 bin=$2 budget=$3 runs=$4 timeout=$5 flags=$6
	mkdir -p "$dir"
	# The lock taken as the makefile was read, or taken now. A lock that
	# names this gate is this gate's: it is replaced whole (mv), so one
	# read sees the one holder, and only its holder writes this id.
	if [ -n "${GATE_LOCK_PID:-}" ]; then
		held='' me=''
		{ IFS= read -r held < "$dir/lock"; } 2>/dev/null
		[ -n "$held" ] && me=$(proc_id "$GATE_LOCK_PID")
		if [ -z "$held" ] || [ "$held" != "$me" ]; then
			held=$(cmd_lock "$dir" "$GATE_LOCK_PID") || { echo "gate: both: lock: $held" >&2; exit 2; }
		fi
	fi
	rmdir "$dir/failed" 2>/dev/null
	tmp_why=$(tmpdir_check) || fail "$dir" both settings "$tmp_why"
	# When this gate began: the report tells what it reused by it.
	touch "$dir/gate.start"
	check_rule "$dir" "${GATE_CONFIRM-}" "${GATE_NOISE-}"
	case ${GATE_CPU-off} in
	off) ;;
	*) case " $flags " in
		*" -c"*) fail "$dir" both settings "GATE_ALTERNATE_FLAGS=$flags: pins the runs, as GATE_CPU=$GATE_CPU does: set GATE_CPU=off to pin them there, or drop -c" ;;
		esac ;;
	esac
	case ${GATE_CPU-off} in
	off) ;;
	auto|[0-9]|[0-9][0-9]|[0-9][0-9][0-9]|[0-9][0-9][0-9][0-9]) flags="-c $GATE_CPU${flags:+ $flags}" ;;
	*) fail "$dir" both settings "GATE_CPU=$GATE_CPU: not auto, off or a CPU number" ;;
	esac
	# The rounds and the time a run may take are checked, as the rule's
	# settings are, before anything is built.
	case $runs in
	'') ;;
	*[!0-9]*|0*|?????????*) fail "$dir" both settings "RUNS=$runs: not a whole number of rounds from 2 to 1000000" ;;
	*) if [ "$runs" -lt 2 ] || [ "$runs" -gt 1000000 ]; then
		fail "$dir" both settings "RUNS=$runs: not a whole number of rounds from 2 to 1000000"
	   fi ;;
	esac
	case $timeout in
	''|.|*[!0-9.]*|*.*.*) fail "$dir" both settings "GATE_TIMEOUT=$timeout: not a number of seconds" ;;
	esac
	case $timeout in
	*[1-9]*) ;;
	*) fail "$dir" both settings "GATE_TIMEOUT=$timeout: not above 0 seconds" ;;
	esac
	# cmpbudget is the one reader of the budget file, `runs` included.
	n=$("$bin/cmpbudget" -b "$budget" -q 2> "$dir/budget.err") ||
		fail "$dir" both budget "$(sed 's/^cmpbudget: //' "$dir/budget.err" | head -n 1)"
	[ -n "$runs" ] || runs=$n
	# GATE_SHARD=i/n: only shard i's share of the budget's metrics (shard.sh),
	# named to the benchmark in BENCH_CASES and to cmpbudget with -M.
	cases=
	if [ -n "${GATE_SHARD:-}" ]; then
		cases=$(CMPBUDGET="$bin/cmpbudget" sh "$gate_dir/shard.sh" "$GATE_SHARD" "$budget" 2> "$dir/shard.err") ||
			fail "$dir" both shard "$(sed 's/^shard.sh: //' "$dir/shard.err" | head -n 1)"
	fi
	printf 'runs %s\ntimeout %s\nalternate %s\nenv %s\ncases %s\n' "$runs" "$timeout" "$flags" \
	    "$(env | grep '^BENCH_' | sort | tr '\n' ' ')" "$cases" > "$dir/runs.id.tmp"
	# The machine is in the rounds' key (store.sh), never in a build's.
	machine_id >> "$dir/runs.id.tmp" || fail "$dir" both settings "cannot write $dir/runs.id.tmp"
	replace "$dir/runs.id"
}

# check_rule: the rule's settings from the environment (gate.mk exports
# them), each checked: a bad one is said before anything is built.
check_rule() {
	deadline=${GATE_DEADLINE-} confidence=${GATE_CONFIDENCE-} focus=${GATE_FOCUS-}
	case $deadline in
	''|.|*[!0-9.]*|*.*.*) fail "$1" both settings "GATE_DEADLINE=$deadline: not a number of seconds" ;;
	esac
	case $deadline in
	*[1-9]*) ;;
	*) fail "$1" both settings "GATE_DEADLINE=$deadline: not above 0 seconds" ;;
	esac
	case $confidence in
	0.*[1-9]*|.*[1-9]*) case $confidence in *[!0-9.]*|*.*.*) bad=1 ;; *) bad= ;; esac ;;
	*) bad=1 ;;
	esac
	[ -z "$bad" ] || fail "$1" both settings "GATE_CONFIDENCE=$confidence: not a fraction above 0 and below 1"
	case $focus in
	on|off) ;;
	*) fail "$1" both settings "GATE_FOCUS=$focus: not on or off" ;;
	esac
	# What the rule no longer reads is said, not ignored.
	[ -z "${2-}" ] || fail "$1" both settings "GATE_CONFIRM=$2: no longer read: every claim is confirmed by the rule (perfgate(7), The rule)"
	[ -z "${3-}" ] || fail "$1" both settings "GATE_NOISE=$3: no longer read: the rule rests on paired ratios, not minima (perfgate(7), The rule)"
}

cmd_rule() {
	dir=$1 budget=$2 confirm=$3 noise=$4 unbudgeted=$5
	case $unbudgeted in
	ok|error) ;;
	*) fail "$dir" both judge "GATE_UNBUDGETED=$unbudgeted: not ok or error" ;;
	esac
	check_rule "$dir" "$confirm" "$noise"
	printf 'budget %s\nbudget_sha256 %s\nconfidence %s\ndeadline %s\nfocus %s\nunbudgeted %s\ncases %s\n' \
	    "$budget" "$(sha "$budget")" "$confidence" "$deadline" "$focus" "$unbudgeted" "$(id_get "$dir/runs.id" cases)" \
	    > "$dir/judge.id.tmp"
	replace "$dir/judge.id"
}

# identify GATEDIR SIDE KIND VALUE CC CFLAGS BUILD BENCH [FILE ...]: the
# side's identity, into GATEDIR/SIDE.id, as a key file.
identify() {
	dir=$1 side=$2 kind=$3 value=$4 cc=$5 cflags=$6 build=$7 bench=$8
	shift 8
	printf '%s\n' "$value" > "$dir/$side.value"
	fail_value=$value
	commit='' dirty=''
	for f; do
		[ -f "$f" ] || fail "$dir" "$side" identity "missing $f"
	done
	# One sha256sum for the side's file and the inputs.
	[ "$kind" = file ] && set -- "$value" "$@"
	digests=$(shas "$@")$nl || fail "$dir" "$side" identity "cannot read $*"
	case $kind in
	file)
		src="sha256:${digests%%"$nl"*}"
		digests=${digests#*"$nl"}
		shift ;;
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
	cc_version "$cc"
	ccver=$ccv_line
	[ -n "$ccver" ] || fail "$dir" "$side" identity "compiler $cc ${ccv_why:-prints no version}"
	{
		printf 'side %s\nkind %s\nsource %s\ncommit %s\ndirty %s\ncc %s\ncc_version %s\ncflags %s\nbuild %s\nbench %s\n' \
		    "$side" "$kind" "$src" "$commit" "$dirty" "$cc" "$ccver" "$cflags" "$build" "$bench"
		for f; do
			echo "input ${digests%%"$nl"*} $f"
			digests=${digests#*"$nl"}
		done
	} > "$dir/$side.id"
}

# export_rev GATEDIR SIDE COMMIT SIDEDIR: the whole repository at COMMIT
# under GATEDIR/SIDE/tree, unless it is there already (kept, so that the
# side's build is incremental). Through an index of its own (git archive
# would drop export-ignore files); nothing is registered with git, so
# nothing can leak into `git worktree list`.
export_rev() {
	dir=$1 side=$2 c=$3 sidedir=$4
	out=$dir/$side root=$dir/$side/tree
	[ -d "$root" ] && [ "$(cat "$out/tree.commit" 2>/dev/null)" = "$c" ] && return 0
	rm -rf "$root" "$root.tmp" "$out/index.tmp" "$out/tree.commit"
	mkdir -p "$root.tmp"
	abs=$(cd "$out" && pwd -P)
	# shellcheck disable=SC2015 # any step failing is the one failure
	top=$(git rev-parse --show-toplevel) &&
	    GIT_INDEX_FILE=$abs/index.tmp git -C "$top" read-tree "$c" &&
	    GIT_INDEX_FILE=$abs/index.tmp git -C "$top" checkout-index -a --prefix="$abs/tree.tmp/" ||
	    fail "$dir" "$side" build "git cannot export it"
	# Submodules with their files, or refused naming them (store.sh).
	sub_why=$(export_gitlinks "$top" "$abs/index.tmp" "$abs/tree.tmp") || fail "$dir" "$side" build "$sub_why"
	rm -f "$out/index.tmp"
	mv "$root.tmp" "$root"
	echo "$c" > "$out/tree.commit"
	[ -d "$sidedir" ] || fail "$dir" "$side" build "it has no directory $sidedir"
}

# driver GATEDIR OUT CC CFLAGS INCLUDES SRC: the benchmark's own source,
# compiled once for both sides (compile).
cmd_driver() {
	dir=$1 obj=$2 src=$6
	shift 2
	mkdir -p "${obj%/*}"
	compile "$obj" "$@" > "$obj.log" 2>&1 || {
		cat "$obj.log" >&2
		fail "$dir" both build "the benchmark driver $src does not compile; log in $obj.log"
	}
}

# build_digest BUILD SIDEDIR: the digest of the build command as written,
# the side's directory in it read as $GATE_SIDE, so that two sides built
# alike show the same digest.
build_digest() {
	b=$1 out=
	while [ -n "$2" ]; do
		# shellcheck disable=SC2016 # $GATE_SIDE is for the shell that runs the command
		case $b in
		*"$2"*) out=$out${b%%"$2"*}'$GATE_SIDE'
			b=${b#*"$2"} ;;
		*) break ;;
		esac
	done
	sha_str "$out$b"
}

cmd_side() {
	dir=$1 side=$2 kind=$3 value=$4 sidedir=$5 timeout=$6 build=$7 bench=$8
	shift 8
	out=$dir/$side
	mkdir -p "$out"
	identify "$dir" "$side" "$kind" "$value" "$GATE_CC" "$GATE_CFLAGS" "$build" "$bench" "$@"
	case $kind in
	file)
		# Copied only when it changed, so that an incremental build sees
		# an unchanged file as such.
		cmp -s -- "$value" "$sidedir/${value##*/}" ||
			cp -f -- "$value" "$sidedir/${value##*/}" || fail "$dir" "$side" build "cannot copy $value" ;;
	rev)
		export_rev "$dir" "$side" "$commit" "$sidedir" ;;
	esac
	# The kata's gate of a revision or a work tree: that tree's kata/kernels.c (store.sh).
	tree_name=
	if [ -n "${GATE_TREE_FILE:-}" ] && [ "$kind" != file ]; then
		tree_name=$(tree_file "$kind" "$value" "$out/tree" "$sidedir") || fail "$dir" "$side" build "$tree_name"
	fi
	# The bench command, split once (benchcmd, store.sh): refused before
	# anything is built; bench.cmd holds its words as alternate runs them.
	bench_sh=$(bench_line "$bench") || fail "$dir" "$side" identity "GATE_BENCH: $bench_sh"
	echo "gate: building $side, $(describe "$value" "$fail_source")" >&2
	GATE_SIDE=$sidedir
	# The side's file, for the default build: the shell's, never make's.
	GATE_FILE=${tree_name:-${value##*/}}
	# A build that embeds its date (__DATE__, __TIME__) gives the same bytes
	# every time, so that the key of an unchanged side stays the same.
	SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}
	export GATE_SIDE GATE_FILE GATE_CC GATE_CFLAGS GATE_INCLUDES SOURCE_DATE_EPOCH
	# timeout(1) runs the build in its own process group and kills the whole
	# group when the time is up.
	began=$(date +%s)
	timeout -k 5 "$timeout" sh -c "$build" > "$out/build.log" 2>&1
	status=$?
	if [ $status -ne 0 ]; then
		tail -n 20 "$out/build.log" >&2
		# timeout says 124 when the time was up and TERM ended the build,
		# 137 when KILL had to; 137 is also a build killed by anyone else
		# (the OOM killer), so the clock tells which.
		if [ $status -eq 124 ] || { [ $status -eq 137 ] && [ $(($(date +%s) - began)) -ge "$timeout" ]; }; then
			fail "$dir" "$side" build "the build timed out after $timeout s; log in $out/build.log"
		fi
		if [ $status -gt 128 ]; then
			fail "$dir" "$side" build "the build was killed by signal $((status - 128)); log in $out/build.log"
		fi
		fail "$dir" "$side" build "the build failed (status $status); log in $out/build.log"
	fi
	printf '%s\n' "$bench_sh" > "$out/bench.cmd"
	# The key: the identity, then what would run. The members are what
	# alternate adds to each of the side's records.
	ran=$(runs_of "$bench") || fail "$dir" "$side" build "cannot read what $bench runs"
	exe=
	case $ran in
	"run "*) exe=${ran#run }
		exe=${exe%% *} ;;
	esac
	{
		cat "$dir/$side.id"
		printf '%s\n' "$ran"
		printf 'member source %s\n' "$fail_source"
		[ -n "$commit" ] && printf 'member commit %s\n' "$commit"
		[ -n "$dirty" ] && printf 'member dirty %s\n' "$dirty"
		printf 'member cc %s\n' "$ccver"
		printf 'member cflags %s\n' "$GATE_CFLAGS"
		printf 'member build_sha256 %s\n' "$(build_digest "$build" "$sidedir")"
		if [ -n "$exe" ]; then printf 'member bench_sha256 %s\n' "$exe"; fi
	} > "$dir/$side.key.tmp" || fail "$dir" "$side" build "cannot write $dir/$side.key.tmp"
	replace "$dir/$side.key"
	# The rounds make would trust must be this side's: when they are not
	# (copied from another GATEDIR, cut short), the key is new to make.
	if [ -f "$dir/runs.jsonl" ] && ! "$gaterun_bin" -k "$side" -- "$dir"; then
		touch "$dir/$side.key"
	fi
}

# ids FILE PREFIX: each "key value" line of a key file as the variable
# PREFIX_key (of lines with one key, the last), read once rather than with
# a sed for each key.
ids() {
	while IFS= read -r ids_line || [ -n "$ids_line" ]; do
		ids_k=${ids_line%% *}
		ids_v=
		# shellcheck disable=SC2034 # read by the eval below
		case $ids_line in
		*" "*) ids_v=${ids_line#* } ;;
		esac
		case $ids_k in
		''|*[!a-z0-9_]*) continue ;;
		esac
		eval "$2_$ids_k=\$ids_v"
	done < "$1"
}

# sides GATEDIR: what alternate_rounds needs of the settings and of each
# side, read once for all the blocks of one step: runs_*, the bench
# commands and the identity members.
sides() {
	ids "$1/runs.id" runs
	for s in base head; do
		cmd=
		while IFS= read -r line || [ -n "$line" ]; do
			cmd=$cmd${cmd:+$nl}$line
		done < "$1/$s/bench.cmd"
		eval "${s}_cmd=\$cmd"
		# One sed a side; a read loop would read the file a byte a call.
		eval "${s}_members=\$(sed -n 's/^member //p' \"\$1/\$s.key\")"
	done
	if [ -n "$runs_cases" ]; then BENCH_CASES=$runs_cases; export BENCH_CASES; fi
}

# gaterun GATEDIR BINDIR [-x]: the measuring loop and the rule, in one
# program (gaterun(1)): it runs rounds of both sides until every metric is
# decided or the deadline has passed (RUNS rounds and GATE_DEADLINE
# seconds, both), writes runs.jsonl after every round and the verdict
# (verdict.jsonl, verdict.txt, verdict.md) at the end, an error verdict
# when a round fails. -x: the stored rounds are not this gate's (measure);
# without it, they are judged again and measured on (a new budget or
# rule). Each side's records carry its identity members (-a). The step
# ends well whenever a verdict was written: the report says it, with its
# status.
gaterun() {
	dir=$1 bin=$2
	shift 2
	sides "$dir"
	ids "$dir/judge.id" rule
	set -- "$@" -b "$rule_budget" -C "$rule_confidence" -D "$rule_deadline" -N "$runs_runs" -t "$runs_timeout" -w
	[ -n "$rule_cases" ] && set -- "$@" -M "$rule_cases"
	[ "$rule_unbudgeted" = error ] && set -- "$@" -u
	[ "$rule_focus" = off ] && set -- "$@" -f
	saved=$IFS
	IFS=$nl
	set -f
	for m in $base_members; do
		set -- "$@" -a "base:${m%% *}=${m#* }"
	done
	for m in $head_members; do
		set -- "$@" -a "head:${m%% *}=${m#* }"
	done
	set +f
	IFS=$saved
	# gaterun's stderr goes straight to the gate's, so that its progress
	# line shows on a terminal (and only there).
	# shellcheck disable=SC2086
	"$bin/gaterun" "$@" $runs_alternate -- "$dir" "base=$base_cmd" "head=$head_cmd"
	[ -f "$dir/verdict.jsonl" ] || exit 2
	# The picture of the rounds: a reader's aid, so a failure to draw it
	# is said but does not change the verdict.
	if [ -s "$dir/runs.jsonl" ]; then
		"$bin/plotrounds" -v "$dir/verdict.jsonl" -o "$dir/rounds.svg" "$dir/runs.jsonl" ||
		    echo "gate: no picture of the rounds ($dir/rounds.svg)" >&2
	fi
	exit 0
}

# Fresh rounds: the keys changed (make's rule for runs.jsonl).
cmd_measure() {
	gaterun "$1" "$2" -x
}

# The same rounds, judged again by a new budget or rule (make's rule for
# verdict.jsonl), and measured on from where they end when the rule asks.
cmd_judge() {
	# make looked at verdict.jsonl before the rounds were measured and does
	# not look again: a verdict newer than the rounds and the rule is the
	# one this gate's measuring just wrote, not to be judged twice.
	# shellcheck disable=SC3013 # -nt: dash, bash and busybox sh all have it
	if [ "$1/verdict.jsonl" -nt "$1/runs.jsonl" ] && [ "$1/verdict.jsonl" -nt "$1/judge.id" ]; then
		exit 0
	fi
	gaterun "$1" "$2"
}

# The first 16 digits of a side's executable's digest, for messages.
short_exe() {
	v=$(id_get "$1" 'member bench_sha256')
	printf '%s' "${v:+sha256:$(printf '%s' "$v" | cut -c1-16)}"
}

cmd_report() {
	dir=$1 bin=$2 statusfile=${3-}
	# shellcheck disable=SC3013 # -nt: dash, bash and busybox sh all have it
	if [ ! "$dir/runs.jsonl" -nt "$dir/gate.start" ]; then
		echo "gate: reused the measurements in $dir/runs.jsonl: each side's key matched" \
		    "(base's executable $(short_exe "$dir/base.key"), head's executable $(short_exe "$dir/head.key");" \
		    "the identities, bench commands, files and libraries they use, rounds and BENCH_* variables:" \
		    "$dir/base.key, $dir/head.key, $dir/runs.id)" >&2
	fi
	# shellcheck disable=SC3013 # -nt: dash, bash and busybox sh all have it
	if [ ! "$dir/verdict.txt" -nt "$dir/gate.start" ]; then
		echo "gate: reused the verdict: the same rounds, judged by the same budget" \
		    "$(id_get "$dir/judge.id" budget) (sha256:$(id_get "$dir/judge.id" budget_sha256 | cut -c1-16)) and rule" >&2
	fi
	# gaterun says the verdict, and its status is the verdict record's;
	# an answer that cannot be decided leaves its reason for perfgate,
	# which says it last.
	"$bin/gaterun" -v ${GATE_REASON:+-e "$GATE_REASON"} -- "$dir"
	status=$?
	[ -n "$statusfile" ] && echo "$status" > "$statusfile"
	exit "$status"
}

cmd=$1
shift
case $cmd in
settings) cmd_settings "$@" ;;
lock) cmd_lock "$@" ;;
proc-id) proc_id "$@" ;;
rule) cmd_rule "$@" ;;
side) cmd_side "$@" ;;
driver) cmd_driver "$@" ;;
object) compile "$@" ;;
program) cmd_program "$@" ;;
measure) cmd_measure "$@" ;;
judge) cmd_judge "$@" ;;
report) cmd_report "$@" ;;
fail) fail "$@" ;;
*) echo "gate.sh: unknown step $cmd" >&2; exit 2 ;;
esac
