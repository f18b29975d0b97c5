#!/usr/bin/env bats
# noisesum: the sum of an A/A study from the gates' verdict records: false
# alarms counted from the summaries, each metric's worst drift byte for
# byte, the smallest budget that holds rounded up to a whole percent, and
# every input it cannot sum refused with file and line.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T"
}

# gate FILE VERDICT NAME=DELTA ...: one gate's verdict records as cmpbudget
# writes them (the members noisesum reads), each metric at budget 0.25
# unless NAME=DELTA/BUDGET, higher-is-better when NAME ends in ^. The
# summary names budget $BUDGET (b.toml) and digest $SHA (5a5a).
gate() {
	local file=$1 verdict=$2 m name delta budget better n=0
	shift 2
	: > "$file"
	for m in "$@"; do
		name=${m%%=*} delta=${m#*=} budget=0.25 better=lower
		case $delta in */*) budget=${delta#*/} delta=${delta%/*} ;; esac
		case $name in *^) name=${name%^} better=higher ;; esac
		printf '{"metric":"%s","base":8.0,"head":8.0,"delta":%s,"budget":%s,"verdict":"ok","better":"%s"}\n' \
		    "$name" "$delta" "$budget" "$better" >> "$file"
		n=$((n + 1))
	done
	printf '{"verdict":"%s","regressed":[],"metrics":%d,"improved":[],"unbudgeted":[],"budget":"%s","budget_sha256":"%s"}\n' \
	    "$verdict" "$n" "${BUDGET:-b.toml}" "${SHA:-5a5a}" >> "$file"
}

@test "noisesum: a false alarm in two gates: the record, the line, exit 1" {
	gate g1.jsonl regressed x_ns=0.3125 y_ns=0.01/0.1
	gate g2.jsonl ok x_ns=0 y_ns=0.02/0.1
	run -1 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$output" = '{"gates":2,"false_alarms":1,"budget":"b.toml","budget_sha256":"5a5a","margin":1.5,"false_claims":1,"undecided":0,"worst_drift":{"x_ns":0.3125,"y_ns":0.02},"budgets":{"x_ns":0.25,"y_ns":0.1},"smallest_budget":{"x_ns":0.47,"y_ns":0.03},"judged":{"x_ns":2,"y_ns":2}}' ]
	[ "$stderr" = "noise: 1 false alarms, 1 false claims either way, 0 undecided in 2 gates at b.toml; worst drift: x_ns +31.2 % (budget 25 %, 47 % would hold), y_ns +2.0 % (budget 10 %, 3 % would hold)" ]
	# The same records on standard input, one gate after the other.
	run -1 --separate-stderr bash -c 'cat g1.jsonl g2.jsonl | noisesum'
	[ "$(printf '%s\n' "$output" | jq -c '[.gates, .false_alarms, .smallest_budget.x_ns]')" = '[2,1,0.47]' ]
	# No gate regressed: 0.
	gate g1.jsonl ok x_ns=0.3125
	run -0 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$(printf '%s\n' "$output" | jq .false_alarms)" = 0 ]
}

@test "noisesum: the margin's product rounds up to a whole percent, and not past one that holds" {
	gate g.jsonl ok a_ns=0.2 b_ns=0.3125 c_ns=0.0066 d_ns=0.0067 e_ns=0.07 f_ns=0.29 g_ns=0.14
	run -0 --separate-stderr noisesum g.jsonl
	# 0.2 x 1.5 is 0.30000000000000004 in binary: 0.3 holds, not 0.31.
	# 0.0099 is 1 %; 0.01005 is 2 %; 0.435 is 44 %; 0.21000000000000002 is 21 %.
	[ "$(printf '%s\n' "$output" | jq -c .smallest_budget)" = '{"a_ns":0.3,"b_ns":0.47,"c_ns":0.01,"d_ns":0.02,"e_ns":0.11,"f_ns":0.44,"g_ns":0.21}' ]
	run -0 --separate-stderr noisesum -m 1 g.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.margin, .smallest_budget.e_ns, .smallest_budget.f_ns]')" = '[1,0.07,0.29]' ]
	run -0 --separate-stderr noisesum -m 2 g.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.margin, .smallest_budget.b_ns, .smallest_budget.a_ns]')" = '[2,0.63,0.4]' ]
	[[ "$stderr" == *"b_ns +31.2 % (budget 25 %, 63 % would hold)"* ]]
}

@test "noisesum: a negative drift is the worst when every gate was faster, and asks for 1 %" {
	gate g1.jsonl ok x_ns=-0.05
	gate g2.jsonl ok x_ns=-0.02
	gate g3.jsonl ok x_ns=-0.04
	run -0 --separate-stderr noisesum g1.jsonl g2.jsonl g3.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.worst_drift.x_ns, .smallest_budget.x_ns]')" = '[-0.02,0.01]' ]
	[[ "$stderr" == *"worst drift: x_ns -2.0 % (budget 25 %, 1 % would hold)" ]]
}

@test "noisesum: where higher is better, the worst drift is the smallest delta" {
	gate g1.jsonl ok ops^=-0.12/0.2 x_ns=0.1
	gate g2.jsonl ok ops^=0.3/0.2 x_ns=-0.3
	run -0 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.worst_drift, .smallest_budget]')" = '[{"ops":-0.12,"x_ns":0.1},{"ops":0.18,"x_ns":0.15}]' ]
	[[ "$stderr" == *"ops -12.0 % (budget 20 %, 18 % would hold), x_ns +10.0 % (budget 25 %, 15 % would hold)" ]]
}

@test "noisesum: a metric in only some gates is summed over those, and says so" {
	gate g1.jsonl ok x_ns=0.1 y_ns=0.05
	gate g2.jsonl ok x_ns=0.2
	gate g3.jsonl ok z_ns=0.01 x_ns=0.15
	run -0 --separate-stderr noisesum g1.jsonl g2.jsonl g3.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.worst_drift, .judged]')" = '[{"x_ns":0.2,"y_ns":0.05,"z_ns":0.01},{"x_ns":3,"y_ns":1,"z_ns":1}]' ]
	[[ "$stderr" == *"x_ns +20.0 % (budget 25 %, 30 % would hold), y_ns +5.0 % (budget 25 %, 8 % would hold, judged in 1 of 3 gates), z_ns "* ]]
}

@test "noisesum: numbers selected pass byte for byte, the first of equal drifts kept" {
	gate g1.jsonl ok x_ns=3.125e-1/0.250
	gate g2.jsonl ok x_ns=0.3125/0.25
	run -0 --separate-stderr noisesum g1.jsonl g2.jsonl
	[[ "$output" == *'"worst_drift":{"x_ns":3.125e-1},"budgets":{"x_ns":0.250},'* ]]
	# A budget path with a quote is copied as written, and read as meant.
	BUDGET='my \"b\".toml' gate g1.jsonl ok x_ns=0.1
	run -0 --separate-stderr noisesum g1.jsonl
	[ "$(printf '%s\n' "$output" | jq -r .budget)" = 'my "b".toml' ]
	[[ "$stderr" == 'noise: 0 false alarms, 0 false claims either way, 0 undecided in 1 gates at my "b".toml; '* ]]
}

@test "noisesum: an improvement on unchanged code is a false claim too (exit 1); an undecided gate is counted, not a claim" {
	gate g1.jsonl ok x_ns=-0.3
	sed -i 's/"improved":\[\]/"improved":["x_ns"]/' g1.jsonl
	gate g2.jsonl undecided x_ns=0.1
	run -1 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.gates, .false_alarms, .false_claims, .undecided]')" = '[2,0,1,1]' ]
	[[ "$stderr" == "noise: 0 false alarms, 1 false claims either way, 1 undecided in 2 gates at b.toml; "* ]]
	gate g1.jsonl ok x_ns=0
	run -0 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.false_claims, .undecided]')" = '[0,1]' ]
}

@test "noisesum: the records of cmpbudget, as a gate writes them" {
	D=$DATA/cmpbudget
	cmpbudget -b "$D/budget.toml" "$D/worked.jsonl" > g1.jsonl 2>/dev/null || [ $? -eq 1 ]
	cmpbudget -b "$D/budget.toml" "$D/worked.jsonl" > g2.jsonl 2>/dev/null || [ $? -eq 1 ]
	run -1 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.gates, .false_alarms, .budget_sha256 == "'"$(sha256sum < "$D/budget.toml" | cut -c1-64)"'"]')" = '[2,2,true]' ]
	[[ "$output" == *'"worst_drift":{"a_ns":0.19999999999999996,"b_ns":1,"c_ns":0.25,"d_ns":0.25125},'* ]]
	[[ "$output" == *'"smallest_budget":{"a_ns":0.3,"b_ns":1.5,"c_ns":0.38,"d_ns":0.38},'* ]]
}

@test "noisesum: a line that is not JSON is exit 2 naming file and line, nothing on stdout" {
	gate g1.jsonl ok x_ns=0.1
	{ head -n 1 g1.jsonl; printf '{"metric":"x_ns",\n'; } > bad.jsonl
	run -2 --separate-stderr noisesum g1.jsonl bad.jsonl
	[ "$output" = "" ]
	[[ "$stderr" == "noisesum: bad.jsonl:2: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -2 --separate-stderr bash -c "printf '[1]\\n' | noisesum"
	[ "$stderr" = "noisesum: <stdin>:1: not a JSON object" ]
	run -2 --separate-stderr noisesum none.jsonl
	[ "$stderr" = "noisesum: none.jsonl: No such file or directory" ]
}

@test "noisesum: empty input, blank lines only, or a gate cut short: no gate to sum" {
	: > empty.jsonl
	run -2 --separate-stderr noisesum empty.jsonl
	[ "$stderr" = "noisesum: empty.jsonl: no gate (no summary record)" ]
	[ "$output" = "" ]
	run -2 --separate-stderr noisesum < /dev/null
	[ "$stderr" = "noisesum: <stdin>: no gate (no summary record)" ]
	printf '\n  \n' > blank.jsonl
	run -2 --separate-stderr noisesum blank.jsonl
	[ "$stderr" = "noisesum: blank.jsonl: no gate (no summary record)" ]
	gate g1.jsonl ok x_ns=0.1
	head -n 1 g1.jsonl > cut.jsonl
	run -2 --separate-stderr noisesum g1.jsonl cut.jsonl
	[ "$stderr" = "noisesum: cut.jsonl: metric records after the last summary: a gate cut short" ]
	{ cat g1.jsonl; head -n 1 g1.jsonl; } > more.jsonl
	run -2 --separate-stderr noisesum more.jsonl
	[ "$stderr" = "noisesum: more.jsonl: metric records after the last summary: a gate cut short" ]
}

@test "noisesum: a gate that could not be decided makes the study undecided" {
	gate g1.jsonl ok x_ns=0.1
	printf '%s\n' '{"verdict":"error","error":"both: judge: cmpbudget failed (status 139)","side":"both","step":"judge"}' > err.jsonl
	run -2 --separate-stderr noisesum g1.jsonl err.jsonl
	[ "$stderr" = "noisesum: err.jsonl:1: a gate that could not be decided: both: judge: cmpbudget failed (status 139)" ]
	# A metric without a delta: the summary's reason is the better one.
	{ printf '%s\n' '{"metric":"x_ns","delta":null,"budget":0.25,"verdict":"error"}'; cat err.jsonl; } > nodelta.jsonl
	run -2 --separate-stderr noisesum nodelta.jsonl
	[ "$stderr" = "noisesum: nodelta.jsonl:2: a gate that could not be decided: both: judge: cmpbudget failed (status 139)" ]
	# And when the summary does not say so, the metric's.
	{ printf '%s\n' '{"metric":"x_ns","delta":null,"budget":0.25,"verdict":"error"}'; tail -n 1 g1.jsonl; } > odd.jsonl
	run -2 --separate-stderr noisesum odd.jsonl
	[ "$stderr" = "noisesum: odd.jsonl:1: x_ns has no delta: not judged" ]
}

@test "noisesum: records that are not one study's are refused with file and line" {
	gate g1.jsonl ok x_ns=0.1
	SHA=6b6b gate g2.jsonl ok x_ns=0.1
	run -2 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$stderr" = "noisesum: g2.jsonl:2: judged by another budget than g1.jsonl:2: b.toml (sha256 6b6b) against b.toml (sha256 5a5a)" ]
	gate g2.jsonl ok x_ns=0.1/0.3
	run -2 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$stderr" = "noisesum: g2.jsonl:1: x_ns: budget 0.3 here, 0.25 at g1.jsonl:1" ]
	gate g2.jsonl ok x_ns^=0.1
	run -2 --separate-stderr noisesum g1.jsonl g2.jsonl
	[ "$stderr" = "noisesum: g2.jsonl:1: x_ns: \"better\" is higher here, lower at g1.jsonl:1" ]
	gate g2.jsonl ok x_ns=0.1 x_ns=0.2
	run -2 --separate-stderr noisesum g2.jsonl
	[ "$stderr" = "noisesum: g2.jsonl:2: x_ns twice in one gate" ]
	{ head -n 1 g1.jsonl; printf '%s\n' '{"verdict":"ok","metrics":2,"budget":"b.toml","budget_sha256":"5a5a"}'; } > count.jsonl
	run -2 --separate-stderr noisesum count.jsonl
	[ "$stderr" = "noisesum: count.jsonl:2: the summary counts 2 metrics, the gate holds 1" ]
	printf '%s\n' '{"verdict":"ok","metrics":0}' > nobudget.jsonl
	run -2 --separate-stderr noisesum nobudget.jsonl
	[ "$stderr" = "noisesum: nobudget.jsonl:1: the summary names no budget (\"budget\" and \"budget_sha256\")" ]
	printf '%s\n' '{"x_ns":1}' > other.jsonl
	run -2 --separate-stderr noisesum other.jsonl
	[ "$stderr" = "noisesum: other.jsonl:1: neither a metric record nor a summary (no \"metric\", no \"verdict\")" ]
	printf '%s\n' '{"metric":"x_ns","delta":"0.1","budget":0.25}' > str.jsonl
	run -2 --separate-stderr noisesum str.jsonl
	[ "$stderr" = "noisesum: str.jsonl:1: x_ns: \"delta\" is not a number" ]
	printf '%s\n' '{"metric":"x_ns","delta":0.1,"budget":0.25,"better":"up"}' > up.jsonl
	run -2 --separate-stderr noisesum up.jsonl
	[ "$stderr" = "noisesum: up.jsonl:1: x_ns: \"better\" is neither \"lower\" nor \"higher\"" ]
}

@test "noisesum: a drift no budget can hold is exit 2" {
	gate g.jsonl ok x_ns=1e300
	run -2 --separate-stderr noisesum g.jsonl
	[ "$stderr" = "noisesum: g.jsonl:1: x_ns: a drift of 1e300 is past any budget" ]
	[ "$output" = "" ]
}

@test "noisesum: -n, the old letter of -q, is refused in one line naming -q" {
	run -2 --separate-stderr noisesum -n -m 2
	[ "$stderr" = "noisesum: -n is now -q (check the options only)" ]
	[ -z "$output" ]
}

@test "noisesum: -q checks the options only; a margin out of range is a usage error" {
	run -0 --separate-stderr noisesum -q -m 2
	[ "$output" = "" ]
	run -2 --separate-stderr noisesum -q -m 0.5
	[ "${stderr_lines[0]}" = "noisesum: -m 0.5: out of range" ]
	run -2 --separate-stderr noisesum -m x g.jsonl
	[ "${stderr_lines[0]}" = "noisesum: -m x: not a number" ]
	run -2 --separate-stderr noisesum -q g.jsonl
	[[ "${stderr_lines[0]}" == "usage: noisesum "* ]]
	bad_options noisesum m
}

@test "noisesum: the usage line is the man page's SYNOPSIS" {
	check_synopsis noisesum
}

@test "noisesum: -V prints the version; the man page's footer names it" {
	run -0 --separate-stderr noisesum -V
	[ "$output" = "noisesum $(cat "$TOP/VERSION")" ]
	grep -qx ".Os perfgate $(cat "$TOP/VERSION")" "$TOP/man/noisesum.1"
}

@test "noisesum: a full stdout is exit 2" {
	[ -w /dev/full ] || skip "no /dev/full"
	gate g.jsonl regressed x_ns=0.1
	run -2 --separate-stderr bash -c 'noisesum g.jsonl > /dev/full'
	[ "${stderr_lines[-1]}" = "noisesum: write stdout: No space left on device" ]
}

# The man page's EXAMPLES, in its order; each has a test of its own below.
examples=(
	'noisesum -m 2 build/gate/noise/*/verdict.jsonl'
	'noisesum build/gate/noise/*/verdict.jsonl | jq -c .smallest_budget'
)

@test "noisesum: man page EXAMPLES are the ones tested here" {
	check_examples noisesum "${examples[@]}"
}

# A study as make noise leaves it: three gates and its own record.
study() {
	mkdir -p build/gate/noise/1 build/gate/noise/2 build/gate/noise/3
	gate build/gate/noise/1/verdict.jsonl ok sum_ns=0.04/0.2 matmul_ns=-0.01/0.3
	gate build/gate/noise/2/verdict.jsonl regressed sum_ns=0.21/0.2 matmul_ns=0.06/0.3
	gate build/gate/noise/3/verdict.jsonl ok sum_ns=0.1/0.2 matmul_ns=0.02/0.3
	echo '{}' > build/gate/noise/noise.jsonl
}

@test "noisesum: man example: noisesum -m 2 build/gate/noise/*/verdict.jsonl" {
	study
	run -1 --separate-stderr noisesum -m 2 build/gate/noise/*/verdict.jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.gates, .false_alarms, .margin, .smallest_budget]')" = '[3,1,2,{"sum_ns":0.42,"matmul_ns":0.12}]' ]
}

@test "noisesum: man example: noisesum build/gate/noise/*/verdict.jsonl | jq -c .smallest_budget" {
	study
	run -0 --separate-stderr bash -c 'noisesum build/gate/noise/*/verdict.jsonl | jq -c .smallest_budget'
	[ "$output" = '{"sum_ns":0.32,"matmul_ns":0.09}' ]
}

@test "noisesum: -i, perfgate -i's question: a metric improved beyond its budget (1) or none did (0), nothing written" {
	# A time metric's verdict, and a summary's list.
	gate g.jsonl ok x_ns=-0.3
	run -0 --separate-stderr noisesum -i g.jsonl
	[ "$output" = "" ] && [ "$stderr" = "" ]
	sed 's/"verdict":"ok","better"/"verdict":"improved","better"/' g.jsonl > v.jsonl
	run -1 --separate-stderr noisesum -i v.jsonl
	[ "$output" = "" ] && [ "$stderr" = "" ]
	sed 's/"improved":\[\]/"improved":["x_ns"]/' g.jsonl > s.jsonl
	run -1 --separate-stderr noisesum -i s.jsonl
	# A count (no rounds) below its base by more than its budget, as counts
	# mode writes it; at the budget's edge, or where higher is better, not.
	printf '%s\n' '{"metric":"a_instr","base":100,"head":97,"delta":-0.03,"budget":0.02,"verdict":"ok"}' \
	    '{"verdict":"ok","regressed":[],"metrics":1,"mode":"counts"}' > c.jsonl
	run -1 --separate-stderr noisesum -i c.jsonl
	printf '%s\n' '{"metric":"a_instr","base":100,"head":98,"delta":-0.02,"budget":0.02,"verdict":"ok"}' > c.jsonl
	run -0 --separate-stderr noisesum -i c.jsonl
	printf '%s\n' '{"metric":"a_ops","base":100,"head":50,"delta":-0.5,"budget":0.02,"verdict":"ok","better":"higher"}' > c.jsonl
	run -0 --separate-stderr noisesum -i c.jsonl
	# On standard input; a line that is not JSON names file and line.
	run -1 --separate-stderr bash -c 'noisesum -i < v.jsonl'
	printf '{"metric":\n' > bad.jsonl
	run -2 --separate-stderr noisesum -i bad.jsonl
	[[ "$stderr" == "noisesum: bad.jsonl:1: "* ]]
}

@test "noisesum: -b, perfgate bisect's record: confirmed (0), not borne out (1), a gate that could not say (2)" {
	run -0 --separate-stderr noisesum -b -- g0 b0 c0 'fx: a "sum"; $x' 6 1 1 0
	[ "$output" = '{"bisect":"regressed","commit":"c0","subject":"fx: a \"sum\"; $x","confirmed":true,"culprit_vs_parent":"regressed","parent_vs_good":"ok","steps":6,"skipped":1,"good":"g0","bad":"b0"}' ]
	[ "$stderr" = "against its parent: regressed; its parent against g0: ok (confirmed)" ]
	run -1 --separate-stderr noisesum -b -i -- g0 b0 c0 s 6 0 1 1
	[ "$(jq -c '[.bisect, .confirmed, .culprit_vs_parent, .parent_vs_good]' <<< "$output")" = '["improved",false,"improved","improved"]' ]
	[ "$stderr" = "against its parent: improved; its parent against g0: improved (NOT confirmed)" ]
	run -2 --separate-stderr noisesum -b -- g0 b0 c0 s 6 0 1 2
	[ "$(jq -r .parent_vs_good <<< "$output")" = error ]
	# A subject's control bytes are escaped, as every record's.
	run -0 --separate-stderr noisesum -b -- g0 b0 c0 $'a\tb\001' 1 0 1 0
	[ "$(jq -r .subject <<< "$output")" = $'a\tb\001' ]
	# Eight operands, counts that are numbers.
	run -2 --separate-stderr noisesum -b g0 b0 c0 s 6 0 1
	[[ "${stderr_lines[-1]}" == "usage: noisesum "* ]]
	run -2 --separate-stderr noisesum -b g0 b0 c0 s six 0 1 0
	[[ "$stderr" == "noisesum: -b: six: "* ]]
	[ "$output" = "" ]
}
