#!/usr/bin/env bats
# plotrounds: the SVG is valid XML, renders, and shows what it should: one
# panel a metric, a marker a run, each side's minimum and the bound.

load common

setup() {
	D=$DATA/plotrounds
	T=$BATS_TEST_TMPDIR
}

@test "plotrounds: valid SVG that rsvg-convert renders, one panel a judged metric" {
	run -0 --separate-stderr plotrounds -v "$D/verdict.jsonl" -o "$T/r.svg" "$D/runs.jsonl"
	[ "$output" = "" ] && [ "$stderr" = "" ]
	xmllint --noout "$T/r.svg"
	rsvg-convert -o "$T/r.png" "$T/r.svg"
	[ "$(head -c 8 "$T/r.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
	# Four panels, titled with verdict, change and budget.
	[ "$(grep -c 'font-weight="bold"' "$T/r.svg")" -eq 4 ]
	grep -q '>matmul_ns: regressed, +877.6 % (budget 30 %)</text>' "$T/r.svg"
	# One marker a run and metric: 12 runs, 4 metrics, each with its exact value.
	[ "$(grep -c '<title>base, round' "$T/r.svg")" -eq 24 ]
	[ "$(grep -c '<title>head, round' "$T/r.svg")" -eq 24 ]
	grep -q "<title>head, round 1: 5257913</title>" "$T/r.svg"
	grep -q "<title>base, round 1: 692.1591432519576</title>" "$T/r.svg"
	# Each side's minimum and the bound, base 524808.25 x 1.3 = 682k.
	grep -q '>base min 524.8k</text>' "$T/r.svg"
	grep -q '>head min 5.13M</text>' "$T/r.svg"
	[ "$(grep -c '>bound +20 %</text>' "$T/r.svg")" -eq 3 ]
	grep -q '>bound +30 %</text>' "$T/r.svg"
}

@test "plotrounds: without a verdict, every numeric key but round, slot, load, pressure, threads" {
	run -0 --separate-stderr plotrounds "$D/runs.jsonl"
	printf '%s\n' "$output" | xmllint --noout -
	[ "$(printf '%s\n' "$output" | grep -c 'font-weight="bold"')" -eq 4 ]
	[[ "$output" != *bound* ]] || [[ "$output" == *"budget's bound"* ]]
	[ "$(printf '%s\n' "$output" | grep -c '>bound ')" -eq 0 ]
	# A failure's record is no run; threads is no metric.
	{ sed 's/"load":/"threads":1,"load":/' "$D/runs.jsonl"
	  echo '{"error":"side head, round 7: exited with status 3","side":"head","round":7,"status":3,"stderr":"boom\n"}'; } > "$T/runs"
	run -0 plotrounds "$T/runs"
	[ "$(printf '%s\n' "$output" | grep -c 'font-weight="bold"')" -eq 4 ]
	[ "$(printf '%s\n' "$output" | grep -c '<title>head, round 7')" -eq 0 ]
	# -x takes a key away as a metric.
	run -0 plotrounds -x round,slot,load,matmul_ns,sum_ns "$D/runs.jsonl"
	[ "$(printf '%s\n' "$output" | grep -c 'font-weight="bold"')" -eq 2 ]
}

@test "plotrounds: a bound for higher-is-better lies below base" {
	printf '%s\n' '{"side":"base","round":1,"ops_s":100}' '{"side":"head","round":1,"ops_s":95}' > "$T/runs"
	printf '%s\n' '{"metric":"ops_s","base":100,"head":95,"budget":0.1,"better":"higher","verdict":"ok"}' > "$T/v"
	run -0 plotrounds -v "$T/v" "$T/runs"
	[[ "$output" == *'>bound -10 %</text>'* ]]
	[[ "$output" == *'>ops_s (higher is better): ok'* ]]
	# Names are escaped for XML.
	printf '%s\n' '{"side":"a<b","round":1,"x&y_ns":1}' | plotrounds > "$T/e.svg"
	xmllint --noout "$T/e.svg"
	grep -q 'a&lt;b' "$T/e.svg"
}

@test "plotrounds: -o replaces the file whole, never leaving a .tmp" {
	echo old > "$T/r.svg"
	run -0 plotrounds -o "$T/r.svg" "$D/runs.jsonl"
	xmllint --noout "$T/r.svg"
	[ ! -e "$T/r.svg.tmp" ]
	run -2 --separate-stderr plotrounds -o "$T/no/such/dir.svg" "$D/runs.jsonl"
	[[ "$stderr" == "plotrounds: $T/no/such/dir.svg.tmp: No such file or directory" ]]
	run -2 --separate-stderr plotrounds -o /dev/full "$D/runs.jsonl"
	[[ "$stderr" == "plotrounds: write /dev/full: No space left on device" ]]
}

@test "plotrounds: bad input exits 2 naming file and line" {
	printf '%s\n' '{"side":"base","x_ns":1}' '{"x_ns":2}' > "$T/bad"
	run -2 --separate-stderr plotrounds "$T/bad"
	[ "$stderr" = "plotrounds: $T/bad:2: no \"side\" string" ]
	[ "$output" = "" ]
	printf '{"side":"base",\n' > "$T/bad"
	run -2 --separate-stderr plotrounds "$T/bad"
	[[ "$stderr" == "plotrounds: $T/bad:1: "* ]]
	run -2 --separate-stderr plotrounds /dev/null
	[ "$stderr" = "plotrounds: no run records" ]
	run -2 --separate-stderr plotrounds -v "$T/none" "$D/runs.jsonl"
	[ "$stderr" = "plotrounds: $T/none: No such file or directory" ]
}

@test "plotrounds: -V prints the version; the man page's footer names it" {
	run -0 --separate-stderr plotrounds -V
	[ "$output" = "plotrounds $(cat "$TOP/VERSION")" ]
	grep -qx ".Os perfgate $(cat "$TOP/VERSION")" "$TOP/man/plotrounds.1"
}

@test "plotrounds: unknown options and missing values, in its own voice" {
	bad_options plotrounds o
}

@test "plotrounds: man example: plotrounds -v build/gate/verdict.jsonl -o build/gate/rounds.svg build/gate/runs.jsonl" {
	mkdir -p "$T/build/gate" && cd "$T"
	cp "$D/runs.jsonl" "$D/verdict.jsonl" build/gate/
	run -0 plotrounds -v build/gate/verdict.jsonl -o build/gate/rounds.svg build/gate/runs.jsonl
	xmllint --noout build/gate/rounds.svg
}

@test "plotrounds: man example: alternate -r 5 a='bestof -- ./a' b='bestof -- ./b' | plotrounds | rsvg-convert -o rounds.png" {
	cd "$T"
	printf '#!/bin/sh\necho "{\\"a_ns\\":1}"\n' > a && chmod +x a && cp a b
	run -0 bash -c "alternate -r 5 a='bestof -- ./a' b='bestof -- ./b' 2>/dev/null | plotrounds | rsvg-convert -o rounds.png"
	[ -s rounds.png ]
}

@test "plotrounds: man example: plotrounds -l -o build/compare/rounds.svg build/compare/rows/*.jsonl" {
	mkdir -p "$T/build/compare/rows" && cd "$T"
	# Two rows of three sides, each row its own metric, a thousand times apart.
	for c in a b; do
		for r in 1 2; do
			printf '{"side":"kata","round":%d,"slot":0,"threads":1,"discarded":0,"%s_ns":%d}\n' $r $c $((50 + r))
			printf '{"side":"plain","round":%d,"slot":1,"threads":1,"discarded":0,"%s_ns":%d}\n' $r $c $((50000 + r))
			printf '{"side":"numpy","round":%d,"slot":2,"threads":1,"discarded":0,"%s_ns":%d}\n' $r $c $((2000 + r))
		done > build/compare/rows/$c.jsonl
	done
	run -0 plotrounds -l -o build/compare/rounds.svg build/compare/rows/*.jsonl
	xmllint --noout build/compare/rounds.svg
	rsvg-convert -o rounds.png build/compare/rounds.svg
	[ "$(grep -c 'font-weight="bold"' build/compare/rounds.svg)" -eq 2 ]
	grep -q '>ns, log scale</text>' build/compare/rounds.svg
	grep -q '>10k</text>' build/compare/rounds.svg
	# Each panel spreads its own six runs over its width: the same six places.
	a=$(sed -n '/>a_ns</,/>b_ns</p' build/compare/rounds.svg | grep -o '<circle cx="[0-9.]*"' | sort -u)
	b=$(sed -n '/>b_ns</,$p' build/compare/rounds.svg | grep -o '<circle cx="[0-9.]*"' | sort -u)
	[ -n "$a" ] && [ "$a" = "$b" ]
	# No bound without a verdict, and none in the legend.
	run -1 grep -q "budget's bound" build/compare/rounds.svg
	# A value at or below 0 has no place on a log scale.
	printf '{"side":"a","round":3,"x_ns":0}\n' > zero.jsonl
	run -2 --separate-stderr plotrounds -l zero.jsonl
	[ "$stderr" = "plotrounds: -l: x_ns of side a, round 3, is not above 0" ]
}
