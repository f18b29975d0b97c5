#!/bin/sh
# manymetrics.sh: a gate's files for N metrics (issue 20: a suite of a
# benchmark per size per function), to time the tools that read them:
#
#	lab/manymetrics.sh DIR N [ROUNDS]
#
# writes DIR/budget.toml (N metrics m0_ns ... of budget 0.1) and
# DIR/runs.jsonl (ROUNDS rounds, 5 by default, of both sides, as alternate
# writes them, every value 1000 to 1019 ns). Then, for example:
#
#	bin/minjson DIR/runs.jsonl > DIR/stats.jsonl
#	time bin/cmpbudget -b DIR/budget.toml -p -r DIR/runs.jsonl DIR/stats.jsonl
#	time bin/plotrounds -o DIR/rounds.svg DIR/runs.jsonl
set -eu
[ $# -ge 2 ] || { echo "usage: manymetrics.sh DIR N [ROUNDS]" >&2; exit 2; }
mkdir -p "$1"
awk -v n="$2" -v rounds="${3:-5}" -v budget="$1/budget.toml" 'BEGIN {
	srand(1)
	print "runs = 3\n\n[budget]" > budget
	for (i = 0; i < n; i++)
		printf "m%d_ns = 0.1\n", i > budget
	for (r = 1; r <= rounds; r++)
		for (s = 0; s < 2; s++) {
			printf "{\"side\":\"%s\",\"round\":%d,\"slot\":%d", s ? "head" : "base", r, s
			for (i = 0; i < n; i++)
				printf ",\"m%d_ns\":%d", i, 1000 + int(rand() * 20)
			print "}"
		}
}' > "$1/runs.jsonl"
