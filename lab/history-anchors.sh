#!/bin/sh
# history-anchors.sh [N]: perfgate history check against the anchors that
# judge stored absolute numbers, side by side on one generated history of
# the kata (tests/history-fixture.sh): N commits (default 30), of which
# five each slow rmsnorm by about 3 % (each ok in its own gate at the 20 %
# budget), one runs sum twice, the rest change nothing. The first half is
# recorded as machine "a" on a quiet CPU, the second as machine "b" with a
# CPU neighbour on the gate's CPU (a runner swap, as CI does it). Then:
#   check      perfgate history check, creep budget 10 %, confirmed answer
#   threshold  git-perf's and Bencher's method: a commit's stored absolute
#              number (the gate's head median) above the mean of the last
#              five stored ones by more than 10 %
#   changept   a change point on stored numbers (Otava's and MongoDB's
#              kind, here binary segmentation on the mean, |t| > 5)
# and for each, its alerts, false ones and missed ones against the truth
# planted. Needs jq. Takes N gates (minutes on a shared machine).
# HISTORY_CREEP_DIV sets the creep step (default 12: about 3 %; 6: 6 %).
# HISTORY_AA=1 plants nothing: every commit unchanged, so every alert is
# false (and "missed" says only that there was nothing to find).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-30}
dir=$top/build/lab/history
repo=$dir/kata
rm -rf "$dir" && mkdir -p "$dir" || exit 2
(cd "$top" && make -s all) || exit 2
PATH=$top/bin:$PATH
export GIT_AUTHOR_NAME=lab GIT_AUTHOR_EMAIL=lab@example.org GIT_COMMITTER_NAME=lab GIT_COMMITTER_EMAIL=lab@example.org
# The plan: creeps at 4, 9, 14, 19, 24 (of 30), sum twice at 27.
plan=
i=1
while [ $i -le "$n" ]; do
	case ${HISTORY_AA:-0}:$i in
	1:*) plan="$plan same" ;;
	*:4|*:9|*:14|*:19|*:24) plan="$plan creep" ;;
	*:27) plan="$plan sum2x" ;;
	*) plan="$plan same" ;;
	esac
	i=$((i + 1))
done
sh "$top/tests/history-fixture.sh" "$repo" "$plan" || exit 2
cd "$repo" || exit 2
half=$((n / 2))
start=$(date +%s)
PERFGATE_MACHINE=a perfgate history record "HEAD~$n..HEAD~$half" > "$dir/record-a.jsonl" 2> "$dir/record-a.err"
# The other machine: a neighbour on the CPU the gate pins itself to.
cpu=$(($(getconf _NPROCESSORS_ONLN) - 1))
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
PERFGATE_MACHINE=b perfgate history record "HEAD~$half..HEAD" > "$dir/record-b.jsonl" 2> "$dir/record-b.err"
kill "$hog"
rec_s=$(($(date +%s) - start))
start=$(date +%s)
perfgate history check "HEAD~$n..HEAD" > "$dir/check.jsonl" 2> "$dir/check.err"
check_st=$?
check_s=$(($(date +%s) - start))
perfgate history report -c "$dir/check.jsonl" -o "$dir/report" "HEAD~$n..HEAD" 2> /dev/null
# The truth, as commits: rmsnorm's creep stretch and sum's step.
git log --first-parent --reverse --format='%H %s' "HEAD~$n..HEAD" > "$dir/commits"
# Stored absolute numbers, one metric a column: commit rmsnorm sum machine.
git log --first-parent --reverse -z --notes=perfgate --format=%N "HEAD~$n..HEAD" | tr '\0' '\n' |
    jq -r 'select(.perfgate_history == 1) | [.commit, (.metrics[] | select(.metric == "rmsnorm_ns") | .head),
    (.metrics[] | select(.metric == "sum_ns") | .head), .machine, (.metrics[] | select(.metric == "rmsnorm_ns") | .ratio)] | @tsv' \
    > "$dir/absolute.tsv"
# threshold: above the mean of the last five stored numbers by 10 %.
threshold() {
	awk -F '\t' -v col="$1" '{ v[NR] = $col; c[NR] = $1
	    if (NR > 5) { m = 0; for (k = NR - 5; k < NR; k++) m += v[k]; m /= 5
	        if (v[NR] > m * 1.10) print c[NR] } }' "$dir/absolute.tsv"
}
# changept: binary segmentation, a split where the means differ by |t| > 5.
changept() {
	awk -F '\t' -v col="$1" '{ v[NR] = $col; c[NR] = $1 }
	function seg(a, b,   i, k, best, bk, m1, m2, s, t, n1, n2) {
	    best = 0
	    for (k = a + 2; k <= b - 2; k++) {
	        m1 = 0; m2 = 0; for (i = a; i < k; i++) m1 += v[i]; for (i = k; i <= b; i++) m2 += v[i]
	        n1 = k - a; n2 = b - k + 1; m1 /= n1; m2 /= n2; s = 0
	        for (i = a; i < k; i++) s += (v[i] - m1) ^ 2; for (i = k; i <= b; i++) s += (v[i] - m2) ^ 2
	        s = sqrt(s / (n1 + n2 - 2) * (1 / n1 + 1 / n2)); t = s > 0 ? (m2 - m1) / s : 0
	        if (t > best) { best = t; bk = k } }
	    if (best > 5) { print c[bk]; seg(a, bk - 1); seg(bk, b) } }
	END { seg(1, NR) }' "$dir/absolute.tsv"
}
creeps=$(awk 'NR == 4 || NR == 9 || NR == 14 || NR == 19 || NR == 24 { print $1 }' "$dir/commits")
sum=$(awk 'NR == 27 { print $1 }' "$dir/commits")
# score NAME METRIC TRUTH ALERTS: an alert is true when it is a commit of the truth.
score() {
	t=0 f=0
	# The truth as one line of words: the commits come one a line.
	truth=$(printf '%s\n' "$3" | tr '\n' ' ')
	for a in $4; do
		case " $truth " in *" $a "*) t=$((t + 1)) ;; *) f=$((f + 1)) ;; esac
	done
	miss=$([ "$t" -gt 0 ] && echo 0 || echo 1)
	printf '  %-10s %-11s %2d alerts: %2d false, missed %s\n' "$1" "$2" $((t + f)) "$f" \
	    "$([ "$miss" = 0 ] && echo no || echo yes)"
}
[ "${HISTORY_AA:-0}" = 1 ] && echo "history-anchors: A/A, nothing planted: every alert below is false"
echo "history-anchors: $n commits (creeps of rmsnorm, 1/${HISTORY_CREEP_DIV:-12} of its input each, at 4 9 14 19 24, sum 2x at 27), half on machine a, half on b (a CPU neighbour)"
echo "  record: $rec_s s for $n gates; check: $check_s s, exit $check_st"
score threshold rmsnorm_ns "$creeps" "$(threshold 2)"
score threshold sum_ns "$sum" "$(threshold 3)"
score changept rmsnorm_ns "$creeps" "$(changept 2)"
score changept sum_ns "$sum" "$(changept 3)"
ck_r=$(jq -r 'select(.history == "creep" and .metric == "rmsnorm_ns" and .status == "confirmed") | .top[].commit' "$dir/check.jsonl")
ck_rf=$(jq -r 'select(.history == "creep" and .metric != "rmsnorm_ns" and .status == "confirmed") | .top[].commit' "$dir/check.jsonl")
ck_s=$(jq -r 'select(.history == "regression" and .metric == "sum_ns") | .commit' "$dir/check.jsonl")
score check rmsnorm_ns "$creeps" "$ck_r $ck_rf"
score check sum_ns "$sum" "$ck_s"
jq -r 'select(.history == "creep") | "  check: \(.metric) creep \(.status): \(.commits) commits, chained \(.chained), the gate of the ends \(.confirm.ratio) \(.confirm.interval)"' "$dir/check.jsonl"
# The machines: the absolute numbers of unchanged commits, and the ratios, per half.
awk -F '\t' '{ n[$4]++; a[$4] += $2; r[$4] += log($5) } END { for (m in n) printf "  machine %s: %d records, rmsnorm mean absolute %.0f ns, mean log ratio %+.4f\n", m, n[m], a[m] / n[m], r[m] / n[m] }' "$dir/absolute.tsv"
echo "  report: $dir/report/index.html"
