#!/usr/bin/env bats
# mergeshards: shards of one gate judged as one; shards that are not one
# gate refused. Each shard here is a separate cmpbudget process judging its
# share of the worked example's budget (sorted names, round-robin), its
# summary given the identities and budget digest the gate gives it.

load common

setup() {
	D=$DATA/cmpbudget
	T=$BATS_TEST_TMPDIR
	SUM=$(sha256sum < "$D/budget.toml" | cut -c1-64)
}

# shard I N [HEAD-COMMIT]: the verdict of shard I of N in $T/shard-I.jsonl:
# cmpbudget judging the share shard.sh names, by the whole budget.
shard() {
	# sed, not jq, so that every number stays as cmpbudget wrote it.
	cmpbudget -b "$D/budget.toml" -M "$(sh "$TOP/mk/shard.sh" "$1/$2" "$D/budget.toml")" "$D/worked.jsonl" 2>/dev/null |
	    sed "\$s|}\$|,\"base\":{\"commit\":\"c1\"},\"head\":{\"commit\":\"${3:-c2}\"},\"shard\":\"$1/$2\"}|" \
	    > "$T/shard-$1.jsonl"
}

last() {
	printf '%s\n' "$output" | tail -n 1
}

@test "mergeshards: two shards judged as one, records passed through byte for byte" {
	shard 1 2 && shard 2 2
	run -1 --separate-stderr mergeshards -m "$T/v.md" "$T/shard-1.jsonl" "$T/shard-2.jsonl"
	[ "$(last | jq -c '[.verdict, .regressed, .metrics, .shards, .base.commit, .budget_sha256 == "'"$SUM"'"]')" = '["regressed",["b_ns","d_ns"],4,2,"c1",true]' ]
	[ "$(last | jq -r .perfgate_version)" = "$(cat "$TOP/VERSION")" ]
	[ "${lines[0]}" = "$(head -n 1 "$T/shard-1.jsonl")" ]
	[ "${lines[2]}" = "$(head -n 1 "$T/shard-2.jsonl")" ]
	[ "${#lines[@]}" -eq 5 ]
	# cmpbudget's own table, as one shard's would read.
	[ "$(head -n 1 "$T/v.md")" = '**cmpbudget: regressed**: `b_ns`, `d_ns`' ]
	grep -qx '| d_ns | 8 | 10.01 | +25.1 | 25 | \*\*regressed\*\* | - | - |' "$T/v.md"
	[[ "${stderr_lines[0]}" == "metric  base "* ]]
}

@test "mergeshards: three shards, all within budget, is ok" {
	for i in 1 2 3; do shard $i 3; done
	# Only a_ns and c_ns are ok: keep those two records in their shards.
	for i in 1 2 3; do
		jq -c 'select(.metric != "b_ns" and .metric != "d_ns") | if .metric then . else .verdict = "ok" | .regressed = [] | .metrics = 0 end' \
		    "$T/shard-$i.jsonl" > "$T/ok-$i.jsonl"
	done
	jq -c 'if .metric then . else .metrics = 1 end' "$T/ok-1.jsonl" > "$T/x" && mv "$T/x" "$T/ok-1.jsonl"
	jq -c 'if .metric then . else .metrics = 1 end' "$T/ok-3.jsonl" > "$T/x" && mv "$T/x" "$T/ok-3.jsonl"
	run -0 --separate-stderr mergeshards -n 3 -m "$T/v.md" "$T"/ok-[123].jsonl
	[ "$(last | jq -c '[.verdict, .metrics, .shards]')" = '["ok",2,3]' ]
	[ "$(head -n 1 "$T/v.md")" = '**cmpbudget: ok**: 2 metrics within budget' ]
	# The three shards of the worked example regress as one.
	run -1 --separate-stderr mergeshards -n 3 "$T"/shard-[123].jsonl
	[ "$(last | jq -c .regressed)" = '["d_ns","b_ns"]' ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .metric' | sort | tr '\n' ' ')" = "a_ns b_ns c_ns d_ns " ]
}

@test "mergeshards: shards of different commits are refused, naming the files" {
	shard 1 2 && shard 2 2 c3
	run -2 --separate-stderr mergeshards "$T/shard-1.jsonl" "$T/shard-2.jsonl"
	[ "$(last | jq -r .verdict)" = error ]
	[ "$(last | jq -r .error)" = "$T/shard-2.jsonl: head is not the head of $T/shard-1.jsonl: {\"commit\":\"c3\"} against {\"commit\":\"c2\"}" ]
	[ "$(last | jq -r .head)" = null ]
	[ "${stderr_lines[-1]}" = "mergeshards: $(last | jq -r .error)" ]
}

@test "mergeshards: shards judged by different budgets are refused" {
	shard 1 2 && shard 2 2
	jq -c 'if .metric then . else .budget_sha256 = "0000" end' "$T/shard-2.jsonl" > "$T/other.jsonl"
	run -2 --separate-stderr mergeshards "$T/shard-1.jsonl" "$T/other.jsonl"
	[ "$(last | jq -r .error)" = "$T/other.jsonl: judged by another budget than $T/shard-1.jsonl (budget_sha256 0000 against $SUM)" ]
}

@test "mergeshards: overlapping metrics are refused, naming file, line and metric" {
	shard 1 2 && shard 2 2
	jq -c 'if .metric then . else .shard = "2/2" end' "$T/shard-1.jsonl" > "$T/again.jsonl"
	run -2 --separate-stderr mergeshards "$T/shard-1.jsonl" "$T/again.jsonl"
	[ "$(last | jq -r .error)" = "$T/again.jsonl:1: metric a_ns also in $T/shard-1.jsonl:1: the shards overlap" ]
	run -2 --separate-stderr mergeshards "$T/shard-1.jsonl" "$T/shard-1.jsonl"
	[ "$(last | jq -r .error)" = "$T/shard-1.jsonl: given twice" ]
}

@test "mergeshards: a missing shard, a shard given twice, a wrong count" {
	for i in 1 2 3; do shard $i 3; done
	run -2 --separate-stderr mergeshards "$T/shard-1.jsonl" "$T/shard-3.jsonl"
	[ "$(last | jq -r .error)" = "shard 2/3 is missing" ]
	run -2 --separate-stderr mergeshards -n 3 "$T/shard-1.jsonl" "$T/shard-3.jsonl"
	[ "$(last | jq -r .error)" = "2 shards given, 3 expected" ]
	jq -c 'if .metric then empty else .shard = "1/3" | .metrics = 0 end' "$T/shard-2.jsonl" > "$T/dup.jsonl"
	run -2 --separate-stderr mergeshards "$T/shard-1.jsonl" "$T/dup.jsonl" "$T/shard-3.jsonl"
	[ "$(last | jq -r .error)" = "$T/dup.jsonl: shard 1/3 given twice" ]
}

@test "mergeshards: a shard that could not be decided makes the whole undecided" {
	shard 1 2
	printf '%s\n' '{"verdict":"error","error":"head: build: the build failed","side":"head","step":"build"}' > "$T/err.jsonl"
	run -2 --separate-stderr mergeshards -m "$T/v.md" "$T/shard-1.jsonl" "$T/err.jsonl"
	[ "$(last | jq -r .verdict)" = error ]
	[ "$(last | jq -r .error)" = "$T/err.jsonl: the shard could not be decided: head: build: the build failed" ]
	[ "$(head -n 1 "$T/v.md")" = "**cmpbudget: error**: $T/err.jsonl: the shard could not be decided: head: build: the build failed" ]
}

@test "mergeshards: a cut shard, a malformed line, a record after the summary" {
	shard 1 2
	head -n 1 "$T/shard-1.jsonl" > "$T/cut.jsonl"
	run -2 --separate-stderr mergeshards "$T/cut.jsonl"
	[ "$(last | jq -r .error)" = "$T/cut.jsonl: no summary record: not a whole shard" ]
	{ head -n 1 "$T/shard-1.jsonl"; tail -n 1 "$T/shard-1.jsonl"; } > "$T/short.jsonl"
	run -2 --separate-stderr mergeshards "$T/short.jsonl"
	[ "$(last | jq -r .error)" = "$T/short.jsonl: the summary counts 2 metrics, the shard holds 1" ]
	{ cat "$T/shard-1.jsonl"; head -n 1 "$T/shard-1.jsonl"; } > "$T/after.jsonl"
	run -2 --separate-stderr mergeshards "$T/after.jsonl"
	[ "$(last | jq -r .error)" = "$T/after.jsonl:4: a record after the summary" ]
	printf '{"metric":\n' > "$T/bad.jsonl"
	run -2 --separate-stderr mergeshards "$T/bad.jsonl"
	[[ "$(last | jq -r .error)" == "$T/bad.jsonl:1: "* ]]
	run -2 --separate-stderr mergeshards "$T/none.jsonl"
	[ "$(last | jq -r .error)" = "$T/none.jsonl: No such file or directory" ]
}

@test "mergeshards: -V prints the version; the man page's footer names it" {
	run -0 --separate-stderr mergeshards -V
	[ "$output" = "mergeshards $(cat "$TOP/VERSION")" ]
	grep -qx ".Os perfgate $(cat "$TOP/VERSION")" "$TOP/man/mergeshards.1"
}

@test "mergeshards: usage errors in its own voice" {
	bad_options mergeshards m
	run -2 --separate-stderr mergeshards
	[ "${stderr_lines[0]}" = "usage: mergeshards [-V] [-m markdown] [-n shards] file ..." ]
	run -2 --separate-stderr mergeshards -n 0 x
	[ "${stderr_lines[0]}" = "mergeshards: -n 0: out of range" ]
}

@test "mergeshards: man example: make gate GATE_SHARD=2/3 && cp build/gate/verdict.jsonl shard-2.jsonl; mergeshards -n 3 -m verdict.md shard-*.jsonl" {
	# The kata's four metrics in three shards, each gated by a make of its
	# own as a runner would (the same GATEDIR, so the same build commands),
	# base and head alternating within it, then judged as one.
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS
	# A budget no noise can break (ten times), so that no verdict hangs on the machine's load.
	printf 'runs = 3\nallow_loose = true\n\n[budget]\nmatmul_ns = 10\nsum_ns = 10\nrmsnorm_ns = 10\ncount_below_ns = 10\n' > "$T/loose.toml"
	# (not i: bats's run sets it)
	for shard in 1 2 3; do
		run -0 --separate-stderr make -C "$TOP" --no-print-directory gate GATE_SHARD=$shard/3 GATEDIR="$T/gate" BUDGET="$T/loose.toml"
		cp "$T/gate/verdict.jsonl" "$T/shard-$shard.jsonl"
		cp "$T/gate/runs.jsonl" "$T/runs-$shard.jsonl"
	done
	cd "$T"
	# 4 metrics, sorted, dealt round-robin: count_below_ns and sum_ns, matmul_ns, rmsnorm_ns;
	# each shard judges its share in the budget file's order.
	[ "$(jq -r 'select(.metric) | .metric' shard-1.jsonl | tr '\n' ' ')" = "sum_ns count_below_ns " ]
	[ "$(jq -r 'select(.metric) | .metric' shard-2.jsonl)" = matmul_ns ]
	[ "$(tail -n 1 shard-2.jsonl | jq -c '[.metrics, .unbudgeted]')" = '[1,[]]' ]
	# Each shard measured only its share (BENCH_CASES).
	[ "$(jq -r 'keys[] | select(endswith("_ns"))' runs-2.jsonl | sort -u)" = matmul_ns ]
	run -0 --separate-stderr mergeshards -n 3 -m verdict.md shard-*.jsonl
	[ "$(last | jq -c '[.verdict, .metrics, .shards]')" = '["ok",4,3]' ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .metric' | sort | tr '\n' ' ')" = "count_below_ns matmul_ns rmsnorm_ns sum_ns " ]
	[ "$(last | jq -r .budget_sha256)" = "$(sha256sum < loose.toml | cut -c1-64)" ]
	grep -q '^| matmul_ns |' verdict.md
	# Two of the three are not the whole.
	run -2 --separate-stderr mergeshards -n 3 shard-1.jsonl shard-3.jsonl
	[ "$(last | jq -r .error)" = "2 shards given, 3 expected" ]
	# A shard of a 2-way split overlaps the 3-way split's first.
	run -0 --separate-stderr make -C "$TOP" --no-print-directory gate GATE_SHARD=1/2 GATEDIR="$T/gate" BUDGET="$T/loose.toml"
	cp "$T/gate/verdict.jsonl" half-1.jsonl
	run -2 --separate-stderr mergeshards shard-1.jsonl half-1.jsonl
	[ "$(last | jq -r .error)" = "half-1.jsonl:2: metric count_below_ns also in shard-1.jsonl:2: the shards overlap" ]
	# A shard that is not i/n cannot be decided, before anything is built.
	run -2 --separate-stderr make -C "$TOP" --no-print-directory gate GATE_SHARD=5/4 GATEDIR="$T/gate" BUDGET="$T/loose.toml"
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r '[.verdict, .step] | join(" ")')" = "error shard" ]
}

@test "mergeshards: a shard's error reaches verdict.md as text: no tag, no new line, no heading; escaped once in the record" {
	shard 1 2
	printf '%s\n' '{"verdict":"error","error":"head: run: <img src=x onerror=alert(1)> `x` *y* [l](u)\n# pwned","side":"head","step":"run","shard":"2/2"}' > "$T/shard-2.jsonl"
	run -2 --separate-stderr mergeshards -m "$T/v.md" "$T/shard-1.jsonl" "$T/shard-2.jsonl"
	[ "$(last | jq -r .error)" = "$T/shard-2.jsonl: the shard could not be decided: head: run: <img src=x onerror=alert(1)> \`x\` *y* [l](u)
# pwned" ]
	[ "$(head -n 1 "$T/v.md")" = "**cmpbudget: error**: $T/shard-2.jsonl: the shard could not be decided: head: run: &lt;img src=x onerror=alert(1)&gt; \\\`x\\\` \\*y\\* \\[l\\](u)\\u000a# pwned" ]
	run -1 grep -q '^#' "$T/v.md"
	run -1 grep -q '<' "$T/v.md"
}
