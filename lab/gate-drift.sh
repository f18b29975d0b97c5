#!/bin/sh
# gate-drift.sh [N]: N fresh gates of the kata against itself (default 10),
# then, per metric, the median head/base ratio and the worst one either way:
# how far an unchanged kernel drifts from one side to the other. Also the
# wall time of each gate, builds included.
cd "$(dirname "$0")/.." || exit 2
n=${1:-10}
dir=build/drift
rm -rf "$dir" && mkdir -p "$dir" || exit 2
make -s all >/dev/null || exit 2
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	start=$(date +%s.%N)
	make -s gate GATEDIR="$dir/g$i" >"$dir/g$i.out" 2>"$dir/g$i.err"
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.2f\n", $2 - $1 }' >> "$dir/seconds"
	grep '"metric"' "$dir/g$i.out" >> "$dir/verdicts.jsonl"
done
echo "gate-drift: $n gates of the kata against itself"
jq -rs 'group_by(.metric)[]
  | (map(.head / .base | if . < 1 then 1 / . else . end) | max) as $worst
  | (map(.head / .base) | sort | .[length / 2 | floor]) as $median
  | "  \(.[0].metric)\tmedian \($median * 1000 | round / 1000)\tworst \($worst * 1000 | round / 1000)x"' \
    "$dir/verdicts.jsonl"
sort -n "$dir/seconds" | awk '{ s[NR] = $1 } END { printf "  gate wall time: min %.2f s, median %.2f s, max %.2f s\n", s[1], s[int((NR + 1) / 2)], s[NR] }'
