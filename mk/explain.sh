#!/bin/sh
# explain.sh: why a gate regressed, gate.mk's step after the verdict.
#
#	explain.sh gate  MODE GATEDIR BINDIR EPS TIMEOUT
#	explain.sh again last GATEDIR BINDIR EPS TIMEOUT	(make explain)
#
# MODE is the gate's (time, counts or both; last: whichever verdict in
# GATEDIR was written last). For each metric its verdict calls regressed,
# and each it names in layout_suspect, both sides run once more under
# callgrind (countof; again with cache simulation, -c, when cgdiff -I says
# the instructions did not move) for that metric's case alone
# (BENCH_CASES), and cgdiff compares their functions; a metric that
# regressed in counts mode is explained from the dumps the counts gate kept
# (GATEDIR/counts/SIDE.dumps), at no cost. An ok gate runs none of this
# (gate.mk calls it on a regression only). The dumps of each side and case
# are kept in GATEDIR/explain/SIDE.CASE with the key they were made for,
# so that `make explain` measures nothing that it has.
#
# Writes GATEDIR/explain.jsonl (cgdiff's records, every metric's), the
# table GATEDIR/explain.txt, also on standard error, and a <details>
# section at the end of the verdict's Markdown (GATEDIR/verdict.md, or
# GATEDIR/counts/verdict.md). The suspects are what differs between the
# two sides' identities (GATEDIR/base.key, head.key, read by cgdiff -K):
# compiler, flags, build command, shared libraries. A metric that cannot be explained (a
# dump cgdiff refuses, a run that fails) is said so in one line and in its
# summary record ("explained":false, "error"); the verdict stands either
# way. Exit 0, or 2 when nothing could be explained. Every record is
# cgdiff's (-U: a metric that could not be explained), and cgdiff -q names
# the metrics to explain: no record is written or read here.

nl='
'

# fresh SIDE CASE [-c]: whether GATEDIR/explain/SIDE.CASE (with -c, cache
# simulation on: SIDE.CASE.c) holds the side's dumps of the case, made for
# the key it would be made for now (written to its .key.tmp).
fresh() {
	out=$dir/explain/$1.$2${3:+.c}
	{
		cat "$dir/$1.key"
		printf 'case %s\ntimeout %s\nflags %s\nenv %s\n' "$2" "$timeout" "${3-}" \
		    "$(env | grep '^BENCH_' | grep -v '^BENCH_CASES=' | sort | tr '\n' ' ')"
	} > "$out.key.tmp"
	[ -d "$out" ] && cmp -s "$out.key.tmp" "$out.key"
}

# count SIDE CASE [-c]: the side's dumps of the case, made again unless
# they are fresh.
count() {
	if fresh "$@"; then
		rm -f "$out.key.tmp"
		return 0
	fi
	rm -f "$out.key"
	# countof -f runs the side's command split by the gate's one parser.
	BENCH_CASES=$2 "$bin/countof" ${3:+"$3"} -s "$1" -t "$timeout" -d "$out" -o "$out.log" \
	    -f "$dir/$1/bench.cmd" > "$out.jsonl" 2> "$out.err" || {
		rm -f "$out.key.tmp"
		return 2
	}
	mv -f "$out.key.tmp" "$out.key"
}

# count_both CASE [-c]: both sides at once; sets bd, hd (the dumps'
# directories), br, hr (the records), why (empty, or what failed).
count_both() {
	bd=$dir/explain/base.$1${2:+.c} hd=$dir/explain/head.$1${2:+.c} br=$bd.jsonl hr=$hd.jsonl
	mkdir -p "$dir/explain"
	if ! fresh base "$@" || ! fresh head "$@"; then
		echo "gate: explaining $m: ${2:+its instructions did not move; }base and head once under callgrind," \
		    "$1 alone${2:+, with cache simulation}" >&2
	fi
	rm -f "$bd.key.tmp" "$hd.key.tmp"
	count base "$@" & bp=$!
	count head "$@" & hp=$!
	# countof -o: its one line of stderr is its message, the rest is in the log.
	wait "$bp" || why="base: $(cat "$bd.err"); log in $bd.log"
	wait "$hp" || why=${why:-"head: $(cat "$hd.err"); log in $hd.log"}
}

# diff_one METRIC KEY: cgdiff on bd and hd (and the allocations of br and
# hr) into explain.rec and explain.one; its status (cgdiff -I: 1 when the
# instructions did not move and no cache misses were simulated).
diff_one() {
	set -- -I -M "$1" -k "$2" -e "$eps"
	# The sides' commands, as cgdiff splits them (a cd DIR && form too).
	set -- "$@" -B "$(cat "$dir/base/bench.cmd")" -H "$(cat "$dir/head/bench.cmd")"
	# The suspects: what differs between the sides' identities (cgdiff -K).
	set -- "$@" -K "$dir/base.key" -K "$dir/head.key"
	"$bin/cgdiff" "$@" "$bd" "$hd" "$br" "$hr" > "$dir/explain.rec" 2> "$dir/explain.one"
}

# explain_one METRIC: cgdiff's records and table for one metric, appended
# to the step's temporaries. The instructions come first, without cache
# simulation (which costs callgrind twice the time); only when they did
# not move are the sides run again with it, for the cache misses.
explain_one() {
	m=$1
	case $m in
	*_instr) key=$m ;;
	*_alloc_bytes) key=${m%_alloc_bytes}_instr ;;
	*_allocs) key=${m%_allocs}_instr ;;
	*_l1_misses) key=${m%_l1_misses}_instr ;;
	*_ll_misses) key=${m%_ll_misses}_instr ;;
	*) key=${m%_ns}_instr ;;
	esac
	case=${key%_instr}
	why='' rc=2
	bd=$dir/counts/base.dumps hd=$dir/counts/head.dumps br=$dir/counts/base.jsonl hr=$dir/counts/head.jsonl
	case $nl$counted$nl in
	*"$nl$m$nl"*) [ -d "$bd" ] && [ -d "$hd" ] ;;
	*) false ;;
	esac || count_both "$case"
	[ -n "$why" ] || { diff_one "$m" "$key"; rc=$?; }
	if [ "$rc" = 1 ]; then
		count_both "$case" -c
		rc=2
		[ -n "$why" ] || { diff_one "$m" "$key"; rc=$?; }
	fi
	[ -z "$why" ] || "$bin/cgdiff" -U "$why" -M "$m" > "$dir/explain.rec" 2> "$dir/explain.one"
	cat "$dir/explain.rec" >> "$dir/explain.jsonl.tmp"
	# One table a case: a second metric of it (sum_ns and sum_instr, or
	# count_below_allocs) points to the first.
	case $rc$tabled in
	2*) cat "$dir/explain.one" >> "$dir/explain.txt.tmp" ;;
	*"$nl$case "*) as=${tabled#*"$nl$case "}
		printf 'explain %s: as %s above\n' "$m" "${as%%"$nl"*}" >> "$dir/explain.txt.tmp" ;;
	*) cat "$dir/explain.one" >> "$dir/explain.txt.tmp"
		tabled=$tabled"$case $m"$nl ;;
	esac
	[ "$rc" = 2 ] || explained=$((explained + 1))
	rm -f "$dir/explain.rec" "$dir/explain.one"
}

# markdown FILE: the table as a <details> section at the end of FILE, in
# place of the one an earlier explanation left there.
markdown() {
	md=$1
	if [ -f "$md" ]; then
		sed '/^<!-- perfgate explain -->$/,$d' "$md" > "$md.tmp"
	else
		: > "$md.tmp"
	fi
	{
		printf '\n<!-- perfgate explain -->\n<details><summary>Why it regressed: %s</summary>\n\n<pre>\n' \
		    "$(printf '%s' "$what" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')"
		sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g' "$dir/explain.txt"
		printf '</pre>\n</details>\n'
	} >> "$md.tmp"
	mv -f "$md.tmp" "$md"
}

step=$1 mode=$2 dir=$3 bin=$4 eps=$5 timeout=$6
case $step in
gate|again) ;;
*) echo "explain.sh: unknown step $step" >&2; exit 2 ;;
esac
if [ "$mode" = last ]; then
	mode=
	for m in time counts both; do
		case $m in
		time) f=$dir/verdict.jsonl ;;
		*) f=$dir/$m/verdict.jsonl ;;
		esac
		[ -f "$f" ] || continue
		if [ -z "$mode" ] || [ -n "$(find "$f" -prune -newer "$newest")" ]; then mode=$m newest=$f; fi
	done
	[ -n "$mode" ] || { echo "explain: no gate in $dir to explain" >&2; exit 2; }
fi
case $mode in
time) verdict=$dir/verdict.jsonl md=$dir/verdict.md ;;
counts) verdict=$dir/counts/verdict.jsonl md=$dir/counts/verdict.md ;;
both) verdict=$dir/both/verdict.jsonl md=$dir/verdict.md ;;
*) echo "explain.sh: unknown mode $mode" >&2; exit 2 ;;
esac
# The metrics the verdict's summary names regressed or layout suspects.
metrics=$(if [ -f "$verdict" ]; then "$bin/cgdiff" -q "$verdict"; fi) || exit 2
# The metrics the counts gate judged regressed: their dumps are kept.
counted=
case $mode in
counts) counted=$metrics ;;
both) counted=$(if [ -f "$dir/counts/verdict.jsonl" ]; then "$bin/cgdiff" -q "$dir/counts/verdict.jsonl"; fi) || exit 2 ;;
esac
rm -f "$dir/explain.jsonl.tmp" "$dir/explain.txt.tmp"
trap 'rm -f "$dir/explain.jsonl.tmp" "$dir/explain.txt.tmp" "$dir/explain.one" "$dir/explain.rec" "$md.tmp"; exit 130' INT TERM HUP
if [ -z "$metrics" ]; then
	echo "explain: the last gate in $dir ($mode) regressed nothing to explain" >&2
	rm -f "$dir/explain.jsonl" "$dir/explain.txt"
	exit 0
fi
explained=0 tabled=$nl
what=
for m in $metrics; do
	case $m in
	*[!A-Za-z0-9_.-]*) printf 'explain: a metric named %s: not explained\n' "$m" >> "$dir/explain.txt.tmp"; continue ;;
	esac
	explain_one "$m"
	what=${what:+$what, }$m
done
: >> "$dir/explain.jsonl.tmp"
: >> "$dir/explain.txt.tmp"
mv -f "$dir/explain.jsonl.tmp" "$dir/explain.jsonl"
mv -f "$dir/explain.txt.tmp" "$dir/explain.txt"
cat "$dir/explain.txt" >&2
markdown "$md"
[ "$explained" -gt 0 ] || exit 2
exit 0
