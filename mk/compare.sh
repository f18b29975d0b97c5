#!/bin/sh
# compare.sh: the steps of make compare (mk/compare.mk), one row per case.
# Each row is its own alternate run over every side (Williams order, one
# pinned CPU, threads watched, load-gated), reduced by minjson, judged by
# refjudge; perfdoc writes the document and its table. The shell only puts
# the tools in order: it reads no record and writes none.
#
# Everything comes from the environment (compare.mk exports it):
#	COMPARE_BIN COMPARE_DIR COMPARE_DOC COMPARE_TABLE COMPARE_SIDES
#	COMPARE_CASES COMPARE_ROUNDS COMPARE_RETRIES COMPARE_WAIT COMPARE_CPU
#	COMPARE_TIMEOUT COMPARE_MAXLOAD COMPARE_MAXPRESSURE RESUME
# and for each side S: COMPARE_CMD_S (its command), and what describes it:
# COMPARE_VERSION_S (a command whose first line is its version),
# COMPARE_CFLAGS_S, COMPARE_SOURCE_S (a file, digested), COMPARE_ABOUT_S (a
# command that prints a JSON object about it).
set -u

# COMPARE_DOC and the rest come from compare.mk, in the environment.
# shellcheck disable=SC2153
bin=$COMPARE_BIN dir=$COMPARE_DIR doc=$COMPARE_DOC

say() {
	echo "compare: $*" >&2
}

side_var() {
	eval "printf '%s' \"\${COMPARE_${2}_$1-}\""
}

# One compare a COMPARE_DIR, as one gate a GATEDIR: flock on descriptor
# 9, held while this script runs, or a refusal in one line.
mkdir -p "$dir" || exit 2
exec 9>> "$dir/lock"
if ! flock -n 9; then
	say "COMPARE_DIR $dir is in use by pid $(cat "$dir/lock.pid" 2>/dev/null)"
	exit 2
fi
echo $$ > "$dir/lock.pid"

# impl_counts FILE: the implementation's allocations a call, every case of
# $cases in one run of bench.h's counts mode (no timing, no valgrind), its
# output into FILE; nothing with COMPARE_ALLOCS=0.
impl_counts() {
	[ "${COMPARE_ALLOCS:-1}" = 0 ] && return 0
	out=$1
	# The sides are a list of words, split here.
	# shellcheck disable=SC2086
	set -- $COMPARE_SIDES
	cmd=$(side_var "$1" CMD)
	[ -n "$cmd" ] || { say "side $1: COMPARE_CMD_$1 is empty"; exit 2; }
	# shellcheck disable=SC2086
	BENCH_MODE=counts BENCH_CASES=$(echo $cases | tr ' ' ',') sh -c "exec $cmd" > "$out" ||
	    { say "side $1: counting its allocations (BENCH_MODE=counts) failed"; exit 2; }
	counts="-a"
}

# worst A B: the status of two checks together: 2 over 1 over 0.
worst() {
	if [ "$1" -ge 2 ] || [ "$2" -ge 2 ]; then echo 2; elif [ "$1" = 1 ] || [ "$2" = 1 ]; then echo 1; else echo 0; fi
}

mode=${1:-compare}
rm -rf "$dir/rows"
mkdir -p "$dir/rows" "$(dirname "$doc")" || exit 2
cases=$COMPARE_CASES resume='' counts=''

# make compare-ci: nothing timed. The table is what the document renders,
# the implementation's allocations a call are those it records, and every
# public function of COMPARE_HEADER has a case or an exemption.
if [ "$mode" = ci ]; then
	[ -f "$doc" ] || { say "compare-ci: no $doc: make compare writes it"; exit 2; }
	rc=0
	# Every side's licence, every row's entry for every reference, as make compare wants them.
	"$bin/perfdoc" -R "$doc" || rc=$(worst $rc $?)
	"$bin/perfdoc" -c "$COMPARE_TABLE" "$doc" || rc=$(worst "$rc" $?)
	if [ "${COMPARE_ALLOCS:-1}" != 0 ]; then
		impl_counts "$dir/ci-counts.out"
		"$bin/perfdoc" -k "$dir/ci-counts.out" -C "$cases" "$doc" || rc=$(worst "$rc" $?)
	fi
	if [ -n "${COMPARE_HEADER-}" ]; then
		"$bin/perfdoc" -p "$COMPARE_HEADER" -e "$COMPARE_EXEMPT" "$doc" || rc=$(worst "$rc" $?)
	fi
	[ "$rc" = 0 ] && say "compare-ci: the licences, every row's references, $COMPARE_TABLE, the allocations and ${COMPARE_HEADER:-the cases} agree with $doc"
	exit "$rc"
fi

# make compare-allocs: the allocations a call recorded, nothing timed.
# With a document that reads, its rows, timings, date, commit, machine and
# sides are kept as the measurement left them (the counts are exact on any
# tree and under any load), a new case a deferred row; so nothing but the
# implementation is built or run. Without one, a document of deferred rows.
if [ "$mode" = allocs ]; then
	impl_counts "$dir/counts.out"
	[ -n "$counts" ] || { say "compare-allocs: COMPARE_ALLOCS=0: nothing to record"; exit 2; }
	if [ -f "$doc" ] && "$bin/perfdoc" -q "$doc" > /dev/null 2>&1; then
		# shellcheck disable=SC2086 # echo joins the words of the list
		list=$(echo $COMPARE_SIDES | tr ' ' ',')
		"$bin/perfdoc" -o "$doc" -K -r "$doc" -a "$dir/counts.out" -s "$list" -C "$cases" || exit 2
		"$bin/perfdoc" -t -o "$COMPARE_TABLE" "$doc" || exit 2
		say "wrote the allocations of $cases into $doc, and $COMPARE_TABLE"
		exit 0
	fi
fi

# refs_lock FLAG: perfdoc FLAG (-L check, -W write) on COMPARE_LOCK, with
# what every reference says of itself now (COMPARE_LOCK_S, one JSON
# object: its package, version and the library files it loaded).
refs_lock() {
	flag=$1 first=1
	shift $#
	mkdir -p "$dir/refs" || return 2
	for s in $COMPARE_SIDES; do
		[ $first = 1 ] && { first=0; continue; }
		v=$(side_var "$s" LOCK)
		[ -n "$v" ] || { say "reference $s: COMPARE_LOCK_$s is empty: every reference is pinned in $COMPARE_LOCK"; return 2; }
		OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1 \
		    sh -c "$v" > "$dir/refs/$s.json" || { say "reference $s: $v failed"; return 2; }
		set -- "$@" "$s=$dir/refs/$s.json"
	done
	"$bin/perfdoc" "$flag" "$COMPARE_LOCK" "$@"
}

# make compare-lock: the pinned environment rewritten, on purpose.
if [ "$mode" = lock ]; then
	[ -n "${COMPARE_LOCK-}" ] || { say "compare-lock: COMPARE_LOCK is empty: nothing is pinned"; exit 2; }
	refs_lock -W || exit 2
	say "wrote $COMPARE_LOCK: the references of this machine, pinned"
	exit 0
fi

if [ "${RESUME:-0}" = 1 ]; then
	[ -f "$doc" ] || { say "RESUME=1: no $doc to resume"; exit 2; }
	cases=$("$bin/perfdoc" -q "$doc") || exit 2
	if [ -z "$cases" ]; then
		say "$doc has no deferred row: nothing to resume"
		exit 0
	fi
	resume=1
fi

# The load gate: CPU pressure where the kernel has it (or a test fakes it),
# else the load average (or a faked one, when the pressure is not faked).
if [ -n "${PERFGATE_PRESSURE-}" ] ||
    { [ -z "${PERFGATE_LOADAVG-}" ] && [ -r /proc/pressure/cpu ]; }; then
	gauge=pressure maxload=$COMPARE_MAXPRESSURE gate="-p -l $maxload"
else
	gauge=load maxload=$COMPARE_MAXLOAD gate="-l $maxload"
fi

# The CPU of a row's runs: auto (each row's alternate takes one no other
# gate holds: the records say which, "pinned"), or a number.
case $COMPARE_CPU in
auto) cpuopt=-m ;;
[0-9]|[0-9][0-9]|[0-9][0-9][0-9]|[0-9][0-9][0-9][0-9]) cpuopt=-n ;;
*) say "COMPARE_CPU=$COMPARE_CPU: not auto or a CPU number"; exit 2 ;;
esac

# The rounds of a row: with three sides or more, whole periods of the
# Williams design (alternate would round them up too; the document says
# how many there were).
rounds=$COMPARE_ROUNDS
case $rounds in
''|*[!0-9]*|0*) say "COMPARE_ROUNDS=$rounds: not a whole number of rounds above 0"; exit 2 ;;
esac
# shellcheck disable=SC2086 # the sides, a list of words
set -- $COMPARE_SIDES
if [ $# -ge 3 ]; then
	period=$(( $# % 2 == 0 ? $# : 2 * $# ))
	if [ $((rounds % period)) -ne 0 ]; then
		rounds=$(( (rounds / period + 1) * period ))
		say "COMPARE_ROUNDS=$COMPARE_ROUNDS rounded up to $rounds: whole Williams periods of $# sides"
	else
		n=$((rounds / period)) p=periods
		[ $n = 1 ] && p=period
		say "COMPARE_ROUNDS=$rounds: $n whole Williams $p of $# sides, $period rounds each"
	fi
elif [ $# = 2 ]; then
	# Two sides alternate exactly, any number of rounds: the first
	# four rounds said in full.
	order='' r=1
	while [ $r -le "$rounds" ] && [ $r -le 4 ]; do
		if [ $((r % 2)) = 1 ]; then o="$1 $2"; else o="$2 $1"; fi
		order=${order:+$order, }$o r=$((r + 1))
	done
	[ "$rounds" -gt 4 ] && order="$order, ..."
	say "COMPARE_ROUNDS=$rounds: $1 and $2 alternate exactly: $order"
fi

# in_top CMD ARG...: CMD at the top of the work tree, with pathspecs
# appended that leave out the document, its table and the build directory,
# so that a run's own output never makes the next one differ.
in_top() {
	top=$(git rev-parse --show-toplevel 2>/dev/null) || return 1
	for p in "$doc" "$COMPARE_TABLE" "$dir"; do
		a=$(realpath -m -- "$p") || return 1
		case $a in
		"$top"/*) set -- "$@" ":(top,exclude,literal)${a#"$top"/}" ;;
		esac
	done
	(cd "$top" && "$@")
}

# untracked PATHSPEC...: every untracked file's SHA-256 and name.
untracked() {
	git ls-files -o --exclude-standard -z -- "$@" | xargs -0 -r sha256sum --
}

# worktree_changes: what the work tree holds that HEAD does not, content
# included: the diff of the tracked files, then every untracked file's
# SHA-256 and name. Nothing outside a git work tree.
worktree_changes() {
	git rev-parse --show-toplevel >/dev/null 2>&1 || return 0
	in_top git diff --binary HEAD -- . && in_top untracked .
}

# What describes the run and every side, for perfdoc. The commit is HEAD,
# "-dirty-" and 8 hex digits of the changes' digest after it when the tree
# has changes; COMPARE_COMMIT, when given, must be HEAD in full, clean.
worktree_changes > "$dir/changes" || { say "cannot list the work tree's changes"; exit 2; }
dirty=$(sha256sum < "$dir/changes" | cut -c1-64)
head=$(git rev-parse --verify -q HEAD 2>/dev/null) || head=
if [ -n "${COMPARE_COMMIT-}" ]; then
	if [ "$COMPARE_COMMIT" != "$head" ]; then
		say "COMPARE_COMMIT=$COMPARE_COMMIT is not HEAD, ${head:-none here}: give the full commit checked out"
		exit 2
	fi
	if [ -s "$dir/changes" ]; then
		say "COMPARE_COMMIT=$COMPARE_COMMIT: the work tree is not clean: $(in_top git status --porcelain -z -- . |
		    tr '\0' '\n' | cut -c4- | awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $0 }')"
		exit 2
	fi
	commit=$head
elif [ -n "$head" ]; then
	commit=$head
	[ -s "$dir/changes" ] && commit=$head-dirty-$(echo "$dirty" | cut -c1-8)
else
	commit=none
fi
set -- -m "commit=$commit" -m "uncommitted_sha256=$dirty" \
    -m "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$cpuopt" "cpu=$COMPARE_CPU" -n "threads=1" \
    -n "rounds=$rounds" -m "gauge=$gauge" -n "maxload=$maxload"
# The pinned references: this machine's must be the lock's, and the lock
# is the run's, so that a resume refuses another (allocations only pin
# nothing: they run no reference).
if [ -n "${COMPARE_LOCK-}" ] && [ "$mode" != allocs ]; then
	[ -f "$COMPARE_LOCK" ] || { say "no $COMPARE_LOCK, the pinned references: make compare-lock writes it"; exit 2; }
	if ! refs_lock -L; then
		say "the references here are not those $COMPARE_LOCK pins: make compare-lock rewrites it, on purpose"
		exit 2
	fi
	set -- "$@" -m "refs_lock_sha256=$(sha256sum < "$COMPARE_LOCK" | cut -c1-64)"
fi
list=
for s in $COMPARE_SIDES; do
	list=${list:+$list,}$s
	cmd=$(side_var "$s" CMD)
	[ -n "$cmd" ] || { say "side $s: COMPARE_CMD_$s is empty"; exit 2; }
	v=$(side_var "$s" VERSION)
	if [ -n "$v" ]; then
		v=$(sh -c "$v" 2>&1 | head -n 1)
		set -- "$@" -A "$s:version=$v"
	fi
	cc=$(side_var "$s" CC) cflags=$(side_var "$s" CFLAGS) sources=$(side_var "$s" SOURCES)
	[ -n "$cc" ] && set -- "$@" -A "$s:cc=$cc"
	[ -n "$cflags" ] && set -- "$@" -A "$s:cflags=$cflags"
	if [ -n "$sources" ]; then
		# Every file the build reads, as the compiler lists them.
		set -- "$@" -A "$s:sources=$sources"
		sh -c "exec ${cc:-cc} $cflags -M -MT $s $sources" > "$dir/$s.deps" ||
		    { say "side $s: ${cc:-cc} -M cannot list what its build reads"; exit 2; }
		set -- "$@" -F "$s=$dir/$s.deps"
	fi
	# No licence, no -l: the description is refused below (perfdoc -R).
	v=$(side_var "$s" LICENSE)
	[ -n "$v" ] && set -- "$@" -l "$s=$v"
	v=$(side_var "$s" BLACKBOX)
	case $v in
	1) set -- "$@" -b "$s" ;;
	''|0) ;;
	*) say "COMPARE_BLACKBOX_$s=$v: not 1 or 0"; exit 2 ;;
	esac
	v=$(side_var "$s" SOURCE)
	if [ -n "$v" ]; then
		set -- "$@" -A "$s:source=$v" -A "$s:source_sha256=$(sha256sum < "$v" | cut -c1-64)"
	fi
	v=$(side_var "$s" ABOUT)
	# What a side ran with describes a timing; allocations only run none.
	if [ -n "$v" ] && [ "$mode" != allocs ]; then
		# With the thread variables alternate gives the sides, so that a
		# library's thread count is the one the side measured with.
		OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1 \
		    sh -c "$v" > "$dir/$s.about.json" || { say "side $s: $v failed"; exit 2; }
		set -- "$@" -J "$s=$dir/$s.about.json"
	fi
done

# make compare-allocs with no document yet: every row deferred, described.
if [ "$mode" = allocs ]; then
	"$bin/perfdoc" -o "$doc" -K -a "$dir/counts.out" -s "$list" -C "$cases" "$@" || exit 2
	"$bin/perfdoc" -t -o "$COMPARE_TABLE" "$doc" || exit 2
	say "wrote the allocations of $cases into $doc, every row deferred, and $COMPARE_TABLE"
	exit 0
fi

# A reference is fixed by its name: its compiler and flags are those the
# document gives it. That, the licences, and a resume that could not be
# merged are refused before anything is measured.
# (A document that cannot be read fixes nothing: a full run replaces it.)
[ -f "$doc" ] && "$bin/perfdoc" -q "$doc" >/dev/null 2>&1 && set -- "$@" -f "$doc"
if [ -n "$resume" ]; then
	"$bin/perfdoc" -o "$dir/resume-check.json" -r "$doc" -s "$list" -C "" "$@" || exit 2
	"$bin/perfdoc" -R "$dir/resume-check.json" || exit 2
else
	"$bin/perfdoc" -o "$dir/check.json" -K -s "$list" -C "" "$@" || exit 2
	"$bin/perfdoc" -R "$dir/check.json" || exit 2
fi

# The implementation's allocations, counted once before the rows are timed.
impl_counts "$dir/counts.out"

# run_row CASE: the case's rounds over every side into $dir/rows/CASE.jsonl.
run_row() {
	runs=$dir/rows/$1.jsonl c=$1
	shift $#
	for s in $COMPARE_SIDES; do
		set -- "$@" "$s=$(side_var "$s" CMD)"
	done
	# shellcheck disable=SC2086
	BENCH_CASES=$c BENCH_SHA256=1 "$bin/alternate" -ds -c "$COMPARE_CPU" -T 1 $gate \
	    -L "$COMPARE_WAIT" -R "$COMPARE_RETRIES" -r "$rounds" \
	    -t "$COMPARE_TIMEOUT" -o "$runs" "$@"
}

# score_row CASE: with an oracle (COMPARE_ORACLE), each side and the oracle
# evaluate the case once on the same inputs (BENCH_EVAL), before the rounds
# and ungated, and ulpscore scores every side into $dir/rows/CASE.acc.
# The result type is COMPARE_RESULT_CASE (f32, or i32), the budgets the
# [accuracy] section of COMPARE_ACCURACY.
score_row() {
	c=$1 ev=$dir/eval/$1
	[ -n "${COMPARE_ORACLE-}" ] || return 0
	rm -rf "$ev" && mkdir -p "$ev" || return 2
	BENCH_CASES=$c BENCH_EVAL=$ev/oracle.bin sh -c "$COMPARE_ORACLE" >/dev/null ||
	    { say "row $c: the oracle ($COMPARE_ORACLE) failed"; return 2; }
	[ -f "$ev/oracle.bin" ] || { say "row $c: the oracle wrote no $ev/oracle.bin"; return 2; }
	shift $#
	t=$(eval "printf '%s' \"\${COMPARE_RESULT_$c:-f32}\"")
	for s in $COMPARE_SIDES; do
		OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1 \
		    BENCH_CASES=$c BENCH_EVAL=$ev/$s.bin BENCH_RESULT=$t sh -c "$(side_var "$s" CMD)" >/dev/null ||
		    { say "row $c: side $s failed to evaluate the case (BENCH_EVAL)"; return 2; }
		[ -f "$ev/$s.bin" ] || { say "row $c: side $s wrote no $ev/$s.bin (BENCH_EVAL)"; return 2; }
		set -- "$@" "$s=$ev/$s.bin"
	done
	"$bin/ulpscore" -c "$c" -t "$t" ${COMPARE_ACCURACY:+-b "$COMPARE_ACCURACY"} \
	    -o "$ev/oracle.bin" "$@" > "$dir/rows/$c.acc"
}

# COMPARE_WORKERS=1: each side with a COMPARE_WORKER_S is a long-lived
# worker, started here once in its run directory, keyed by the commit
# ($dir/workers/<commit>/<side>: wside -s: one thread shown, every
# argument's digest checked), each case's inputs written once by
# COMPARE_INPUT (BENCH_INPUT) and loaded as a matrix of COMPARE_SHAPE_CASE;
# COMPARE_WORKER_JSON_S=1: it speaks JSON lines. The side's command
# becomes wside on that worker, so that no round includes its start-up;
# what the worker said of itself joins the side's description. Stopped
# when this script ends.
workers='' wroot=$dir/workers/$commit
# start_worker SIDE COMMAND: its own "$@", not the run's description.
start_worker() {
	ws=$1 wd=$wroot/$1 w=$2
	mkdir -p "$wd" || return 2
	shift $#
	for c in $cases; do
		shape=$(eval "printf '%s' \"\${COMPARE_SHAPE_$c-}\"")
		[ -n "$shape" ] || { say "row $c: COMPARE_SHAPE_$c is empty: a worker loads a matrix, COLSxROWS"; return 2; }
		ln -f "$wroot/args/$c.arg" "$wd/$c.arg" 2>/dev/null ||
		    cp "$wroot/args/$c.arg" "$wd/$c.arg" || return 2
		set -- "$@" -a "$c=$shape:$c.arg"
	done
	[ "$(side_var "$ws" WORKER_JSON)" = 1 ] && set -- -j "$@"
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1 \
	    "$bin/wside" -s "$wd" "$@" -- sh -c "exec $w" || { say "side $ws: its worker was refused"; return 2; }
}
stop_workers() {
	for s in $workers; do
		"$bin/wside" -q "$wroot/$s" 2>/dev/null
	done
}
if [ "${COMPARE_WORKERS:-0}" = 1 ]; then
	trap stop_workers EXIT
	trap 'exit 2' INT TERM HUP
	rm -rf "$wroot" && mkdir -p "$wroot/args" || exit 2
	for c in $cases; do
		BENCH_CASES=$c BENCH_INPUT=$wroot/args/$c.arg sh -c "$COMPARE_INPUT" ||
		    { say "row $c: COMPARE_INPUT ($COMPARE_INPUT) wrote no argument file"; exit 2; }
	done
	for s in $COMPARE_SIDES; do
		w=$(side_var "$s" WORKER)
		[ -n "$w" ] || continue
		start_worker "$s" "$w" || exit 2
		workers="$workers $s"
		eval "COMPARE_CMD_$s=\"'\$bin/wside' '\$wroot/\$s'\""
		set -- "$@" -J "$s=$wroot/$s/worker.json"
	done
fi

# The accuracy, scored first: an oracle or a side that fails stops the run
# before anything is measured or written.
for c in $cases; do
	score_row "$c" || exit 2
done

stopped=0
for c in $cases; do
	[ $stopped = 1 ] && continue
	runs=$dir/rows/$c.jsonl stats=
	say "row $c: $rounds rounds of $list"
	if run_row "$c"; then
		stats=$dir/rows/$c.stats
		"$bin/minjson" -s q1,median,q3 \
		    "$runs" > "$stats" || exit 2
	fi
	"$bin/refjudge" -c "$c" -s "$list" "$runs" ${stats:+"$stats"} > "$dir/rows/$c.row"
	case $? in
	0 | 1) ;;
	3)	# Deferred by "wait" (refjudge(1)): the gate did not open, and
		# the rows after it need not try.
		stopped=1
		say "the load gate stayed closed: the rows after $c are deferred" ;;
	*) exit 2 ;;
	esac
	if [ -f "$dir/rows/$c.acc" ]; then
		"$bin/ulpscore" -j "$dir/rows/$c.acc" "$dir/rows/$c.row" > "$dir/rows/$c.row.tmp" &&
		    mv -f "$dir/rows/$c.row.tmp" "$dir/rows/$c.row" || exit 2
	fi
	# The row files follow the description, as perfdoc's operands.
	set -- "$@" "$dir/rows/$c.row"
done

# The cases after a closed gate have no row: perfdoc is told why.
[ $stopped = 1 ] && set -- -S "the load gate stayed closed before this row" "$@"
[ -n "$resume" ] && set -- -r "$doc" "$@"
[ -n "$counts" ] && set -- -a "$dir/counts.out" "$@"
# shellcheck disable=SC2086
"$bin/perfdoc" -o "$doc" -s "$list" -C "$cases" "$@" || exit 2
"$bin/perfdoc" -t -o "$COMPARE_TABLE" "$doc" || exit 2
deferred=$("$bin/perfdoc" -q "$doc") || exit 2
if [ -n "$deferred" ]; then
	say "wrote $doc and $COMPARE_TABLE, partial"
	# An incomplete document is not a success: 2, the rows kept.
	# shellcheck disable=SC2086 # echo joins the words of the list
	say "partial: deferred $(echo $deferred | sed 's/ /, /g'); make compare RESUME=1 measures them again"
	exit 2
fi
say "wrote $doc and $COMPARE_TABLE"
