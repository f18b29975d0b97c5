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
# so that `make explain` measures nothing that it has, and in the store
# (GATE_OBJECTS/explain, below), so that another GATEDIR does not either.
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

# The explanation's store: a side's dumps of a case are made from the
# program's bytes and its libraries' (the side's key names their digests),
# the command, the case, the timeout, the flags, the BENCH_ settings and
# the tools that made them; GATE_OBJECTS/explain keeps them under the
# digest of all that, with this GATEDIR's path written $GATEDIR, so that a
# gate of the same program in another GATEDIR runs nothing under callgrind
# (a gate's sides are in the store already; their explanation is as well).
# An entry is a directory made whole and renamed into place, and read only
# when every file it lists in its content file has the digest listed.

# portable: standard input, with this GATEDIR's path written $GATEDIR (as
# it is, and as it is inside the sh quotes of a command: a ' as '\''); the
# build command's digest (a member) left out, as it digests this GATEDIR's
# path: the command itself is a line of the key.
portable() {
	pq='' pr=$dir
	while :; do
		case $pr in
		*"'"*) pq=$pq${pr%%"'"*}"'\\''" pr=${pr#*"'"} ;;
		*) pq=$pq$pr; break ;;
		esac
	done
	EXPLAIN_GATEDIR=$dir EXPLAIN_GATEDIR_Q=$pq awk '
	function named(s, d,   i, o) {
		o = ""
		while (d != "" && (i = index(s, d)) > 0) { o = o substr(s, 1, i - 1) "$GATEDIR"; s = substr(s, i + length(d)) }
		return o s
	}
	/^member build_sha256 / { next }
	{ print named(named($0, ENVIRON["EXPLAIN_GATEDIR_Q"]), ENVIRON["EXPLAIN_GATEDIR"]) }'
}

# stored SIDE CASE [-c]: the side's dumps of the case copied from the
# store into GATEDIR/explain (status 0), or status 1 with the entry's name
# in entry and its key in OUT.skey (for keep).
stored() {
	entry=
	[ -n "${GATE_OBJECTS-}" ] || return 1
	if [ -z "$tools" ]; then
		tools="countof $("$bin/countof" -V 2>&1)$nl""valgrind $(valgrind --version 2>&1)"
	fi
	{ cat "$out.key.tmp" "$dir/$1/bench.cmd"; printf '%s\n' "$tools"; } | portable > "$out.skey" || return 1
	entry=$(sha256sum < "$out.skey") || return 1
	entry=$GATE_OBJECTS/explain/${entry%% *}
	[ -d "$entry" ] || return 1
	# An entry that does not hold what it lists is removed, for keep to
	# make again: it is never read.
	if ! [ -f "$entry/content" ] || ! (cd "$entry" && sha256sum --quiet --status -c content); then
		rm -rf -- "$entry"
		return 1
	fi
	rm -rf -- "$out" && cp -R -- "$entry/dumps" "$out" && cp -- "$entry/rec.jsonl" "$out.jsonl" &&
	    cp -- "$entry/cmd" "$out.cmd" && : > "$out.err" || return 1
	rm -f -- "$out.skey"
}

# keep SIDE CASE [-c]: the dumps just made into the store under entry.
# The store is a cache: a failure to fill it is not the explanation's.
keep() {
	if [ -z "$entry" ] || [ -d "$entry" ]; then
		rm -f -- "$out.skey"
		return 0
	fi
	keep_tmp=$entry.tmp.$$.$1
	mkdir -p -- "$keep_tmp" && cp -R -- "$out" "$keep_tmp/dumps" && cp -- "$out.jsonl" "$keep_tmp/rec.jsonl" &&
	    cp -- "$out.cmd" "$keep_tmp/cmd" && cp -- "$out.skey" "$keep_tmp/key" &&
	    (cd "$keep_tmp" && sha256sum -- dumps/* rec.jsonl cmd key > content) &&
	    mv -T -- "$keep_tmp" "$entry" 2> /dev/null
	rm -rf -- "$keep_tmp" "$out.skey"
	return 0
}

# needed SIDE CASE [-c]: status 0 when the side's dumps of the case must
# be made (with their key in OUT.key.tmp); 1 when GATEDIR has them, fresh,
# or the store had them.
needed() {
	if fresh "$@"; then
		rm -f "$out.key.tmp"
		return 1
	fi
	rm -f "$out.key"
	stored "$@" || return 0
	mv -f "$out.key.tmp" "$out.key"
	return 1
}

# count SIDE CASE [-c]: the side's dumps of the case, made (needed said so).
count() {
	out=$dir/explain/$1.$2${3:+.c}
	# countof -f runs the side's command split by the gate's one parser.
	BENCH_CASES=$2 "$bin/countof" ${3:+"$3"} -s "$1" -t "$timeout" -d "$out" -o "$out.log" \
	    -f "$dir/$1/bench.cmd" > "$out.jsonl" 2> "$out.err" || {
		rm -f "$out.key.tmp" "$out.skey"
		return 2
	}
	cp -f "$dir/$1/bench.cmd" "$out.cmd" || return 2
	mv -f "$out.key.tmp" "$out.key"
	keep "$@"
}

# count_both CASE [-c]: both sides at once; sets bd, hd (the dumps'
# directories), br, hr (the records), why (empty, or what failed).
count_both() {
	bd=$dir/explain/base.$1${2:+.c} hd=$dir/explain/head.$1${2:+.c} br=$bd.jsonl hr=$hd.jsonl
	mkdir -p "$dir/explain"
	nb=0 nh=0 bp='' hp=''
	needed base "$@" && nb=1 be=$entry
	needed head "$@" && nh=1 he=$entry
	case $nb$nh in
	11) sides='base and head' ;;
	10) sides='base' ;;
	01) sides='head' ;;
	*) sides='' ;;
	esac
	[ -z "$sides" ] || echo "gate: explaining $m: ${2:+its instructions did not move; }$sides once under callgrind," \
	    "$1 alone${2:+, with cache simulation}" >&2
	[ $nb = 0 ] || { entry=$be; count base "$@" & bp=$!; }
	[ $nh = 0 ] || { entry=$he; count head "$@" & hp=$!; }
	# countof -o: its one line of stderr is its message, the rest is in the log.
	[ -z "$bp" ] || wait "$bp" || why="base: $(cat "$bd.err"); log in $bd.log"
	[ -z "$hp" ] || wait "$hp" || why=${why:-"head: $(cat "$hd.err"); log in $hd.log"}
}

# diff_one METRIC KEY: cgdiff on bd and hd (and the allocations of br and
# hr) into explain.rec and explain.one; its status (cgdiff -I: 1 when the
# instructions did not move and no cache misses were simulated).
diff_one() {
	set -- -I -M "$1" -k "$2" -e "$eps"
	# The commands the dumps were made with (OUT.cmd: in another GATEDIR
	# when the store had them), as cgdiff splits them (a cd DIR && form too).
	bc=$dir/base/bench.cmd hc=$dir/head/bench.cmd
	[ ! -f "$bd.cmd" ] || bc=$bd.cmd
	[ ! -f "$hd.cmd" ] || hc=$hd.cmd
	set -- "$@" -B "$(cat "$bc")" -H "$(cat "$hc")"
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

step=$1 mode=$2 dir=$3 bin=$4 eps=$5 timeout=$6 tools=
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
