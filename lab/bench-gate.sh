#!/bin/sh
# bench-gate.sh [N]: make bench-gate. How long one gate takes, perfgate's
# (`perfgate`, a fresh GATEDIR each time, so both builds are in it) against
# a naive gate's (lab/naive-gate.mk: the seed's method alone, min of 3
# alternating runs, a few lines of make), on the kata against itself and
# against two planted slowdowns (s08 rmsnorm done twice, about 2x; s09 a
# linear search, about 460x). The two gates take turns on each case, N
# times each (default 5), so that the machine's drift hits both alike.
# Prints on stderr a table of median seconds per gate and their ratio, and
# how many verdicts were wrong; on stdout one record, the medians over all
# cases. Exit 2 when perfgate gives a wrong or no answer (a naive gate's
# wrong answer is counted: it is what the naive method does). Each turn
# also runs two perfgate gates at once (pair), each timed against
# perfgate's time alone on the case: on two free cores each should have a
# CPU of its own (GATE_CPU=auto, issue 35).
cd "$(dirname "$0")/.." || exit 2
n=${1:-5}
dir=build/bench-gate
unset MAKEFLAGS MFLAGS MAKELEVEL BASE HEAD GATEDIR
rm -rf "$dir" && mkdir -p "$dir/src" || exit 2
make -s all >/dev/null || exit 2
for s in s08-rmsnorm-twice s09-linear-search; do
	patch -s -o "$dir/src/$s.c" kata/kernels.c < "kata/slowdowns/$s.patch" || exit 2
done

now() {
	date +%s.%N
}

# gate KIND CASE HEAD I: one gate, its seconds appended to DIR/KIND.CASE,
# its exit status checked against the case's answer.
gate() {
	kind=$1 case=$2 head=$3 i=$4
	want=1
	[ "$case" = self ] && want=0
	start=$(now)
	if [ "$kind" = perfgate ]; then
		bin/perfgate BASE=kata/kernels.c HEAD="$head" GATEDIR="$dir/g/$case.$i" > "$dir/last.out" 2> "$dir/last.err"
	else
		make -s -j2 -f lab/naive-gate.mk BASE=kata/kernels.c HEAD="$head" NAIVE="$dir/n/$case.$i" \
		    > "$dir/last.out" 2> "$dir/last.err"
	fi
	status=$?
	end=$(now)
	# make turns the naive gate's 1 into 2.
	[ "$kind" = naive ] && [ $status = 2 ] && grep -q '^regressed ' "$dir/last.out" && status=1
	# perfgate's undecided (2, its summary says so) is an honest answer on
	# a busy machine: counted apart, not wrong.
	if [ "$kind" = perfgate ] && [ $status = 2 ] && tail -n 1 "$dir/last.out" | grep -q '^{"verdict":"undecided"'; then
		echo x >> "$dir/$kind.undecided"
		echo "bench-gate: perfgate on $case: undecided" >&2
	# A wrong answer is counted, and shown; perfgate's ends the run.
	elif [ $status != $want ]; then
		echo "bench-gate: $kind on $case gave $status, not $want" >&2
		echo x >> "$dir/$kind.wrong"
		if [ "$kind" = perfgate ]; then
			cp "$dir/last.err" "$dir/wrong.err"
			echo "bench-gate: see $dir/wrong.err" >&2
			exit 2
		fi
	fi
	echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >> "$dir/$kind.$case"
	tail -n 1 "$dir/$kind.$case" >> "$dir/$kind.all"
}

# pair CASE HEAD I: two perfgate gates started together, in GATEDIRs of
# their own, each one's seconds appended to DIR/pair.CASE and its answer
# checked as gate's; DIR/pair.shared counts the verdicts whose machine line
# says their CPU was shared with another gate.
pair() {
	case=$1 head=$2 i=$3
	want=1
	[ "$case" = self ] && want=0
	for k in a b; do
		(
			start=$(now)
			bin/perfgate BASE=kata/kernels.c HEAD="$head" GATEDIR="$dir/p/$case.$i.$k" \
			    > "$dir/pair.$k.out" 2> "$dir/pair.$k.err"
			echo "$? $start $(now)" > "$dir/pair.$k.res"
		) &
	done
	wait
	for k in a b; do
		read -r status start end < "$dir/pair.$k.res"
		if [ "$status" = 2 ] && tail -n 1 "$dir/pair.$k.out" | grep -q '^{"verdict":"undecided"'; then
			echo x >> "$dir/pair.undecided"
			echo "bench-gate: two at once on $case: undecided" >&2
		elif [ "$status" != $want ]; then
			echo "bench-gate: two at once on $case gave $status, not $want" >&2
			cp "$dir/pair.$k.err" "$dir/wrong.err"
			echo "bench-gate: see $dir/wrong.err" >&2
			exit 2
		fi
		grep -q '^machine: .*shared with' "$dir/pair.$k.err" && echo x >> "$dir/pair.shared"
		echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >> "$dir/pair.$case"
		tail -n 1 "$dir/pair.$case" >> "$dir/pair.all"
	done
}

# pair_table: each case's median seconds of a gate alone and of one of two
# at once, and their ratio; then how many of the pair's verdicts shared a CPU.
pair_table() {
	printf '%-20s %12s %12s %7s\n' case "alone s" "2 at once s" ratio >&2
	for c in self s08-rmsnorm-twice s09-linear-search all; do
		p=$(median "$dir/perfgate.$c") q=$(median "$dir/pair.$c")
		printf '%-20s %12s %12s %7s\n' "$c" "$p" "$q" "$(awk -v p="$p" -v q="$q" 'BEGIN { printf "%.2f", q / p }')" >&2
	done
	echo "bench-gate: two gates at once, $((n * 3)) pairs: $(cat "$dir/pair.shared" 2>/dev/null | wc -l) of $((n * 6)) verdicts shared a CPU, $(cat "$dir/pair.undecided" 2>/dev/null | wc -l) undecided" >&2
}

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load=$(cut -d ' ' -f 1 /proc/loadavg)
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	for c in self s08-rmsnorm-twice s09-linear-search; do
		h=kata/kernels.c
		[ $c = self ] || h=$dir/src/$c.c
		# Each takes the first turn every other time.
		if [ $((i % 2)) = 1 ]; then
			gate perfgate $c "$h" $i; gate naive $c "$h" $i
		else
			gate naive $c "$h" $i; gate perfgate $c "$h" $i
		fi
		pair $c "$h" $i
	done
done
load2=$(cut -d ' ' -f 1 /proc/loadavg)
printf '%-20s %12s %12s %7s\n' case "perfgate s" "naive s" ratio >&2
for c in self s08-rmsnorm-twice s09-linear-search all; do
	p=$(median "$dir/perfgate.$c") q=$(median "$dir/naive.$c")
	printf '%-20s %12s %12s %7s\n' "$c" "$p" "$q" "$(awk -v p="$p" -v q="$q" 'BEGIN { printf "%.2f", p / q }')" >&2
done
echo "bench-gate: $n gates of each kind on each case; wrong verdicts: perfgate $(cat "$dir/perfgate.wrong" 2>/dev/null | wc -l), naive $(cat "$dir/naive.wrong" 2>/dev/null | wc -l); perfgate undecided $(cat "$dir/perfgate.undecided" 2>/dev/null | wc -l); load average $load before, $load2 after" >&2
pair_table
p=$(median "$dir/perfgate.all") q=$(median "$dir/naive.all") t=$(median "$dir/pair.all")
printf '{"perfgate_s":%s,"naive_s":%s,"ratio":%s,"gates":%d,"load":%s,"pair_s":%s,"pair_ratio":%s}\n' "$p" "$q" \
    "$(awk -v p="$p" -v q="$q" 'BEGIN { printf "%.3f", p / q }')" "$((n * 3))" "$load" "$t" \
    "$(awk -v p="$p" -v t="$t" 'BEGIN { printf "%.3f", t / p }')"
