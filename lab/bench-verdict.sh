#!/bin/sh
# bench-verdict.sh: make bench-verdict, the noise laboratory. Gates on a
# machine made busy in known ways, and what they answered:
#
#	quiet     nothing added (the machine as it is: report its load)
#	hog1      one CPU busy, steadily (lab/noisemaker.c spin)
#	hog2      both CPUs busy
#	spells    two processes busy and idle in turn, 10 to 500 ms each
#	thrash    a 64 MiB buffer walked over and over: caches, memory bandwidth
#	twospeed  no noise added, a benchmark with two speeds per process
#	          (lab/twospeed.c) gated against itself
#
# In each kata scenario LAB_N gates (default 2) of each change: the kata
# against itself (1) and planted slowdowns of count_below of 1.06x, 1.12x
# and 2x, planted as time owed by each call in proportion to its own
# (slow_src), so at the benchmark's own sizes; each at every budget
# 0.10 and 0.05. A gate is gate.sh measure and judge of sides built once
# (as make noise runs them), timed from its first round to its verdict.
# Prints per scenario on stderr: false claims (regressed or improved on
# unchanged code or a change within the budget, on any metric), misses
# (ok on a slowdown beyond the budget), undecided, median and 95th
# percentile seconds per verdict, and the CPU pressure and load seen, one
# line a scenario and checkout (before and after side by side); then the
# rounds a claim took per change; on stdout one record per scenario and
# checkout, and one per change. Whether a slowdown is beyond a budget
# is judged by its true factor in that scenario, measured apart from the
# gates, under the same noise: the median ratio of count_below in 40
# paired rounds on one CPU just before its gates and 40 just after.
#
#	LAB_N           gates of each change and budget (default 2)
#	LAB_SCENARIOS   which scenarios (default all, in the order above)
#	LAB_CHANGES     which changes (default "1 1.06 1.12 2")
#	LAB_PERFGATE    the perfgate checkout whose gate is measured (default
#	                this one)
#	LAB_BEFORE      a second checkout (the gate before a change), measured
#	                side by side: each gate of LAB_PERFGATE's follows one of
#	                its, under the same noise, and each has its table
#	LAB_DIR         where the gates go (default build/bench-verdict)
#	LAB_GATE_VARS   more make variables for the gates, e.g. GATE_FOCUS=off
#	LAB_SUMMARY     when set, only the tables of the gates in LAB_DIR (of
#	                the scenarios measured whole), measuring nothing
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
n=${LAB_N:-2}
pg_after=$(cd "${LAB_PERFGATE:-$top}" && pwd) || exit 2
tags=after
if [ -n "${LAB_BEFORE:-}" ]; then
	pg_before=$(cd "$LAB_BEFORE" && pwd) || exit 2
	tags="before after"
fi
dir=${LAB_DIR:-$top/build/bench-verdict}
scenarios=${LAB_SCENARIOS:-quiet hog1 hog2 spells thrash twospeed}
changes=${LAB_CHANGES:-1 1.06 1.12 2}
budgets="0.10 0.05"
unset MAKEFLAGS MFLAGS MAKELEVEL BASE HEAD GATEDIR BUDGET RUNS
case $n in ''|*[!0-9]*|0) echo "bench-verdict: LAB_N=$n: not a number of gates" >&2; exit 2 ;; esac
# LAB_SUMMARY: the tables of the gates LAB_DIR holds, measuring nothing.
summary=${LAB_SUMMARY:-}
[ -z "$summary" ] || [ -s "$dir/raw" ] || { echo "bench-verdict: LAB_SUMMARY: no gates in $dir/raw" >&2; exit 2; }
if [ -z "$summary" ]; then
rm -rf "$dir" && mkdir -p "$dir/src" "$dir/proto" || exit 2
for tag in $tags; do
	eval "pg=\$pg_$tag"
	make -s -C "$pg" all >/dev/null || exit 2
done
# The lab's own measurements (the slowdowns' cost, their true factors) are
# this checkout's, whichever gate is measured.
make -s -C "$top" all >/dev/null || exit 2
cc -std=c11 -O2 -o "$dir/noisemaker" lab/noisemaker.c || exit 2
# A checkout's rule at each look (tests/unit/rulecheck.c -l), where its
# rule decides at a look: the rounds a claim took.
for tag in $tags; do
	eval "pg=\$pg_$tag"
	if [ -f "$pg/lib/rule.h" ] && grep -q rule_looks "$pg/tests/unit/rulecheck.c" 2>/dev/null; then
		cc -std=c11 -O2 -D_GNU_SOURCE -I"$pg/lib" -o "$dir/rulecheck-$tag" "$pg/tests/unit/rulecheck.c" \
		    "$pg/build/obj/libperfgate.a" -lm || exit 2
	fi
done
fi

now() {
	date +%s.%N
}

# The disturbance's processes, ended by their ids.
noise_pids=
noise_start() {
	case $1 in
	hog1) set -- spin ;;
	hog2) set -- spin spin ;;
	spells) set -- spells spells ;;
	thrash) set -- thrash ;;
	*) set -- ;;
	esac
	for m; do
		"$dir/noisemaker" "$m" &
		noise_pids="$noise_pids $!"
	done
}
noise_stop() {
	for p in $noise_pids; do kill "$p" 2>/dev/null; done
	for p in $noise_pids; do wait "$p" 2>/dev/null; done
	noise_pids=
}
trap 'noise_stop; exit 130' INT TERM HUP

# slow_src FACTOR: the kata with count_below slowed by FACTOR, as
# $dir/src/slow-FACTOR.c: each call is timed by the CPU's cycle counter
# (from the end of the one before: the benchmark's loop is in its cost),
# and FACTOR - 1 times that is owed, then paid by spinning on the
# counter once a few thousand cycles are owed. So the slowdown is FACTOR
# times the call at the benchmark's own sizes in every context (a call
# with a cold cache is slowed by more, as the code that slows it would
# be), where more work of the kernel's own (more searches) costs what the
# cache makes it: 1.3x to 1.8x for one share on this machine. The base of
# a slowdown's gate is the same code with FACTOR 1 (slow-1.c): the
# counter's reads are on both sides.
slow_src() {
	cat > "$dir/src/slow-$1.c" <<EOF
/* The kata, count_below slowed by $1x (bench-verdict.sh). */
#define kata_count_below kata_count_below_kata
#include "$top/kata/kernels.c"
#undef kata_count_below
#include <time.h>
int kata_count_below(const float *sorted, int n, float t);
static unsigned long long
cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
#endif
}
int
kata_count_below(const float *sorted, int n, float t)
{
	static double owed;
	static unsigned long long last;
	unsigned long long t0 = cycles(), t1, took;
	int r = kata_count_below_kata(sorted, n, t);

	t1 = cycles();
	/*
	 * A call costs the benchmark what passed since the last one ended
	 * (its loop's own work too), unless a gap shows another metric's
	 * batches ran between: then its own time.
	 */
	took = t1 - last < 8 * (t1 - t0) + 2000 ? t1 - last : t1 - t0;
	owed += ($1 - 1) * (double)took;
	last = t1;
	if (owed >= 4000) {
		unsigned long long end = t1 + (unsigned long long)owed, now;

		while ((now = cycles()) < end)
			;
		owed -= (double)(now - t1);
		last = now;
	}
	return r;
}
EOF
}

# ratios A B ROUNDS OUT: ROUNDS paired rounds on one CPU (this checkout's
# alternate, every metric as a gate's first block runs them), B's
# count_below over A's, one a line appended to OUT.
ratios() {
	"$top/bin/alternate" -c auto -r "$3" "a=$1" "b=$2" > "$dir/ratio.jsonl" || exit 2
	jq -s -r --argjson n "$3" 'range(1; $n + 1) as $i | (map(select(.round == $i))) as $p |
	    ($p[] | select(.side == "b") | .count_below_ns) / ($p[] | select(.side == "a") | .count_below_ns)' \
	    "$dir/ratio.jsonl" >> "$4"
}

# truth SCENARIO: each slowdown's true factor in SCENARIO: the median of
# 40 paired rounds just before its gates and 40 just after, under the
# same noise, into $dir/factors.
truth() {
	for f in $changes; do
		[ "$f" = 1 ] && continue
		ratios "$dir/cal-1" "$dir/cal-$f" 40 "$dir/truth-$1-$f" || return 2
		if [ "$2" = end ]; then
			echo "$1 $f $(sort -g "$dir/truth-$1-$f" | awk '{ v[NR] = $1 } END { print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }')" >> "$dir/factors"
		fi
	done
}

build_cal() {
	cc -std=c11 -O2 -I"$top/bench" -I"$top/kata" -o "$dir/cal-$1" "$top/kata/bench.c" "$dir/src/slow-$1.c" -lm || exit 2
}
if [ -z "$summary" ]; then
for f in 1 $changes; do
	slow_src "$f"
	build_cal "$f"
done
fi

printf 'const int bench_verdict_empty = 0;\n' > "$dir/src/empty.c"
# proto NAME BASEFILE HEADFILE BUDGET [VAR=VALUE ...]: one gate through
# make, whose built sides and keys the measured gates copy.
proto() {
	name=$1 pbase=$2 phead=$3 pbudget=$4
	shift 4
	for tag in $tags; do
		eval "pg=\$pg_$tag"
		mkdir -p "$dir/proto/$tag"
		# shellcheck disable=SC2086
		make -s -C "$pg" gate GATEDIR="$dir/proto/$tag/$name" BASE="$pbase" HEAD="$phead" BUDGET="$pbudget" "$@" ${LAB_GATE_VARS-} \
		    > "$dir/proto/$tag/$name.out" 2> "$dir/proto/$tag/$name.err"
		[ -f "$dir/proto/$tag/$name/head.key" ] || { echo "bench-verdict: the gate $tag/$name was not built" >&2; cat "$dir/proto/$tag/$name.err" >&2; exit 2; }
	done
}
if [ -z "$summary" ]; then
for b in $budgets; do
	printf 'runs = 3\n\n[budget]\nmatmul_ns = %s\nsum_ns = %s\nrmsnorm_ns = %s\ncount_below_ns = %s\n' $b $b $b $b > "$dir/kata-$b.toml"
	printf 'runs = 3\n\n[budget]\nwalk_ns = %s\n' $b > "$dir/walk-$b.toml"
	for f in $changes; do
		if [ "$f" = 1 ]; then
			proto "kata-$f-$b" "$top/kata/kernels.c" "$top/kata/kernels.c" "$dir/kata-$b.toml"
		else
			proto "kata-$f-$b" "$dir/src/slow-1.c" "$dir/src/slow-$f.c" "$dir/kata-$b.toml"
		fi
	done
	proto "walk-1-$b" "$dir/src/empty.c" "$dir/src/empty.c" "$dir/walk-$b.toml" GATE_BENCH_SRC="$top/lab/twospeed.c"
done
fi

# gate PROTO OUT: one measured gate from the sides of PROTO, in OUT; its
# seconds in $secs.
gate() {
	g=$2
	mkdir -p "$g/base" "$g/head"
	cp "$1/runs.id" "$1/judge.id" "$g/"
	for s in base head; do
		cp "$1/$s.key" "$1/$s.id" "$1/$s.value" "$g/"
		cp "$1/$s/bench.cmd" "$g/$s/"
	done
	start=$(now)
	{ sh "$pg/mk/gate.sh" measure "$g" "$pg/bin" && sh "$pg/mk/gate.sh" judge "$g" "$pg/bin"; } > "$g/out" 2> "$g/log"
	end=$(now)
	secs=$(echo "$start $end" | awk '{ printf "%.3f", $2 - $1 }')
}

# raw GATEDIR: what a gate answered, as "VERDICT CB RATIO OTHER ROUNDS":
# the summary's verdict, count_below's verdict and median ratio, how many
# other metrics it claimed changed, and count_below's rounds (the rounds
# its verdict took: with GATE_FOCUS a decided metric is measured no more).
raw() {
	v=$1/verdict.jsonl
	[ -s "$v" ] || { echo "error error 1 0 0"; return; }
	verdict=$(tail -n 1 "$v" | jq -r .verdict)
	other=$(tail -n 1 "$v" | jq -r '[(.regressed // [])[], (.improved // [])[]] | map(select(. != "count_below_ns")) | length')
	cb=$(jq -r 'select(.metric == "count_below_ns") | "\(.verdict) \(.ratio // 1)"' "$v")
	[ -n "$cb" ] || cb="none 1"
	cbr=$(jq -r 'select(.metric == "count_below_ns") | .rounds // 0' "$v")
	# A checkout whose rule decides at a look (lib/rule.h): the look it
	# decided count_below at, by the rule itself on its ratios.
	# (twospeed's benchmark has no count_below: nothing to look at.)
	budget=$(jq -r 'select(.metric == "count_below_ns") | .budget' "$v")
	if [ -x "$dir/rulecheck-$tag" ] && [ -n "$budget" ]; then
		conf=$(tail -n 1 "$v" | jq -r .confidence)
		# shellcheck disable=SC2046
		look=$(RULE_C=$conf "$dir/rulecheck-$tag" -l "$budget" $(jq -s -r 'map(select(.count_below_ns != null)) |
		    group_by(.round) | map(select(length == 2)) | map((map(select(.side == "head"))[0].count_below_ns) /
		    (map(select(.side == "base"))[0].count_below_ns)) | map(tostring) | join(" ")' "$1/runs.jsonl") |
		    sed -n 's/^decided //p')
		[ -n "$look" ] && [ "$look" != 0 ] && cbr=$look
	fi
	echo "$verdict $cb $other ${cbr:-0}"
}

# judged VERDICT CB OTHER FACTOR BUDGET: one word for the answer, against
# the change's true factor: claim (a false claim: a change claimed on a
# metric that did not change, or on count_below beyond what it changed),
# miss, caught, undecided, ok, or error.
judged() {
	[ "$1" = error ] && { echo error; return; }
	beyond=$(echo "$4 $5" | awk '{ print ($1 > 1 + $2) ? 1 : 0 }')
	[ "$3" -gt 0 ] && { echo claim; return; }
	[ "$2" = improved ] && { echo claim; return; }
	[ "$beyond" = 0 ] && [ "$2" = regressed ] && { echo claim; return; }
	case $1 in
	undecided) echo undecided ;;
	regressed) echo caught ;;
	ok) if [ "$beyond" = 1 ]; then echo miss; else echo ok; fi ;;
	*) echo error ;;
	esac
}

# pct FILE P: the P-th percentile of the numbers in FILE, nearest rank.
pct() {
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; print v[i] }'
}

psi_total() {
	sed -n 's/^some .*total=\([0-9]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null || echo 0
}

if [ -z "$summary" ]; then
for sc in $scenarios; do
	noise_start "$sc"
	sleep 1
	# Each slowdown's true factor here, under this noise: before the gates, then after.
	if [ "$sc" != twospeed ]; then
		truth "$sc" start || { noise_stop; exit 2; }
	fi
	p0=$(psi_total) t0=$(now) l0=$(cut -d' ' -f1 /proc/loadavg)
	i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		for b in $budgets; do
			if [ "$sc" = twospeed ]; then
				for j in 1 2; do
					for tag in $tags; do
						eval "pg=\$pg_$tag"
						gate "$dir/proto/$tag/walk-1-$b" "$dir/g/$tag/$sc/walk-$b.$i.$j"
						echo "$tag $sc 1 $b $(raw "$g") $secs" >> "$dir/raw"
					done
				done
				continue
			fi
			for f in $changes; do
				for tag in $tags; do
					eval "pg=\$pg_$tag"
					gate "$dir/proto/$tag/kata-$f-$b" "$dir/g/$tag/$sc/$f-$b.$i"
					echo "$tag $sc $f $b $(raw "$g") $secs" >> "$dir/raw"
				done
			done
		done
	done
	p1=$(psi_total) t1=$(now) l1=$(cut -d' ' -f1 /proc/loadavg)
	if [ "$sc" != twospeed ]; then
		truth "$sc" end || { noise_stop; exit 2; }
	fi
	noise_stop
	echo "$sc $(echo "$p0 $p1 $t0 $t1" | awk '{ printf "%.0f", ($2 - $1) / 1e6 / ($4 - $3) * 100 }') $(echo "$l0 $l1" | awk '{ printf "%.2f", ($1 + $2) / 2 }')" >> "$dir/seen"
done
fi

for f in $changes; do
	[ "$f" = 1 ] && continue
	echo "bench-verdict: count_below slowed ${f}x planted, measured $(awk -v f="$f" '$2 == f { printf "%s %.3fx, ", $1, $3 }' "$dir/factors" | sed 's/, $//')" >&2
done
while read -r tag sc f b verdict cb ratio other cbr secs; do
	t=$(awk -v s="$sc" -v f="$f" '$1 == s && $2 == f { print $3 }' "$dir/factors")
	[ "$sc" = twospeed ] || [ "$f" = 1 ] && t=1
	echo "$tag $sc $f $b $(judged "$verdict" "$cb" "$other" "$t" "$b") $secs $t $cbr"
done < "$dir/raw" > "$dir/all"

for tag in $tags; do
	eval "pg=\$pg_$tag"
	[ "$tags" = after ] || echo "bench-verdict: $tag: $pg" >&2
done
# One line a scenario and checkout: before and after side by side.
printf '%-9s %-6s %6s %6s %6s %6s %9s %8s %8s %10s %6s\n' scenario gate gates claims misses undec "caught" "med s" "p95 s" "pressure" load >&2
for sc in $scenarios; do
for tag in $tags; do
	grep "^$tag $sc " "$dir/all" > "$dir/answers"
	awk '{ print $6 }' "$dir/answers" > "$dir/secs"
	pressure=$(awk -v s="$sc" '$1 == s { print $2 }' "$dir/seen")
	load=$(awk -v s="$sc" '$1 == s { print $3 }' "$dir/seen")
	gates=$(grep -c . "$dir/answers")
	claims=$(grep -c ' claim ' "$dir/answers")
	misses=$(grep -c ' miss ' "$dir/answers")
	undecided=$(grep -c ' undecided ' "$dir/answers")
	errors=$(grep -c ' error ' "$dir/answers")
	beyond=$(awk '$7 > 1 + $4' "$dir/answers" | grep -c .)
	caught=$(grep -c ' caught ' "$dir/answers")
	med=$(pct "$dir/secs" 50) p95=$(pct "$dir/secs" 95)
	printf '%-9s %-6s %6s %6s %6s %6s %9s %8s %8s %9s%% %6s\n' "$sc" "$tag" "$gates" "$claims" "$misses" "$undecided" "$caught/$beyond" \
	    "$med" "$p95" "$pressure" "$load" >&2
	printf '{"checkout":"%s","scenario":"%s","gates":%s,"false_claims":%s,"misses":%s,"undecided":%s,"errors":%s,"caught":%s,"beyond_budget":%s,"median_s":%s,"p95_s":%s,"pressure":%s,"load":%s,"n":%s}\n' \
	    "$tag" "$sc" "$gates" "$claims" "$misses" "$undecided" "$errors" "$caught" "$beyond" "$med" "$p95" "$pressure" "$load" "$n"
done
done
# The rounds a claim took: in the gates that caught a slowdown, the look
# count_below was decided at (a rule that decides at a look), else its
# rounds, per change, over every scenario but twospeed.
printf '%-8s %-6s %7s %6s %6s %6s\n' change gate caught "min" "median" "max" >&2
for f in $changes; do
	[ "$f" = 1 ] && continue
	for tag in $tags; do
		awk -v t="$tag" -v f="$f" '$1 == t && $3 == f && $5 == "caught" { print $8 }' "$dir/all" | sort -n > "$dir/rounds"
		c=$(grep -c . "$dir/rounds")
		printf '%-8s %-6s %7s %6s %6s %6s\n' "${f}x" "$tag" "$c" "$(pct "$dir/rounds" 0)" "$(pct "$dir/rounds" 50)" \
		    "$(pct "$dir/rounds" 100)" >&2
		printf '{"checkout":"%s","change":%s,"caught":%s,"rounds_median":"%s"}\n' "$tag" "$f" "$c" "$(pct "$dir/rounds" 50)"
	done
done
echo "bench-verdict: every gate's answer in $dir/all (checkout, scenario, change, budget, answer, seconds, true factor, count_below's rounds)" >&2
