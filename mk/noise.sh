#!/bin/sh
# noise.sh: make noise, an A/A study (see perfgate(7), "The noise of this
# machine").
#
#	noise.sh GATEDIR BINDIR GATES MARGIN
#
# GATES gates of HEAD's built benchmark against itself, each as a gate runs
# it (gate.sh measure and judge: the settings' rounds, the confirmation,
# the budget), in GATEDIR/noise/N. Counts the false alarms (regressed
# verdicts), takes each metric's worst drift (the largest delta, head's
# minimum over base's, as minjson selects it from cmpbudget's records) and
# the smallest budget that would have held every gate with MARGIN times
# that drift, rounded up to a whole percent. The record on stdout is put
# together from the tools' numbers, copied byte for byte; the line on
# stderr is for a person.

dir=$1 bin=$2 gates=$3 margin=$4
sh=$(dirname "$0")/gate.sh

# The value of key $2 in the key file $1.
id_get() {
	sed -n "s/^$2 //p" "$1" 2>/dev/null
}

# The number of member NAME of a tool's record RECORD (inside a JSON
# string every quote is escaped, so this matches a member only).
member() {
	printf '%s\n' "$2" | sed -n 's/^.*[{,]"'"$1"'":\(-\{0,1\}[0-9][0-9.eE+-]*\)[,}].*$/\1/p'
}

nd=$dir/noise
rm -rf "$nd"
mkdir -p "$nd" || exit 2
budget=$(id_get "$dir/judge.id" budget)
echo "noise: $gates gates of head, $(cat "$dir/head.value") ($(id_get "$dir/head.id" source)), against itself, judged by $budget" >&2
alarms=0 errors=0 i=0
while [ $i -lt "$gates" ]; do
	i=$((i + 1))
	g=$nd/$i
	mkdir -p "$g/base" "$g/head"
	cp "$dir/runs.id" "$dir/judge.id" "$g/"
	for s in base head; do
		cp "$dir/head.key" "$g/$s.key"
		cp "$dir/head/bench.cmd" "$g/$s/bench.cmd"
		cp "$dir/head.value" "$g/$s.value"
		cp "$dir/head.id" "$g/$s.id"
	done
	{ sh "$sh" measure "$g" "$bin" && sh "$sh" judge "$g" "$bin"; } > "$g/out" 2> "$g/log"
	case $(cat "$g/verdict.status" 2>/dev/null) in
	0) v=ok ;;
	1) v="regressed (a false alarm)"; alarms=$((alarms + 1)) ;;
	*) v="error, log in $g/log"; errors=$((errors + 1)) ;;
	esac
	echo "noise: gate $i of $gates: $v" >&2
	grep '^{"metric":"' "$g/verdict.jsonl" >> "$nd/verdicts.jsonl" 2>/dev/null
done
[ "$errors" = 0 ] || sh "$sh" fail "$dir" head noise "$errors of $gates gates could not be decided; logs in $nd"
"$bin/minjson" -k metric -s max -x rounds,confidence,floor "$nd/verdicts.jsonl" > "$nd/worst.jsonl" ||
	sh "$sh" fail "$dir" head noise "minjson failed on $nd/verdicts.jsonl"
drift= held= cur= line=
while IFS= read -r rec; do
	m=$(printf '%s\n' "$rec" | sed -n 's/^{"metric":"\([^"\\]*\)".*/\1/p')
	d=$(member delta "$rec")
	b=$(member budget "$rec")
	h=$(awk -v d="$d" -v m="$margin" 'BEGIN { x = d * m; if (x < 0.01) x = 0.01
		c = int(x * 100); if (c < x * 100) c++; printf "%.2f", c / 100 }')
	drift=$drift${drift:+,}"\"$m\":$d"
	held=$held${held:+,}"\"$m\":$h"
	cur=$cur${cur:+,}"\"$m\":$b"
	line=$line${line:+, }$(awk -v m="$m" -v d="$d" -v b="$b" -v h="$h" \
	    'BEGIN { printf "%s %+.1f %% (budget %g %%, %g %% would hold)", m, d * 100, b * 100, h * 100 }')
done < "$nd/worst.jsonl"
echo "noise: $alarms false alarms in $gates gates at $budget; worst drift: $line" >&2
printf '{"gates":%d,"false_alarms":%d,"budget":"%s","budget_sha256":"%s","margin":%s,"worst_drift":{%s},"budgets":{%s},"smallest_budget":{%s}}\n' \
    "$gates" "$alarms" "$(printf '%s' "$budget" | sed 's/\\/\\\\/g; s/"/\\"/g')" \
    "$(id_get "$dir/judge.id" budget_sha256)" "$margin" "$drift" "$cur" "$held"
