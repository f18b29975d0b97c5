#!/usr/bin/env bats
# ulpscore: accuracy in make compare: each side evaluates each case once (BENCH_EVAL), ulpscore scores
# it against the oracle (kata/oracle.c) and labels every reference; make
# compare puts it in perf.json (schema 2), the table and the drafts.

load common

A=$DATA/accuracy

setup_file() {
	export E=$BATS_FILE_TMPDIR/e
	mkdir -p "$E"
	local k
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -DBENCH_ORACLE -DPLAIN_AS_KATA -o "$E/oracle" \
	    "$TOP/bench/bench.c" "$TOP/kata/oracle.c" "$TOP/kata/plain.c" -lm
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o "$E/kata" "$TOP/bench/bench.c" "$TOP/kata/kernels.c" -lm
	for k in lossy nan; do
		cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o "$E/$k" "$TOP/bench/bench.c" "$A/$k.c" -lm
	done
	for k in oracle kata lossy nan; do
		BENCH_CASES=rmsnorm BENCH_EVAL=$E/$k.bin "$E/$k"
	done
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	export PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/pressure
	setpressure 1.00
	unset RESUME KATA CC CFLAGS COMPARE_REFERENCE_BLAS
}

# make compare on a copy of the kata's sides, one case, one Williams cycle.
kata_compare() {
	cp -r "$TOP/kata" "$TOP/bench" "$TOP/mk" "$TOP/budget.toml" . 2>/dev/null || true
	[ -f Makefile ] || printf 'include mk/compare.mk\n' > Makefile
	make -s --no-print-directory compare COMPARE_BIN="$BIN" COMPARE_CASES=rmsnorm COMPARE_LOCK= \
	    COMPARE_ROUNDS=4 COMPARE_WAIT=5 "$@"
}

@test "ulpscore: the kata within its budget; NaN on some points is inf, disagree > 0, coverage < 1" {
	run -0 --separate-stderr ulpscore -c rmsnorm -b "$TOP/budget.toml" -o "$E/oracle.bin" \
	    kata="$E/kata.bin" nan="$E/nan.bin" lossy="$E/lossy.bin"
	[ -z "$stderr" ]
	echo "$output" | jq -e '.case == "rmsnorm" and .result == "f32" and .n == 16384 and .budget_ulp == 4'
	echo "$output" | jq -e '.sides[0] | .side == "kata" and .max_ulp < 4 and .max_ulp == .max_ulp_finite and .disagree == 0 and .coverage == 1'
	echo "$output" | jq -e '.sides[1] | .max_ulp == "inf" and .max_ulp_finite < 4 and .disagree == 4 and .coverage == 1 - 4 / 16384'
	echo "$output" | jq -e '.sides[2] | .max_ulp > 1000 and .disagree == 0 and .coverage == 1'
}

@test "ulpscore: a side with fewer values is not covered there; more than the oracle's is refused" {
	head -c 32768 "$E/kata.bin" > half.bin
	run -0 --separate-stderr ulpscore -c rmsnorm -o "$E/oracle.bin" "half side=half.bin"
	echo "$output" | jq -e '.sides[0] | .side == "half side" and .max_ulp == "inf" and .coverage == 0.5 and .disagree == 8192'
	cat "$E/kata.bin" "$E/kata.bin" > double.bin
	run -2 --separate-stderr ulpscore -c rmsnorm -o "$E/oracle.bin" k=double.bin
	[ "$output" = "" ]
	[ "$stderr" = "ulpscore: double.bin: side k wrote 131072 bytes: the oracle has 16384 values of 4 bytes" ]
}

@test "ulpscore: an oracle that fails to give whole float64 values is refused in one line" {
	head -c 12 "$E/oracle.bin" > short.bin
	run -2 --separate-stderr ulpscore -c rmsnorm -o short.bin k="$E/kata.bin"
	[ "$stderr" = "ulpscore: short.bin: the oracle wrote 12 bytes, not a whole number of float64 values" ]
	: > empty.bin
	run -2 --separate-stderr ulpscore -c rmsnorm -o empty.bin k="$E/kata.bin"
	[ "$stderr" = "ulpscore: empty.bin: the oracle wrote 0 bytes, not a whole number of float64 values" ]
	run -2 --separate-stderr ulpscore -c rmsnorm -t f16 -o "$E/oracle.bin" k="$E/kata.bin"
	[ "$stderr" = "ulpscore: -t f16: not f32 or i32" ]
}

@test "ulpscore: an accuracy budget that is not a non-negative number is refused, naming file and line" {
	for v in -1 abc 1e999 '' nan .5; do
		printf 'runs = 3\n[budget]\nrmsnorm_ns = 0.2\n\n[accuracy]\nsum = 0\nrmsnorm = %s\n' "$v" > 'my budget.toml'
		run -2 --separate-stderr ulpscore -c rmsnorm -b 'my budget.toml' -o "$E/oracle.bin" k="$E/kata.bin"
		[ "$output" = "" ]
		[ "$stderr" = "ulpscore: my budget.toml:7: [accuracy]: the budget of rmsnorm must be a non-negative number of ulp, not '$v'" ]
	done
	printf '[accuracy]\nrmsnorm = 2\nrmsnorm = 3\n' > b.toml
	run -2 --separate-stderr ulpscore -c rmsnorm -b b.toml -o "$E/oracle.bin" k="$E/kata.bin"
	[ "$stderr" = "ulpscore: b.toml:3: [accuracy]: duplicate case rmsnorm" ]
	# Another section's keys are not this reader's; a case without a budget has null.
	printf '[budget]\nrmsnorm = -5\n[accuracy]\nsum = 1 # ulp\n' > b.toml
	run -0 --separate-stderr ulpscore -c rmsnorm -b b.toml -o "$E/oracle.bin" k="$E/kata.bin"
	echo "$output" | jq -e '.budget_ulp == null'
}

@test "ulpscore: ulpscore -j labels every reference: ahead, faster-less-accurate, tie, tie-less-accurate, tradeoff, behind" {
	run -0 --separate-stderr ulpscore -j "$A/scores.json" "$A/row.json"
	[ "$(echo "$output" | jq -c '[.accuracy.labels[] | .label]')" = \
	    '["ahead","faster-less-accurate","tie","tie-less-accurate","tradeoff","behind"]' ]
	# The row is kept byte for byte before its new member.
	[ "${output:0:$(($(wc -c < "$A/row.json") - 2))}" = "$(head -c -2 "$A/row.json")" ]
	echo "$output" > joined.json
	run -2 --separate-stderr ulpscore -j "$A/scores.json" joined.json
	[ "$stderr" = "ulpscore: joined.json: the row has its accuracy already" ]
}

@test "ulpscore: a slower implementation more accurate than the faster reference is a tradeoff, within the budget or not" {
	# impl 1 ulp, within the budget of 4; a within the budget too (2), b beyond it (6), c as accurate (1).
	printf '%s\n' '{"case":"c","result":"f32","n":4,"budget_ulp":4,"sides":[{"side":"impl","max_ulp":1,"max_ulp_finite":1,"disagree":0,"coverage":1},{"side":"a","max_ulp":2,"max_ulp_finite":2,"disagree":0,"coverage":1},{"side":"b","max_ulp":6,"max_ulp_finite":6,"disagree":0,"coverage":1},{"side":"c","max_ulp":1,"max_ulp_finite":1,"disagree":0,"coverage":1}]}' > scores.json
	printf '%s\n' '{"case":"c","metric":"c_ns","valid":true,"references":[{"reference":"a","ratio":2,"verdict":"slower"},{"reference":"b","ratio":2,"verdict":"slower"},{"reference":"c","ratio":2,"verdict":"slower"}]}' > row.json
	run -0 --separate-stderr ulpscore -j scores.json row.json
	[ "$(echo "$output" | jq -c '[.accuracy.labels[] | .label]')" = '["tradeoff","tradeoff","behind"]' ]
}

@test "ulpscore: make compare labels a planted less-accurate kata faster-less-accurate and drafts it" {
	run -0 --separate-stderr kata_compare KATA="$A/lossy.c"
	jq -e '.schema == 2' docs/perf.json
	jq -e '.rows[0].accuracy | (.sides | map(.side)) == ["kata","plain","numpy","blas"] and .sides[0].max_ulp > 1000 and .sides[1].max_ulp < 4' docs/perf.json
	[ "$(jq -c '[.rows[0].accuracy.labels[] | .label]' docs/perf.json)" = \
	    '["faster-less-accurate","faster-less-accurate","faster-less-accurate"]' ]
	grep -q '^## Accuracy' docs/perf-table.md
	grep -q '^| rmsnorm | 4 | 1.42e+04 | 1.45 | 1.45 | 1.45 | plain faster-less-accurate, numpy faster-less-accurate, blas faster-less-accurate |$' docs/perf-table.md
	run -0 --separate-stderr make -s --no-print-directory compare-drafts COMPARE_BIN="$BIN"
	[ "$(cat build/compare/drafts/rmsnorm.title.txt)" = "perf: rmsnorm is faster but less accurate than plain" ]
	grep -qF -- '- kata: max_ulp 1.42e+04, max_ulp_finite 1.42e+04, disagree 0, coverage 1' build/compare/drafts/rmsnorm.md
	grep -qF 'Labels: plain faster-less-accurate, numpy faster-less-accurate, blas faster-less-accurate' build/compare/drafts/rmsnorm.md
	run -0 --separate-stderr make -s --no-print-directory compare-check COMPARE_BIN="$BIN"
}

@test "ulpscore: make compare shows a kernel returning NaN on some points as inf, disagree and coverage" {
	run -0 --separate-stderr kata_compare KATA="$A/nan.c"
	jq -e '.rows[0].accuracy.sides[0] | .max_ulp == "inf" and .max_ulp_finite < 4 and .disagree == 4 and .coverage < 1' docs/perf.json
	grep -q '^| rmsnorm | 4 | inf (finite 1.58, disagree 4, coverage 0.9998) | 1.45 |' docs/perf-table.md
	# Labels are judged on the finite results: the kata is ahead; its NaNs are reported.
	[ "$(jq -c '[.rows[0].accuracy.labels[] | .label]' docs/perf.json)" = '["ahead","ahead","ahead"]' ]
}

@test "ulpscore: a failing oracle or a bad budget stops make compare before any round, perf.json untouched" {
	mkdir docs && echo keep > docs/perf.json
	run -2 --separate-stderr kata_compare COMPARE_ORACLE=false
	[[ $stderr == *"compare: row rmsnorm: the oracle (false) failed"* ]]
	[ ! -e build/compare/rows/rmsnorm.jsonl ]
	printf '[accuracy]\nrmsnorm = four\n' > bad.toml
	run -2 --separate-stderr kata_compare COMPARE_ACCURACY=bad.toml
	[ "${stderr_lines[1]}" = "ulpscore: bad.toml:2: [accuracy]: the budget of rmsnorm must be a non-negative number of ulp, not 'four'" ]
	[ ! -e build/compare/rows/rmsnorm.jsonl ]
	[ "$(cat docs/perf.json)" = keep ]
}

@test "ulpscore: a document without accuracy is schema 1, byte for byte as before, and so is its table" {
	echo '{"numpy":"1.24.2","openblas_coretype":null}' >numpy.json
	perfdoc -o perf.json -s kata,plain,numpy -C sum,matmul,rmsnorm -A kata:version="cc 12" \
	    -A plain:version="cc 12" -J numpy=numpy.json -m commit=abc123 -n rounds=3 \
	    "$DATA/perfdoc/matmul.row" "$DATA/perfdoc/sum.row"
	# The golden files were written by the perfdoc before accuracy, less the machine's line.
	[ "$(grep -v '^"machine"' perf.json)" = "$(cat "$A/schema1.json")" ]
	[ "$(perfdoc -t perf.json | grep -v '^- machine')" = "$(cat "$A/schema1.md")" ]
}

@test "ulpscore: an older perfdoc refuses a schema 2 document with one line" {
	git -C "$TOP" cat-file -e '2a62695^{commit}' 2>/dev/null || skip "no history"
	mkdir old
	git -C "$TOP" archive 2a62695 bin/perfdoc.c lib bench/sha256.h | tar -x -C old
	cc -std=c11 -O2 -D_GNU_SOURCE -Iold/lib -Iold/bench -DPERFGATE_VERSION='"old"' -o old/perfdoc \
	    old/bin/perfdoc.c old/lib/*.c -lm
	sed 's/"schema":1/"schema":2/' "$DATA/perfdoc/perf.json" > perf.json
	run -2 --separate-stderr old/perfdoc -t perf.json
	[ "$output" = "" ]
	[ "$stderr" = "perfdoc: perf.json: schema 2, this perfdoc reads 1" ]
	run -0 --separate-stderr perfdoc -t perf.json
}

@test "ulpscore: ulpscore's usage is its man page's SYNOPSIS; bad options are refused" {
	run -2 --separate-stderr ulpscore -Z
	[ "${stderr_lines[0]}" = "ulpscore: unknown option -Z" ]
	synopsis=$(mandoc -Tascii "$TOP/man/ulpscore.1" | col -b | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    sed 's/^ *//' | grep .)
	[ "$(printf '%s\n' "${stderr_lines[@]:1}" | sed 's/^usage: //; s/^ *//')" = "$synopsis" ]
	run -2 --separate-stderr ulpscore -c
	[ "${stderr_lines[0]}" = "ulpscore: option -c needs an argument" ]
	run -2 --separate-stderr ulpscore -c x -o y
	[[ ${stderr_lines[0]} == "usage: ulpscore "* ]]
}
