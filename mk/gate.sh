#!/bin/sh
# gate.sh: the steps of gate.mk that need more than one shell line.
#
#	gate.sh settings GATEDIR BINDIR BUDGET RUNS TIMEOUT ALTERNATE_FLAGS
#	gate.sh rule     GATEDIR BUDGET CONFIRM NOISE UNBUDGETED
#	gate.sh driver   GATEDIR OBJECT CC CFLAGS INCLUDES SOURCE
#	gate.sh object   OBJECT CC CFLAGS INCLUDES SOURCE
#	gate.sh side     GATEDIR SIDE KIND VALUE SIDEDIR TIMEOUT BUILD BENCH [FILE ...]
#	gate.sh measure  GATEDIR BINDIR
#	gate.sh judge    GATEDIR BINDIR
#	gate.sh report   GATEDIR [STATUSFILE]
#	gate.sh fail     GATEDIR SIDE STEP MESSAGE
#
# The shell never edits a JSON line: alternate writes the rounds (numbered
# on with -n, each side's identity added with -a), minjson the statistics,
# cmpbudget the verdict (its exit status is the gate's). A step that cannot
# go on calls fail: it writes an "error" summary record to
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

# JSON string body of $1: escape backslashes and quotes, drop control bytes.
json_str() {
	printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g'
}

# The value of key $2 in the key file $1.
id_get() {
	sed -n "s/^$2 //p" "$1" 2>/dev/null
}

# Write $1.tmp's content to $1 only when it differs: $1's timestamp is what
# make compares.
replace() {
	if cmp -s "$1.tmp" "$1"; then rm -f "$1.tmp"; else mv -f "$1.tmp" "$1"; fi
}

sha() {
	sha256sum < "$1" | cut -c1-64
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
# revision and commit, when known, are in fail_value and fail_source;
# fail_extra holds more members, as JSON, for the end of the record.
fail_value= fail_source= fail_extra=
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
	line=$(printf '{"verdict":"error","error":"%s","side":"%s","step":"%s"%s%s}' \
	    "$(json_str "$side: $step: $what$msg")" "$side" "$step" "$extra" "$fail_extra")
	# Both sides are built at once and may both fail: the first to fail
	# writes the one summary (the settings step, before, clears the mark).
	if [ "$step" = build ] || [ "$step" = identity ]; then
		mkdir "$dir/failed" 2>/dev/null || exit 2
	fi
	printf '%s\n' "$line" > "$dir/verdict.jsonl.tmp" && mv -f "$dir/verdict.jsonl.tmp" "$dir/verdict.jsonl"
	echo 2 > "$dir/verdict.status"
	# Dated 1970, so that make never trusts it as a verdict: the next gate
	# judges again even when every key is the same.
	touch -t 197001010000 "$dir/verdict.jsonl"
	printf '%s\n' "$line"
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

cmd_settings() {
	dir=$1 bin=$2 budget=$3 runs=$4 timeout=$5 flags=$6
	mkdir -p "$dir"
	rmdir "$dir/failed" 2>/dev/null
	# When this gate began: the report tells what it reused by it.
	touch "$dir/gate.start"
	# cmpbudget is the one reader of the budget file, `runs` included.
	n=$("$bin/cmpbudget" -b "$budget" -n 2> "$dir/budget.err") ||
		fail "$dir" both budget "$(sed 's/^cmpbudget: //' "$dir/budget.err" | head -n 1)"
	[ -n "$runs" ] || runs=$n
	# GATE_SHARD=i/n: only shard i's share of the budget's metrics (shard.sh),
	# named to the benchmark in BENCH_CASES and to cmpbudget with -M.
	cases=
	if [ -n "${GATE_SHARD:-}" ]; then
		cases=$(sh "$(dirname "$0")/shard.sh" "$GATE_SHARD" "$budget" 2> "$dir/shard.err") ||
			fail "$dir" both shard "$(sed 's/^shard.sh: //' "$dir/shard.err" | head -n 1)"
	fi
	printf 'runs %s\ntimeout %s\nalternate %s\nenv %s\ncases %s\n' "$runs" "$timeout" "$flags" \
	    "$(env | grep '^BENCH_' | sort | tr '\n' ' ')" "$cases" > "$dir/runs.id.tmp"
	replace "$dir/runs.id"
}

cmd_rule() {
	dir=$1 budget=$2 confirm=$3 noise=$4 unbudgeted=$5
	case $unbudgeted in
	ok|error) ;;
	*) fail "$dir" both judge "GATE_UNBUDGETED=$unbudgeted: not ok or error" ;;
	esac
	printf 'budget %s\nbudget_sha256 %s\nconfirm %s\nnoise %s\nunbudgeted %s\ncases %s\n' "$budget" "$(sha "$budget")" \
	    "$confirm" "$noise" "$unbudgeted" "$(id_get "$dir/runs.id" cases)" \
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
	commit= dirty=
	case $kind in
	file)
		src="sha256:$(sha "$value")" ;;
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
	{
		printf 'side %s\nkind %s\nsource %s\ncommit %s\ndirty %s\ncc %s\ncc_version %s\ncflags %s\nbuild %s\nbench %s\n' \
		    "$side" "$kind" "$src" "$commit" "$dirty" "$cc" "$ccver" "$cflags" "$build" "$bench"
		for f; do
			echo "input $(sha "$f") $f"
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
	top=$(git rev-parse --show-toplevel) &&
	    GIT_INDEX_FILE=$abs/index.tmp git -C "$top" read-tree "$c" &&
	    GIT_INDEX_FILE=$abs/index.tmp git -C "$top" checkout-index -a --prefix="$abs/tree.tmp/" ||
	    fail "$dir" "$side" build "git cannot export it"
	rm -f "$out/index.tmp"
	mv "$root.tmp" "$root"
	echo "$c" > "$out/tree.commit"
	[ -d "$sidedir" ] || fail "$dir" "$side" build "it has no directory $sidedir"
}

# runs_of BENCH: what the bench command runs, one "run SHA256 PATH" line for
# each word of it that names a file (the executable, looked up in PATH as
# the shell would, and any file it names: an input, a script), then one
# "lib SHA256 PATH" line for each shared library the dynamic loader would
# load for those files, so that a library upgraded under a side counts.
runs_of() {
	files=
	first=1
	set -f
	# shellcheck disable=SC2086
	set -- $1
	set +f
	for w; do
		p=
		if [ -f "$w" ]; then
			p=$w
		elif [ $first = 1 ]; then
			case $w in
			*=*) continue ;;
			*/*) ;;
			*) p=$(command -v -- "$w" 2>/dev/null) ;;
			esac
		fi
		first=0
		[ -n "$p" ] && [ -f "$p" ] || continue
		echo "run $(sha "$p") $p"
		files="$files$p
"
	done
	printf '%s' "$files" | while IFS= read -r p; do
		ldd "$p" 2>/dev/null | sed -n 's/^.*=> \(\/[^ ]*\) (0x.*$/\1/p; s/^[ 	]*\(\/[^ ]*\) (0x.*$/\1/p'
	done | sort -u | while IFS= read -r lib; do
		[ -f "$lib" ] && echo "lib $(sha "$lib") $lib"
	done
}

# driver GATEDIR OUT CC CFLAGS INCLUDES SRC and object OUT CC CFLAGS
# INCLUDES SRC: compile SRC into the object OUT, unless OUT was compiled
# by the same command from the same content of SRC and of every file it
# included (the compiler's -MD list, system headers too): an incremental
# build keyed by content, not timestamps. The driver is the benchmark's
# own source, compiled once for both sides; an object is a side's file.
# Objects are also kept by that key in GATE_OBJECTS (default
# build/gate-objects), as ccache keeps them, so that a fresh GATEDIR, or
# the other side, compiles only what no gate compiled before.

# object_key CMD SRC DFILE: what an object was compiled from: the command,
# the source's digest and the digests of the headers of its -MD list
# (after the source, its first prerequisite).
object_key() {
	printf '%s\nsource %s\n' "$1" "$(sha "$2")"
	[ -f "$3" ] || return 0
	sed 's/^[^:]*://; s/\\$//' "$3" | tr ' ' '\n' | sed '/^$/d' | sed 1d | sort -u | tr '\n' '\0' |
	    xargs -0 -r sha256sum -- 2>&1
}

# compile OBJ CC CFLAGS INCLUDES SRC: status 0 when OBJ is up to date or
# made now; the compiler's complaints on stderr.
compile() {
	obj=$1 cc=$2 cflags=$3 includes=$4 src=$5
	mkdir -p "$(dirname "$obj")"
	cmd="$cc $cflags $includes -c"
	if [ -f "$obj" ] && [ -f "$obj.key" ] && object_key "$cmd" "$src" "$obj.d" | cmp -s - "$obj.key"; then
		return 0
	fi
	rm -f "$obj.key"
	store=${GATE_OBJECTS:-build/gate-objects}
	c=$store/$(printf '%s\n%s\n' "$cmd" "$(sha "$src")" | sha256sum | cut -c1-64)
	if [ -f "$c.o" ] && [ -f "$c.key" ] && object_key "$cmd" "$src" "$c.d" | cmp -s - "$c.key"; then
		cp -f "$c.o" "$obj.tmp" && cp -f "$c.d" "$obj.d" && mv -f "$obj.tmp" "$obj" && cp -f "$c.key" "$obj.key"
		return
	fi
	# shellcheck disable=SC2086
	$cc $cflags $includes -MD -MF "$obj.d.tmp" -c -o "$obj.tmp" "$src" || return 1
	mv -f "$obj.d.tmp" "$obj.d" && mv -f "$obj.tmp" "$obj" && object_key "$cmd" "$src" "$obj.d" > "$obj.key" || return 1
	# Into the store: written whole, then renamed, the key last, so that a
	# gate beside this one never takes half an entry.
	mkdir -p "$store" && cp -f "$obj" "$c.o.$$" && cp -f "$obj.d" "$c.d.$$" && cp -f "$obj.key" "$c.key.$$" &&
	    mv -f "$c.o.$$" "$c.o" && mv -f "$c.d.$$" "$c.d" && mv -f "$c.key.$$" "$c.key"
	rm -f "$c.o.$$" "$c.d.$$" "$c.key.$$"
	return 0
}

cmd_driver() {
	dir=$1 obj=$2 src=$6
	shift 2
	mkdir -p "$(dirname "$obj")"
	compile "$obj" "$@" > "$obj.log" 2>&1 || {
		cat "$obj.log" >&2
		fail "$dir" both build "the benchmark driver $src does not compile; log in $obj.log"
	}
}

# build_digest BUILD SIDEDIR: the digest of the build command as written,
# the side's directory in it read as $GATE_SIDE, so that two sides built
# alike show the same digest.
build_digest() {
	printf '%s\n' "$1" | awk -v s="$2" '{
		out = ""
		while (s != "" && (i = index($0, s)) > 0) {
			out = out substr($0, 1, i - 1) "$GATE_SIDE"
			$0 = substr($0, i + length(s))
		}
		print out $0
	}' | sha256sum | cut -c1-64
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
		cmp -s "$value" "$sidedir/$(basename "$value")" ||
			cp -f "$value" "$sidedir/$(basename "$value")" || fail "$dir" "$side" build "cannot copy $value" ;;
	rev)
		export_rev "$dir" "$side" "$(id_get "$dir/$side.id" commit)" "$sidedir" ;;
	esac
	echo "gate: building $side, $(describe "$value" "$fail_source")" >&2
	GATE_SIDE=$sidedir
	# A build that embeds its date (__DATE__, __TIME__) gives the same bytes
	# every time, so that the key of an unchanged side stays the same.
	SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}
	export GATE_SIDE GATE_CC GATE_CFLAGS GATE_INCLUDES SOURCE_DATE_EPOCH
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
	# The key: the identity, then what would run. The members are what
	# alternate adds to each of the side's records.
	ran=$(runs_of "$bench")
	exe=$(printf '%s\n' "$ran" | sed -n '1s/^run \([0-9a-f]*\) .*/\1/p')
	{
		cat "$dir/$side.id"
		printf '%s\n' "$ran"
		printf 'member source %s\n' "$fail_source"
		v=$(id_get "$dir/$side.id" commit)
		[ -n "$v" ] && printf 'member commit %s\n' "$v"
		v=$(id_get "$dir/$side.id" dirty)
		[ -n "$v" ] && printf 'member dirty %s\n' "$v"
		printf 'member cc %s\n' "$(id_get "$dir/$side.id" cc_version)"
		printf 'member cflags %s\n' "$GATE_CFLAGS"
		printf 'member build_sha256 %s\n' "$(build_digest "$build" "$sidedir")"
		[ -n "$exe" ] && printf 'member bench_sha256 %s\n' "$exe"
	} > "$dir/$side.key.tmp"
	replace "$dir/$side.key"
}

# alternate_rounds GATEDIR BINDIR FROM COUNT: COUNT rounds of both sides,
# numbered from FROM, appended to GATEDIR/runs.jsonl.tmp. alternate orders
# the sides by the round's number (base first in odd rounds, head in even
# ones), so the order alternates across calls as within one. Each side's
# records carry its identity members (alternate -a).
alternate_rounds() {
	dir=$1 bin=$2 from=$3 count=$4
	timeout=$(id_get "$dir/runs.id" timeout)
	flags=$(id_get "$dir/runs.id" alternate)
	set --
	# One sed a side; a read loop would read the file a byte a call.
	for s in base head; do
		members=$(sed -n 's/^member //p' "$dir/$s.key")
		saved=$IFS
		IFS='
'
		set -f
		for m in $members; do
			set -- "$@" -a "$s:${m%% *}=${m#* }"
		done
		set +f
		IFS=$saved
	done
	rm -f "$dir/block.jsonl"
	cases=$(id_get "$dir/runs.id" cases)
	if [ -n "$cases" ]; then BENCH_CASES=$cases; export BENCH_CASES; fi
	# alternate's stderr goes straight to the gate's, so that its progress
	# line shows on a terminal (and only there); its failure record, not
	# its messages, tells what failed.
	# shellcheck disable=SC2086
	"$bin/alternate" -r "$count" -t "$timeout" -n "$from" $flags "$@" -o "$dir/block.jsonl" \
	    "base=$(cat "$dir/base/bench.cmd")" "head=$(cat "$dir/head/bench.cmd")"
	status=$?
	[ -f "$dir/block.jsonl" ] && cat "$dir/block.jsonl" >> "$dir/runs.jsonl.tmp"
	rm -f "$dir/block.jsonl"
	[ "$status" = 0 ] || run_failed "$dir" "$status"
}

# run_failed GATEDIR STATUS: alternate failed. What was measured is kept
# beside the runs make would trust; alternate's failure record, its last,
# names the side, round, status and the tail of the side's stderr, and is
# passed on whole in the summary as "run".
run_failed() {
	mv -f "$1/runs.jsonl.tmp" "$1/runs.partial.jsonl" 2>/dev/null
	rec=$(tail -n 1 "$1/runs.partial.jsonl" 2>/dev/null)
	side= msg=
	# Inside a JSON string every quote is escaped, so these patterns match
	# members only.
	case $rec in
	*[{,]'"error":"'*)
		fail_extra=",\"run\":$rec"
		msg=$(printf '%s\n' "$rec" | sed -n 's/^.*[{,]"error":"\(\([^"\\]\|\\.\)*\)".*$/\1/p' |
		    sed 's/\\"/"/g; s/\\\\/\\/g')
		case $rec in
		*[{,]'"side":"base"'[,}]*) side=base ;;
		*[{,]'"side":"head"'[,}]*) side=head ;;
		esac ;;
	esac
	[ -n "$side" ] && fail_side "$1" "$side"
	fail "$1" "${side:-both}" run "${msg:-alternate exited with status $2}"
}

# The first round, or with GATE_NOISE off the first block; the judge
# measures on from there. GATEDIR/runs.blocks lists the round each block
# of runs.jsonl starts with.
cmd_measure() {
	dir=$1 bin=$2
	runs=$(id_get "$dir/runs.id" runs)
	count=1
	[ "$(id_get "$dir/judge.id" noise)" = off ] && count=$runs
	rm -f "$dir/runs.jsonl.tmp"
	echo "gate: measuring base and head, $runs rounds" >&2
	alternate_rounds "$dir" "$bin" 1 "$count"
	echo 1 > "$dir/runs.blocks"
	mv -f "$dir/runs.jsonl.tmp" "$dir/runs.jsonl"
}

# more GATEDIR BINDIR COUNT: COUNT more rounds, appended to runs.jsonl.
more() {
	cp -f "$1/runs.jsonl" "$1/runs.jsonl.tmp"
	alternate_rounds "$1" "$2" $(($(grep -c . "$1/runs.jsonl") / 2 + 1)) "$3"
	mv -f "$1/runs.jsonl.tmp" "$1/runs.jsonl"
}

# settle GATEDIR BINDIR BUDGET NOISE: judge the rounds so far by each
# side's minimum; sets verdict (cmpbudget's status) and settled: 1 when
# more rounds could not change the verdict as long as a side's minimum
# lies within a factor 1 + NOISE of its true figure (the drift make noise
# measures): some metric's head over base x (1 + budget) x (1 + NOISE),
# which no lower head can undo, or every metric's head at most base x
# (1 + budget) / (1 + NOISE), which no lower base can undo. A
# higher-is-better metric, or one in error, is never settled early.
settle() {
	settled=0
	doubt_stats "$1" "$2" || { verdict=2; return; }
	cases=$(id_get "$1/judge.id" cases)
	"$2/cmpbudget" -b "$3" ${cases:+-M "$cases"} "$1/doubt.jsonl" > "$1/settle.jsonl" 2>/dev/null
	verdict=$?
	[ "$4" = off ] && return
	settled=$(awk -v nu="$4" '
	    function num(key) {
		if (!match($0, "[{,]\"" key "\":-?[0-9][0-9.eE+-]*"))
			return ""
		return substr($0, RSTART + length(key) + 4, RLENGTH - length(key) - 4) + 0
	    }
	    /^\{"metric":"/ {
		n++
		b = num("base"); h = num("head"); f = num("budget")
		if (b == "" || h == "" || f == "" || b <= 0 || index($0, "\"better\":\"higher\""))
			open = 1
		else if (h > b * (1 + f) * (1 + nu))
			lost = 1
		else if (!(h <= b * (1 + f) / (1 + nu)))
			open = 1
	    }
	    END { print (lost || (n > 0 && !open)) ? 1 : 0 }' "$1/settle.jsonl")
}

# The rounds so far, each side's minimum and maximum, for the confirmation.
doubt_stats() {
	"$2/minjson" -x round,slot,load,pressure -s min,max "$1/runs.jsonl" > "$1/doubt.jsonl" 2>/dev/null
}

# regresses GATEDIR BINDIR BUDGET: whether the rounds so far regress, by
# cmpbudget's rule on each side's minimum.
regresses() {
	doubt_stats "$1" "$2" || return 1
	cases=$(id_get "$1/judge.id" cases)
	"$2/cmpbudget" -b "$3" ${cases:+-M "$cases"} "$1/doubt.jsonl" > /dev/null 2>&1
	[ $? = 1 ]
}

# doubtful GATEDIR BINDIR BUDGET: whether the rounds so far regress only
# through the noise of this very measurement: some metric regresses (head's
# minimum over base's minimum), but none would against base's slowest
# round. The rule is the same (cmpbudget's), only base's statistic differs.
doubtful() {
	regresses "$@" || return 1
	"$2/cmpbudget" -b "$3" ${cases:+-M "$cases"} -S base=max "$1/doubt.jsonl" > /dev/null 2>&1
}

cmd_judge() {
	dir=$1 bin=$2
	budget=$(id_get "$dir/judge.id" budget)
	confirm=$(id_get "$dir/judge.id" confirm)
	noise=$(id_get "$dir/judge.id" noise)
	runs=$(id_get "$dir/runs.id" runs)
	[ -s "$dir/runs.blocks" ] || echo 1 > "$dir/runs.blocks"
	# Each block is RUNS rounds, measured one at a time, and ends early
	# once more rounds could not change the verdict (settle), the first
	# after two rounds at least. A regression
	# is measured again before it is reported, whether these rounds were
	# measured just now or long ago and judged by another budget: one more
	# block always, and up to CONFIRM in all while it stays within the
	# noise of this very measurement, judged over all rounds. A few rounds
	# of one side can all fall in a slow spell of the machine; more rounds
	# can only lower each side's minimum towards its true figure, so a
	# real regression stays one: the rule is not loosened. The blocks are
	# kept with the rounds, for the next judgment.
	while :; do
		rounds=$(($(grep -c . "$dir/runs.jsonl") / 2))
		start=$(tail -n 1 "$dir/runs.blocks")
		have=$((rounds - start + 1))
		blocks=$(grep -c . "$dir/runs.blocks")
		settle "$dir" "$bin" "$budget" "$noise"
		# The first block settles on two rounds at least, one of each
		# order: one sample of each side is too few to trust a margin.
		[ "$blocks" = 1 ] && [ "$have" -lt 2 ] && settled=0
		if [ "$have" -lt "$runs" ]; then
			if [ "$settled" = 0 ]; then
				more "$dir" "$bin" $([ "$noise" = off ] && echo $((runs - have)) || echo 1)
				continue
			fi
			echo "gate: settled after $have of $runs rounds: no more could change the verdict, with minima within GATE_NOISE $noise of the truth" >&2
		fi
		[ "$verdict" = 1 ] || break
		[ "$blocks" -le "$confirm" ] || break
		if [ "$blocks" = 1 ]; then
			echo "gate: a regression, measured again to confirm it: up to $runs more rounds" >&2
		else
			doubtful "$dir" "$bin" "$budget" || break
			echo "gate: a regression within this measurement's own noise: up to $runs more rounds" >&2
		fi
		echo $((rounds + 1)) >> "$dir/runs.blocks"
		more "$dir" "$bin" $([ "$noise" = off ] && echo "$runs" || echo 1)
	done
	rm -f "$dir/settle.jsonl"
	rm -f "$dir/doubt.jsonl"
	"$bin/minjson" -x round,slot,load,pressure -s min,q1,median,q3 "$dir/runs.jsonl" > "$dir/stats.jsonl.tmp" ||
	    fail "$dir" both statistics "minjson failed on $dir/runs.jsonl"
	mv -f "$dir/stats.jsonl.tmp" "$dir/stats.jsonl"
	strict=
	[ "$(id_get "$dir/judge.id" unbudgeted)" = error ] && strict=-u
	cases=$(id_get "$dir/judge.id" cases)
	# shellcheck disable=SC2086
	"$bin/cmpbudget" $strict -b "$budget" ${cases:+-M "$cases"} -r "$dir/runs.jsonl" -m "$dir/verdict.md" "$dir/stats.jsonl" \
	    > "$dir/verdict.jsonl.tmp" 2> "$dir/verdict.txt"
	status=$?
	if [ $status -gt 2 ] || [ ! -s "$dir/verdict.jsonl.tmp" ]; then
		cat "$dir/verdict.txt" >&2
		fail "$dir" both judge "cmpbudget failed (status $status)"
	fi
	# cmpbudget's status is the gate's: the one place a verdict becomes an
	# exit status.
	echo $status > "$dir/verdict.status"
	mv -f "$dir/verdict.jsonl.tmp" "$dir/verdict.jsonl"
	# The picture of the rounds: a reader's aid, so a failure to draw it
	# is said but does not change the verdict.
	"$bin/plotrounds" -v "$dir/verdict.jsonl" -o "$dir/rounds.svg" "$dir/runs.jsonl" ||
	    echo "gate: no picture of the rounds ($dir/rounds.svg)" >&2
}

# The first 16 digits of a side's executable's digest, for messages.
short_exe() {
	v=$(id_get "$1" 'member bench_sha256')
	printf '%s' "${v:+sha256:$(printf '%s' "$v" | cut -c1-16)}"
}

cmd_report() {
	dir=$1 statusfile=${2-}
	if [ ! "$dir/runs.jsonl" -nt "$dir/gate.start" ]; then
		echo "gate: reused the measurements in $dir/runs.jsonl: each side's key matched" \
		    "(base's executable $(short_exe "$dir/base.key"), head's executable $(short_exe "$dir/head.key");" \
		    "the identities, bench commands, files and libraries they use, rounds and BENCH_* variables:" \
		    "$dir/base.key, $dir/head.key, $dir/runs.id)" >&2
	fi
	if [ ! "$dir/verdict.jsonl" -nt "$dir/gate.start" ]; then
		echo "gate: reused the verdict: the same rounds, judged by the same budget" \
		    "$(id_get "$dir/judge.id" budget) (sha256:$(id_get "$dir/judge.id" budget_sha256 | cut -c1-16)) and rule" >&2
	fi
	[ -f "$dir/verdict.txt" ] && cat "$dir/verdict.txt" >&2
	written=yes
	cat "$dir/verdict.jsonl" || written=no
	status=$(cat "$dir/verdict.status" 2>/dev/null)
	case $status in
	0|1) ;;
	*) status=2 ;;
	esac
	# Records that could not be written (a full disk, /dev/full) leave the
	# caller without an answer, whatever the verdict.
	if [ $written = no ]; then
		echo "gate: the records could not be written to standard output" >&2
		status=2
	fi
	[ -n "$statusfile" ] && echo "$status" > "$statusfile"
	exit "$status"
}

cmd=$1
shift
case $cmd in
settings) cmd_settings "$@" ;;
rule) cmd_rule "$@" ;;
side) cmd_side "$@" ;;
driver) cmd_driver "$@" ;;
object) compile "$@" ;;
measure) cmd_measure "$@" ;;
judge) cmd_judge "$@" ;;
report) cmd_report "$@" ;;
fail) fail "$@" ;;
*) echo "gate.sh: unknown step $cmd" >&2; exit 2 ;;
esac
