#!/bin/sh
# noise.sh: make noise, an A/A study (see perfgate(7), "The noise of this
# machine").
#
#	noise.sh GATEDIR BINDIR GATES MARGIN
#
# GATES gates of HEAD's built benchmark against itself, each as a gate runs
# it (gate.sh measure: gaterun, with the settings' rounds, the rule, the
# budget), in GATEDIR/noise/N. noisesum(1) sums them up from their
# verdict records: the false alarms (regressed verdicts), the false claims
# either way, the undecided gates, each metric's
# worst drift and the smallest budget that would have held every gate with
# MARGIN times that drift. Its record goes to stdout, kept in
# GATEDIR/noise/noise.jsonl; its line on stderr is for a person.

dir=$1 bin=$2 gates=$3 margin=$4
sh=$(dirname "$0")/gate.sh

# The value of key $2 in the key file $1.
id_get() {
	sed -n "s/^$2 //p" "$1" 2>/dev/null
}

# Say why the study cannot be decided, record it as gate.sh does, and exit 2.
fail() {
	sh "$sh" fail "$dir" head noise "$1"
	exit 2
}

nd=$dir/noise
# A count or a margin that cannot be used is said before any gate runs.
case $gates in
''|*[!0-9]*|0|0*) fail "NOISE_GATES=$gates: not a number of gates" ;;
esac
"$bin/noisesum" -q -m "$margin" || fail "NOISE_MARGIN=$margin: not a margin"
rm -rf "$nd"
mkdir -p "$nd" || exit 2
echo "noise: $gates gates of head, $(cat "$dir/head.value") ($(id_get "$dir/head.id" source)), against itself, judged by $(id_get "$dir/judge.id" budget)" >&2
errors=0 i=0
# The positional parameters collect the gates' verdict files, in order.
set --
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
	sh "$sh" measure "$g" "$bin" > "$g/out" 2> "$g/log"
	# The verdict's status, as gaterun -v says it.
	"$bin/gaterun" -v -- "$g" > /dev/null 2>&1
	case $? in
	0) v=ok ;;
	1) v="regressed (a false alarm)" ;;
	*) # The summary, last, begins with its verdict (cmpbudget(1)).
	   if tail -n 1 "$g/verdict.jsonl" 2>/dev/null | grep -q '^{"verdict":"undecided"'; then
		v="undecided, log in $g/log"
	   else
		v="error, log in $g/log"; errors=$((errors + 1))
	   fi ;;
	esac
	echo "noise: gate $i of $gates: $v" >&2
	set -- "$@" "$g/verdict.jsonl"
done
[ "$errors" = 0 ] || fail "$errors of $gates gates could not be decided; logs in $nd"
# noisesum's 1 is the study's answer (a false alarm at this budget), in
# its record; only 2 fails the study.
"$bin/noisesum" -m "$margin" "$@" > "$nd/noise.jsonl.tmp"
[ $? -le 1 ] || fail "noisesum could not sum up the gates in $nd"
mv -f "$nd/noise.jsonl.tmp" "$nd/noise.jsonl" && cat "$nd/noise.jsonl" || exit 2
