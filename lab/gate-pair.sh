#!/bin/sh
# gate-pair.sh BEFORE [HEADFILE [N]]: one perfgate gate of the kata
# against HEADFILE (default the kata itself) by the checkout BEFORE, then
# one by this checkout, N times (default 9), each in a fresh GATEDIR, so
# that the machine's drift hits both alike. Prints each gate's checkout,
# exit status and seconds, then per checkout the median seconds and the
# statuses, and the ratio of the medians (this / before): a side-by-side
# figure for a change to the gate's own cost.
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
[ -n "${1-}" ] || { echo "usage: gate-pair.sh before-checkout [headfile [n]]" >&2; exit 2; }
before=$(cd "$1" && pwd) || exit 2
head=$(cd "$(dirname "${2:-kata/kernels.c}")" && pwd)/$(basename "${2:-kata/kernels.c}")
n=${3:-9}
case $n in ''|*[!0-9]*|0) echo "gate-pair.sh: $n: not a number of gates" >&2; exit 2 ;; esac
[ -f "$head" ] || { echo "gate-pair.sh: $head: no such file" >&2; exit 2; }
unset MAKEFLAGS MFLAGS MAKELEVEL BASE HEAD GATEDIR
dir=$top/build/gate-pair
rm -rf "$dir" && mkdir -p "$dir" || exit 2
for t in "$before" "$top"; do
	make -s -C "$t" all > /dev/null || exit 2
done
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	for k in before this; do
		t=$top
		[ $k = before ] && t=$before
		s=$(date +%s.%N)
		(cd "$t" && bin/perfgate BASE=kata/kernels.c HEAD="$head" GATEDIR="$dir/$k.$i") > "$dir/$k.$i.out" 2> "$dir/$k.$i.err"
		rc=$?
		e=$(date +%s.%N)
		echo "$k $rc $(echo "$e - $s" | bc)" | tee -a "$dir/times"
	done
done
awk '{ s[$1] = s[$1] " " $3; r[$1] = r[$1] $2 }
END {
	for (k in s) {
		m = split(substr(s[k], 2), v, " ")
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		med[k] = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
		printf "%-6s median %.3f s, statuses %s\n", k, med[k], r[k]
	}
	printf "ratio this/before %.3f\n", med["this"] / med["before"]
}' "$dir/times"
