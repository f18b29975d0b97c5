#!/usr/bin/env bats
# cmpbudget: the verdict of two sides' statistics against a budget file.
load common

D=$DATA/cmpbudget

setup() {
	cd "$BATS_TEST_TMPDIR"
	# The summary names the budget file as given: copies keep that name short and fixed.
	cp "$D/budget.toml" "$D/quart.toml" "$D/alt.toml" .
}

# The members a record gains without -r, after "quartiles".
NORATIO='"better":"lower","rounds":null,"ratio":null,"ratio_lo":null,"ratio_hi":null,"confidence":0.95,"floor":null,"outcome":null'
# The SHA-256 of a file, as cmpbudget prints it.
sha() {
	sha256sum <"$1" | cut -c1-64
}

W_SHA=5a5a4bc20115be49c680a41eeaf61acc5aff01fdf8d13a94c3e84869b480955d

# One metric, budget 0.25, base 8.0: the rows of the issue's worked example.
row() {
	printf '[budget]\nx_ns = 0.25\n' >b.toml
	printf '{"side":"base","stat":"min","n":3,"x_ns":8.0}\n{"side":"head","stat":"min","n":3,"x_ns":%s}\n' "$1" >in.jsonl
	run -"$2" --separate-stderr cmpbudget -b b.toml in.jsonl
	[ "$(echo "${lines[0]}" | jq -r .verdict)" = "$3" ]
	[[ "${lines[0]}" == *"\"base\":8.0,\"head\":$1,"* ]]
}

# A budget file with one line (and what precedes it) must fail with this message.
badbudget() {
	printf '%b' "$1" >b.toml
	run -2 --separate-stderr cmpbudget -b b.toml "$D/worked.jsonl"
	[ "$stderr" = "cmpbudget: b.toml:$2" ]
	[ "$(echo "$output" | jq -r .error)" = "b.toml:$2" ]
}

# Input that must fail with exactly this message, the summary record still written.
badinput() {
	run -2 --separate-stderr cmpbudget -b budget.toml "$1"
	[ "$stderr" = "cmpbudget: $2" ]
	[ "$output" = "$(printf '{"verdict":"error","regressed":[],"metrics":4,"error":"%s","improved":[],"unbudgeted":[],"budget":"budget.toml","budget_sha256":"%s"}' "$(printf '%s' "$2" | sed 's/"/\\"/g')" "$W_SHA")" ]
}

@test "cmpbudget worked example 8.0 -> 9.6 at 0.25 is ok" {
	row 9.6 0 ok
}

@test "cmpbudget worked example 8.0 -> 16.0 at 0.25 regressed" {
	row 16.0 1 regressed
}

@test "cmpbudget worked example 8.0 -> 10.0 at 0.25 is ok: the bound is inclusive" {
	row 10.0 0 ok
	[ "$(echo "${lines[0]}" | jq -r .delta)" = 0.25 ]
}

@test "cmpbudget worked example 8.0 -> 10.01 at 0.25 regressed" {
	row 10.01 1 regressed
}

@test "cmpbudget worked example: all four rows, in the budget file's order, summary last" {
	run -1 --separate-stderr cmpbudget -b budget.toml "$D/worked.jsonl"
	[ "$output" = "$(cat "$D/worked.out")" ]
	[ "${lines[4]}" = '{"verdict":"regressed","regressed":["b_ns","d_ns"],"metrics":4,"improved":[],"unbudgeted":[],"budget":"budget.toml","budget_sha256":"'$W_SHA'"}' ]
}

@test "cmpbudget passes base and head through byte for byte and prints delta exactly" {
	printf '[budget]\nx_ns = 0.5\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":1.50e2}\n{"side":"head","stat":"min","x_ns":0.0000151E7}\n' >in.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml in.jsonl
	[ "${lines[0]}" = '{"metric":"x_ns","base":1.50e2,"head":0.0000151E7,"delta":0.006666666666666599,"budget":0.5,"verdict":"ok","quartiles":null,'$NORATIO',"budget_sha256":"'$(sha b.toml)'"}' ]
	[ "${lines[1]}" = '{"verdict":"ok","regressed":[],"metrics":1,"improved":[],"unbudgeted":[],"budget":"b.toml","budget_sha256":"'$(sha b.toml)'"}' ]
}

@test "cmpbudget exits 0 when nothing regressed" {
	printf 'allow_loose = true\n[budget]\nb_ns = 1\nd_ns = 0.3\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml "$D/worked.jsonl"
	[ "${lines[2]}" = '{"verdict":"ok","regressed":[],"metrics":2,"improved":[],"unbudgeted":["a_ns","c_ns"],"budget":"b.toml","budget_sha256":"'$(sha b.toml)'"}' ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "cmpbudget quartiles: slower, faster, tie; stdout, table and markdown match the golden files" {
	run -1 --separate-stderr cmpbudget -b quart.toml -m out.md "$D/quart.jsonl"
	[ "$output" = "$(cat "$D/quart.out")" ]
	[ "$stderr" = "$(cat "$D/quart.err")" ]
	cmp out.md "$D/quart.md"
	[ ! -e out.md.tmp ]
}

@test "cmpbudget table right-aligns numbers under their headers" {
	run -1 --separate-stderr cmpbudget -b quart.toml "$D/quart.jsonl"
	[ "${stderr_lines[0]}" = 'metric   base  head    Δ %  budget %  verdict    ratio (95% CI)  outcome' ]
	[ "${stderr_lines[2]}" = 'fast_ns   100    80  -20.0        10  improved   -               -' ]
}

@test "cmpbudget quartiles that touch are a tie: the opinion needs a gap" {
	printf '[budget]\nup_ns = 0.5\ndown_ns = 0.5\n' >b.toml
	{ echo '{"side":"base","stat":"min","up_ns":10,"down_ns":10}'
	  echo '{"side":"base","stat":"q1","up_ns":11,"down_ns":11}'
	  echo '{"side":"base","stat":"q3","up_ns":12,"down_ns":12}'
	  echo '{"side":"head","stat":"min","up_ns":12,"down_ns":9}'
	  echo '{"side":"head","stat":"q1","up_ns":12,"down_ns":10}'
	  echo '{"side":"head","stat":"q3","up_ns":13,"down_ns":11}'; } >in.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml in.jsonl
	[ "$(echo "$output" | jq -r 'select(.metric) | .quartiles' | tr '\n' ' ')" = 'tie tie ' ]
	sed -i 's/"up_ns":12,"down_ns":10/"up_ns":12.5,"down_ns":10/; s/"up_ns":13,"down_ns":11/"up_ns":13,"down_ns":10.5/' in.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml in.jsonl
	[ "$(echo "$output" | jq -r 'select(.metric) | .quartiles' | tr '\n' ' ')" = 'slower faster ' ]
}

@test "cmpbudget quartiles are null when a side lacks q3" {
	grep -v '"head","stat":"q3"' "$D/quart.jsonl" >in.jsonl
	run -1 --separate-stderr cmpbudget -b quart.toml in.jsonl
	[ "$(echo "$output" | jq -r 'select(.metric) | .quartiles' | sort -u)" = null ]
	[ "${stderr_lines[1]}" = 'slow_ns   100   120  +20.0        10  regressed  -               -' ]
}

@test "cmpbudget does not judge a metric that the budget does not name, but names it" {
	run -1 --separate-stderr cmpbudget -b quart.toml "$D/quart.jsonl"
	[ "$(echo "$output" | jq -r 'select(.metric) | .metric' | tr '\n' ' ')" = 'slow_ns fast_ns tie_ns ' ]
	[ "$(echo "${lines[-1]}" | jq -c .unbudgeted)" = '["extra_kb"]' ]
	[[ "$(printf '%s\n' "${stderr_lines[@]:0:4}")" != *extra_kb* ]]
	[ "${stderr_lines[4]}" = 'cmpbudget: not in the budget, not judged: extra_kb' ]
}

@test "cmpbudget -b defaults to budget.toml in the current directory" {
	cp "$D/quart.toml" budget.toml
	run -1 --separate-stderr cmpbudget "$D/quart.jsonl"
	[ "$output" = "$(sed '$s/"budget":"quart.toml"/"budget":"budget.toml"/' "$D/quart.out")" ]
	rm budget.toml
	run -2 --separate-stderr cmpbudget "$D/quart.jsonl"
	[ "$stderr" = "cmpbudget: budget.toml: No such file or directory" ]
	[ "$output" = '{"verdict":"error","regressed":[],"metrics":0,"error":"budget.toml: No such file or directory","improved":[],"unbudgeted":[]}' ]
}

@test "cmpbudget -k -B -H -s compare other sides on another statistic" {
	run -0 --separate-stderr cmpbudget -b alt.toml -k build -B old -H new -s median "$D/alt.jsonl"
	[ "${lines[0]}" = '{"metric":"parse_ns","base":60,"head":61,"delta":0.016666666666666607,"budget":0.05,"verdict":"ok","quartiles":null,'$NORATIO',"budget_sha256":"'$(sha alt.toml)'"}' ]
	run -1 --separate-stderr cmpbudget -b alt.toml -k build -B old -H new "$D/alt.jsonl"
	[ "$(echo "${lines[0]}" | jq -c '[.base,.head,.verdict]')" = '[50,70,"regressed"]' ]
}

@test "cmpbudget -B and -H swap the roles of the sides" {
	run -1 --separate-stderr cmpbudget -b quart.toml -B head -H base "$D/quart.jsonl"
	[ "$(echo "${lines[0]}" | jq -c '[.base,.head,.verdict,.quartiles]')" = '[120,100,"improved","faster"]' ]
	[ "${lines[3]}" = '{"verdict":"regressed","regressed":["fast_ns"],"metrics":3,"improved":["slow_ns"],"unbudgeted":["extra_kb"],"budget":"quart.toml","budget_sha256":"'$(sha quart.toml)'"}' ]
}

@test "cmpbudget -s q1 compares the first quartiles" {
	run -1 --separate-stderr cmpbudget -b quart.toml -s q1 "$D/quart.jsonl"
	[ "$(echo "${lines[0]}" | jq -c '[.base,.head,.quartiles]')" = '[105,125,"slower"]' ]
}

@test "cmpbudget -k naming a member that records lack is exit 2" {
	run -2 --separate-stderr cmpbudget -b quart.toml -k build "$D/quart.jsonl"
	[ "$stderr" = "cmpbudget: $D/quart.jsonl:1: no string \"build\": not a record of minjson" ]
}

@test "cmpbudget reads standard input, '-', and sides split over several files" {
	run -1 --separate-stderr sh -c 'cmpbudget -b "$1" <"$2"' sh quart.toml "$D/quart.jsonl"
	[ "$output" = "$(cat "$D/quart.out")" ]
	grep '"base"' "$D/quart.jsonl" >base.jsonl
	grep '"head"' "$D/quart.jsonl" >head.jsonl
	run -1 --separate-stderr sh -c 'cmpbudget -b "$1" base.jsonl - <head.jsonl' sh quart.toml
	[ "$output" = "$(cat "$D/quart.out")" ]
}

@test "cmpbudget -m on an error writes the reason as the verdict line" {
	run -2 --separate-stderr cmpbudget -b budget.toml -m out.md "$D/quart.jsonl"
	[ "$(sed -n 1p out.md)" = '**cmpbudget: error**: a_ns: missing on side "base"' ]
	[ "$(sed -n 5p out.md)" = '| a_ns | - | - | - | 25 | **error** | - | - |' ]
}

@test "cmpbudget -m on an ok run writes a headline and the table" {
	printf 'allow_loose = true\n[budget]\nb_ns = 1\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml -m out.md "$D/worked.jsonl"
	[ "$(sed -n 1p out.md)" = '**cmpbudget: ok**: 1 metric within budget' ]
	[ "$(sed -n 5p out.md)" = '| b_ns | 8 | 16 | +100.0 | 100 | ok | - | - |' ]
}

@test "cmpbudget -m into a directory that does not exist is exit 2, summary says error" {
	run -2 --separate-stderr cmpbudget -b budget.toml -m nodir/out.md "$D/worked.jsonl"
	[ "${stderr_lines[-1]}" = 'cmpbudget: nodir/out.md.tmp: No such file or directory' ]
	[ "$(echo "${lines[-1]}" | jq -r .verdict)" = error ]
}

@test "cmpbudget a metric missing on one side is exit 2, other metrics still judged" {
	sed 's/,"d_ns":10.01//' "$D/worked.jsonl" >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "${lines[3]}" = '{"metric":"d_ns","base":8.0,"head":null,"delta":null,"budget":0.25,"verdict":"error","quartiles":null,'$NORATIO',"budget_sha256":"'$W_SHA'"}' ]
	[ "${lines[4]}" = '{"verdict":"error","regressed":["b_ns"],"metrics":4,"error":"d_ns: missing on side \"head\"","improved":[],"unbudgeted":[],"budget":"budget.toml","budget_sha256":"'$W_SHA'"}' ]
	[ "${stderr_lines[-1]}" = 'cmpbudget: d_ns: missing on side "head"' ]
}

@test "cmpbudget a metric that is not a number is exit 2" {
	sed 's/"d_ns":10.01/"d_ns":"fast"/' "$D/worked.jsonl" >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "${stderr_lines[-1]}" = 'cmpbudget: d_ns: not a number on side "head"' ]
}

@test "cmpbudget a missing side is exit 2" {
	grep '"base"' "$D/worked.jsonl" >in.jsonl
	badinput in.jsonl 'no record of side "head" with stat "min"'
	run -2 --separate-stderr cmpbudget -b budget.toml -s median "$D/worked.jsonl"
	[ "$stderr" = 'cmpbudget: no record of side "base" with stat "median"' ]
}

@test "cmpbudget base 0 and base -0 are exit 2: no ratio" {
	sed 's/"a_ns":8.0/"a_ns":0/' "$D/worked.jsonl" >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "${lines[0]}" = '{"metric":"a_ns","base":0,"head":9.6,"delta":null,"budget":0.25,"verdict":"error","quartiles":null,'$NORATIO',"budget_sha256":"'$W_SHA'"}' ]
	[ "${stderr_lines[-1]}" = 'cmpbudget: a_ns: base 0 is not above 0: no ratio' ]
	sed 's/"a_ns":8.0/"a_ns":-0/' "$D/worked.jsonl" >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "${stderr_lines[-1]}" = 'cmpbudget: a_ns: base -0 is not above 0: no ratio' ]
}

@test "cmpbudget head -0 is zero time: improved, delta -1; a negative head is exit 2" {
	sed 's/"a_ns":9.6/"a_ns":-0/' "$D/worked.jsonl" >in.jsonl
	run -1 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "${lines[0]}" = '{"metric":"a_ns","base":8.0,"head":-0,"delta":-1,"budget":0.25,"verdict":"improved","quartiles":null,'$NORATIO',"budget_sha256":"'$W_SHA'"}' ]
	sed 's/"a_ns":9.6/"a_ns":-1/' "$D/worked.jsonl" >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "${stderr_lines[-1]}" = 'cmpbudget: a_ns: head -1 is below 0' ]
}

@test "cmpbudget a second record for the same side and stat is exit 2" {
	cat "$D/worked.jsonl" "$D/worked.jsonl" >in.jsonl
	badinput in.jsonl 'in.jsonl:3: second record for side "base", stat "min" (first at in.jsonl:1)'
}

@test "cmpbudget a record without stat is exit 2" {
	echo '{"side":"base","round":1,"a_ns":8}' >in.jsonl
	badinput in.jsonl 'in.jsonl:1: no string "stat": not a record of minjson'
}

@test "cmpbudget empty input is exit 2" {
	: >in.jsonl
	badinput in.jsonl 'in.jsonl: no records to compare'
	run -2 --separate-stderr cmpbudget -b budget.toml </dev/null
	[ "$stderr" = 'cmpbudget: <stdin>: no records to compare' ]
}

@test "cmpbudget a truncated last line is exit 2 with its line number" {
	cat "$D/worked.jsonl" >in.jsonl
	printf '{"side":"head","stat":"q1","a_ns":9' >>in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[[ "$stderr" == "cmpbudget: in.jsonl:3: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$(echo "$output" | jq -r .verdict)" = error ]
}

@test "cmpbudget CRLF line ends are read as LF ones" {
	sed 's/$/\r/' "$D/worked.jsonl" >in.jsonl
	run -1 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "$output" = "$(cat "$D/worked.out")" ]
}

@test "cmpbudget a 1 MB record is read; a 1 MB line of garbage is exit 2" {
	pad=$(head -c 1048576 /dev/zero | tr '\0' x)
	{ printf '{"side":"base","stat":"min","note":"%s","a_ns":8.0,"b_ns":8.0,"c_ns":8.0,"d_ns":8.0}\n' "$pad"
	  sed -n 2p "$D/worked.jsonl"; } >in.jsonl
	run -1 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[ "$output" = "$(cat "$D/worked.out")" ]
	{ cat "$D/worked.jsonl"; printf '%s\n' "$pad"; } >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[[ "$stderr" == "cmpbudget: in.jsonl:3: "* ]]
	[ "${#stderr}" -lt 200 ]
}

@test "cmpbudget deep nesting is exit 2" {
	python3 -c 'print("{\"side\":\"base\",\"stat\":\"min\",\"a\":" + "[" * 100000 + "]" * 100000 + "}")' >in.jsonl
	badinput in.jsonl 'in.jsonl:1: nesting deeper than 512'
}

@test "cmpbudget duplicate keys in a record are exit 2" {
	echo '{"side":"base","stat":"min","a_ns":8,"a_ns":9}' >in.jsonl
	badinput in.jsonl 'in.jsonl:1: duplicate key "a_ns"'
}

@test "cmpbudget NaN and Infinity are exit 2" {
	echo '{"side":"base","stat":"min","a_ns":NaN}' >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[[ "$stderr" == "cmpbudget: in.jsonl:1: "* ]]
	echo '{"side":"base","stat":"min","a_ns":-Infinity}' >in.jsonl
	run -2 --separate-stderr cmpbudget -b budget.toml in.jsonl
	[[ "$stderr" == "cmpbudget: in.jsonl:1: "* ]]
	[ "$(echo "$output" | jq -r .verdict)" = error ]
}

@test "cmpbudget 1e400 is exit 2: out of double range" {
	echo '{"side":"base","stat":"min","a_ns":1e400}' >in.jsonl
	badinput in.jsonl 'in.jsonl:1: number out of range'
}

@test "cmpbudget non-UTF-8 bytes are exit 2" {
	printf '{"side":"base\377","stat":"min"}\n' >in.jsonl
	badinput in.jsonl 'in.jsonl:1: invalid UTF-8 in string'
}

@test "cmpbudget an input file that cannot be opened is exit 2" {
	badinput nothere.jsonl 'nothere.jsonl: No such file or directory'
}

@test "cmpbudget budget file: a key given twice" {
	badbudget '[budget]\na_ns = 0.25\n\na_ns = 0.3\n' '4: duplicate key a_ns (first on line 2)'
}

@test "cmpbudget budget file: a section given twice" {
	badbudget '[budget]\na_ns = 0.25\n[budget]\n' '3: duplicate section [budget] (first on line 1)'
}

@test "cmpbudget budget file: budgets of 0, below 0, not a number, out of range" {
	badbudget '[budget]\na_ns = 0\n' '2: budget of a_ns must be above 0'
	badbudget '[budget]\na_ns = -0.1\n' '2: budget of a_ns must be above 0'
	badbudget '[budget]\na_ns = "0.25"\n' '2: budget of a_ns is not a number'
	badbudget '[budget]\na_ns = 1e400\n' '2: budget of a_ns is out of range'
	badbudget '[budget]\na_ns = nan\n' '2: expected a number, true, false or a "string"'
	badbudget '[budget]\na_ns = 0x10\n' '2: expected a number, true, false or a "string"'
	badbudget '[budget]\na_ns = .5\n' '2: expected a number, true, false or a "string"'
	badbudget '[budget]\na_ns = true\n' '2: budget of a_ns is not a number'
}

@test "cmpbudget budget file: an empty or missing [budget]" {
	badbudget '# only runs\nruns = 3\n[budget]\n# nothing\n' '3: [budget] names no metric'
	printf 'runs = 3\n' >b.toml
	run -2 --separate-stderr cmpbudget -b b.toml "$D/worked.jsonl"
	[ "$stderr" = 'cmpbudget: b.toml: no [budget] section' ]
}

@test "cmpbudget budget file: bad syntax, with its line number" {
	badbudget '[budget]\na_ns 0.25\n' "2: expected '=' after the key"
	badbudget '[budget\n' "1: expected ']' after the section name"
	badbudget '[]\n' "1: expected a section name after '['"
	badbudget '[budget] x\n' "1: unexpected text after ']'"
	badbudget '[budget]\na_ns = 0.25 0.3\n' '2: unexpected text after the value'
	badbudget '[budget]\na_ns =\n' "2: expected a value after '='"
	badbudget '[budget]\n"a_ns" = 1\n' "2: expected 'key = value', a [section] or a comment"
	badbudget 'name = "open\n[budget]\n' '1: unterminated string'
	badbudget 'name = "a\\q"\n' '1: unknown escape in string'
	badbudget '# \377\n' '1: invalid UTF-8'
}

@test "cmpbudget budget file: runs must be a whole number from 2, the contract's least" {
	badbudget 'runs = 2.5\n[budget]\na_ns = 0.5\n' '1: runs must be a whole number from 2 to 1000000'
	badbudget 'runs = 0\n[budget]\na_ns = 0.5\n' '1: runs must be a whole number from 2 to 1000000'
	badbudget 'runs = 1\n[budget]\na_ns = 0.5\n' '1: runs must be a whole number from 2 to 1000000'
	badbudget 'runs = 1000001\n[budget]\na_ns = 0.5\n' '1: runs must be a whole number from 2 to 1000000'
	printf 'runs = 2\n[budget]\na_ns = 0.5\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml -q
	[ "$output" = 2 ]
}

@test "cmpbudget budget file: comments, CRLF, strings and other sections are accepted" {
	printf '# top\r\nruns = 3 # rounds\r\nname = "a # not a comment \\" \\u00e9"\r\n\r\n[gate]\r\ncc = "gcc"\r\n[budget]   # here\r\n  a_ns=0.25\t# worked\r\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml "$D/worked.jsonl"
	[ "${lines[1]}" = '{"verdict":"ok","regressed":[],"metrics":1,"improved":[],"unbudgeted":["b_ns","c_ns","d_ns"],"budget":"b.toml","budget_sha256":"'$(sha b.toml)'"}' ]
}

@test "cmpbudget budget file: [counts] takes budgets of 0 or more, by the same rules" {
	badbudget '[budget]\na_ns = 0.5\n[counts]\na_instr = -0.1\n' '4: budget of a_instr must be 0 or more in [counts]'
	badbudget '[budget]\na_ns = 0.5\n[counts]\na_instr 1\n' "4: expected '=' after the key"
	badbudget '[budget]\na_ns = 0.5\n[counts]\na_ns = 0\n' '4: a_ns is budgeted twice (first on line 2)'
	badbudget '[counts]\na_instr = 0\na_instr = 1\n' '3: duplicate key a_instr (first on line 2)'
}

@test "cmpbudget neither judges the [counts] metrics nor lists them as unbudgeted" {
	printf '[budget]\na_ns = 0.25\n[counts]\nb_ns = 0\nx_allocs = 0\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml "$D/worked.jsonl"
	[ "${#lines[@]}" = 2 ]
	[ "$(jq -c '[.metrics, .unbudgeted]' <<<"${lines[1]}")" = '[1,["c_ns","d_ns"]]' ]
}

@test "cmpbudget usage errors are exit 2 with the usage line" {
	usage='usage: cmpbudget [-V] [-Epqu] [-b budget] [-B base] [-c confidence] [-f floor] [-H head] [-k key] [-M metrics] [-m markdown] [-N noise] [-O oldbudget] [-r runs] [-s stat] [-S side=stat] [file ...]'
	run -2 --separate-stderr cmpbudget -x
	[ "${stderr_lines[0]}" = 'cmpbudget: unknown option -x' ]
	[ "${stderr_lines[1]}" = "$usage" ]
	[ -z "$output" ]
	run -2 --separate-stderr cmpbudget -b
	[ "${stderr_lines[0]}" = 'cmpbudget: option -b needs an argument' ]
	run -2 --separate-stderr cmpbudget -k '' "$D/worked.jsonl"
	[ "${stderr_lines[1]}" = "$usage" ]
	run -2 --separate-stderr cmpbudget -B same -H same "$D/worked.jsonl"
	[ "$stderr" = 'cmpbudget: -B and -H name the same side "same"' ]
}

@test "cmpbudget a full stdout is exit 2" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -2 --separate-stderr sh -c 'cmpbudget -b "$1" "$2" >/dev/full' sh budget.toml "$D/worked.jsonl"
	[ "${stderr_lines[-1]}" = 'cmpbudget: write stdout: No space left on device' ]
}

@test "cmpbudget -m to a device writes it in place and leaves the device alone" {
	mkfifo md.fifo
	cat md.fifo >md.copy &
	run -1 --separate-stderr cmpbudget -b budget.toml -m md.fifo "$D/worked.jsonl"
	wait
	[ -p md.fifo ]
	grep -q '^| metric |' md.copy
	run -2 --separate-stderr cmpbudget -b budget.toml -m /dev/full "$D/worked.jsonl"
	[ "${stderr_lines[-1]}" = 'cmpbudget: write /dev/full: No space left on device' ]
	[ -c /dev/full ]
}

# Paired ratios, -n, -S, -u, [higher]: issue 10's additions.

@test "cmpbudget budget file: a [budget] of 1 or more lets a 2x slowdown pass: refused unless allow_loose = true" {
	badbudget '[budget]\na_ns = 0.5\nb_ns = 1\n' '3: budget of b_ns must be below 1: 1 lets a 2x slowdown pass (allow_loose = true at the top if that is meant)'
	badbudget '[budget]\na_ns = 1.5\n' '2: budget of a_ns must be below 1: 1.5 lets a 2.5x slowdown pass (allow_loose = true at the top if that is meant)'
	badbudget 'allow_loose = false\n[budget]\na_ns = 1\n' '3: budget of a_ns must be below 1: 1 lets a 2x slowdown pass (allow_loose = true at the top if that is meant)'
	badbudget 'allow_loose = 1\n[budget]\na_ns = 1\n' '1: allow_loose must be true or false'
	badbudget 'allow_loose = "true"\n[budget]\na_ns = 1\n' '1: allow_loose must be true or false'
	# In a section it is a metric's name, not the file's switch.
	badbudget '[budget]\nallow_loose = true\n' '2: budget of allow_loose is not a number'
	printf 'allow_loose = true\n[budget]\na_ns = 1\nb_ns = 99\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml -q
	[ "$output" = 12 ]
	# [higher] stays below 1 whatever the file says: at 1 nothing could regress.
	badbudget 'allow_loose = true\n[higher]\na_ns = 1\n' '3: budget of a_ns must be below 1 in [higher]'
}

@test "cmpbudget budget file: [accuracy] takes 0 or more ulp, each case once; [counts] 0 or more, finite" {
	badbudget '[budget]\na_ns = 0.5\n[accuracy]\nsum = -1\n' '4: budget of sum must be 0 or more in [accuracy]'
	badbudget '[budget]\na_ns = 0.5\n[accuracy]\nsum = "4"\n' '4: budget of sum is not a number'
	badbudget '[budget]\na_ns = 0.5\n[accuracy]\nsum = 1e999\n' '4: budget of sum is out of range'
	badbudget '[budget]\na_ns = 0.5\n[counts]\na_instr = 1e999\n' '4: budget of a_instr is out of range'
	# A case is named apart from the metrics: sum beside sum_ns, or even a_ns.
	printf '[budget]\na_ns = 0.5\n[counts]\na_allocs = 3\n[accuracy]\na_ns = 0\nsum = 0.5\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml -q
}

@test "cmpbudget budget file: a UTF-8 byte order mark at the start is not line 1's text; elsewhere it is refused" {
	printf '\357\273\277runs = 4\n[budget]\na_ns = 0.5\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml -q
	[ "$output" = 4 ]
	printf '\357\273\277[budget]\na_ns = 0.25\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml "$D/worked.jsonl"
	[ "$(jq -r .budget_sha256 <<<"${lines[-1]}")" = "$(sha b.toml)" ]
	badbudget '[budget]\n\357\273\277a_ns = 0.5\n' "2: a key is ASCII letters, digits, '_' and '-'"
	badbudget '\357\273\277\357\273\277[budget]\na_ns = 0.5\n' "1: a key is ASCII letters, digits, '_' and '-'"
}

@test "cmpbudget budget file: a key is ASCII letters, digits, _ and -: a metric named otherwise is refused, naming the rule" {
	badbudget '[budget]\ngr\303\266\303\237e_ns = 0.5\n' "2: a key is ASCII letters, digits, '_' and '-'"
	badbudget '[budget]\n\303\251_ns = 0.5\n' "2: a key is ASCII letters, digits, '_' and '-'"
	# Such a metric in the records stays unbudgeted, named as such.
	printf '[budget]\nx_ns = 0.5\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":1,"gr\303\266\303\237e_ns":1}\n{"side":"head","stat":"min","x_ns":1,"gr\303\266\303\237e_ns":1}\n' >in.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml in.jsonl
	[ "$(jq -c .unbudgeted <<<"${lines[-1]}")" = "$(printf '["gr\303\266\303\237e_ns"]')" ]
	run -2 --separate-stderr cmpbudget -u -b b.toml in.jsonl
}

# The base budget of -O's tests: every section it compares.
O_BASE='runs = 3\n[budget]\na_ns = 0.2\nx_ops = 0.1\n[counts]\nx_instr = 0.02\n[accuracy]\nsum = 0\n'

# changed HEAD STATUS LINE: cmpbudget -O on O_BASE and HEAD (printf %b)
# exits STATUS and says the one change LINE on stderr.
changed() {
	printf '%b' "$O_BASE" >base.toml
	printf '%b' "$1" >head.toml
	run -"$2" --separate-stderr cmpbudget -b head.toml -O base.toml
	[ "$stderr" = "$3" ] || { echo "stderr: $stderr"; return 1; }
	[ "${#lines[@]}" -eq 2 ]
}

@test "cmpbudget -O: a metric moved from [budget] to [higher] loosens, exit 1" {
	changed 'runs = 3\n[budget]\na_ns = 0.2\n[higher]\nx_ops = 0.1\n[counts]\nx_instr = 0.02\n[accuracy]\nsum = 0\n' 1 \
	    'x_ops: moved from [budget] to [higher], 0.1 to 0.1, looser'
	[ "${lines[0]}" = '{"key":"x_ops","base_section":"budget","head_section":"higher","base":0.1,"head":0.1,"default":null,"change":"moved","loosens":true,"base_line":4,"head_line":5}' ]
	[ "${lines[1]}" = '{"changes":1,"loosened":["x_ops"],"base":"base.toml","base_sha256":"'$(sha base.toml)'","head":"head.toml","head_sha256":"'$(sha head.toml)'"}' ]
}

@test "cmpbudget -O: a time moved to [counts] loosens too, exit 1" {
	changed 'runs = 3\n[budget]\nx_ops = 0.1\n[counts]\na_ns = 0.2\nx_instr = 0.02\n[accuracy]\nsum = 0\n' 1 \
	    'a_ns: moved from [budget] to [counts], 0.2 to 0.2, looser'
}

@test "cmpbudget -O: a [counts] budget raised loosens, exit 1" {
	changed "$(printf '%b' "$O_BASE" | sed 's/^x_instr = 0.02$/x_instr = 99/')" 1 '[counts] x_instr: 0.02 to 99, looser'
	[ "$(jq -c '[.key, .base_section, .head_section, .base, .head, .change, .loosens]' <<<"${lines[0]}")" = '["x_instr","counts","counts",0.02,99,"looser",true]' ]
}

@test "cmpbudget -O: an [accuracy] budget raised loosens, exit 1" {
	changed "$(printf '%b' "$O_BASE" | sed 's/^sum = 0$/sum = 4/')" 1 '[accuracy] sum: 0 to 4, looser'
}

@test "cmpbudget -O: a metric removed loosens, exit 1; a count removed loosens unless its default is tighter" {
	changed "$(printf '%b' "$O_BASE" | sed '/^a_ns/d')" 1 '[budget] a_ns: removed (was 0.2), looser'
	[ "$(jq -c '[.head_section, .head, .change, .loosens, .head_line]' <<<"${lines[0]}")" = '[null,null,"removed",true,null]' ]
	changed "$(printf '%b' "$O_BASE" | sed '/^sum/d')" 1 '[accuracy] sum: removed (was 0), looser'
	changed "$(printf '%b' "$O_BASE" | sed 's/^x_instr = 0.02$/x_instr = 0.01/')" 0 '[counts] x_instr: 0.02 to 0.01, tighter'
	printf '%b' "$O_BASE" | sed 's/^x_instr = 0.02$/x_instr = 0.01/' >base.toml
	printf '%b' "$O_BASE" | sed '/^x_instr/d' >head.toml
	run -1 --separate-stderr cmpbudget -b head.toml -O base.toml
	[ "$stderr" = '[counts] x_instr: removed (was 0.01; 0.02 by default), looser' ]
	printf '%b' "$O_BASE" | sed 's/^x_instr = 0.02$/x_instr = 0.05/' >base.toml
	run -0 --separate-stderr cmpbudget -b head.toml -O base.toml
	[ "$stderr" = '[counts] x_instr: removed (was 0.05; 0.02 by default)' ]
}

@test "cmpbudget -O: runs lowered loosens, exit 1; raised or absent at its default 12 does not" {
	changed "$(printf '%b' "$O_BASE" | sed 's/^runs = 3$/runs = 2/')" 1 'runs: 3 to 2, looser'
	[ "$(jq -c '[.key, .base_section, .head_section, .base, .head]' <<<"${lines[0]}")" = '["runs","","",3,2]' ]
	changed "$(printf '%b' "$O_BASE" | sed 's/^runs = 3$/runs = 8/')" 0 'runs: 3 to 8, tighter'
	# Absent, runs is 12: removing 12 changes nothing, removing 20 loosens.
	printf '%b' "$O_BASE" | sed 's/^runs = 3$/runs = 12/' >base.toml
	printf '%b' "$O_BASE" | sed '/^runs/d' >head.toml
	run -0 --separate-stderr cmpbudget -b head.toml -O base.toml
	[ -z "$stderr" ]
	printf '%b' "$O_BASE" | sed 's/^runs = 3$/runs = 20/' >base.toml
	run -1 --separate-stderr cmpbudget -b head.toml -O base.toml
	[ "$stderr" = 'runs: removed (was 20; 12 by default), looser' ]
	printf '%b' "$O_BASE" | sed '/^runs/d' >base.toml
	printf '%b' "$O_BASE" | sed 's/^runs = 3$/runs = 2/' >head.toml
	run -1 --separate-stderr cmpbudget -b head.toml -O base.toml
	[ "$stderr" = 'runs: added (now 2; 12 by default), looser' ]
}

@test "cmpbudget -O: a [budget] raised loosens, exit 1, and allow_loose with it is a loosening of its own" {
	changed "$(printf '%b' "$O_BASE" | sed 's/^a_ns = 0.2$/a_ns = 0.3/')" 1 '[budget] a_ns: 0.2 to 0.3, looser'
	printf '%b' "$O_BASE" >base.toml
	printf '%b' "$O_BASE" | sed 's/^runs = 3$/&\nallow_loose = true/; s/^a_ns = 0.2$/a_ns = 99/' >head.toml
	run -1 --separate-stderr cmpbudget -b head.toml -O base.toml
	[ "$stderr" = "$(printf 'allow_loose: added (now true; false by default), looser\n[budget] a_ns: 0.2 to 99, looser')" ]
	[ "$(jq -c '[.key, .head, .default, .change]' <<<"${lines[0]}")" = '["allow_loose",true,false,"added"]' ]
	[ "$(jq -c .loosened <<<"${lines[2]}")" = '["allow_loose","a_ns"]' ]
}

@test "cmpbudget -O: a tightening and an added metric are said and pass, exit 0; spelling, order and comments are no change" {
	changed "$(printf '%b' "$O_BASE" | sed 's/^a_ns = 0.2$/a_ns = 0.1/')" 0 '[budget] a_ns: 0.2 to 0.1, tighter'
	[ "$(jq -c '[.change, .loosens]' <<<"${lines[0]}")" = '["tighter",false]' ]
	changed "$(printf '%b' "$O_BASE" | sed 's/^a_ns = 0.2$/&\nb_ns = 0.9/')" 0 '[budget] b_ns: added (now 0.9)'
	printf '%b' "$O_BASE" >base.toml
	printf '# reordered\nruns = 3\n[accuracy]\nsum = 0.0 # ulp\n\n[counts]\nx_instr = 2e-2\n[budget]\nx_ops = 0.10\na_ns = 0.20\n' >head.toml
	run -0 --separate-stderr cmpbudget -b head.toml -O base.toml -m changes.md
	[ -z "$stderr" ]
	[ "$output" = '{"changes":0,"loosened":[],"base":"base.toml","base_sha256":"'$(sha base.toml)'","head":"head.toml","head_sha256":"'$(sha head.toml)'"}' ]
	[ -f changes.md ] && [ ! -s changes.md ]
}

@test "cmpbudget -O: a budget file that cannot be read is exit 2 with file:line, in the summary and the Markdown" {
	printf '%b' "$O_BASE" >base.toml
	printf 'runs = 1\n[budget]\na_ns = 0.2\n' >head.toml
	run -2 --separate-stderr cmpbudget -b head.toml -O base.toml -m changes.md
	[ "$stderr" = 'cmpbudget: head.toml:1: runs must be a whole number from 2 to 1000000' ]
	[ "$(jq -c '[.changes, .loosened, .error]' <<<"$output")" = '[0,[],"head.toml:1: runs must be a whole number from 2 to 1000000"]' ]
	[ "$(cat changes.md)" = '- **cmpbudget: error**: head.toml:1: runs must be a whole number from 2 to 1000000' ]
	# Both named when both are bad, the head's first; a missing file has no digest.
	run -2 --separate-stderr cmpbudget -b head.toml -O nothere.toml
	[ "${stderr_lines[0]}" = 'cmpbudget: head.toml:1: runs must be a whole number from 2 to 1000000' ]
	[ "${stderr_lines[1]}" = 'cmpbudget: nothere.toml: No such file or directory' ]
	[ "$(jq -c 'has("base_sha256")' <<<"$output")" = false ]
	# Markup in a reason stays text.
	printf '[budget]\n<b>x</b> = 0.1\n' >head.toml
	run -2 --separate-stderr cmpbudget -b head.toml -O base.toml -m changes.md
	[ "$(cat changes.md)" = "- **cmpbudget: error**: head.toml:2: expected 'key = value', a \\[section\\] or a comment" ]
}

@test "cmpbudget -O goes with -b and -m only" {
	printf '%b' "$O_BASE" >base.toml
	for o in -q -E -p -u '-r runs.jsonl' '-M a_ns' '-N 0.1' '-f 0.1' stats.jsonl; do
		run -2 --separate-stderr cmpbudget -b base.toml -O base.toml $o
		[ "$stderr" = 'cmpbudget: -O compares two budget files: only -b and -m go with it' ] || { echo "$o: $stderr"; return 1; }
		[ -z "$output" ]
	done
}

@test "cmpbudget -q prints the budget file's runs, 12 when it has none" {
	run -0 --separate-stderr cmpbudget -b "$D/pairs.toml" -q
	[ "$output" = 8 ]
	[ -z "$stderr" ]
	printf '[budget]\na_ns = 0.5\n' >b.toml
	run -0 --separate-stderr cmpbudget -b b.toml -q
	[ "$output" = 12 ]
}

@test "cmpbudget -n, the old letter of -q, is refused in one line naming -q (exit 2, nothing on stdout)" {
	run -2 --separate-stderr cmpbudget -b "$D/pairs.toml" -n
	[ "$stderr" = "cmpbudget: -n is now -q (check the budget file only)" ]
	[ -z "$output" ]
}

@test "cmpbudget -q on a bad budget file is exit 2 with file:line and nothing on stdout" {
	printf 'runs = 3.5\n[budget]\na_ns = 0.5\n' >b.toml
	run -2 --separate-stderr cmpbudget -b b.toml -q
	[ "$stderr" = 'cmpbudget: b.toml:1: runs must be a whole number from 2 to 1000000' ]
	[ -z "$output" ]
	printf '# runs as a string\nruns = "4"\n[budget]\na_ns = 0.5\n' >b.toml
	run -2 --separate-stderr cmpbudget -b b.toml -q
	[ "$stderr" = 'cmpbudget: b.toml:2: runs must be a whole number from 2 to 1000000' ]
	[ -z "$output" ]
	run -2 --separate-stderr cmpbudget -b nothere.toml -q
	[ "$stderr" = 'cmpbudget: nothere.toml: No such file or directory' ]
}

@test "cmpbudget names the budget file and its SHA-256 in every record" {
	run -1 --separate-stderr cmpbudget -b quart.toml "$D/quart.jsonl"
	[ "$(echo "$output" | jq -r .budget_sha256 | sort -u)" = "$(sha256sum <quart.toml | cut -c1-64)" ]
	[ "$(echo "${lines[-1]}" | jq -r .budget)" = quart.toml ]
}

@test "cmpbudget -S base=max judges base's maximum against head's minimum" {
	printf '[budget]\nx_ns = 0.25\n' >b.toml
	{ echo '{"side":"base","stat":"min","x_ns":8}'
	  echo '{"side":"base","stat":"max","x_ns":9}'
	  echo '{"side":"head","stat":"min","x_ns":10.5}'
	  echo '{"side":"head","stat":"max","x_ns":12}'; } >in.jsonl
	run -1 --separate-stderr cmpbudget -b b.toml in.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.base,.head,.verdict]')" = '[8,10.5,"regressed"]' ]
	run -0 --separate-stderr cmpbudget -b b.toml -S base=max in.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.base,.head,.verdict]')" = '[9,10.5,"ok"]' ]
	run -1 --separate-stderr cmpbudget -b b.toml -S head=max -s max in.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.base,.head,.verdict]')" = '[9,12,"regressed"]' ]
	run -2 --separate-stderr cmpbudget -b b.toml -S base=median in.jsonl
	[ "$stderr" = 'cmpbudget: no record of side "base" with stat "median"' ]
}

@test "cmpbudget -c takes a confidence between 0 and 1, -f a floor from 0" {
	run -2 --separate-stderr cmpbudget -c 1 "$D/worked.jsonl"
	[ "$stderr" = 'cmpbudget: -c 1: the confidence must be above 0 and below 1' ]
	run -2 --separate-stderr cmpbudget -c 0 "$D/worked.jsonl"
	[ "$stderr" = 'cmpbudget: -c 0: the confidence must be above 0 and below 1' ]
	run -2 --separate-stderr cmpbudget -f -0.1 "$D/worked.jsonl"
	[ "$stderr" = 'cmpbudget: -f -0.1: out of range' ]
	[ -z "$output" ]
}

@test "cmpbudget -S takes base=stat or head=stat" {
	run -2 --separate-stderr cmpbudget -S old=max "$D/worked.jsonl"
	[ "${stderr_lines[0]}" = 'cmpbudget: -S old=max: expected base=stat or head=stat' ]
	[[ "${stderr_lines[1]}" == 'usage: cmpbudget '* ]]
	run -2 --separate-stderr cmpbudget -S base= "$D/worked.jsonl"
	[ "${stderr_lines[0]}" = 'cmpbudget: -S base=: expected base=stat or head=stat' ]
}

@test "cmpbudget improvements beyond the mirror are improved, listed, and do not fail" {
	printf '[budget]\nx_ns = 0.25\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":8.0}\n{"side":"head","stat":"min","x_ns":%s}\n' 6.0 >in.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml -m out.md in.jsonl
	[ "$(echo "$output" | jq -c '[.verdict,.improved]' | tr '\n' ' ')" = '["ok",null] ["ok",[]] ' ]
	printf '{"side":"base","stat":"min","x_ns":8.0}\n{"side":"head","stat":"min","x_ns":%s}\n' 5.99 >in.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml -m out.md in.jsonl
	[ "$(echo "$output" | jq -c '[.verdict,.improved]' | tr '\n' ' ')" = '["improved",null] ["ok",["x_ns"]] ' ]
	[[ "${stderr_lines[1]}" == 'x_ns       8  5.99  -25.1        25  improved  '* ]]
	[ "$(sed -n 1p out.md)" = '**cmpbudget: ok**: 1 metric within budget; improved: `x_ns`' ]
}

@test "cmpbudget [higher]: a throughput regresses when it falls below base (1 - budget)" {
	printf '[higher]\nops = 0.25\n' >b.toml
	for h in 6.0:ok 5.99:regressed 10.0:ok 10.01:improved; do
		printf '{"side":"base","stat":"min","ops":8.0}\n{"side":"head","stat":"min","ops":%s}\n' "${h%:*}" >in.jsonl
		run --separate-stderr cmpbudget -b b.toml in.jsonl
		[ "$(echo "${lines[0]}" | jq -r '.better + " " + .verdict')" = "higher ${h#*:}" ]
	done
	[ "${stderr_lines[1]}" = 'ops ↑      8  10.01  +25.1        25  improved  -               -' ]
}

@test "cmpbudget [higher]: budgets below 1, a metric in one section only" {
	badbudget '[higher]\na_ns = 1\n' '2: budget of a_ns must be below 1 in [higher]'
	badbudget '[budget]\na_ns = 0.1\n[higher]\na_ns = 0.1\n' '4: a_ns is budgeted twice (first on line 2)'
	badbudget '[higher]\n[budget]\n' '1: [budget] names no metric'
}

@test "cmpbudget -u makes a metric that the budget does not name an error" {
	run -2 --separate-stderr cmpbudget -b quart.toml -u "$D/quart.jsonl"
	[ "$(echo "${lines[-1]}" | jq -c '[.verdict,.error,.unbudgeted]')" = '["error","extra_kb: not in the budget file (-u)",["extra_kb"]]' ]
	[ "${stderr_lines[-1]}" = 'cmpbudget: extra_kb: not in the budget file (-u)' ]
}

@test "cmpbudget -r: paired ratios say slower, faster and same, and name each side" {
	minjson -x round,slot,load -s min "$D/pairs.jsonl" >stats.jsonl
	run -1 --separate-stderr cmpbudget -b "$D/pairs.toml" -r "$D/pairs.jsonl" stats.jsonl
	[ "$output" = "$(sed "s|\"budget\":\"pairs.toml\"|\"budget\":\"$D/pairs.toml\"|" "$D/pairs.out")" ]
	[ "$stderr" = "$(cat "$D/pairs.err")" ]
	[ "$(echo "${lines[-1]}" | jq -c '[.base,.head]')" = '[{"source":"sha256:aaaa","cc":"cc 12"},{"source":"sha256:bbbb","cc":"cc 12"}]' ]
}

@test "cmpbudget -r: the interval is the order statistics [r(k), r(n+1-k)] of the sorted ratios" {
	printf '[budget]\nx_ns = 0.2\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":100}\n{"side":"head","stat":"min","x_ns":100}\n' >stats.jsonl
	# Ratios 1.01 .. 1.09 in a shuffled order: 9 rounds at 0.95 give k = 2.
	for r in 1:105 2:101 3:109 4:103 5:107 6:102 7:108 8:104 9:106; do
		printf '{"side":"base","round":%s,"x_ns":100}\n{"side":"head","round":%s,"x_ns":%s}\n' "${r%:*}" "${r%:*}" "${r#*:}"
	done >runs.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.rounds,.ratio,.ratio_lo,.ratio_hi,.floor,.outcome]')" = '[9,1.05,1.02,1.08,0.05,"same"]' ]
	run -0 --separate-stderr cmpbudget -b b.toml -f 0.01 -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.ratio_lo,.ratio_hi,.floor,.outcome]')" = '[1.02,1.08,0.01,"slower"]' ]
	[[ "${stderr_lines[1]}" == *'  1.050 [1.020,1.080]  slower' ]]
	# At 0.99, 9 rounds give only k = 1: the extremes.
	run -0 --separate-stderr cmpbudget -b b.toml -c 0.99 -f 0.01 -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.ratio_lo,.ratio_hi,.confidence]')" = '[1.01,1.09,0.99]' ]
	[ "${stderr_lines[0]}" = 'metric  base  head   Δ %  budget %  verdict  ratio (99% CI)       outcome' ]
	[ "${stderr_lines[1]}" = 'x_ns     100   100  +0.0        20  ok       1.050 [1.010,1.090]  same' ]
}

@test "cmpbudget -r: k is the largest whose sign-test coverage reaches the confidence, n = 1 to 40" {
	printf '[budget]\nx_ns = 0.2\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":1000}\n{"side":"head","stat":"min","x_ns":1000}\n' >stats.jsonl
	# Round r has the ratio 1 + r / 1000, so ratio_lo names k; want.txt has
	# the exact k from the binomial distribution.
	/usr/bin/python3 -c '
from math import comb
with open("want.txt", "w") as w:
    for conf in (0.9, 0.95, 0.99):
        for n in range(1, 41):
            k = 0
            while 2 * (k + 1) <= n and 1 - 2 * sum(comb(n, i) for i in range(k + 1)) / 2 ** n >= conf:
                k += 1
            w.write("%g %d %d\n" % (conf, n, k))
for n in range(1, 41):
    with open("runs%d.jsonl" % n, "w") as f:
        for r in range(1, n + 1):
            f.write("{\"side\":\"base\",\"round\":%d,\"x_ns\":1000}\n{\"side\":\"head\",\"round\":%d,\"x_ns\":%d}\n" % (r, r, 1000 + r))'
	while read -r conf n k; do
		printf '%s %s ' "$conf" "$n"
		cmpbudget -b b.toml -c "$conf" -r "runs$n.jsonl" stats.jsonl 2>/dev/null | head -n 1
	done <want.txt >got.txt
	[ "$(wc -l <got.txt)" -eq 120 ]
	paste -d ' ' <(cut -d ' ' -f 1,2 got.txt) <(cut -d ' ' -f 3- got.txt |
	    jq -r 'if .ratio_lo == null then 0 else .ratio_lo * 1000 - 1000 | round end') >k.txt
	diff want.txt k.txt
}

@test "cmpbudget -r: 3 rounds are too few at 0.95, enough at 0.75" {
	printf '[budget]\nx_ns = 0.2\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":100}\n{"side":"head","stat":"min","x_ns":150}\n' >stats.jsonl
	for r in 1 2 3; do
		printf '{"side":"base","round":%s,"x_ns":100}\n{"side":"head","round":%s,"x_ns":15%s}\n' $r $r $r
	done >runs.jsonl
	run -1 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.rounds,.ratio,.ratio_lo,.ratio_hi,.outcome]')" = '[3,1.52,null,null,"too few rounds"]' ]
	[[ "${stderr_lines[1]}" == *'  1.520           too few rounds' ]]
	run -1 --separate-stderr cmpbudget -b b.toml -c 0.75 -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.ratio_lo,.ratio_hi,.outcome]')" = '[1.51,1.53,"slower"]' ]
}

@test "cmpbudget -r: identical sides never cry wolf, even over many rounds" {
	printf '[budget]\nx_ns = 0.2\ny_ns = 0.2\n' >b.toml
	# A machine that drifts and wobbles, the same for both sides: 40 rounds.
	/usr/bin/python3 -c '
import random
random.seed(7)
for r in range(1, 41):
    for s in ("base", "head"):
        print("{\"side\":\"%s\",\"round\":%d,\"x_ns\":%.1f,\"y_ns\":%.1f}" % (s, r,
            100 * (1 + r / 40) * random.uniform(0.9, 1.3), 50 * random.lognormvariate(0, 0.1)))' >runs.jsonl
	minjson -x round -s min runs.jsonl >stats.jsonl
	run --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "$output" | jq -r 'select(.metric) | .outcome' | sort -u)" = same ]
}

@test "cmpbudget -r: a side's identity must not change, a round must not repeat" {
	printf '[budget]\nx_ns = 0.2\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":100}\n{"side":"head","stat":"min","x_ns":100}\n' >stats.jsonl
	printf '{"side":"base","cc":"a","round":1,"x_ns":1}\n{"side":"base","cc":"b","round":2,"x_ns":1}\n' >runs.jsonl
	run -2 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[ "$stderr" = 'cmpbudget: runs.jsonl:2: the string members of side "base" differ from its first record'"'"'s (line 1)' ]
	printf '{"side":"base","cc":"a","round":1,"x_ns":1}\n{"side":"base","round":2,"x_ns":1}\n' >runs.jsonl
	run -2 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[[ "$stderr" == 'cmpbudget: runs.jsonl:2: the string members of side "base" differ'* ]]
	printf '{"side":"base","round":1,"x_ns":1}\n{"side":"head","round":1,"x_ns":1}\n{"side":"head","round":1,"x_ns":1}\n' >runs.jsonl
	run -2 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[ "$stderr" = 'cmpbudget: runs.jsonl:3: second record for side "head", round 1 (first at line 2)' ]
	[ "$(echo "$output" | jq -r .verdict)" = error ]
	printf '{"side":"base","x_ns":1}\n' >runs.jsonl
	run -2 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[ "$stderr" = 'cmpbudget: runs.jsonl:1: no number "round": not a record of alternate' ]
	run -2 --separate-stderr cmpbudget -b b.toml -r nothere.jsonl stats.jsonl
	[ "$stderr" = 'cmpbudget: nothere.jsonl: No such file or directory' ]
}

@test "cmpbudget the table of the kata's four metrics fits in 100 columns" {
	printf '[budget]\nmatmul_ns = 0.3\nsum_ns = 0.2\nrmsnorm_ns = 0.2\ncount_below_ns = 0.2\n' >b.toml
	printf '{"side":"base","stat":"min","matmul_ns":708131.2,"sum_ns":758.7568359375,"rmsnorm_ns":6192.3,"count_below_ns":82.74074074074075}\n' >stats.jsonl
	printf '{"side":"head","stat":"min","matmul_ns":5366712,"sum_ns":14283.1,"rmsnorm_ns":99600.7,"count_below_ns":247.64}\n' >>stats.jsonl
	for r in 1 2 3 4 5 6; do
		printf '{"side":"base","round":%s,"matmul_ns":708131.2,"sum_ns":758.7,"rmsnorm_ns":6192.3,"count_below_ns":82.7}\n' $r
		printf '{"side":"head","round":%s,"matmul_ns":5366712,"sum_ns":14283.1,"rmsnorm_ns":99600.7,"count_below_ns":247.6}\n' $r
	done >runs.jsonl
	run -1 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	for l in "${stderr_lines[@]}"; do
		[ "$(printf '%s' "$l" | wc -m)" -le 100 ]
	done
	[ "${#stderr_lines[@]}" -eq 5 ]
}

# The man page's EXAMPLES, each run as written.
@test "cmpbudget man EXAMPLES: minjson -s min,q1,q3 runs.jsonl | cmpbudget" {
	cp "$D/quart.toml" budget.toml
	cp "$D/runs.jsonl" runs.jsonl
	run -1 --separate-stderr sh -c 'minjson -s min,q1,q3 runs.jsonl | cmpbudget'
	# The runs have no extra_kb, and round, slot and load are not metrics.
	[ "$output" = "$(sed '$s/"unbudgeted":\["extra_kb"\],"budget":"quart.toml"/"unbudgeted":[],"budget":"budget.toml"/' "$D/quart.out")" ]
}

@test "cmpbudget man EXAMPLES: cmpbudget -m verdict.md stats.jsonl > verdict.jsonl" {
	cp "$D/quart.toml" budget.toml
	cp "$D/quart.jsonl" stats.jsonl
	run -1 --separate-stderr sh -c 'cmpbudget -m verdict.md stats.jsonl > verdict.jsonl'
	sed '$s/"budget":"quart.toml"/"budget":"budget.toml"/' "$D/quart.out" >want.jsonl
	cmp verdict.jsonl want.jsonl
	cmp verdict.md "$D/quart.md"
}

@test "cmpbudget man EXAMPLES: jq -r '.regressed[]?' verdict.jsonl" {
	cp "$D/worked.out" verdict.jsonl
	run -0 jq -r '.regressed[]?' verdict.jsonl
	[ "$output" = "$(printf 'b_ns\nd_ns')" ]
}

@test "cmpbudget man EXAMPLES: cmpbudget -b alt.toml -k build -B old -H new -s median alt.jsonl" {
	cp "$D/alt.toml" "$D/alt.jsonl" .
	run -0 --separate-stderr cmpbudget -b alt.toml -k build -B old -H new -s median alt.jsonl
	[ "${lines[2]}" = '{"verdict":"ok","regressed":[],"metrics":2,"improved":[],"unbudgeted":[],"budget":"alt.toml","budget_sha256":"'$(sha alt.toml)'"}' ]
}

@test "cmpbudget man EXAMPLES: cmpbudget -b budget.toml -q" {
	run -0 --separate-stderr cmpbudget -b budget.toml -q
	[ "$output" = 3 ]
}

@test "cmpbudget man EXAMPLES: cmpbudget -c 0.9 -r runs.jsonl stats.jsonl" {
	cp "$D/pairs.toml" budget.toml
	cp "$D/pairs.jsonl" runs.jsonl
	minjson -x round,slot,load -s min runs.jsonl >stats.jsonl
	run -1 --separate-stderr cmpbudget -c 0.9 -r runs.jsonl stats.jsonl
	[ "$(echo "$output" | jq -r 'select(.metric) | .outcome' | tr '\n' ' ')" = 'slower faster same faster ' ]
	[ "$(echo "$output" | jq -r 'select(.metric) | .confidence' | sort -u)" = 0.9 ]
}

@test "cmpbudget man EXAMPLES: minjson -s min,max runs.jsonl | cmpbudget -S base=max" {
	cp "$D/quart.toml" budget.toml
	cp "$D/runs.jsonl" runs.jsonl
	run -0 --separate-stderr sh -c 'minjson -s min,max runs.jsonl | cmpbudget -S base=max'
	# Base's maxima are 115: slow_ns 120 is within 10 % of it; 80 and 101 are below 103.5.
	[ "$(echo "$output" | jq -c 'select(.metric) | [.base,.head,.verdict]' | tr '\n' ' ')" = '[115,120,"ok"] [115,80,"improved"] [115,101,"improved"] ' ]
}

@test "cmpbudget man EXAMPLES: git show origin/main:budget.toml > base.toml; cmpbudget -b budget.toml -O base.toml -m changes.md" {
	export GIT_CONFIG_NOSYSTEM=1 HOME=$BATS_TEST_TMPDIR
	git init -q -b main . && git config user.email t@example.org && git config user.name t
	printf 'runs = 3\n[budget]\nx_ops = 0.1\n' >budget.toml
	git add budget.toml && git commit -q -m budget && git update-ref refs/remotes/origin/main HEAD
	printf 'runs = 3\n[higher]\nx_ops = 0.1\n[budget]\ny_ns = 0.2\n' >budget.toml
	git show origin/main:budget.toml > base.toml
	run -1 --separate-stderr cmpbudget -b budget.toml -O base.toml -m changes.md
	[ "$stderr" = "$(printf 'x_ops: moved from [budget] to [higher], 0.1 to 0.1, looser\n[budget] y_ns: added (now 0.2)')" ]
	[ "$(cat changes.md)" = "$(printf -- '- `x_ops`: moved from `[budget]` to `[higher]`, 0.1 to 0.1, looser\n- `[budget]` `y_ns`: added (now 0.2)')" ]
	[ "$(jq -c .loosened <<<"${lines[-1]}")" = '["x_ops"]' ]
}

# The man page's EXAMPLES, in its order; each has a test of its own above.
examples=(
	'minjson -s min,q1,q3 runs.jsonl | cmpbudget'
	'cmpbudget -m verdict.md stats.jsonl > verdict.jsonl'
	"jq -r '.regressed[]?' verdict.jsonl"
	'cmpbudget -b alt.toml -k build -B old -H new -s median alt.jsonl'
	'cmpbudget -b budget.toml -q'
	'cmpbudget -c 0.9 -r runs.jsonl stats.jsonl'
	'minjson -s min,max runs.jsonl | cmpbudget -S base=max'
	'git show origin/main:budget.toml > base.toml'
	'cmpbudget -b budget.toml -O base.toml -m changes.md'
)

@test "cmpbudget man EXAMPLES are the ones tested here" {
	check_examples cmpbudget "${examples[@]}"
}

@test "cmpbudget: the usage line is the man page's SYNOPSIS" {
	check_synopsis cmpbudget
}

@test "cmpbudget: a bad option is exit 2 with the tool's own message and the usage line" {
	bad_options cmpbudget b
}

@test "cmpbudget: the table shows long numbers to six digits, the records keep them whole" {
	printf '[budget]\nx_ns = 0.25\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":1090.3488372093022}\n{"side":"head","stat":"min","x_ns":1045.5}\n' >in.jsonl
	run -0 --separate-stderr cmpbudget -b b.toml in.jsonl
	[[ "${lines[0]}" == *'"base":1090.3488372093022,"head":1045.5,'* ]]
	[[ "${stderr_lines[1]}" == "x_ns    1090.35  1045.5  "* ]]
}

@test "cmpbudget -M judges only the metrics named, by the whole budget file" {
	run -1 --separate-stderr cmpbudget -M d_ns,b_ns "$D/worked.jsonl"
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .metric' | tr '\n' ' ')" = "b_ns d_ns " ]
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -c '[.metrics, .regressed, .unbudgeted, .budget_sha256]')" = \
	    "[2,[\"b_ns\",\"d_ns\"],[],\"$(sha256sum < "$D/budget.toml" | cut -c1-64)\"]" ]
	run -2 --separate-stderr cmpbudget -M b_ns,x_ns "$D/worked.jsonl"
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r .error)" = "-M: x_ns: not a metric of the budget file" ]
}

# settled HEAD NOISE [BUDGETFILE]: the summary's "settled" for base 8.0 at
# budget 0.25 (limit 10.0), judged with -N NOISE.
settled() {
	printf '{"side":"base","stat":"min","n":3,"x_ns":8.0}\n{"side":"head","stat":"min","n":3,"x_ns":%s}\n' "$1" >in.jsonl
	run --separate-stderr cmpbudget -b "${3:-b.toml}" -N "$2" in.jsonl
	echo "${lines[1]}" | jq -r .settled
}

@test "cmpbudget -N: settled beyond the budget times 1 + noise, or within it divided by 1 + noise, else not" {
	printf '[budget]\nx_ns = 0.25\n' >b.toml
	# 10 x 1.1 = 11: a head above it stays regressed, whatever lower head
	# more rounds find.
	[ "$(settled 11.1 0.1)" = true ]
	[ "$(settled 10.9 0.1)" = false ]
	# 10 / 1.1 = 9.09: a head below it stays ok, whatever lower base more
	# rounds find.
	[ "$(settled 9.0 0.1)" = true ]
	[ "$(settled 9.2 0.1)" = false ]
	# Noise 0: the verdict as it stands.
	[ "$(settled 9.99 0)" = true ]
	[ "$(settled 10.01 0)" = true ]
	# Without -N, no such member.
	run -1 --separate-stderr cmpbudget -b b.toml in.jsonl
	[ "$(echo "${lines[-1]}" | jq -c 'has("settled")')" = false ]
}

@test "cmpbudget -N: a higher-is-better metric, or one in error, is never settled; one lost metric settles all" {
	printf '[budget]\nx_ns = 0.25\n\n[higher]\ny_ops = 0.25\n' >h.toml
	printf '{"side":"base","stat":"min","n":3,"x_ns":8.0,"y_ops":5}\n{"side":"head","stat":"min","n":3,"x_ns":9.0,"y_ops":5}\n' >in.jsonl
	run -0 --separate-stderr cmpbudget -b h.toml -N 0.1 in.jsonl
	[ "$(echo "${lines[-1]}" | jq -r .settled)" = false ]
	printf '{"side":"base","stat":"min","n":3,"x_ns":8.0,"y_ops":5}\n{"side":"head","stat":"min","n":3,"x_ns":12.0,"y_ops":5}\n' >in.jsonl
	run -1 --separate-stderr cmpbudget -b h.toml -N 0.1 in.jsonl
	[ "$(echo "${lines[-1]}" | jq -r .settled)" = true ]
	# A metric the input lacks: cannot decide, and no "settled".
	printf '[budget]\nx_ns = 0.25\nz_ns = 0.25\n' >z.toml
	run -2 --separate-stderr cmpbudget -b z.toml -N 0.1 in.jsonl
	[ "$(echo "${lines[-1]}" | jq -c 'has("settled")')" = false ]
	run -2 --separate-stderr cmpbudget -N x in.jsonl
	[[ "$stderr" == "cmpbudget: -N x: "* ]]
}

# pairs_of RATIO...: runs.jsonl with base 100 and head 100 x RATIO a round.
pairs_of() {
	r=0
	for x in "$@"; do
		r=$((r + 1))
		printf '{"side":"base","round":%s,"x_ns":100}\n{"side":"head","round":%s,"x_ns":%s}\n' "$r" "$r" "$x"
	done >runs.jsonl
}

@test "cmpbudget -p: beyond the budget by the minima, regressed only where the paired ratios say slower or their median is beyond it too" {
	printf '[budget]\nx_ns = 0.2\n' >b.toml
	# The minima say 100 -> 130: beyond 20 %.
	printf '{"side":"base","stat":"min","x_ns":100}\n{"side":"head","stat":"min","x_ns":130}\n' >stats.jsonl
	# Six rounds, every ratio above 1 + 0.05: slower, so regressed.
	pairs_of 130 128 131 140 135 129
	run -1 --separate-stderr cmpbudget -p -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.outcome,.doubted]')" = '["regressed","slower",false]' ]
	[ "$(echo "${lines[1]}" | jq -c '[.verdict,.regressed,.doubted]')" = '["regressed",["x_ns"],[]]' ]
	# One round of six at 1.0: the interval reaches it, same; but the median
	# ratio, 1.295, is beyond 1.2 too: regressed.
	pairs_of 130 128 100 140 135 129
	run -1 --separate-stderr cmpbudget -p -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.ratio,.outcome,.doubted]')" = '["regressed",1.295,"same",false]' ]
	# Head as fast as base in most rounds: same, and the median, 1.015,
	# within the budget: ok, doubted.
	pairs_of 130 100 100 102 135 101
	run -0 --separate-stderr cmpbudget -p -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.outcome,.doubted]')" = '["ok","same",true]' ]
	[ "$(echo "${lines[1]}" | jq -c '[.verdict,.regressed,.doubted]')" = '["ok",[],["x_ns"]]' ]
	[[ "${stderr_lines[1]}" == *' ok (doubted) '* ]]
	# Without -p the minima alone decide, and there is no "doubted".
	run -1 --separate-stderr cmpbudget -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,has("doubted")]')" = '["regressed",false]' ]
	# Too few rounds to say: the minima decide.
	pairs_of 100 100 100
	run -1 --separate-stderr cmpbudget -p -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[0]}" | jq -c '[.verdict,.outcome,.doubted]')" = '["regressed","too few rounds",false]' ]
}

@test "cmpbudget -p: an improvement stands only where the paired ratios say faster; -N never settles a doubted metric" {
	printf '[budget]\nx_ns = 0.2\n' >b.toml
	printf '{"side":"base","stat":"min","x_ns":100}\n{"side":"head","stat":"min","x_ns":70}\n' >stats.jsonl
	pairs_of 70 72 69 71 70 73
	run -0 --separate-stderr cmpbudget -p -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[1]}" | jq -c '[.improved,.doubted]')" = '[["x_ns"],[]]' ]
	pairs_of 70 100 100 100 71 72
	run -0 --separate-stderr cmpbudget -p -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[1]}" | jq -c '[.improved,.doubted]')" = '[[],["x_ns"]]' ]
	# 100 -> 200 is far beyond 1.2 x 1.1, but doubted: not settled.
	printf '{"side":"base","stat":"min","x_ns":100}\n{"side":"head","stat":"min","x_ns":200}\n' >stats.jsonl
	pairs_of 200 100 100 100 100 200
	run -0 --separate-stderr cmpbudget -p -N 0.1 -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[1]}" | jq -c '[.verdict,.doubted,.settled]')" = '["ok",["x_ns"],false]' ]
	pairs_of 200 200 190 200 200 200
	run -1 --separate-stderr cmpbudget -p -N 0.1 -b b.toml -r runs.jsonl stats.jsonl
	[ "$(echo "${lines[1]}" | jq -c '[.verdict,.doubted,.settled]')" = '["regressed",[],true]' ]
}

# pairs FILE BASE HEAD...: rounds of x_ns, base always BASE, head each HEAD
# in turn, base first in odd rounds.
pairs() {
	f=$1 b=$2 i=0
	shift 2
	: >"$f"
	for h; do
		i=$((i + 1))
		if [ $((i % 2)) = 1 ]; then
			printf '{"side":"base","round":%d,"x_ns":%s}\n{"side":"head","round":%d,"x_ns":%s}\n' $i "$b" $i "$h" >>"$f"
		else
			printf '{"side":"head","round":%d,"x_ns":%s}\n{"side":"base","round":%d,"x_ns":%s}\n' $i "$h" $i "$b" >>"$f"
		fi
	done
}

# dj [OPTION...] RUNS: the gate's rule on the rounds of RUNS, as a gate
# judges its stored rounds (gaterun -j, in d/), then its verdict said
# (gaterun -v): the records on stdout, the table and reasons on stderr, the
# verdict's status.
dj() {
	local f=${*: -1}
	rm -rf d
	mkdir d
	cp "$f" d/runs.jsonl
	gaterun -j "${@:1:$#-1}" d 2>/dev/null
	gaterun -v d
}

@test "cmpbudget: the gate's rule (gaterun -j): ok when the interval of the ratios shows the change within the budget, with the bound; no quartiles" {
	printf 'runs = 2\n[budget]\nx_ns = 0.25\n' >b.toml
	pairs r.jsonl 8.0 8.0 9.0 8.5 10.0 8.2 8.1
	run -0 --separate-stderr dj -b b.toml r.jsonl
	[ "${lines[0]}" = '{"metric":"x_ns","base":8.0,"head":8.35,"delta":0.043749999999999956,"budget":0.25,"verdict":"ok","better":"lower","rounds":6,"ratio":1.04375,"ratio_lo":1,"ratio_hi":1.25,"confidence":0.95,"bound":0.25,"halves":["none","none"],"budget_sha256":"'$(sha b.toml)'"}' ]
	[ "$(echo "${lines[1]}" | jq -c '[.verdict,.undecided,.rounds,.machine]')" = '["ok",[],6,"unknown (the rounds carry no CPU pressure)"]' ]
	[[ "${stderr_lines[1]}" == "x_ns "*" ok "*"1.044 [1.000,1.250]  ≤ +25.0 %" ]]
}

@test "cmpbudget: the gate's rule (gaterun -j): the machine line says when a run's CPU was shared with other gates (alternate -c: pinned, shared)" {
	printf 'runs = 2\n[budget]\nx_ns = 0.25\n' >b.toml
	pairs r.jsonl 8.0 8.0 8.0 8.0 8.0 8.0 8.0
	sed 's/,"x_ns"/,"wall_s":1,"stall_s":0,"pinned":1,"shared":0,"x_ns"/' r.jsonl > alone.jsonl
	run -0 --separate-stderr dj -b b.toml alone.jsonl
	[ "$(echo "${lines[1]}" | jq -r .machine)" = "quiet (CPU pressure 0 % during the gate)" ]
	# One run shared CPU 1 with another gate; one, later, CPU 0 with two.
	sed '3s/"pinned":1,"shared":0/"pinned":1,"shared":1/' alone.jsonl > one.jsonl
	run -0 --separate-stderr dj -b b.toml one.jsonl
	[ "$(echo "${lines[1]}" | jq -r .machine)" = "quiet (CPU pressure 0 % during the gate, CPU 1 shared with another gate)" ]
	[ "${stderr_lines[-1]}" = "machine: quiet (CPU pressure 0 % during the gate, CPU 1 shared with another gate)" ]
	sed '5s/"pinned":1,"shared":0/"pinned":0,"shared":2/' one.jsonl > two.jsonl
	run -0 --separate-stderr dj -b b.toml two.jsonl
	[ "$(echo "${lines[1]}" | jq -r .machine)" = "quiet (CPU pressure 0 % during the gate, CPU 0 shared with 2 other gates)" ]
	# Without the CPU pressure too.
	sed 's/"wall_s":1,"stall_s":0,//' one.jsonl > nopsi.jsonl
	run -0 --separate-stderr dj -b b.toml nopsi.jsonl
	[ "$(echo "${lines[1]}" | jq -r .machine)" = "unknown (the rounds carry no CPU pressure, CPU 1 shared with another gate)" ]
}

@test "cmpbudget: the gate's rule (gaterun -j): undecided is dated 1970, with its reason; a claim is not" {
	printf 'runs = 2\n[budget]\nx_ns = 0.05\n' >b.toml
	pairs r.jsonl 8.0 9.0 9.0 9.0 9.0 9.0 9.0
	run -2 --separate-stderr dj -b b.toml r.jsonl
	[ "$(tail -n 1 d/verdict.jsonl | jq -r .verdict)" = undecided ]
	[ "$(stat -c %Y d/verdict.jsonl)" = 0 ]
	[ "$(head -n 1 d/verdict.md)" = '**cmpbudget: undecided**: `x_ns`' ]
	[[ "$stderr" == *"gaterun: undecided: x_ns: ratio 1.125 [1.125,1.125] at 95 %, budget 5 %, 6 rounds; machine: "* ]]
	pairs r.jsonl 8.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0 9.0
	run -1 --separate-stderr dj -b b.toml r.jsonl
	[ "$(tail -n 1 d/verdict.jsonl | jq -c '[.verdict,.regressed]')" = '["regressed",["x_ns"]]' ]
	[ "$(stat -c %Y d/verdict.jsonl)" != 0 ]
}

@test "cmpbudget -D, -W and their options are gaterun's now: one line naming it, exit 2; a metric one side lacks is an error" {
	printf '[budget]\nx_ns = 0.05\n' >b.toml
	pairs r.jsonl 8.0 8.0
	for o in -D -W '-d 5' '-o out' '-R 3' '-T r.jsonl'; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr cmpbudget $o -b b.toml -r r.jsonl
		[ "$stderr" = "cmpbudget: ${o%% *}: the gate's rule is gaterun's: gaterun -j dir judges a gate's stored rounds (gaterun(1))" ]
		[ "$output" = "" ]
	done
	run -2 --separate-stderr cmpbudget -c 1 -b b.toml -r r.jsonl
	[ "$stderr" = "cmpbudget: -c 1: the confidence must be above 0 and below 1" ]
	# A metric one side lacks.
	printf '{"side":"base","round":1,"x_ns":8}\n{"side":"head","round":1,"y_ns":8}\n' >r.jsonl
	run -2 --separate-stderr dj -b b.toml r.jsonl
	[ "$(echo "${lines[-1]}" | jq -r .error)" = 'x_ns: missing on side "head"' ]
}
