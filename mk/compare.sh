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

bin=$COMPARE_BIN dir=$COMPARE_DIR doc=$COMPARE_DOC

say() {
	echo "compare: $*" >&2
}

side_var() {
	eval "printf '%s' \"\${COMPARE_${2}_$1-}\""
}

rm -rf "$dir/rows"
mkdir -p "$dir/rows" "$(dirname "$doc")" || exit 2

cases=$COMPARE_CASES resume=
if [ "${RESUME:-0}" = 1 ]; then
	[ -f "$doc" ] || { say "RESUME=1: no $doc to resume"; exit 2; }
	cases=$("$bin/perfdoc" -q "$doc") || exit 2
	if [ -z "$cases" ]; then
		say "$doc has no deferred row: nothing to resume"
		exit 0
	fi
	resume="-r $doc"
fi

# The load gate: CPU pressure where the kernel has it (or a test fakes it),
# else the load average (or a faked one, when the pressure is not faked).
if [ -n "${PERFGATE_PRESSURE-}" ] ||
    { [ -z "${PERFGATE_LOADAVG-}" ] && [ -r /proc/pressure/cpu ]; }; then
	gauge=pressure maxload=$COMPARE_MAXPRESSURE gate="-p -l $maxload"
else
	gauge=load maxload=$COMPARE_MAXLOAD gate="-l $maxload"
fi

# What describes the run and every side, for perfdoc.
commit=$(git rev-parse HEAD 2>/dev/null) || commit=none
dirty=$( { git diff HEAD -- . ":(exclude)$doc" ":(exclude)$COMPARE_TABLE" 2>/dev/null
	git ls-files -o --exclude-standard 2>/dev/null; } | sha256sum | cut -c1-64)
set -- -m "commit=$commit" -m "uncommitted_sha256=$dirty" \
    -m "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" -n "cpu=$COMPARE_CPU" -n "threads=1" \
    -n "rounds=$COMPARE_ROUNDS" -m "gauge=$gauge" -n "maxload=$maxload"
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
	v=$(side_var "$s" CFLAGS)
	[ -n "$v" ] && set -- "$@" -A "$s:cflags=$v"
	v=$(side_var "$s" SOURCE)
	if [ -n "$v" ]; then
		set -- "$@" -A "$s:source=$v" -A "$s:source_sha256=$(sha256sum < "$v" | cut -c1-64)"
	fi
	v=$(side_var "$s" ABOUT)
	if [ -n "$v" ]; then
		# With the thread variables alternate gives the sides, so that a
		# library's thread count is the one the side measured with.
		OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1 \
		    sh -c "$v" > "$dir/$s.about.json" || { say "side $s: $v failed"; exit 2; }
		set -- "$@" -J "$s=$dir/$s.about.json"
	fi
done

# A resume that could not be merged is refused before anything is measured.
if [ -n "$resume" ]; then
	# shellcheck disable=SC2086
	"$bin/perfdoc" -o "$dir/resume-check.json" $resume -s "$list" -C "" "$@" || exit 2
fi

# run_row CASE: the case's rounds over every side into $dir/rows/CASE.jsonl.
run_row() {
	runs=$dir/rows/$1.jsonl c=$1
	shift $#
	for s in $COMPARE_SIDES; do
		set -- "$@" "$s=$(side_var "$s" CMD)"
	done
	# shellcheck disable=SC2086
	BENCH_CASES=$c BENCH_SHA256=1 "$bin/alternate" -ds -c "$COMPARE_CPU" -T 1 $gate \
	    -L "$COMPARE_WAIT" -R "$COMPARE_RETRIES" -r "$COMPARE_ROUNDS" \
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
	for s in $COMPARE_SIDES; do
		OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1 \
		    BENCH_CASES=$c BENCH_EVAL=$ev/$s.bin sh -c "$(side_var "$s" CMD)" >/dev/null ||
		    { say "row $c: side $s failed to evaluate the case (BENCH_EVAL)"; return 2; }
		[ -f "$ev/$s.bin" ] || { say "row $c: side $s wrote no $ev/$s.bin (BENCH_EVAL)"; return 2; }
		set -- "$@" "$s=$ev/$s.bin"
	done
	t=$(eval "printf '%s' \"\${COMPARE_RESULT_$c:-f32}\"")
	"$bin/ulpscore" -c "$c" -t "$t" ${COMPARE_ACCURACY:+-b "$COMPARE_ACCURACY"} \
	    -o "$ev/oracle.bin" "$@" > "$dir/rows/$c.acc"
}

# COMPARE_WORKERS=1: each side with a COMPARE_WORKER_S is a long-lived
# worker, started here once (wside -s: one thread shown, every argument
# file's digest checked), each case's inputs written once by COMPARE_INPUT
# (BENCH_INPUT); the side's command becomes wside on that worker, so that
# no round includes its start-up. Stopped when this script ends.
workers=
# start_worker SIDE COMMAND: its own "$@", not the run's description.
start_worker() {
	ws=$1 wd=$dir/workers/$1 w=$2
	mkdir -p "$wd" || return 2
	shift $#
	for c in $cases; do
		ln -f "$dir/workers/args/$c.arg" "$wd/$c.arg" 2>/dev/null ||
		    cp "$dir/workers/args/$c.arg" "$wd/$c.arg" || return 2
		set -- "$@" -a "$c=$c.arg"
	done
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1 \
	    "$bin/wside" -s "$wd" "$@" -- sh -c "exec $w" || { say "side $ws: its worker was refused"; return 2; }
}
stop_workers() {
	for s in $workers; do
		"$bin/wside" -q "$dir/workers/$s" 2>/dev/null
	done
}
if [ "${COMPARE_WORKERS:-0}" = 1 ]; then
	trap stop_workers EXIT
	trap 'exit 2' INT TERM HUP
	rm -rf "$dir/workers" && mkdir -p "$dir/workers/args" || exit 2
	for c in $cases; do
		BENCH_CASES=$c BENCH_INPUT=$dir/workers/args/$c.arg sh -c "$COMPARE_INPUT" ||
		    { say "row $c: COMPARE_INPUT ($COMPARE_INPUT) wrote no argument file"; exit 2; }
	done
	for s in $COMPARE_SIDES; do
		w=$(side_var "$s" WORKER)
		[ -n "$w" ] || continue
		start_worker "$s" "$w" || exit 2
		workers="$workers $s"
		eval "COMPARE_CMD_$s=\"'\$bin/wside' '\$dir/workers/\$s'\""
	done
fi

# The accuracy, scored first: an oracle or a side that fails stops the run
# before anything is measured or written.
for c in $cases; do
	score_row "$c" || exit 2
done

stopped=0 rows=
for c in $cases; do
	[ $stopped = 1 ] && continue
	runs=$dir/rows/$c.jsonl stats=
	say "row $c: $COMPARE_ROUNDS rounds of $list"
	if run_row "$c"; then
		stats=$dir/rows/$c.stats
		"$bin/minjson" -s q1,median,q3 -x round,slot,load,pressure,threads,discarded \
		    "$runs" > "$stats" || exit 2
	fi
	"$bin/refjudge" -c "$c" -s "$list" "$runs" $stats > "$dir/rows/$c.row"
	case $? in
	0|1) ;;
	3) stopped=1; say "the load gate stayed closed: the rows after $c are deferred" ;;
	*) exit 2 ;;
	esac
	if [ -f "$dir/rows/$c.acc" ]; then
		"$bin/ulpscore" -j "$dir/rows/$c.acc" "$dir/rows/$c.row" > "$dir/rows/$c.row.tmp" &&
		    mv -f "$dir/rows/$c.row.tmp" "$dir/rows/$c.row" || exit 2
	fi
	rows="$rows $dir/rows/$c.row"
done

# shellcheck disable=SC2086
"$bin/perfdoc" -o "$doc" $resume -s "$list" -C "$cases" "$@" $rows || exit 2
"$bin/perfdoc" -t "$doc" > "$COMPARE_TABLE.tmp" && mv -f "$COMPARE_TABLE.tmp" "$COMPARE_TABLE" || exit 2
deferred=$("$bin/perfdoc" -q "$doc") || exit 2
if [ -n "$deferred" ]; then
	say "partial: deferred $(echo $deferred | sed 's/ /, /g'); make compare RESUME=1 measures them again"
fi
say "wrote $doc and $COMPARE_TABLE"
