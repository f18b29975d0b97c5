#!/bin/sh
# bench-harness.sh [N]: make bench-harness. How long a whole gate takes
# (`perfgate BASE=HEAD~1 HEAD=HEAD`, a fresh GATEDIR each time, so both
# builds are in it) of a project whose benchmark is another harness's,
# gated through benchrec(1), with the defaults (no runs in the budget,
# GATE_DEADLINE 20): a Google Benchmark project of one benchmark at its
# default settings (about a second a run) whose head is exactly 2x slower,
# budget 30 %, and the same commit against itself; beside it, the go test
# and hyperfine projects of tests/fixtures with their planted 2x
# slowdowns. The cases take turns, N times each (default 3). Prints on
# stderr a table of median seconds, rounds and answers per case; on stdout
# one record. Goal (issue 30): the Google Benchmark 2x head regressed, in a
# median of 30 s at most; against itself, ok. Exit 2 when a gate gives a
# wrong answer (undecided is counted apart), 0 otherwise.
cd "$(dirname "$0")/.." || exit 2
n=${1:-3}
top=$(pwd)
dir=$top/build/bench-harness
unset MAKEFLAGS MFLAGS MAKELEVEL BASE HEAD GATEDIR RUNS GATE_DEADLINE
rm -rf "$dir" && mkdir -p "$dir" || exit 2
make -s all >/dev/null || exit 2
export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org

# The Google Benchmark project: one benchmark, BM_Sum over 2^16 ints, its
# head summing them twice (a compiler barrier between the two passes, so
# that the second is not folded into the first).
gbench_repo() {
	r=$dir/gbench
	mkdir -p "$r/src" "$r/bench"
	cat > "$r/src/work.h" <<'C'
long work_sum(const int *a, int n);
C
	cat > "$r/src/work.c" <<'C'
#include "work.h"

static long __attribute__((noinline))
pass(const int *a, int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += a[i];
	return s;
}

long
work_sum(const int *a, int n)
{
	return pass(a, n);
}
C
	cat > "$r/bench/bench.cc" <<'C'
#include <benchmark/benchmark.h>
#include <vector>

extern "C" {
#include "work.h"
}

static void
BM_Sum(benchmark::State &state)
{
	std::vector<int> v(state.range(0));
	for (int i = 0; i < (int)v.size(); i++)
		v[i] = (i * 7919) % 1009;
	for (auto _ : state)
		benchmark::DoNotOptimize(work_sum(v.data(), (int)v.size()));
}
BENCHMARK(BM_Sum)->Arg(1 << 16);

BENCHMARK_MAIN();
C
	cat > "$r/Makefile" <<'MK'
CC = cc
CXX = c++
CFLAGS = -std=c11 -O2
CXXFLAGS = -O2

bench/bench: bench/bench.cc src/work.c src/work.h
	$(CC) $(CFLAGS) -c -o bench/work.o src/work.c
	$(CXX) $(CXXFLAGS) -Isrc -o $@ bench/bench.cc bench/work.o -lbenchmark -lpthread
	rm -f bench/work.o

GATE_BUILD = $(MAKE) -C $(GATE_SIDE) bench/bench
GATE_BENCH = $(PERFGATE_BIN)/benchrec gbench -- $(GATE_SIDE)/bench/bench
GATE_BUDGET = budget.toml
include $(GATE_MK)
MK
	printf '[budget]\nBM_Sum_65536_ns = 0.3\n' > "$r/budget.toml"
	(cd "$r" && git init -q -b main && git add -A && git commit -q -m 'gbench: a sum') || exit 2
	sed -i 's|^	return pass(a, n);$|	long s = pass(a, n);\n\n	__asm__ volatile("" ::: "memory");\n	return (s + pass(a, n)) / 2;|' "$r/src/work.c"
	grep -q 'volatile' "$r/src/work.c" || exit 2
	(cd "$r" && git commit -q -am 'gbench: the sum taken twice') || exit 2
}

# fixture_repo NAME FILE: tests/fixtures/NAME, its FILE slowed as its slow/ has it.
fixture_repo() {
	r=$dir/$1
	cp -R "tests/fixtures/$1" "$r" || exit 2
	(cd "$r" && git init -q -b main && git add -A && git commit -q -m "$1" &&
	    cp "slow/$2" "$2" && git commit -q -am "$1: a slower sum") || exit 2
}

kinds=
if command -v c++ >/dev/null && [ -e /usr/include/benchmark/benchmark.h ]; then
	gbench_repo
	kinds="$kinds gbench"
else
	echo "bench-harness: no Google Benchmark (libbenchmark-dev, c++): its cases skipped" >&2
fi
if command -v go >/dev/null; then
	fixture_repo gotest work.go
	kinds="$kinds gotest"
fi
if command -v hyperfine >/dev/null; then
	fixture_repo hyperfine work.c
	kinds="$kinds hyperfine"
fi
[ -n "$kinds" ] || { echo "bench-harness: no harness installed" >&2; exit 2; }

now() {
	date +%s.%N
}

# gate KIND CASE I: one gate of project KIND (CASE slow: HEAD~1 against
# HEAD, want 1; self: HEAD~1 against itself, want 0), its seconds, rounds
# and answer appended to DIR/KIND.CASE.
gate() {
	kind=$1 case=$2 i=$3 want=1 head=HEAD
	[ "$case" = self ] && want=0 head=HEAD~1
	start=$(now)
	(cd "$dir/$kind" && "$top/bin/perfgate" GATE_MK="$top/mk/gate.mk" BASE=HEAD~1 HEAD=$head \
	    GATEDIR="$dir/g/$kind.$case.$i") > "$dir/last.out" 2> "$dir/last.err"
	status=$?
	end=$(now)
	verdict=$(tail -n 1 "$dir/last.out" | jq -r .verdict 2>/dev/null)
	rounds=$(tail -n 1 "$dir/last.out" | jq -r '.rounds // 0' 2>/dev/null)
	if [ "$verdict" = undecided ]; then
		echo "bench-harness: $kind $case: undecided after $rounds rounds" >&2
	elif [ "$status" != "$want" ]; then
		echo "bench-harness: $kind $case gave $status ($verdict), not $want; see $dir/wrong.$kind.$case.err" >&2
		cp "$dir/last.err" "$dir/wrong.$kind.$case.err"
		echo x >> "$dir/wrong"
	fi
	echo "$start $end $rounds ${verdict:-none}" | awk '{ printf "%.3f %s %s\n", $2 - $1, $3, $4 }' >> "$dir/$kind.$case"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load=$(cut -d ' ' -f 1 /proc/loadavg)
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	for k in $kinds; do
		gate "$k" slow $i
		gate "$k" self $i
	done
done

printf '%-10s %-5s %9s %7s  %s\n' harness case median_s rounds answers >&2
rec=
for k in $kinds; do
	for c in slow self; do
		f=$dir/$k.$c
		m=$(cut -d ' ' -f 1 "$f" | median)
		r=$(cut -d ' ' -f 2 "$f" | median)
		a=$(cut -d ' ' -f 3 "$f" | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
		printf '%-10s %-5s %9s %7s  %s\n' "$k" "$c" "$m" "$r" "$a" >&2
		rec="$rec${rec:+,}\"${k}_${c}_s\":$m,\"${k}_${c}_rounds\":$r"
	done
done
echo "bench-harness: $n gates a case, load average $load at the start; goal: gbench slow regressed in a median of 30 s at most, gbench self ok" >&2
printf '{"gates":%s,%s,"load":%s}\n' "$n" "$rec" "$load"
[ ! -e "$dir/wrong" ] || exit 2
