#!/bin/sh
# gate-levers.sh [N]: what each of the gate's speed levers is worth,
# measured side by side in one run: N fresh gates (default 3) of the kata
# against itself and against s08 (rmsnorm done twice) under each setting,
# the settings taking turns. Settings: all levers; without the object
# store (a GATE_OBJECTS of its own for each gate); without the shared,
# incremental driver build (the one-shot build of before); without the
# sequential rule (GATE_NOISE=off); with the old effort (4 batches of 3 ms);
# and none of them; and the same gate again with nothing changed (cached),
# with and without the incremental build. Prints the median seconds per
# gate of each, and each one's ratio to all levers' fresh gate.
cd "$(dirname "$0")/.." || exit 2
n=${1:-3}
dir=build/gate-levers
unset MAKEFLAGS MFLAGS MAKELEVEL BASE HEAD GATEDIR GATE_NOISE BENCH_REPS BENCH_MIN_S
rm -rf "$dir" && mkdir -p "$dir" || exit 2
make -s all >/dev/null || exit 2
patch -s -o "$dir/s08.c" kata/kernels.c < kata/slowdowns/s08-rmsnorm-twice.patch || exit 2
oneshot='$(GATE_CC) $(GATE_CFLAGS) $(GATE_INCLUDES) -o $(GATE_SIDE)/bench $(abspath $(GATE_BENCH_SRC)) $(GATE_SIDE)/$(GATE_FILE) $(GATE_LDLIBS)'

# run SETTING CASE HEAD I: one fresh gate, its seconds appended to DIR/SETTING.
run() {
	set -- "$1" "$2" "$3" "$4" BASE=kata/kernels.c HEAD="$3" GATEDIR="$dir/g/$1.$2.$4"
	case $1 in
	all) ;;
	oneshot) set -- "$@" GATE_BUILD="$oneshot" GATE_HEADERS="bench/bench.h kata/kernels.h" ;;
	nostore) set -- "$@" GATE_OBJECTS="$dir/o/$1.$2.$4" ;;
	nonoise) set -- "$@" GATE_NOISE=off ;;
	effort) export BENCH_REPS=4 BENCH_MIN_S=0.003 ;;
	none) set -- "$@" GATE_BUILD="$oneshot" GATE_HEADERS="bench/bench.h kata/kernels.h" GATE_NOISE=off
	      export BENCH_REPS=4 BENCH_MIN_S=0.003 ;;
	esac
	s=$1 c=$2
	shift 4
	start=$(date +%s.%N)
	bin/perfgate "$@" > "$dir/out" 2> "$dir/err"
	status=$?
	end=$(date +%s.%N)
	unset BENCH_REPS BENCH_MIN_S
	want=1
	[ "$c" = self ] && want=0
	[ $status = $want ] || { echo "gate-levers: $s on $c gave $status; see $dir/err" >&2; exit 2; }
	echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >> "$dir/$s"
	# The same gate again, nothing changed: the cached path.
	case $s in
	all|oneshot)
		start=$(date +%s.%N)
		bin/perfgate "$@" > "$dir/out" 2> "$dir/err"
		[ $? = $want ] || { echo "gate-levers: $s on $c, cached, gave another answer" >&2; exit 2; }
		end=$(date +%s.%N)
		echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >> "$dir/$s.cached" ;;
	esac
}

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load=$(cut -d ' ' -f 1 /proc/loadavg)
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	for s in all nostore oneshot nonoise effort none; do
		run $s self kata/kernels.c $i
		run $s s08 "$dir/s08.c" $i
	done
done
a=$(median "$dir/all")
printf '%-34s %10s %8s\n' setting "s a gate" "x all" >&2
for s in all nostore oneshot nonoise effort none; do
	m=$(median "$dir/$s")
	case $s in
	all) d="all levers" ;;
	nostore) d="no object store (GATE_OBJECTS)" ;;
	oneshot) d="one-shot build (no shared driver)" ;;
	nonoise) d="every round (GATE_NOISE=off)" ;;
	effort) d="4 batches of 3 ms (the old effort)" ;;
	none) d="none of them" ;;
	esac
	printf '%-34s %10s %8s\n' "$d" "$m" "$(awk -v m="$m" -v a="$a" 'BEGIN { printf "%.2f", m / a }')" >&2
done
c=$(median "$dir/all.cached") o=$(median "$dir/oneshot.cached")
printf '%-34s %10s %8s\n' "all levers, cached" "$c" "$(awk -v m="$c" -v a="$a" 'BEGIN { printf "%.2f", m / a }')" >&2
printf '%-34s %10s %8s\n' "one-shot build, cached" "$o" "$(awk -v m="$o" -v a="$a" 'BEGIN { printf "%.2f", m / a }')" >&2
echo "gate-levers: $((n * 2)) fresh gates a setting (kata against itself and s08); load average $load before, $(cut -d ' ' -f 1 /proc/loadavg) after" >&2
