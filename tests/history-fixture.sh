#!/bin/sh
# history-fixture.sh DIR PLAN: a git repository of the kata in DIR (made
# anew), with one commit for each word of PLAN after the first commit:
#   creep  rmsnorm does a little more work (about 3 % of its time)
#   sum2x  sum runs twice
#   same   nothing the benchmark runs changes (a line of notes.txt)
# The kata's kernels are perfgate's own (kata/kernels.c), wrapped by
# kata/slow.c, whose kata/plant.h says how much more work each does: a
# commit changes plant.h only. The Makefile gates the repository's commits
# with mk/gate.mk of this checkout and budget.toml (gate budget 0.20,
# creep budget 0.10, as issue 34 asks). Used by tests/histnote.bats and
# lab/history-anchors.sh.
set -eu
dir=$1 plan=$2
top=$(cd "$(dirname "$0")/.." && pwd)
rm -rf -- "$dir"
mkdir -p -- "$dir/kata"
cp "$top/kata/kernels.c" "$top/kata/kernels.h" "$top/kata/bench.c" "$dir/kata/"
cd -- "$dir"
cat > kata/slow.c <<'C'
/*
 * The kata's kernels, with work added by plant.h: CREEP steps of a sum of
 * squares over 1/CREEP_DIV of rmsnorm's input each, SUM_REPS runs of sum.
 */
#include "plant.h"
#define kata_sum kata_sum_fast
#define kata_rmsnorm kata_rmsnorm_fast
#include "kernels.c"
#undef kata_sum
#undef kata_rmsnorm

static volatile float sink;

float
kata_sum(const float *x, int n)
{
	const float *volatile xp = x;
	float s = 0;
	int r;

	for (r = 0; r < SUM_REPS; r++)
		s += kata_sum_fast(xp, n);
	return s / SUM_REPS;
}

void
kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
	const float *volatile xp = x;
	int c;

	for (c = 0; c < CREEP; c++)
		sink = kata_sum_fast(xp, rows * d / CREEP_DIV);
	kata_rmsnorm_fast(x, w, y, rows, d, eps);
}
C
cat > Makefile <<MK
GATE_MK = $top/mk/gate.mk
GATE_BUILD = \$(CC) -std=c11 -O2 \$(GATE_INCLUDES) -o "\$\$GATE_SIDE/bench" "\$\$GATE_SIDE/kata/bench.c" "\$\$GATE_SIDE/kata/slow.c" -lm
GATE_BENCH = \$(GATE_SIDE)/bench
GATE_BUDGET = budget.toml
include \$(GATE_MK)
MK
cat > budget.toml <<'T'
runs = 3

[budget]
sum_ns = 0.20
rmsnorm_ns = 0.20

[history]
sum_ns = 0.10
rmsnorm_ns = 0.10
T
creep=0 reps=1
div=${HISTORY_CREEP_DIV:-12}
plant() {
	printf '#define CREEP %d\n#define CREEP_DIV %d\n#define SUM_REPS %d\n' "$creep" "$div" "$reps" > kata/plant.h
}
plant
: > notes.txt
git init -q -b main
git add -A
git commit -q -m 'kata: the kernels, nothing planted'
i=1
for w in $plan; do
	case $w in
	creep) creep=$((creep + 1)); plant; m="rmsnorm: creep step $creep" ;;
	sum2x) reps=$((reps * 2)); plant; m="sum: runs $reps times" ;;
	same) echo "$i" >> notes.txt; m="notes: $i" ;;
	*) echo "history-fixture.sh: $w: not creep, sum2x or same" >&2; exit 2 ;;
	esac
	git add -A
	git commit -q -m "$m"
	i=$((i + 1))
done
