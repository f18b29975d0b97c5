#!/bin/sh
# grade.sh: make grade, the proof that the gate works. It gates the kata
# against itself twice (both must pass), then each planted slowdown of
# kata/slowdowns/ as HEAD against the kata as BASE (each must come out
# regressed). The table goes to standard error; the last line of standard
# output is the record
#	{"caught":10,"of":10,"required_caught":4,"self_passed":2}
# Exit 0 when both self gates pass, every required slowdown is caught and
# at least 9 in 10 of all are; 1 when not; 2 when it cannot decide (a patch
# that does not apply, a gate that ends in an error).
#
# A slowdown is a patch sNN-name.patch against kata/kernels.c whose first
# line describes it; a description that ends in "(required)" marks one
# that must be caught. GRADE_SLOWDOWNS names another directory of them.
#
# Patches are applied to copies under GRADEDIR (default build/grade), which
# is emptied first, so that every gate measures afresh: a cached self gate
# would prove nothing. The tree is never touched. Gate variables in the
# environment (RUNS, BUDGET, CC, GATE_TIMEOUT, ...) apply to every gate;
# make's own state (MAKEFLAGS) does not, so `make -j2 grade` gates the same.

top=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$top" || exit 2
unset MAKEFLAGS MFLAGS MAKELEVEL BASE HEAD GATEDIR
dir=${GRADEDIR:-build/grade}
slowdowns=${GRADE_SLOWDOWNS:-kata/slowdowns}
perfgate=$top/bin/perfgate

die() {
	echo "grade: $*" >&2
	exit 2
}

[ -x "$perfgate" ] || die "no $perfgate"
patches=$(ls "$slowdowns"/s[0-9][0-9]-*.patch 2>/dev/null) || die "$slowdowns: no sNN-name.patch files"

rm -rf "$dir" || die "cannot empty $dir"
mkdir -p "$dir/src" || die "cannot make $dir"

# Every patch is applied first, so that one that does not apply ends the
# grade before a minute is spent measuring.
for p in $patches; do
	name=$(basename "$p" .patch)
	case $(head -n 1 "$p") in
	''|---*|diff*|@@*) die "$p:1: no one-line description before the diff" ;;
	esac
	mkdir -p "$dir/src/$name"
	patch -s -N -r - --no-backup-if-mismatch -o "$dir/src/$name/kernels.c" kata/kernels.c \
	    < "$p" > "$dir/src/$name/patch.log" 2>&1 ||
		die "$p: does not apply to kata/kernels.c: $(grep . "$dir/src/$name/patch.log" | tail -n 1)"
	! cmp -s kata/kernels.c "$dir/src/$name/kernels.c" || die "$p: changes nothing"
done

# gate NAME HEAD: gate HEAD against the kata in GRADEDIR/NAME. Sets
# verdict (ok, regressed or error) and worst (the largest Δ and its metric,
# or the error's message).
gate() {
	g=$dir/$1
	"$perfgate" BASE=kata/kernels.c HEAD="$2" GATEDIR="$g" > "$dir/$1.out" 2> "$dir/$1.log"
	status=$?
	last=$(tail -n 1 "$dir/$1.out")
	case $status:$last in
	0:'{"verdict":"ok"'*) verdict=ok ;;
	1:'{"verdict":"regressed"'*) verdict=regressed ;;
	*) verdict=error ;;
	esac
	if [ $verdict = error ]; then
		worst=$(printf '%s\n' "$last" | jq -r '.error // empty' 2>/dev/null)
		[ -n "$worst" ] || worst="perfgate exited $status; log in $dir/$1.log"
	else
		worst=$(jq -r 'select(.metric) | [.delta, .metric] | @tsv' "$dir/$1.out" |
		    sort -g -r | head -n 1 |
		    awk -F '\t' '{ printf "%+.1f %% %s", $1 * 100, $2 }')
	fi
	# What the explanation puts on top (the function whose instructions
	# changed most), for a regression: the kernel the patch changed.
	top=
	if [ $verdict = regressed ] && [ -f "$g/explain.jsonl" ]; then
		top=$(jq -r 'select(.kind == "summary" and .top) | .top' "$g/explain.jsonl" | head -n 1)
	fi
}

row() {
	printf '%-28s %-52s %-26s %-18s %s\n' "$1" "$2" "$3" "$4" "$5" >&2
}

start=$(date +%s)
undecided=0
row slowdown description "worst Δ" "top function" verdict
self_passed=0
for i in 1 2; do
	gate "self$i" kata/kernels.c
	case $verdict in
	ok) self_passed=$((self_passed + 1)); v=passed ;;
	regressed) v="FAILED (a false regression)" ;;
	*) undecided=1; v="error: $worst" worst= ;;
	esac
	row "kata (self $i)" "the kata against itself" "$worst" "" "$v"
done

caught=0 of=0 required=0 required_caught=0
for p in $patches; do
	name=$(basename "$p" .patch)
	desc=$(head -n 1 "$p")
	gate "$name" "$dir/src/$name/kernels.c"
	of=$((of + 1))
	case $desc in
	*'(required)') required=$((required + 1)); req=1 ;;
	*) req=0 ;;
	esac
	case $verdict in
	regressed)
		caught=$((caught + 1)) v=caught
		required_caught=$((required_caught + req)) ;;
	ok) v="MISSED" ;;
	*) undecided=1; v="error: $worst" worst= ;;
	esac
	row "$name" "$desc" "$worst" "$top" "$v"
done

echo "grade: $caught of $of slowdowns caught, $required_caught of $required required, $self_passed of 2 self gates passed, in $(($(date +%s) - start)) s; logs in $dir" >&2
printf '{"caught":%d,"of":%d,"required_caught":%d,"self_passed":%d}\n' \
    "$caught" "$of" "$required_caught" "$self_passed"
[ $undecided = 0 ] || exit 2
[ $self_passed = 2 ] && [ $required_caught = $required ] && [ $((caught * 10)) -ge $((of * 9)) ] || exit 1
exit 0
