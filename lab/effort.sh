#!/bin/sh
# effort.sh [N [REPS:MIN_S ...]]: what bench.h's effort is worth, measured
# side by side in one run: for each setting (BENCH_REPS batches of at least
# BENCH_MIN_S seconds; default 4:0.003 4:0.001 8:0.0005), N times (default
# 5), fresh gates of the kata against itself (three) and against the two
# least slow planted slowdowns (s03 and s08, about 2x), the settings taking
# turns. Prints, for each setting, the wrong verdicts, the median seconds
# per gate, and each metric's worst and mean drift over the gates against
# itself: |head / base - 1| of the minima the verdict compares.
cd "$(dirname "$0")/.." || exit 2
n=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 4:0.003 4:0.001 8:0.0005
dir=build/effort
unset MAKEFLAGS MFLAGS MAKELEVEL BASE HEAD GATEDIR BENCH_REPS BENCH_MIN_S
rm -rf "$dir" && mkdir -p "$dir/src" "$dir/g" || exit 2
make -s all >/dev/null || exit 2
for s in s03-matmul-twice s08-rmsnorm-twice; do
	patch -s -o "$dir/src/$s.c" kata/kernels.c < "kata/slowdowns/$s.patch" || exit 2
done

i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	for s; do
		for c in self1 self2 self3 s03-matmul-twice s08-rmsnorm-twice; do
			h=kata/kernels.c want=0
			case $c in
			s*-*) h=$dir/src/$c.c want=1 ;;
			esac
			# A colon is make's: the directory is named with an x.
			g=$dir/g/$(echo "$s" | tr : x).$c.$i
			start=$(date +%s.%N)
			BENCH_REPS=${s%:*} BENCH_MIN_S=${s#*:} bin/perfgate BASE=kata/kernels.c HEAD="$h" GATEDIR="$g" \
			    > "$g.out" 2> "$g.err"
			status=$?
			end=$(date +%s.%N)
			echo "$s $c $status $want $start $end" >> "$dir/log"
			case $c in
			self*) jq -r --arg s "$s" 'select(.metric) | "\($s) \(.metric) \(.delta)"' "$g/verdict.jsonl" >> "$dir/drift" ;;
			esac
		done
	done
done
echo "effort.sh: $n rounds of 5 gates a setting; load average $(cut -d ' ' -f 1 /proc/loadavg) at the end"
for s; do
	awk -v s="$s" '$1 == s { n++; if ($3 != $4) w++; print $6 - $5 > "/dev/stderr" }
	    END { printf "BENCH_REPS=%s BENCH_MIN_S=%s: %d of %d verdicts wrong", substr(s, 1, index(s, ":") - 1),
	        substr(s, index(s, ":") + 1), w, n }' "$dir/log" 2> "$dir/seconds"
	sort -n "$dir/seconds" | awk '{ v[NR] = $1 } END { printf ", median %.2f s a gate\n", v[int((NR + 1) / 2)] }'
	awk -v s="$s" '$1 == s { d = $3 < 0 ? -$3 : $3; if (d > w[$2]) w[$2] = d; t[$2] += d; k[$2]++ }
	    END { for (m in w) printf "  %-16s worst %5.1f %%  mean %4.1f %%\n", m, w[m] * 100, t[m] / k[m] * 100 }' \
	    "$dir/drift" | sort
done
