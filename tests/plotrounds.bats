#!/usr/bin/env bats
# plotrounds: the SVG is valid XML, renders (small too), and shows the
# evidence the gate judged: one evidence panel a metric with each round's
# paired ratio, the rule's sequence after each round, the budget's band
# and the round the metric was decided at; each side's values below, with
# no minimum line. Fixtures: tests/data/plotrounds/rule (a real gate,
# rmsnorm computed twice), counts (its counts gate), shards (two shards
# and their merge), perf.json (make compare), and the old runs.jsonl and
# verdict.jsonl (tcc against cc, a verdict without a confidence). The PNG
# is read back by pngcolumn.py (zlib alone) to see the decision drawn.

load common

setup() {
	D=$DATA/plotrounds
	T=$BATS_TEST_TMPDIR
}

examples=(
	"plotrounds -v build/gate/verdict.jsonl -o build/gate/rounds.svg build/gate/runs.jsonl"
	"plotrounds -v build/gate/counts/verdict.jsonl -o build/gate/counts/rounds.svg build/gate/counts/base.jsonl build/gate/counts/head.jsonl"
	"alternate -r 5 a='bestof -- ./a' b='bestof -- ./b' | plotrounds | rsvg-convert -o rounds.png"
	"plotrounds -C docs/perf.json -o build/compare/compare.svg"
	"plotrounds -l -o build/compare/rounds.svg build/compare/rows/*.jsonl"
	"rsvg-convert -w 400 -o rounds.png build/gate/rounds.svg"
)

# The width x height of a PNG, from its IHDR chunk.
pngsize() {
	od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8 }'
}

# The PNG of svg at width 400, a pull request comment's thumbnail: it must render.
thumbnail() {
	rsvg-convert -w 400 -o "$1.png" "$1"
	[ "$(head -c 8 "$1.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
	[[ "$(pngsize "$1.png")" == 400x* ]]
}

# The lines of metric $2's panels in svg $1: from its title to the next title.
panel() {
	awk -v m=">$2" 'index($0, "font-weight=\"bold\"") && index($0, "font-size=\"16\"") { on = index($0, m ":") > 0 } on' "$1"
}

@test "plotrounds: a real gate: one evidence panel a metric, the decision round marked, no minimum line" {
	run -0 --separate-stderr plotrounds -v "$D/rule/verdict.jsonl" -o "$T/r.svg" "$D/rule/runs.jsonl"
	[ "$output" = "" ] && [ "$stderr" = "" ]
	xmllint --noout "$T/r.svg"
	thumbnail "$T/r.svg"
	[ "$(grep -c 'class="evidence"' "$T/r.svg")" -eq 4 ]
	[ "$(grep -c 'class="values"' "$T/r.svg")" -eq 4 ]
	[ "$(grep -c 'class="decided"' "$T/r.svg")" -eq 4 ]
	grep -q '>rmsnorm_ns: regressed, +114.8 % (budget 30 %)</text>' "$T/r.svg"
	# The gate's verdict first, large enough for the thumbnail.
	grep -q 'class="headline"[^>]*>regressed: rmsnorm_ns regressed; 3 ok</text>' "$T/r.svg"
	[ "$(grep -c 'class="decision">ok at round 6</text>' "$T/r.svg")" -eq 3 ]
	grep -q 'class="decision">regressed at round 8</text>' "$T/r.svg"
	# No minimum, no bound drawn above one side's figure: the gate judges the ratios.
	run -1 grep -E ' min |minimum|>bound ' "$T/r.svg"
	# The band: 1 + budget and 1 / (1 + budget).
	[ "$(grep -c '>+30 %</text>' "$T/r.svg")" -eq 3 ]
	[ "$(grep -c '>−23.1 %</text>' "$T/r.svg")" -eq 3 ]
	grep -q '>−33.3 %</text>' "$T/r.svg"
	# A ratio a round, each with its exact figure; every run's value below.
	panel "$T/r.svg" rmsnorm_ns > "$T/rms"
	[ "$(grep -c 'class="ratio"' "$T/rms")" -eq 8 ]
	[ "$(grep -c '<title>base, round' "$T/rms")" -eq 8 ]
	[ "$(grep -c '<title>head, round' "$T/rms")" -eq 8 ]
	# The decision's line stands on round 8's ratio.
	x=$(grep -o 'class="decided" x1="[0-9.]*"' "$T/rms" | grep -o '[0-9.]*"$')
	grep -q "cx=\"${x%\"}\"[^>]*><title>round 8: head / base" "$T/rms"
	# Rendered, the decision is there: the column of rmsnorm's line is
	# vermilion over most of its panel, round 1's column is not.
	rsvg-convert -o "$T/r.png" "$T/r.svg"
	[ "$(python3 "$D/pngcolumn.py" "$T/r.png" "${x%%.*}" D55E00)" -ge 60 ]
	x1=$(grep -o 'cx="[0-9.]*"[^>]*><title>round 1: head / base' "$T/rms" | grep -o '^cx="[0-9]*' | grep -o '[0-9]*$')
	[ "$(python3 "$D/pngcolumn.py" "$T/r.png" "$x1" D55E00)" -lt 20 ]
	# The sequence narrows round by round: each closed bar no taller than the last.
	grep 'class="look"' "$T/rms" | grep 'fill-opacity="0.55"' | grep -o 'height="[0-9.]*"' | grep -o '[0-9.]*' > "$T/h"
	[ "$(wc -l < "$T/h")" -ge 2 ]
	sort -g -r "$T/h" | cmp - "$T/h"
}

@test "plotrounds: undecided: the words say it, no decision line" {
	for r in 1 2 3 4 5 6 7 8; do
		printf '{"side":"base","round":%d,"x_ns":100}\n{"side":"head","round":%d,"x_ns":%d}\n' $r $r $((r % 2 ? 125 : 135))
	done > "$T/runs"
	printf '%s\n' '{"metric":"x_ns","budget":0.3,"verdict":"undecided","rounds":8,"confidence":0.95}' \
	    '{"verdict":"undecided","rounds":8,"reason":"x_ns: ratio 1.3 [1.25,1.35] at 95 %, budget 30 %, 8 rounds"}' > "$T/v"
	run -0 plotrounds -v "$T/v" -o "$T/u.svg" "$T/runs"
	xmllint --noout "$T/u.svg"
	thumbnail "$T/u.svg"
	grep -q 'class="undecided">undecided after 8 rounds</text>' "$T/u.svg"
	# Why the gate stopped where it did, under its verdict.
	grep -q 'class="headline"[^>]*>undecided: x_ns undecided</text>' "$T/u.svg"
	grep -q 'class="why"[^>]*>8 rounds: x_ns: ratio 1.3 \[1.25,1.35\] at 95 %, budget 30 %, 8 rounds</text>' "$T/u.svg"
	run -1 grep -q 'class="decided"' "$T/u.svg"
	# The summary's confidence serves a record without one.
	printf '%s\n' '{"metric":"x_ns","budget":0.3,"verdict":"undecided","rounds":8}' '{"verdict":"undecided","confidence":0.95}' > "$T/v"
	run -0 plotrounds -v "$T/v" "$T/runs"
	[[ "$output" == *'class="undecided">undecided after 8 rounds</text>'* ]]
	[[ "$output" == *'at 95 %, undecided</title>'* ]]
}

@test "plotrounds: a counts gate: the instruction ratio, no interval, each side's count in the title" {
	run -0 --separate-stderr plotrounds -v "$D/counts/verdict.jsonl" -o "$T/c.svg" "$D/counts/base.jsonl" "$D/counts/head.jsonl"
	[ "$stderr" = "" ]
	xmllint --noout "$T/c.svg"
	thumbnail "$T/c.svg"
	[ "$(grep -c 'class="evidence"' "$T/c.svg")" -eq 12 ]
	[ "$(grep -c 'class="decided"' "$T/c.svg")" -eq 12 ]
	[ "$(grep -c 'class="ratio"' "$T/c.svg")" -eq 12 ]
	run -1 grep -E 'class="(look|values)"| min ' "$T/c.svg"
	grep -q '>rmsnorm_instr: regressed, +99.9 % (budget 2 %)</text>' "$T/c.svg"
	grep -q '>base 54.14k, head 108.2k, counted once: head / base 1.9992</text>' "$T/c.svg"
	grep -q 'class="decision">regressed, counted</text>' "$T/c.svg"
	# A count only regresses: the band's upper edge alone.
	[ "$(grep -c 'class="budget"' "$T/c.svg")" -eq 12 ]
	# Without countof's summary, records without rounds are still a count's.
	grep -v '"mode"' "$D/counts/verdict.jsonl" > "$T/v"
	run -0 plotrounds -v "$T/v" "$D/counts/base.jsonl" "$D/counts/head.jsonl"
	[ "$(grep -c 'class="decided"' <<<"$output")" -eq 12 ]
}

@test "plotrounds: a shard merge: each metric from its own shard's rounds" {
	run -0 --separate-stderr plotrounds -v "$D/shards/verdict.jsonl" -o "$T/m.svg" "$D/shards/1/runs.jsonl" "$D/shards/2/runs.jsonl"
	xmllint --noout "$T/m.svg"
	thumbnail "$T/m.svg"
	[ "$(grep -c 'class="evidence"' "$T/m.svg")" -eq 4 ]
	[ "$(grep -c 'class="decided"' "$T/m.svg")" -eq 4 ]
	# As many ratios as each shard ran rounds of the metric: 8, 6, 17, 26.
	for mr in rmsnorm_ns:8 count_below_ns:6 matmul_ns:17 sum_ns:26; do
		panel "$T/m.svg" "${mr%:*}" > "$T/p"
		[ "$(grep -c 'class="ratio"\|class="off"[^>]*><title>round' "$T/p")" -eq "${mr#*:}" ] || { echo "$mr"; false; }
	done
	grep -q 'class="decision">regressed at round 8</text>' "$T/m.svg"
}

@test "plotrounds: -C: make compare's rows, each reference's ratio in its quartile band" {
	run -0 --separate-stderr plotrounds -C "$D/perf.json" -o "$T/p.svg"
	[ "$stderr" = "" ]
	xmllint --noout "$T/p.svg"
	thumbnail "$T/p.svg"
	[ "$(grep -c 'class="row"' "$T/p.svg")" -eq 4 ]
	[ "$(grep -c 'class="quartiles"' "$T/p.svg")" -eq 12 ]
	[ "$(grep -c 'class="one"' "$T/p.svg")" -eq 4 ]
	grep -q '>matmul (matmul_ns)</text>' "$T/p.svg"
	grep -q 'class="verdict"[^>]*>6.54× slower</text>' "$T/p.svg"
	grep -q 'class="verdict"[^>]*>10.3× faster</text>' "$T/p.svg"
	grep -q '>commit cacda138191dfb77d950e4c16067d45bc39982ba, 2026-12-03T19:48:30Z</text>' "$T/p.svg"
	# A commit, a case and a side are escaped.
	sed 's/"commit":"cacda138[0-9a-f]*"/"commit":"a<b\&c"/; s/"case":"sum"/"case":"s<u>m"/' "$D/perf.json" > "$T/e.json"
	run -0 plotrounds -C "$T/e.json"
	printf '%s\n' "$output" | xmllint --noout -
	[[ "$output" == *'commit a&lt;b&amp;c'* ]] && [[ "$output" == *'>s&lt;u&gt;m (sum_ns)<'* ]]
	run -2 --separate-stderr plotrounds -C "$D/perf.json" "$D/rule/runs.jsonl"
	[ "$stderr" = "plotrounds: -C draws the document alone: no -l, -v, -x or files" ]
	run -2 --separate-stderr plotrounds -C "$T/none.json"
	[[ "$stderr" == "plotrounds: $T/none.json: "* ]]
}

@test "plotrounds: make gate GATE_MODE=counts draws the counts' picture beside their verdict" {
	command -v valgrind > /dev/null || skip "valgrind is not installed"
	cd "$TOP"
	run -0 --separate-stderr "$TOP/bin/perfgate" GATE_MODE=counts GATEDIR="$T/g"
	xmllint --noout "$T/g/counts/rounds.svg"
	[ "$(grep -c 'class="evidence"' "$T/g/counts/rounds.svg")" -eq 12 ]
	[ "$(grep -c 'class="decision">ok, counted</text>' "$T/g/counts/rounds.svg")" -eq 12 ]
}

@test "plotrounds: make compare draws its document, build/compare/compare.svg" {
	cd "$T"
	export PERFGATE_PRESSURE=$T/pressure
	setpressure 1.00
	unset RESUME KATA CC CFLAGS
	run -0 --separate-stderr make -s --no-print-directory -f "$DATA/compare/Makefile" compare
	xmllint --noout build/compare/compare.svg
	[ "$(grep -c 'class="row"' build/compare/compare.svg)" -eq 3 ]
	[ "$(grep -c 'class="verdict"[^>]*>2.00× faster</text>' build/compare/compare.svg)" -eq 3 ]
}

@test "plotrounds: a verdict without a confidence: ratios and band, no sequence; the values' exact figures" {
	run -0 --separate-stderr plotrounds -v "$D/verdict.jsonl" -o "$T/r.svg" "$D/runs.jsonl"
	[ "$output" = "" ] && [ "$stderr" = "" ]
	xmllint --noout "$T/r.svg"
	thumbnail "$T/r.svg"
	[ "$(grep -c 'font-size="16" fill="[^"]*" font-weight="bold"' "$T/r.svg")" -eq 4 ]
	grep -q '>matmul_ns: regressed, +877.6 % (budget 30 %)</text>' "$T/r.svg"
	[ "$(grep -c 'class="evidence"' "$T/r.svg")" -eq 4 ]
	[ "$(grep -c '<title>base, round' "$T/r.svg")" -eq 24 ]
	[ "$(grep -c '<title>head, round' "$T/r.svg")" -eq 24 ]
	grep -q "<title>head, round 1: 5257913</title>" "$T/r.svg"
	grep -q "<title>base, round 1: 692.1591432519576</title>" "$T/r.svg"
	grep -q "<title>round 1: head / base 10.0187</title>" "$T/r.svg"
	[ "$(grep -c '>+20 %</text>' "$T/r.svg")" -eq 3 ]
	grep -q '>+30 %</text>' "$T/r.svg"
	run -1 grep -E 'class="(look|decided)"| min ' "$T/r.svg"
}

@test "plotrounds: without a verdict, every numeric key but round, slot, load, pressure, threads" {
	run -0 --separate-stderr plotrounds "$D/runs.jsonl"
	printf '%s\n' "$output" | xmllint --noout -
	[ "$(printf '%s\n' "$output" | grep -c 'class="evidence"')" -eq 4 ]
	[ "$(printf '%s\n' "$output" | grep -c 'class="band"')" -eq 0 ]
	# A failure's record is no run; threads is no metric.
	{ sed 's/"load":/"threads":1,"load":/' "$D/runs.jsonl"
	  echo '{"error":"side head, round 7: exited with status 3","side":"head","round":7,"status":3,"stderr":"boom\n"}'; } > "$T/runs"
	run -0 plotrounds "$T/runs"
	[ "$(printf '%s\n' "$output" | grep -c 'class="evidence"')" -eq 4 ]
	[ "$(printf '%s\n' "$output" | grep -c '<title>head, round 7')" -eq 0 ]
	# -x takes a key away as a metric.
	run -0 plotrounds -x round,slot,load,matmul_ns,sum_ns "$D/runs.jsonl"
	[ "$(printf '%s\n' "$output" | grep -c 'class="evidence"')" -eq 2 ]
}

@test "plotrounds: higher is better: the band's upper edge is an improvement; names are escaped" {
	printf '%s\n' '{"side":"base","round":1,"ops_s":100}' '{"side":"head","round":1,"ops_s":95}' > "$T/runs"
	printf '%s\n' '{"metric":"ops_s","base":100,"head":95,"budget":0.1,"better":"higher","verdict":"ok"}' > "$T/v"
	run -0 plotrounds -v "$T/v" "$T/runs"
	[[ "$output" == *'stroke="#009E73" stroke-width="1.5" stroke-dasharray="6 3"/>'*'>+10 %</text>'* ]]
	[[ "$output" == *'>−9.09 %</text>'* ]]
	[[ "$output" == *'>ops_s (higher is better): ok'* ]]
	# Names are escaped for XML: a side, a metric.
	printf '%s\n' '{"side":"a<b","round":1,"x&y_ns":1}' '{"side":"c\"d","round":1,"x&y_ns":2}' | plotrounds > "$T/e.svg"
	xmllint --noout "$T/e.svg"
	grep -q 'a&lt;b' "$T/e.svg" && grep -q '>x&amp;y_ns</text>' "$T/e.svg"
	grep -q '<title>round 1: head / base 2</title>' "$T/e.svg"
	# The summary's reason is a sentence: unescaped from JSON, escaped for XML, no control character.
	printf '%s\n' '{"metric":"x_ns","budget":0.3,"verdict":"undecided"}' '{"verdict":"undecided","reason":"side \"head\" <b>\u0001;$x"}' > "$T/v"
	printf '%s\n' '{"side":"base","round":1,"x_ns":1}' | plotrounds -v "$T/v" > "$T/e.svg"
	xmllint --noout "$T/e.svg"
	grep -q 'class="why"[^>]*>side &quot;head&quot; &lt;b&gt;?;\$x</text>' "$T/e.svg"
}

@test "plotrounds: a far outlier sits at the edge, and does not set the scale" {
	for r in 1 2 3 4 5 6; do
		printf '{"side":"base","round":%d,"x_ns":%d}\n{"side":"head","round":%d,"x_ns":%d}\n' $r 100 $r $((r == 3 ? 170 : 100 + r))
	done > "$T/runs"
	run -0 plotrounds "$T/runs"
	[ "$(grep -c 'class="off"[^>]*><title>round 3: head / base 1.7</title>' <<<"$output")" -eq 1 ]
	[ "$(grep -c 'class="off"[^>]*><title>head, round 3: 170</title>' <<<"$output")" -eq 1 ]
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
	run -2 --separate-stderr plotrounds -C "$D/perf.json" -o /dev/full
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
	printf '%s\n' '{"metric":"x_ns","budget":0.3,"verdict":"ok"}' '{"metric":"y_ns","budget":0.3,"verdict":"ok","confidence":1}' > "$T/v"
	run -2 --separate-stderr plotrounds -v "$T/v" "$D/runs.jsonl"
	[ "$stderr" = "plotrounds: $T/v:2: \"confidence\" is not above 0 and below 1" ]
}

@test "plotrounds: -V prints the version; the man page's footer names it" {
	run -0 --separate-stderr plotrounds -V
	[ "$output" = "plotrounds $(cat "$TOP/VERSION")" ]
	grep -qx ".Os perfgate $(cat "$TOP/VERSION")" "$TOP/man/plotrounds.1"
}

@test "plotrounds: unknown options and missing values, in its own voice; usage is the SYNOPSIS" {
	bad_options plotrounds o
	check_synopsis plotrounds
}

@test "plotrounds: man page EXAMPLES are the ones tested here" {
	check_examples plotrounds "${examples[@]}"
}

@test "plotrounds: man example: plotrounds -v build/gate/verdict.jsonl -o build/gate/rounds.svg build/gate/runs.jsonl" {
	mkdir -p "$T/build/gate" && cd "$T"
	cp "$D/rule/runs.jsonl" "$D/rule/verdict.jsonl" build/gate/
	run -0 bash -c "${examples[0]}"
	xmllint --noout build/gate/rounds.svg
	[ "$(grep -c 'class="decided"' build/gate/rounds.svg)" -eq 4 ]
}

@test "plotrounds: man example: plotrounds -v build/gate/counts/verdict.jsonl -o build/gate/counts/rounds.svg build/gate/counts/base.jsonl build/gate/counts/head.jsonl" {
	mkdir -p "$T/build/gate/counts" && cd "$T"
	cp "$D"/counts/*.jsonl build/gate/counts/
	run -0 bash -c "${examples[1]}"
	xmllint --noout build/gate/counts/rounds.svg
}

@test "plotrounds: man example: alternate -r 5 a='bestof -- ./a' b='bestof -- ./b' | plotrounds | rsvg-convert -o rounds.png" {
	cd "$T"
	printf '#!/bin/sh\necho "{\\"a_ns\\":1}"\n' > a && chmod +x a && cp a b
	run -0 bash -c "${examples[2]} 2>/dev/null"
	[ -s rounds.png ]
}

@test "plotrounds: man example: plotrounds -C docs/perf.json -o build/compare/compare.svg" {
	mkdir -p "$T/docs" "$T/build/compare" && cd "$T"
	cp "$D/perf.json" docs/
	run -0 bash -c "${examples[3]}"
	xmllint --noout build/compare/compare.svg
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
	run -0 bash -c "${examples[4]}"
	xmllint --noout build/compare/rounds.svg
	rsvg-convert -o rounds.png build/compare/rounds.svg
	# Three sides pair nothing: the values alone, one panel a row.
	[ "$(grep -c 'class="values"' build/compare/rounds.svg)" -eq 2 ]
	[ "$(grep -c 'class="evidence"' build/compare/rounds.svg)" -eq 0 ]
	grep -q '>ns, log scale</text>' build/compare/rounds.svg
	grep -q '>10k</text>' build/compare/rounds.svg
	# Each panel spreads its own six runs over its width: the same places.
	a=$(sed -n '/>a_ns</,/>b_ns</p' build/compare/rounds.svg | grep -o '<circle cx="[0-9.]*"' | sort -u)
	b=$(sed -n '/>b_ns</,$p' build/compare/rounds.svg | grep -o '<circle cx="[0-9.]*"' | sort -u)
	[ -n "$a" ] && [ "$a" = "$b" ]
	# A value at or below 0 has no place on a log scale.
	printf '{"side":"a","round":3,"x_ns":0}\n' > zero.jsonl
	run -2 --separate-stderr plotrounds -l zero.jsonl
	[ "$stderr" = "plotrounds: -l: x_ns of side a, round 3, is not above 0" ]
}

@test "plotrounds: man example: rsvg-convert -w 400 -o rounds.png build/gate/rounds.svg" {
	mkdir -p "$T/build/gate" && cd "$T"
	plotrounds -v "$D/rule/verdict.jsonl" -o build/gate/rounds.svg "$D/rule/runs.jsonl"
	run -0 bash -c "${examples[5]}"
	[[ "$(pngsize rounds.png)" == 400x* ]]
}

@test "plotrounds: docs/rounds.svg is the picture of the committed gate, as the README makes it" {
	run -0 plotrounds -v "$D/rule/verdict.jsonl" "$D/rule/runs.jsonl"
	[ "$output" = "$(sed "s/plotrounds [0-9.]*</plotrounds $(cat "$TOP/VERSION")</" "$TOP/docs/rounds.svg")" ]
}
