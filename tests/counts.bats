#!/usr/bin/env bats
# The gate's counts mode (mk/counts.mk) and the explanation's counting
# (mk/explain.sh) when a side cannot be counted: the reason is countof's
# own message (countof -o keeps the bench's and valgrind's stderr in the
# log), whatever the bench wrote, even half a line.

load common

setup() {
	unset BENCH_CALLS BENCH_MODE BENCH_CASES
	cd "$TOP"
	T=$BATS_TEST_TMPDIR
	need_pkg valgrind valgrind
	# Times itself as x_ns; under counts mode writes half a line and fails.
	cat > "$T/bench.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	const char *m = getenv("BENCH_MODE");

	if (m != NULL && strcmp(m, "counts") == 0) {
		fputs("countof: not countof's line, and no newline", stderr);
		return 3;
	}
	puts("{\"x_ns\":1}");
	return 0;
}
C
	printf 'int unused;\n' > "$T/side.c"
}

@test "counts: a side that cannot be counted: the reason is countof's message, the bench's stderr in the log" {
	G=$T/g
	run -2 --separate-stderr perfgate GATE_MODE=counts GATE_BENCH_SRC="$T/bench.c" BASE="$T/side.c" HEAD="$T/side.c" GATEDIR="$G"
	why=$(tail -n 1 <<< "$output" | jq -r .error)
	[[ "$why" == *": count: countof: valgrind "*": exited with status 3; log in $G/counts/"*".log" ]] || { echo "$why"; false; }
	[[ "$why" != *"not countof's line"* ]]
	grep -q "^countof: not countof's line, and no newline" "$G/counts/base.log"
}

@test "counts: make explain, a side that cannot be counted: no explanation, countof's reason in the line and the record, exit 2" {
	G=$T/g
	run -2 --separate-stderr perfgate GATE_MODE=counts GATE_BENCH_SRC="$T/bench.c" BASE="$T/side.c" HEAD="$T/side.c" GATEDIR="$G"
	# A time verdict of these sides, as a noisy machine could give it.
	printf '{"verdict":"regressed","regressed":["x_ns"],"metrics":1}\n' > "$G/verdict.jsonl"
	run -2 --separate-stderr make --no-print-directory explain GATEDIR="$G"
	line=$(cat "$G/explain.txt")
	[[ "$line" == "explain x_ns: no explanation: base: countof: valgrind "*": exited with status 3; log in $G/explain/base.x.log" ]] || { echo "$line"; false; }
	[ "$(jq -c '[.metric, .kind, .explained]' "$G/explain.jsonl")" = '["x_ns","summary",false]' ]
	[ "$(jq -r .error "$G/explain.jsonl")" = "${line#explain x_ns: no explanation: }" ]
}
