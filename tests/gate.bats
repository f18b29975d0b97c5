#!/usr/bin/env bats
# The gate of the kata (mk/gate.mk, perfgate, make grade) and the planted
# slowdowns of kata/slowdowns/. tests/project.bats tests the gate of a
# project's git revisions; tests/kata.bats the artifacts the gate stands
# on: bench.c includes bench.h, times the four kernels and never calls
# rand(), budget.toml has runs >= 2 and a fraction in (0, 1) for every
# metric, kata_check passes on the kata; tests/cmpbudget.bats the worked
# example's arithmetic row by row, which the first tests here repeat
# through the whole gate.
#
# Every test gates in a GATEDIR of its own under BATS_TEST_TMPDIR. Tests
# that must come out regressed use slowdowns of 2x or more against budgets
# of 0.2-0.3; tests of the gate's logic use a benchmark that prints fixed
# numbers, so that no noise can reach them.

load common

setup() {
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS GRADEDIR GRADE_SLOWDOWNS
	cd "$TOP"
	T=$BATS_TEST_TMPDIR
	G=$T/gate
}

# The summary record's member $1 (-c: compact, as JSON).
summary() {
	if [ "$1" = -c ]; then
		last | jq -c ".$2"
	else
		last | jq -r ".$1"
	fi
}

# A benchmark that prints the line its side's file defines, byte for byte,
# and a budget of 0.25 on its one metric, x_ns: the worked example.
fixed_bench() {
	cat > "$T/fixed.c" <<'C'
#include <stdio.h>
extern const char line[];
int main(void) { puts(line); return 0; }
C
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
}

# side NAME LINE: a side's file for fixed_bench, printing LINE.
side() {
	printf 'const char line[] = "%s";\n' "$(printf '%s' "$2" | sed 's/"/\\"/g')" > "$T/$1.c"
}

# gate of the fixed bench, BASE 8.0 and HEAD the given line.
fixed_gate() {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head "$1"
	shift
	run --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G" "$@"
}

# The kata with one sed edit, as $T/$1.c.
kata_edit() {
	sed "$2" kata/kernels.c > "$T/$1.c"
	run -1 cmp -s kata/kernels.c "$T/$1.c"
}

# "inode mtime" of a file, the mtime to the nanosecond.
stamp() {
	stat -c '%i %y' "$1"
}

@test "gate: worked example 8.0 -> 10.0 at 0.25 is ok, the bound inclusive (exit 0)" {
	fixed_gate '{"x_ns":10.0}'
	[ "$status" -eq 0 ]
	[ "$(summary verdict)" = ok ]
	# The numbers pass through byte for byte.
	[[ "${lines[0]}" == '{"metric":"x_ns","base":8.0,"head":10.0,"delta":0.25,"budget":0.25,"verdict":"ok",'* ]]
	# runs = 2 from the budget file, but an interval at 95 % needs six
	# rounds of each side: all six ratios 1.25, within the budget.
	[ "$(wc -l < "$G/runs.jsonl")" -eq 12 ]
	[ "$(printf '%s\n' "$output" | jq -c 'select(.metric) | [.ratio_hi,.bound,.halves]')" = '[1.25,0.25,["none","none"]]' ]
	[[ "$stderr" == *"x_ns "*" ok "*"≤ +25.0 %"* ]]
	# No record carries the quartiles' opinion.
	[ "$(jq -c 'select(.metric) | has("quartiles")' "$G/verdict.jsonl")" = false ]
	# Every run says what disturbed it, and the gate sums it up in one line.
	[ "$(jq -c 'has("ivcsw") and has("cpu") and has("wall_s")' "$G/runs.jsonl" | sort -u)" = true ]
	[[ "$(summary machine)" == quiet* || "$(summary machine)" == busy* || "$(summary machine)" == unknown* ]]
	[[ "$stderr" == *"machine: $(summary machine)"* ]]
	# A CPU pressure that does not grow: quiet, 0 %.
	rm -rf "$G"
	printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n' > "$T/psi"
	PERFGATE_PRESSURE=$T/psi fixed_gate '{"x_ns":10.0}'
	[[ "$(summary machine)" == "quiet (CPU pressure 0 % during the gate"* ]]
	[ "$(summary pressure)" = 0 ]
}

@test "gate: the summary names each side's compiler, flags, build digest and executable digest" {
	fixed_gate '{"x_ns":8.0}' HEAD_CFLAGS='-std=c11 -O0'
	[ "$status" -eq 0 ]
	[ "$(summary base.cflags)" = "-std=c11 -O2" ]
	[ "$(summary head.cflags)" = "-std=c11 -O0" ]
	[ "$(summary base.cc)" = "$(cc --version | head -n 1)" ]
	# The build command holds the flags.
	[ "$(summary base.build_sha256)" != "$(summary head.build_sha256)" ]
	[ "$(summary head.bench_sha256)" = "$(sha256sum < "$G/head/bench" | cut -c1-64)" ]
	[ "$(summary base.source)" = "sha256:$(sha256sum < "$T/base.c" | cut -c1-64)" ]
	[ "$(summary budget_sha256)" = "$(sha256sum < "$T/b.toml" | cut -c1-64)" ]
	# And so does every round.
	[ "$(jq -r 'select(.side == "head") | .cflags' "$G/runs.jsonl" | sort -u)" = "-std=c11 -O0" ]
}

@test "gate: worked example 8.0 -> 10.01 at 0.25 regressed (exit 1), the metric named" {
	fixed_gate '{"x_ns":10.01}'
	[ "$status" -eq 1 ]
	[ "$(summary verdict)" = regressed ]
	[ "$(summary 'regressed | join(",")')" = x_ns ]
	[[ "$stderr" == *x_ns*regressed* ]]
	# A claim needs eight rounds beyond the bound at 95 % (the claim's
	# error 1 %): the rule, asked after every round, claims it at the
	# eighth.
	[ "$(wc -l < "$G/runs.jsonl")" -eq 16 ]
	[[ "$stderr" == *"gaterun: measuring base and head, a round at a time until the rule decides"* ]]
	[[ "$stderr" != *"a regression, measured again"* ]]
	[ "$(printf '%s\n' "$output" | jq -c 'select(.metric) | .halves')" = '["regressed","regressed"]' ]
}

@test "gate: a changed BUDGET re-judges the same rounds, confirming a regression first; a changed HEAD re-measures" {
	fixed_gate '{"x_ns":9.6}'
	[ "$status" -eq 0 ]
	[ "$(wc -l < "$G/runs.jsonl")" -eq 12 ]
	# The same rounds, judged by a tighter budget: 9.6 > 8.0 x 1.1. The
	# regression needs eight rounds: 7 and 8 measured now.
	printf 'runs = 2\n\n[budget]\nx_ns = 0.1\n' > "$T/b.toml"
	run --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$status" -eq 1 ]
	[ "$(summary verdict)" = regressed ]
	[[ "$stderr" != *"measuring base and head"* ]]
	[[ "$stderr" == *"gaterun: measuring on from round 7: the rule has not decided x_ns"* ]]
	[ "$(jq -r .round "$G/runs.jsonl" | sort -n | uniq -c | awk '{ print $1 "x" $2 }' | tr '\n' ' ')" = \
	    "2x1 2x2 2x3 2x4 2x5 2x6 2x7 2x8 " ]
	before=$(stamp "$G/runs.jsonl")
	# A new timestamp is not new content: the same rounds, the same verdict.
	touch -d '+1 minute' "$T/head.c"
	run --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$status" -eq 1 ]
	[ "$(stamp "$G/runs.jsonl")" = "$before" ]
	[[ "$stderr" == *"gate: reused the measurements in $G/runs.jsonl: "* ]]
	[[ "$stderr" == *"gate: reused the verdict: "* ]]
	# New content is measured again.
	echo '/* changed */' >> "$T/head.c"
	run --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$status" -eq 1 ]
	[ "$(stamp "$G/runs.jsonl")" != "$before" ]
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	[[ "$stderr" != *"gate: reused"* ]]
}

@test "gate: a fresh gate runs gaterun once, to measure and judge, and does not judge its own rounds again" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":9.6}'
	# The tools, gaterun logging each run of it.
	mkdir "$T/bin"
	for f in "$TOP"/bin/*; do
		[ -x "$f" ] && [ ! -d "$f" ] && ln -s "$f" "$T/bin/${f##*/}"
	done
	rm "$T/bin/gaterun"
	printf '#!/bin/sh\necho "$*" >> "%s/gaterun.log"\nexec "%s/bin/gaterun" "$@"\n' "$T" "$TOP" > "$T/bin/gaterun"
	chmod +x "$T/bin/gaterun"
	run -0 --separate-stderr perfgate PERFGATE_BIN="$T/bin" GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(summary verdict)" = ok ]
	# One gaterun -x (measure and judge), then -v (say it).
	[ "$(grep -c -- '^-x ' "$T/gaterun.log")" = 1 ]
	[ "$(grep -vc -- '^-x \|^-v \|^-k ' "$T/gaterun.log")" = 0 ]
	# A changed budget is judged again, on the same rounds.
	: > "$T/gaterun.log"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.3\n' > "$T/b.toml"
	run -0 --separate-stderr perfgate PERFGATE_BIN="$T/bin" GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(grep -c -- '^-x ' "$T/gaterun.log")" = 0 ]
	[ "$(grep -vc -- '^-x \|^-v \|^-k ' "$T/gaterun.log")" = 1 ]
	[ "$(jq -r 'select(.metric == "x_ns") | .budget' "$G/verdict.jsonl")" = 0.3 ]
}

@test "gate: the rule decides after every round, at the fewest rounds it can decide in at GATE_CONFIDENCE; RUNS is no first block" {
	fixed_gate '{"x_ns":8.0}' RUNS=3
	[ "$status" -eq 0 ]
	[ "$(wc -l < "$G/runs.jsonl")" -eq 12 ]
	[[ "$stderr" == *"gaterun: measuring base and head, a round at a time until the rule decides (the deadline: 3 rounds and 20 s)"* ]]
	rm -rf "$G"
	fixed_gate '{"x_ns":8.0}' RUNS=7
	[ "$(wc -l < "$G/runs.jsonl")" -eq 12 ]
	# At 99 %, nine rounds: the sequence of nine equal ratios at 99 %
	# lies within the budget. A new confidence is a new rule: the same
	# rounds judged again, and measured on.
	fixed_gate '{"x_ns":8.0}' RUNS=7 GATE_CONFIDENCE=0.99
	[ "$status" -eq 0 ]
	[ "$(wc -l < "$G/runs.jsonl")" -eq 18 ]
	[[ "$stderr" != *"measuring base and head"* ]]
	[ "$(summary confidence)" = 0.99 ]
	# 8.0 against 16.0: a claim needs eight rounds at 95 %, whatever RUNS
	# says.
	rm -rf "$G"
	fixed_gate '{"x_ns":16.0}' RUNS=3
	[ "$status" -eq 1 ]
	[ "$(wc -l < "$G/runs.jsonl")" -eq 16 ]
	rm -rf "$G"
	fixed_gate '{"x_ns":16.0}' RUNS=10
	[ "$status" -eq 1 ]
	[ "$(wc -l < "$G/runs.jsonl")" -eq 16 ]
}

@test "gate: a budget file older than the verdict is judged by: loose then tight, both made before the first gate" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":9.6}'
	printf 'runs = 2\n\n[budget]\nx_ns = 0.1\n' > "$T/tight.toml"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.5\n' > "$T/loose.toml"
	touch -d '-1 hour' "$T/tight.toml" "$T/loose.toml"
	run -0 --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/loose.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(summary verdict)" = ok ]
	run -1 --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/tight.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(summary verdict)" = regressed ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .budget')" = 0.1 ]
	# The same content under another name is another budget's path: judged again.
	cp -p "$T/loose.toml" "$T/loose2.toml"
	run -0 --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/loose2.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[[ "$stderr" != *"reused the verdict"* ]]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .budget')" = 0.5 ]
}

@test "gate: a bad budget cannot be decided before anything is built or measured, file and line named" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	printf 'runs = 3.5\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	run -2 --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(summary verdict)" = error ]
	[ "$(summary step)" = budget ]
	[[ "$(summary error)" == "both: budget: $T/b.toml:1: "* ]]
	[ ! -e "$G/base.key" ]
	[ ! -e "$G/runs.jsonl" ]
}

@test "gate: a side that exits 3 after writing boom cannot be decided: side, round, status and stderr named" {
	fixed_bench
	cat > "$T/fail.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern const char line[];
int main(void) {
	if (strcmp(line, "fail") == 0) {
		fputs("boom\n", stderr);
		return 3;
	}
	puts(line);
	return 0;
}
C
	side base '{"x_ns":8.0}'
	side head 'fail'
	run -2 --separate-stderr perfgate GATE_BENCH_SRC="$T/fail.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(summary verdict)" = error ]
	[ "$(summary side)" = head ]
	[ "$(summary step)" = run ]
	[ "$(summary file)" = "$T/head.c" ]
	[ "$(summary run.side)" = head ]
	[ "$(summary run.round)" = 1 ]
	[ "$(summary run.status)" = 3 ]
	[ "$(summary run.stderr)" = boom ]
	[[ "$(summary error)" == "head: run: $T/head.c (sha256:"*"): side head, round 1: "*"status 3"* ]]
	# What was measured is kept, apart from what make trusts.
	[ -s "$G/runs.partial.jsonl" ]
	[ ! -e "$G/runs.jsonl" ]
}

# The cache answers only for what would run now: each test changes what
# a side's benchmark prints by a file that is no part of either side's
# identity, and the next gate must measure again and give the new answer.

@test "gate: a header outside the tree, not in GATE_HEADERS, changes what runs: measured again" {
	mkdir "$T/inc"
	printf '#include <stdio.h>\n#include "val.h"\nint main(void) { puts(VAL); return 0; }\n' > "$T/hdr.c"
	printf '#define VAL "{\\"x_ns\\":8.0}"\n' > "$T/inc/val.h"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	echo 'int side_unused;' > "$T/base.c"
	echo 'int side_unused;' > "$T/head.c"
	set -- perfgate GATE_BENCH_SRC="$T/hdr.c" GATE_INCLUDES="-I$T/inc" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	run -0 --separate-stderr "$@"
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .head')" = 8 ]
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gate: reused the measurements"* ]]
	printf '#define VAL "{\\"x_ns\\":9.0}"\n' > "$T/inc/val.h"
	touch -d '-1 hour' "$T/inc/val.h"
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .head')" = 9 ]
}

@test "gate: a shared library the benchmark links, changed under both sides: measured again" {
	mkdir "$T/lib"
	printf 'const char *val(void);\n#include <stdio.h>\nint main(void) { puts(val()); return 0; }\n' > "$T/lib.c"
	printf 'const char *val(void) { return "{\\"x_ns\\":%s}"; }\n' 8.0 > "$T/v.c"
	cc -shared -fPIC -o "$T/lib/libv.so" "$T/v.c"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	echo 'int side_unused;' > "$T/base.c"
	echo 'int side_unused;' > "$T/head.c"
	set -- perfgate GATE_BENCH_SRC="$T/lib.c" GATE_LDLIBS="-L$T/lib -lv -Wl,-rpath,$T/lib" \
	    BUDGET="$T/b.toml" BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	run -0 --separate-stderr "$@"
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .base')" = 8 ]
	grep -q "^lib [0-9a-f]* $T/lib/libv.so$" "$G/head.key"
	exe=$(sha256sum < "$G/head/bench")
	# A library upgrade: the executables stay the same, the answer does not.
	printf 'const char *val(void) { return "{\\"x_ns\\":%s}"; }\n' 7.0 > "$T/v.c"
	cc -shared -fPIC -o "$T/lib/libv.so" "$T/v.c"
	run -0 --separate-stderr "$@"
	[ "$(sha256sum < "$G/head/bench")" = "$exe" ]
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .base')" = 7 ]
}

@test "gate: an unchanged side is built again, and its measurements reused, saying which keys matched" {
	fixed_gate '{"x_ns":8.0}'
	[ "$status" -eq 0 ]
	before=$(stamp "$G/runs.jsonl")
	fixed_gate '{"x_ns":8.0}'
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"gate: building base"*"gate: building head"* || "$stderr" == *"gate: building head"*"gate: building base"* ]]
	[ "$(stamp "$G/runs.jsonl")" = "$before" ]
	exe=$(sha256sum < "$G/head/bench" | cut -c1-16)
	[[ "$stderr" == *"gate: reused the measurements in $G/runs.jsonl: "*"head's executable sha256:$exe"* ]]
	# A BENCH_* variable changes the benchmark's work: measured again.
	BENCH_SCALE=2 fixed_gate '{"x_ns":8.0}'
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
}

# A benchmark whose side file defines line(n), the line of its n-th run,
# counted in a file beside the binary: a side with noise of its own.
noisy_gate() {
	cat > "$T/noisy.c" <<'C'
#include <stdio.h>
const char *line(unsigned n);
int main(int argc, char *argv[]) {
	char path[4096];
	unsigned n = 0;
	FILE *f;
	(void)argc;
	snprintf(path, sizeof path, "%s.count", argv[0]);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%u", &n) != 1)
			n = 0;
		fclose(f);
	}
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "%u\n", n + 1);
		fclose(f);
	}
	puts(line(n));
	return 0;
}
C
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	printf 'const char *line(unsigned n) { return n %% 2 ? "{\\"x_ns\\":12.0}" : "{\\"x_ns\\":8.0}"; }\n' > "$T/base.c"
	printf 'const char *line(unsigned n) { return n < %s ? "{\\"x_ns\\":10.5}" : "{\\"x_ns\\":9.0}"; }\n' "$1" > "$T/head.c"
	shift
	run --separate-stderr perfgate GATE_BENCH_SRC="$T/noisy.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G" "$@"
}

@test "gate: the benchmark driver is compiled once for both sides, and again only when what it includes changes" {
	fixed_gate '{"x_ns":8.0}'
	[ "$status" -eq 0 ]
	[ -f "$G/driver/both.o" ] && [ ! -e "$G/driver/base.o" ]
	before=$(stamp "$G/driver/both.o") obj=$(stamp "$G/head/head.o")
	fixed_gate '{"x_ns":8.0}'
	[ "$(stamp "$G/driver/both.o")" = "$before" ]
	[ "$(stamp "$G/head/head.o")" = "$obj" ]
	# Flags apart: a driver for each side, each built with its side's flags.
	fixed_gate '{"x_ns":8.0}' HEAD_CFLAGS='-std=c11 -O1'
	[ "$status" -eq 0 ]
	grep -q -- ' -O1 ' "$G/driver/head.o.key"
	grep -q -- ' -O2 ' "$G/driver/base.o.key"
}

@test "gate: a fresh GATEDIR compiles only what no gate compiled before (GATE_OBJECTS)" {
	printf '#!/bin/sh\necho "$*" >> "%s/cc.log"\nexec cc "$@"\n' "$T" > "$T/cc"
	chmod +x "$T/cc"
	fixed_gate '{"x_ns":8.0}' CC="$T/cc" GATE_OBJECTS="$T/objects"
	[ "$status" -eq 0 ]
	# The driver, and the sides' file: one content under two names, and a
	# source's name is in its object (and so in the executable), so each
	# name is an object of its own.
	[ "$(grep -c -- ' -c ' "$T/cc.log")" -eq 3 ]
	[ "$(ls "$T/objects"/*.o | wc -l)" -eq 3 ]
	# Each side's program too, linked once.
	[ "$(ls "$T/objects"/*.exe | wc -l)" -eq 2 ]
	[ "$(grep -c -- '/bench.tmp ' "$T/cc.log")" -eq 2 ]
	: > "$T/cc.log"
	G=$T/gate2 fixed_gate '{"x_ns":8.0}' CC="$T/cc" GATE_OBJECTS="$T/objects"
	[ "$status" -eq 0 ]
	# Nothing compiled, nothing linked.
	[ "$(grep -c -- ' -c ' "$T/cc.log")" -eq 0 ]
	[ "$(grep -c -- '/bench.tmp ' "$T/cc.log")" -eq 0 ]
	cmp "$G/driver/both.o" "$T/gate2/driver/both.o"
	# A header the driver includes changes: compiled again.
	echo '/* changed */' >> "$T/fixed.c"
	: > "$T/cc.log"
	run --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$T/gate3" CC="$T/cc" GATE_OBJECTS="$T/objects"
	[ "$status" -eq 0 ]
	[ "$(grep -c -- ' -c ' "$T/cc.log")" -eq 1 ]
}

@test "gate: ratios the rounds cannot tell apart are measured on, to the deadline, then undecided (exit 2, the reason)" {
	# Base runs 8.0, 12.0, ...; head 10.5: over 8.0 x 1.25 by the minima,
	# but head is slower than base in half the rounds and faster in the
	# other half: the interval holds 1 and 1.3125, neither shown.
	noisy_gate 1000 GATE_DEADLINE=1
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = undecided ]
	[ "$(summary -c undecided)" = '["x_ns"]' ]
	[ "$(summary -c regressed)" = '[]' ]
	[[ "$(summary reason)" == "x_ns: ratio "*" [0.875,1.312] at 95 %, budget 25 %, "*" rounds; machine: "* ]]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .verdict')" = undecided ]
	[[ "$stderr" == *"gaterun: the deadline has passed after "*" rounds and "*" s (at least 2 rounds and 1 s): undecided: x_ns"* ]]
	# Undecided is an answer with a reason: no make "Error" line, and
	# perfgate's own line, the reason, comes last.
	[[ "$stderr" != *"make: ***"* ]]
	[[ "${stderr_lines[-1]}" == "gate: undecided: x_ns: ratio "*" at 95 %, budget 25 %, "*" rounds; machine: "* ]]
	# The order of sides alternates from round to round.
	[ "$(jq -r 'select(.slot == 0) | .side' "$G/runs.jsonl" | head -n 8 | tr '\n' ' ')" = "base head base head base head base head " ]
	# Undecided is no verdict to keep: the next gate measures on.
	n=$(wc -l < "$G/runs.jsonl")
	run -2 --separate-stderr perfgate GATE_BENCH_SRC="$T/noisy.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G" GATE_DEADLINE=1
	[ "$(wc -l < "$G/runs.jsonl")" -gt "$n" ]
	[[ "$stderr" != *"gate: reused the verdict"* ]]
	# make gate's own status is make's: 2 for a recipe that fails.
	run -2 --separate-stderr make --no-print-directory gate GATE_BENCH_SRC="$T/noisy.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G" GATE_DEADLINE=1
	[ "$(summary verdict)" = undecided ]
	# Under perfgate -s (git bisect run), undecided is 125: skip.
	run -125 --separate-stderr perfgate -s GATE_BENCH_SRC="$T/noisy.c" BUDGET="$T/b.toml" \
	    BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G" GATE_DEADLINE=1
}

@test "gate: make noise gates HEAD against itself: false claims, undecided, worst drift, the smallest budget that holds" {
	noisy_gate 1000
	# Head's first run 8.0, every later one 10.5: the first gate's round 1
	# has base at 8.0 and head at 10.5, +31.25 %, a false alarm to a rule
	# of minima; its other rounds are alike, and their ratios show the
	# change within the budget.
	printf 'const char *line(unsigned n) { return n == 0 ? "{\\"x_ns\\":8.0}" : "{\\"x_ns\\":10.5}"; }\n' > "$T/head.c"
	rm -rf "$G"
	run -0 --separate-stderr make --no-print-directory noise NOISE_GATES=2 GATE_BENCH_SRC="$T/noisy.c" \
	    BUDGET="$T/b.toml" HEAD="$T/head.c" GATEDIR="$G"
	[ "${#lines[@]}" -eq 1 ]
	[ "$(summary gates)" = 2 ]
	[ "$(summary false_alarms)" = 0 ]
	[ "$(summary false_claims)" = 0 ]
	[ "$(summary undecided)" = 0 ]
	[ "$(summary -c worst_drift)" = '{"x_ns":0}' ]
	[ "$(summary -c budgets)" = '{"x_ns":0.25}' ]
	[ "$(summary -c smallest_budget)" = '{"x_ns":0.01}' ]
	[ "$(summary budget_sha256)" = "$(sha256sum < "$T/b.toml" | cut -c1-64)" ]
	[[ "$stderr" == *"noise: gate 1 of 2: ok"*"noise: gate 2 of 2: ok"* ]]
	[[ "$stderr" == *"noise: 0 false alarms, 0 false claims either way, 0 undecided in 2 gates at $T/b.toml; worst drift: x_ns +0.0 % (budget 25 %, 1 % would hold)"* ]]
	# noisesum's record, kept beside the gates.
	[ "$(cat "$G/noise/noise.jsonl")" = "$output" ]
	# A margin or a count that cannot be used is refused before any gate runs.
	rm -rf "$G/noise"
	run -2 --separate-stderr make --no-print-directory noise NOISE_GATES=2 NOISE_MARGIN=0.5 GATE_BENCH_SRC="$T/noisy.c" \
	    BUDGET="$T/b.toml" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(summary error)" = "head: noise: NOISE_MARGIN=0.5: not a margin" ]
	[ ! -e "$G/noise" ]
	run -2 --separate-stderr make --no-print-directory noise NOISE_GATES=x GATE_BENCH_SRC="$T/noisy.c" \
	    BUDGET="$T/b.toml" HEAD="$T/head.c" GATEDIR="$G"
	[ "$(summary error)" = "head: noise: NOISE_GATES=x: not a number of gates" ]
}

@test "gate: a possible regression that more rounds undo passes" {
	# Head's fourth run and after: 9.0, within the budget of base's 8.0.
	noisy_gate 3
	[ "$status" -eq 0 ]
	[ "$(summary verdict)" = ok ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .bound')" = 0.125 ]
}

@test "gate: a HEAD that does not compile cannot be decided: exit 2, head and build named" {
	kata_edit broken 's/^kata_sum(const float \*x, int n)$/kata_sum(const float *x, int n) syntax error/'
	run --separate-stderr perfgate HEAD="$T/broken.c" GATEDIR="$G"
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = error ]
	[ "$(summary side)" = head ]
	[ "$(summary step)" = build ]
	[ "$(summary file)" = "$T/broken.c" ]
	[[ "$(summary error)" == "head: build: $T/broken.c (sha256:"*"): the build failed (status 1); log in $G/head/build.log" ]]
	grep -q 'syntax error\|expected' "$G/head/build.log"
	[ ! -e "$G/runs.jsonl" ]
	# With -s, 125 for git bisect.
	run perfgate -s HEAD="$T/broken.c" GATEDIR="$G"
	[ "$status" -eq 125 ]
}

@test "gate: a HEAD whose benchmark crashes cannot be decided: exit 2, head and run named" {
	kata_edit crash 's/^\tfloat s\[8\] = { 0 };$/&\n\traise(SIGSEGV);/; s/^#include <math.h>$/&\n#include <signal.h>/'
	run --separate-stderr perfgate HEAD="$T/crash.c" GATEDIR="$G"
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = error ]
	[ "$(summary side)" = head ]
	[ "$(summary step)" = run ]
	[[ "$(summary error)" == "head: run: $T/crash.c (sha256:"*"): side head, round 1"*"signal 11"* ]]
	[ ! -e "$G/runs.jsonl" ]
}

@test "gate: a HEAD whose benchmark hangs is killed after GATE_TIMEOUT: exit 2, no process left" {
	kata_edit hang 's/^\tconst float \*base = sorted;$/\tfor (volatile int spin = 0;; spin++)\n\t\t;\n&/'
	SECONDS=0
	run --separate-stderr perfgate HEAD="$T/hang.c" GATEDIR="$G" GATE_TIMEOUT=2
	[ "$status" -eq 2 ]
	[ "$SECONDS" -lt 30 ]
	[ "$(summary verdict)" = error ]
	[ "$(summary side)" = head ]
	[ "$(summary step)" = run ]
	[[ "$(summary error)" == *"side head, round 1"*"2 s"* ]]
	# Nothing of the head's benchmark survives.
	run pgrep -f "$G/head/bench"
	[ "$status" -eq 1 ]
}

@test "gate: a HEAD whose benchmark prints no metric cannot be decided: exit 2, head named" {
	fixed_gate 'done, no numbers'
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = error ]
	[ "$(summary side)" = head ]
	[ "$(summary step)" = run ]
	[[ "$(summary error)" == *"side head, round 1"* ]]
}

@test "gate: a metric the budget does not name is listed and named; GATE_UNBUDGETED=error cannot decide" {
	fixed_gate '{"x_ns":8.0,"y_ns":3}'
	[ "$status" -eq 0 ]
	[ "$(summary -c unbudgeted)" = '["y_ns"]' ]
	[[ "$stderr" == *y_ns* ]]
	fixed_gate '{"x_ns":8.0,"y_ns":3}' GATE_UNBUDGETED=error
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = error ]
	[[ "$(summary error)" == *"y_ns: not in the budget file"* ]]
}

@test "gate: a metric of the budget that the benchmark lacks cannot be decided: exit 2, the metric named" {
	fixed_gate '{"y_ns":8.0}'
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = error ]
	[ "$(summary error)" = 'x_ns: missing on side "head"' ]
	[[ "$stderr" == *'gaterun: x_ns: missing on side "head"'* ]]
}

@test "gate: make gate (perfgate(7) EXAMPLES) passes the kata against itself, twice in a row" {
	run --separate-stderr make gate GATEDIR="$G/1"
	[ "$status" -eq 0 ]
	[ "$(summary verdict)" = ok ]
	[ "$(summary metrics)" = 4 ]
	# Every kernel timed on both sides, in the six rounds the rule needs
	# at least; rounds after them (a loaded machine asks for them) run
	# the metrics not yet decided alone (GATE_FOCUS).
	[ "$(jq -r 'select(.side == "head") | keys_unsorted[]' "$G/1/runs.jsonl" | grep '_ns$' | sort -u | tr '\n' ' ')" = \
	    "count_below_ns matmul_ns rmsnorm_ns sum_ns " ]
	n=$(jq -r .side "$G/1/runs.jsonl" | sort | uniq -c | awk '{ print $1 }' | sort -u)
	[ "$n" -ge 6 ]
	[ "$(jq -r 'select(.round <= 6) | [.matmul_ns, .sum_ns, .rmsnorm_ns, .count_below_ns] | map(. != null) | all' \
	    "$G/1/runs.jsonl" | sort -u)" = true ]
	for f in base.key head.key base/build.log head/bench.cmd runs.jsonl verdict.jsonl verdict.txt verdict.md; do
		[ -s "$G/1/$f" ] || [ "$f" = base/build.log ]
	done
	# Built by the same command, each in its own directory: one digest.
	[[ "$(summary base.build_sha256)" =~ ^[0-9a-f]{64}$ ]]
	[ "$(summary base.build_sha256)" = "$(summary head.build_sha256)" ]
	run --separate-stderr perfgate GATEDIR="$G/2"
	[ "$status" -eq 0 ]
	[ "$(summary verdict)" = ok ]
}

@test "gate: make noise NOISE_GATES=3 (perfgate(7) EXAMPLES) studies the kata against itself" {
	run -0 --separate-stderr make --no-print-directory noise NOISE_GATES=3 GATEDIR="$G"
	[ "${#lines[@]}" -eq 1 ]
	[ "$(summary gates)" = 3 ]
	[ "$(summary 'worst_drift | keys_unsorted | join(" ")')" = "matmul_ns sum_ns rmsnorm_ns count_below_ns" ]
	[ "$(summary 'smallest_budget | keys_unsorted | join(" ")')" = "matmul_ns sum_ns rmsnorm_ns count_below_ns" ]
	[ "$(summary budget)" = budget.toml ]
	[ "$(printf '%s\n' "$stderr" | grep -c '^noise: gate [123] of 3: ')" -eq 3 ]
}

@test "gate: make gate HEAD=build/slow/kernels.c (perfgate(7) EXAMPLES) regresses on a planted slowdown" {
	mkdir -p build/slow
	patch -s -o "build/slow/kernels.c.$$" kata/kernels.c < kata/slowdowns/s04-sum-one-accumulator.patch
	mv -f "build/slow/kernels.c.$$" build/slow/kernels.c
	# make turns the gate's 1 into its own 2; the summary tells.
	run --separate-stderr make gate HEAD=build/slow/kernels.c GATEDIR="$G"
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = regressed ]
	# sum_ns is caught; on a loaded machine an unchanged metric can drift
	# past its budget in both blocks too, so only sum_ns is required.
	[ "$(summary 'regressed | any(. == "sum_ns")')" = true ]
	# perfgate gives the exact answer, from the same runs.
	before=$(stamp "$G/runs.jsonl")
	run --separate-stderr perfgate HEAD=build/slow/kernels.c GATEDIR="$G"
	[ "$status" -eq 1 ]
	[ "$(stamp "$G/runs.jsonl")" = "$before" ]
}

@test "gate: make gate HEAD_CC=tcc (perfgate(7) EXAMPLES) regresses: a compiler change is gated" {
	command -v tcc >/dev/null || skip "tcc is not installed"
	run --separate-stderr make gate HEAD_CC=tcc GATEDIR="$G"
	[ "$status" -eq 2 ]
	[ "$(summary verdict)" = regressed ]
	[[ "$(summary head.cc)" == tcc* ]]
	[[ "$(summary base.cc)" != tcc* ]]
	run --separate-stderr perfgate HEAD_CC=tcc GATEDIR="$G"
	[ "$status" -eq 1 ]
}

@test "gate: each slowdown starts with a description, applies, and keeps every answer right" {
	n=0
	for p in kata/slowdowns/s[0-9][0-9]-*.patch; do
		name=$(basename "$p" .patch)
		head -n 1 "$p" | grep -q '^[a-z].*[a-z)]$'
		patch -s -o "$T/$name.c" kata/kernels.c < "$p"
		run -1 cmp -s kata/kernels.c "$T/$name.c"
		cc -std=c11 -O2 -Wall -Wextra -Werror -Ikata -o "$T/check" kata/kata_check.c kata/plain.c "$T/$name.c" -lm
		"$T/check" > /dev/null || { echo "$name: kata_check fails"; false; }
		n=$((n + 1))
	done
	[ "$n" -eq 10 ]
	# The four required ones, marked so.
	[ "$(grep -l -m 1 '(required)$' kata/slowdowns/*.patch | xargs -n 1 basename | cut -c1-3 | tr '\n' ' ')" = "s01 s02 s04 s09 " ]
	grep -q '| s01' kata/slowdowns/README.md
}

@test "gate: make grade passes: the kata passes against itself twice, every required slowdown is caught" {
	export GRADEDIR=$T/grade
	before=$(find kata bench budget.toml -type f | sort | xargs sha256sum)
	run --separate-stderr make grade
	[ "$status" -eq 0 ]
	[ "$(summary of)" = 10 ]
	[ "$(summary required_caught)" = 4 ]
	[ "$(summary self_passed)" = 2 ]
	[ "$(summary caught)" -ge 9 ]
	[ "$(printf '%s\n' "$stderr" | grep -c ' passed$')" -eq 2 ]
	for p in kata/slowdowns/s*.patch; do
		grep -q "^$(basename "$p" .patch) " <<<"$stderr"
	done
	# The tree is never touched.
	[ "$(find kata bench budget.toml -type f | sort | xargs sha256sum)" = "$before" ]
}

@test "gate: grade exits 1 when a slowdown is missed" {
	mkdir "$T/slow"
	# A "slowdown" that changes a comment only: no gate can catch it.
	{ echo 'a comment changed (required)'; echo
	  sed 's/^ \* Branch-free binary search/ * A branch-free binary search/' kata/kernels.c |
	      diff -u --label a/kata/kernels.c --label b/kata/kernels.c kata/kernels.c - || [ $? -eq 1 ]; } > "$T/slow/s01-comment.patch"
	GRADEDIR=$T/grade GRADE_SLOWDOWNS=$T/slow run --separate-stderr sh kata/grade.sh
	[ "$status" -eq 1 ]
	[ "$output" = '{"caught":0,"of":1,"required_caught":0,"self_passed":2}' ]
	[[ "$stderr" == *"s01-comment "*"MISSED"* ]]
}

@test "gate: grade exits 2 when a patch does not apply, before anything is measured" {
	mkdir "$T/slow"
	printf 'no longer fits\n\n--- a/kata/kernels.c\n+++ b/kata/kernels.c\n@@ -1,1 +1,1 @@\n-no such line\n+a line\n' > "$T/slow/s01-stale.patch"
	GRADEDIR=$T/grade GRADE_SLOWDOWNS=$T/slow run --separate-stderr sh kata/grade.sh
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "grade: $T/slow/s01-stale.patch: does not apply to kata/kernels.c: 1 out of 1 hunk FAILED" ]
	[ ! -d "$T/grade/self1" ]
	# And one with no description before the diff.
	sed 1,2d "$T/slow/s01-stale.patch" > "$T/slow/s01-x.patch" && rm "$T/slow/s01-stale.patch"
	GRADEDIR=$T/grade GRADE_SLOWDOWNS=$T/slow run --separate-stderr sh kata/grade.sh
	[ "$status" -eq 2 ]
	[ "$stderr" = "grade: $T/slow/s01-x.patch:1: no one-line description before the diff" ]
}

@test "gate: each gate draws GATEDIR/rounds.svg, valid SVG that renders, a panel a metric" {
	run -0 --separate-stderr make --no-print-directory gate GATEDIR="$G"
	[ -s "$G/rounds.svg" ]
	xmllint --noout "$G/rounds.svg"
	rsvg-convert -o "$T/rounds.png" "$G/rounds.svg"
	[ -s "$T/rounds.png" ]
	for m in matmul_ns sum_ns rmsnorm_ns count_below_ns; do
		grep -q "$m" "$G/rounds.svg"
	done
}

@test "gate: alternate's progress shows on a terminal, and never in a log" {
	command -v script >/dev/null || skip "script (bsdutils) not installed"
	make -s all
	# On a terminal (script gives the gate one): the progress line's erase.
	script -qec "make --no-print-directory gate GATEDIR=$G/tty" /dev/null > "$T/tty.out"
	grep -q $'\r\033\[K' "$T/tty.out"
	# Into a file: none.
	run -0 --separate-stderr make --no-print-directory gate GATEDIR="$G/log"
	[[ "$stderr" != *$'\033'* ]]
}

@test "gate: a bad GATE_DEADLINE, GATE_CONFIDENCE, GATE_FOCUS, RUNS, GATE_TIMEOUT or GATE_CPU, or a setting the rule no longer reads, cannot be decided, before anything is built" {
	for bad in GATE_DEADLINE=x GATE_DEADLINE=0 GATE_DEADLINE=-1 GATE_DEADLINE= GATE_CONFIDENCE=1 GATE_CONFIDENCE=0 \
	    GATE_CONFIDENCE=1.5 GATE_CONFIDENCE=x GATE_FOCUS=maybe GATE_NOISE=0.1 GATE_CONFIRM=2 GATE_CPU=any GATE_CPU= \
	    GATE_CPU=-1 'GATE_CPU=1;id' RUNS=abc RUNS=0 RUNS=-3 RUNS=1 RUNS=1000001 RUNS=2.5 GATE_TIMEOUT=x GATE_TIMEOUT=0 \
	    GATE_TIMEOUT=-1 GATE_TIMEOUT=; do
		fixed_gate '{"x_ns":8.0}' "$bad"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$(summary error)" == "both: settings: $bad: "* ]]
		[ ! -e "$G/base/bench" ] && [ ! -e "$G/head/bench" ]
		[ ! -e "$G/runs.jsonl" ]
	done
	fixed_gate '{"x_ns":8.0}' GATE_CONFIDENCE=1
	[ "$(summary error)" = "both: settings: GATE_CONFIDENCE=1: not a fraction above 0 and below 1" ]
	fixed_gate '{"x_ns":8.0}' GATE_DEADLINE=x
	[ "$(summary error)" = "both: settings: GATE_DEADLINE=x: not a number of seconds" ]
	fixed_gate '{"x_ns":8.0}' GATE_CPU=any
	[ "$(summary error)" = "both: settings: GATE_CPU=any: not auto, off or a CPU number" ]
	fixed_gate '{"x_ns":8.0}' RUNS=abc
	[ "$(summary error)" = "both: settings: RUNS=abc: not a whole number of rounds from 2 to 1000000" ]
	fixed_gate '{"x_ns":8.0}' GATE_TIMEOUT=0
	[ "$(summary error)" = "both: settings: GATE_TIMEOUT=0: not above 0 seconds" ]
}

@test "gate: every run is pinned to one CPU, the highest-numbered the gate may use that no other gate holds (GATE_CPU=auto), or where GATE_CPU says" {
	fixed_gate '{"x_ns":8.0}'
	[ "$status" -eq 0 ]
	grep -qx "alternate -c auto" "$G/runs.id"
	# Each run's record says where it ran, and that no other gate held it (tests/pin.bats: when one does).
	want=$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | sed 's/.*-//' | sort -n | tail -n 1)
	[ "$(jq -c '[.pinned, .shared]' "$G/runs.jsonl" | sort -u)" = "[$want,0]" ]
	# GATE_CPU=off leaves the runs where the system puts them; a number pins there.
	fixed_gate '{"x_ns":8.0}' GATE_CPU=off
	grep -qx "alternate " "$G/runs.id"
	fixed_gate '{"x_ns":8.0}' GATE_CPU=0 GATE_ALTERNATE_FLAGS=-d
	grep -qx "alternate -c 0 -d" "$G/runs.id"
	# Two settings that pin: contradictory, one line, before anything is built.
	rm -rf "$G"
	fixed_gate '{"x_ns":8.0}' GATE_ALTERNATE_FLAGS='-d -c 1'
	[ "$status" -eq 2 ]
	[ "$(summary error)" = "both: settings: GATE_ALTERNATE_FLAGS=-d -c 1: pins the runs, as GATE_CPU=auto does: set GATE_CPU=off to pin them there, or drop -c" ]
	[ ! -e "$G/base/bench" ]
	fixed_gate '{"x_ns":8.0}' GATE_CPU=off GATE_ALTERNATE_FLAGS='-c 1'
	[ "$status" -eq 0 ]
	grep -qx "alternate -c 1" "$G/runs.id"
}

@test "gate: one job at a time (GATE_JOBS=1): the rule is read before the first round, the rounds measured whole" {
	fixed_gate '{"x_ns":8.0}' GATE_JOBS=1 RUNS=3
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"cannot open"* ]]
	[ "$(wc -l < "$G/runs.jsonl")" -eq 12 ]
	[ "$(jq -r .round "$G/runs.jsonl" | tr '\n' ' ')" = "1 1 2 2 3 3 4 4 5 5 6 6 " ]
}
