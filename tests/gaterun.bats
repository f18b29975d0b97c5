#!/usr/bin/env bats
# gaterun: the gate's measuring loop and rule: decided after every round,
# decided metrics no longer measured, the deadline in rounds and seconds,
# the stored gate's files, failures, usage. tests/gate.bats drives it
# through make.

load common

setup() {
	cd "$BATS_TEST_TMPDIR"
	T=$BATS_TEST_TMPDIR
	export PERFGATE_LOADAVG=$T/loadavg
	echo "0.10 0.10 0.10 1/100 1" > "$PERFGATE_LOADAVG"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > budget.toml
}

# bench NAME LINE: an executable ./NAME/bench that prints LINE.
bench() {
	mkdir -p "$1"
	printf '#!/bin/sh\necho '\''%s'\''\n' "$2" > "$1/bench"
	chmod +x "$1/bench"
}

# cases NAME X Y P: a benchmark of two cases, x_ns and y_ns, that runs only
# those BENCH_CASES names (every one when it is unset), and says which it
# ran in NAME/ran; y_ns is Y*1.5 in the runs whose number plus P is even,
# else Y: two sides of unlike P cannot be told apart.
cases() {
	mkdir -p "$1"
	cat > "$1/bench" <<SH
#!/bin/sh
n=\$(( \$(cat "$T/$1/n" 2>/dev/null || echo 0) + 1 ))
echo "\$n" > "$T/$1/n"
echo "\${BENCH_CASES-all}" >> "$T/$1/ran"
y=$3
[ \$(((n + $4) % 2)) = 0 ] && y=\$(( $3 * 3 / 2 ))
case \${BENCH_CASES-x_ns,y_ns} in
*x_ns*y_ns*) echo "{\"x_ns\":$2,\"y_ns\":\$y}" ;;
*x_ns*) echo "{\"x_ns\":$2}" ;;
*) echo "{\"y_ns\":\$y}" ;;
esac
SH
	chmod +x "$1/bench"
}

@test "gaterun: the usage line is the man page's SYNOPSIS" {
	check_synopsis gaterun
}

@test "gaterun: a bad option is exit 2 with the tool's own message and the usage line" {
	bad_options gaterun b
}

examples=(
	"gaterun -b budget.toml build/g base=./base/bench head=./head/bench; gaterun -v build/g"
	"gaterun -j -C 0.99 -b budget.toml build/g"
	"gaterun -F build build/g head 'the build failed (status 1)' HEAD~1 \"\$(git rev-parse HEAD~1)\""
)

@test "gaterun: every EXAMPLES line of the man page is tested" {
	check_examples gaterun "${examples[@]}"
}

@test "gaterun man EXAMPLES: gaterun -b budget.toml build/g ...; gaterun -v build/g" {
	bench base '{"x_ns":8.0}'
	bench head '{"x_ns":16.0}'
	mkdir -p build/g
	run -1 --separate-stderr bash -c "${examples[0]}"
	[ "$(last | jq -r .verdict)" = regressed ]
	[[ "$stderr" == *"x_ns "*regressed* ]]
	# The verdict on disk is what -v said; the rounds are there, whole.
	[ "$(tail -n 1 build/g/verdict.jsonl | jq -r .verdict)" = regressed ]
	[ "$(jq -r .round build/g/runs.jsonl | sort -un | tail -n 1)" = "$(last | jq -r .rounds)" ]
	[ -s build/g/verdict.md ] && [ -s build/g/verdict.txt ]
}

@test "gaterun man EXAMPLES: gaterun -j -C 0.99 -b budget.toml build/g" {
	bench base '{"x_ns":8.0}'
	bench head '{"x_ns":8.0}'
	mkdir -p build/g
	run -0 --separate-stderr gaterun -b budget.toml build/g base=./base/bench head=./head/bench
	cp build/g/runs.jsonl before.jsonl
	run -2 --separate-stderr bash -c "${examples[1]}"
	# The same rounds, judged again: six rounds are too few at 99 %.
	cmp before.jsonl build/g/runs.jsonl
	run -2 --separate-stderr gaterun -v build/g
	[ "$(last | jq -r '[.verdict, .confidence] | join(" ")')" = "undecided 0.99" ]
}

@test "gaterun man EXAMPLES: gaterun -F build build/g head '...' HEAD~1 \"\$(git rev-parse HEAD~1)\"" {
	git init -q repo && cd repo
	git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
	git -c user.name=t -c user.email=t@t commit -q --allow-empty -m two
	c=$(git rev-parse HEAD~1)
	echo stale > reason
	run -2 --separate-stderr bash -c "GATE_REASON=reason; ${examples[2]/-F build/-F build -e reason}"
	[ "$stderr" = "gate: head: build: HEAD~1 (commit $c): the build failed (status 1)" ]
	[ "$output" = "$(cat build/g/verdict.jsonl)" ]
	[ "$(jq -c . build/g/verdict.jsonl)" = "$(jq -nc --arg c "$c" \
	    '{verdict:"error",error:("head: build: HEAD~1 (commit " + $c + "): the build failed (status 1)"),side:"head",step:"build",revision:"HEAD~1",commit:$c}')" ]
	[ "$(cat reason)" = "gate: head: build: HEAD~1 (commit $c): the build failed (status 1)" ]
	# Never trusted by make, and said again by -v as it was written.
	[ "$(stat -c %Y build/g/verdict.jsonl)" = 0 ]
	run -2 --separate-stderr gaterun -v build/g
	[ "$stderr" = "gate: head: build: HEAD~1 (commit $c): the build failed (status 1)" ]
	[ -z "$(find build/g -name '*.tmp')" ]
}

@test "gaterun -F: a file's digest, a work tree's changes, no name; a bad side or step is refused, nothing written" {
	run -2 --separate-stderr gaterun -F identity g base 'missing x.h' 'k.c' sha256:abc
	[ "$(jq -r '[.file, .revision // "-", .commit // "-"] | join(" ")' g/verdict.jsonl)" = "k.c - -" ]
	[ "$stderr" = "gate: base: identity: k.c (sha256:abc): missing x.h" ]
	run -2 --separate-stderr gaterun -F build g head 'it failed' ./t 1234+dirty:5678
	[ "$(jq -r '[.revision, .commit, .dirty] | join(" ")' g/verdict.jsonl)" = "./t 1234 5678" ]
	[ "$stderr" = "gate: head: build: ./t (commit 1234 with uncommitted changes 5678): it failed" ]
	run -2 --separate-stderr gaterun -F settings g both 'RUNS=x: not a number' '' ''
	[ "$(jq -c 'keys' g/verdict.jsonl)" = '["error","side","step","verdict"]' ]
	# Names are data: quotes, $ and a newline's control byte stay JSON.
	run -2 --separate-stderr gaterun -F build g head "a \"q\" \$x;\\" "-rev with space"
	[ "$(jq -r .revision g/verdict.jsonl)" = "-rev with space" ]
	[ "$(jq -r .error g/verdict.jsonl)" = "head: build: -rev with space: a \"q\" \$x;\\" ]
	cp g/verdict.jsonl before.jsonl
	run -2 --separate-stderr gaterun -F build g left 'x'
	[ "$stderr" = "gaterun: left: not a side: base, head or both" ]
	run -2 --separate-stderr gaterun -F 'Build;rm' g head 'x'
	[ "$stderr" = "gaterun: -F Build;rm: not a step: a word of lowercase letters" ]
	run -2 --separate-stderr gaterun -F build g head
	[[ "${stderr_lines[0]}" == "usage: gaterun "* ]]
	cmp before.jsonl g/verdict.jsonl
}

@test "gaterun -k: rounds of this side are kept (0); another side's, cut short or not records are moved aside (1)" {
	bench base '{"x_ns":8.0}'
	bench head '{"x_ns":8.0}'
	run -0 --separate-stderr gaterun -a 'base:cflags=-O2 "q" $x' -a base:bench_sha256=aa -a head:bench_sha256=bb \
	    g base=./base/bench head=./head/bench
	printf 'side base\nmember cflags -O2 "q" $x\nmember bench_sha256 aa\n' > g/base.key
	printf 'side head\nmember bench_sha256 bb\n' > g/head.key
	cp g/runs.jsonl good.jsonl
	run -0 --separate-stderr gaterun -k base g
	[ "$stderr" = "" ]
	run -0 --separate-stderr gaterun -k head g
	cmp good.jsonl g/runs.jsonl
	# A value that needs escaping is compared too, not only the plain ones.
	printf 'side base\nmember cflags -O2 "q" $y\nmember bench_sha256 aa\n' > g/base.key
	run -1 --separate-stderr gaterun -k base g
	[ "$stderr" = "gate: base: the rounds in g/runs.jsonl are not whole or not of this base: measured again" ]
	[ ! -e g/runs.jsonl ] && cmp good.jsonl g/runs.rejected.jsonl
	# No rounds: nothing to reject.
	run -0 --separate-stderr gaterun -k base g
	# Cut short, a line that is no record, no record of the side at all.
	head -c 100 good.jsonl > g/runs.jsonl
	run -1 --separate-stderr gaterun -k head g
	{ cat good.jsonl; echo 'not a record'; } > g/runs.jsonl
	run -1 --separate-stderr gaterun -k head g
	grep -v '"side":"head"' good.jsonl > g/runs.jsonl
	run -1 --separate-stderr gaterun -k head g
	run -2 --separate-stderr gaterun -k head
	[[ "${stderr_lines[0]}" == "usage: gaterun "* ]]
}

@test "gaterun: the rule is asked after every round: ok the round it can tell, no round more" {
	bench base '{"x_ns":8.0}'
	bench head '{"x_ns":8.0}'
	run -0 --separate-stderr gaterun -N 100 -D 100 g base=./base/bench head=./head/bench
	[ "$output" = "" ]
	# Six rounds: the fewest whose interval of the median holds at 95 %.
	[ "$(jq -r .round g/runs.jsonl | tr '\n' ' ')" = "1 1 2 2 3 3 4 4 5 5 6 6 " ]
	[[ "$stderr" == "gaterun: measuring base and head, a round at a time until the rule decides (the deadline: 100 rounds and 100 s)"* ]]
}

@test "gaterun: a metric decided is no longer measured: BENCH_CASES names the ones still open" {
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\ny_ns = 0.25\n' > budget.toml
	cases base 8 100 0
	cases head 8 100 1
	run -2 --separate-stderr gaterun -N 10 -D 0.001 g base=./base/bench head=./head/bench
	[ "$(last)" = "" ]
	[[ "$stderr" == *"gaterun: round 6: x_ns decided, ok: no longer measured"* ]]
	run -2 --separate-stderr gaterun -v g
	[ "$(last | jq -c '[.verdict, .undecided, .rounds]')" = '["undecided",["y_ns"],10]' ]
	[ "$(jq -r 'select(.metric == "x_ns") | [.verdict, .rounds] | join(" ")' g/verdict.jsonl)" = "ok 6" ]
	# Rounds 1 to 6 ran both cases, 7 to 10 y_ns alone.
	[ "$(sort base/ran | uniq -c | awk '{ print $1 "x" $2 }' | tr '\n' ' ')" = "6xall 4xy_ns " ]
	[ "$(jq -r 'select(.round > 6) | .x_ns' g/runs.jsonl | sort -u)" = null ]
	# -f: every case every round.
	rm -f base/ran head/ran
	run -2 --separate-stderr gaterun -f -x -N 8 -D 0.1 g base=./base/bench head=./head/bench
	[ "$(sort -u base/ran)" = all ]
}

@test "gaterun: the deadline is both the rounds and the seconds: the later of the two" {
	printf 'runs = 2\n\n[budget]\ny_ns = 0.25\n' > budget.toml
	cases base 8 100 0
	cases head 8 100 1
	# Rounds first: 12 rounds, however fast they are.
	run -2 --separate-stderr gaterun -N 12 -D 0.01 g base=./base/bench head=./head/bench
	[ "$(jq -r .round g/runs.jsonl | sort -un | tail -n 1)" = 12 ]
	[[ "$stderr" == *"gaterun: the deadline has passed after 12 rounds and "*" s (at least 12 rounds and 0.01 s): undecided: y_ns"* ]]
	# Seconds first: more rounds than -N, until 1 s has passed.
	SECONDS=0
	run -2 --separate-stderr gaterun -x -N 2 -D 1 g base=./base/bench head=./head/bench
	[ "$SECONDS" -ge 1 ]
	[ "$(jq -r .round g/runs.jsonl | sort -un | tail -n 1)" -gt 2 ]
	# The budget's runs, without -N.
	printf 'runs = 3\n\n[budget]\ny_ns = 0.25\n' > budget.toml
	run -2 --separate-stderr gaterun -x -D 0.01 g base=./base/bench head=./head/bench
	[ "$(jq -r .round g/runs.jsonl | sort -un | tail -n 1)" = 3 ]
}

@test "gaterun: stored rounds are judged first and measured on from; -x starts again" {
	bench base '{"x_ns":8.0}'
	bench head '{"x_ns":8.0}'
	run -0 --separate-stderr gaterun g base=./base/bench head=./head/bench
	# Decided already: no round more.
	run -0 --separate-stderr gaterun g base=./base/bench head=./head/bench
	[ "$(jq -r .round g/runs.jsonl | sort -un | tail -n 1)" = 6 ]
	[[ "$stderr" != *measuring* ]]
	# At 99 % the same six rounds are too few: rounds 7 to 9 are measured.
	run -0 --separate-stderr gaterun -C 0.99 g base=./base/bench head=./head/bench
	[[ "$stderr" == *"gaterun: measuring on from round 7: the rule has not decided x_ns"* ]]
	[ "$(jq -r .round g/runs.jsonl | sort -un | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 9 " ]
	# The order of the sides goes on alternating.
	[ "$(jq -r 'select(.slot == 0) | .side' g/runs.jsonl | tr '\n' ' ')" = "base head base head base head base head base " ]
	run -0 --separate-stderr gaterun -x g base=./base/bench head=./head/bench
	[ "$(jq -r .round g/runs.jsonl | sort -un | tail -n 1)" = 6 ]
}

@test "gaterun: a round that fails ends the gate in an error verdict that says why; the rounds before stay whole" {
	bench base '{"x_ns":8.0}'
	mkdir -p head
	printf '#!/bin/sh\nn=$(( $(cat %s/n 2>/dev/null || echo 0) + 1 ))\necho $n > %s/n\n[ $n -lt 3 ] || { echo boom >&2; exit 3; }\necho '\''{"x_ns":8.0}'\''\n' "$T" "$T" > head/bench
	chmod +x head/bench
	run -2 --separate-stderr gaterun -a head:cc=gcc g base=./base/bench head=./head/bench
	run -2 --separate-stderr gaterun -v -e reason g
	[ "$(last | jq -r '[.verdict, .side, .step, .run.round, .run.status, .run.cc] | join(" ")')" = "error head run 3 3 gcc" ]
	[ "$(last | jq -r .run.stderr)" = boom ]
	[ "$(last | jq -r .error)" = "head: run: side head, round 3: exited with status 3" ]
	[ "$(cat reason)" = "gate: head: run: side head, round 3: exited with status 3" ]
	# Rounds 1 and 2, whole, for the next gate; round 3's failure apart.
	[ "$(jq -r .round g/runs.jsonl | tr '\n' ' ')" = "1 1 2 2 " ]
	[ "$(tail -n 1 g/runs.partial.jsonl | jq -r .error)" = "side head, round 3: exited with status 3" ]
	# Never trusted by make: dated 1970.
	[ "$(stat -c %Y g/verdict.jsonl)" = 0 ]
	[ -z "$(find g -name '*.tmp')" ]
}

@test "gaterun: a metric the benchmark lacks, an unbudgeted one with -u, a bad budget: an error verdict naming it" {
	bench base '{"x_ns":8.0}'
	bench head '{"y_ns":8.0}'
	run -2 --separate-stderr gaterun g base=./base/bench head=./head/bench
	run -2 --separate-stderr gaterun -v g
	[ "$(last | jq -r .error)" = 'x_ns: missing on side "head"' ]
	[[ "$stderr" == *'gaterun: x_ns: missing on side "head"'* ]]
	bench head '{"x_ns":8.0,"z_ns":1}'
	run -2 --separate-stderr gaterun -x -u g base=./base/bench head=./head/bench
	run -2 --separate-stderr gaterun -v g
	[[ "$(last | jq -r .error)" == "z_ns: not in the budget file (-u)" ]]
	printf '[budget]\nx_ns = 2\n' > bad.toml
	run -2 --separate-stderr gaterun -x -b bad.toml g base=./base/bench head=./head/bench
	run -2 --separate-stderr gaterun -v g
	[[ "$(last | jq -r '[.side, .step] | join(" ")')" == "both budget" ]]
	[[ "$(last | jq -r .error)" == "both: budget: bad.toml:2: "* ]]
}

@test "gaterun -v: a verdict missing or cut short is exit 2, the reason said" {
	mkdir g
	run -2 --separate-stderr gaterun -v -e reason g
	[ "$output" = "" ]
	[ "$stderr" = "gaterun: g/verdict.jsonl: no verdict, or not a whole one" ]
	printf '{"verdict":"ok"' > g/verdict.jsonl
	run -2 --separate-stderr gaterun -v g
	[ -w /dev/full ] || skip "no /dev/full"
	printf '{"verdict":"ok"}\n' > g/verdict.jsonl
	run -2 --separate-stderr bash -c 'gaterun -v g > /dev/full'
	[ "$stderr" = "gaterun: write stdout: No space left on device: the records could not be written to standard output" ]
}

@test "gaterun: settings out of range are one line naming the option, exit 2, nothing run" {
	bench base '{"x_ns":8.0}'
	bench head '{"x_ns":8.0}'
	for bad in '-C 1' '-C 0' '-C x' '-D 0' '-D -1' '-D x' '-N 1' '-N x' '-N 1000001' '-t 0' '-t x' '-c x'; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr gaterun $bad g base=./base/bench head=./head/bench
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "gaterun: ${bad% *} ${bad#* }: "* ]]
		[ ! -e g ]
	done
	run -2 --separate-stderr gaterun g head=./head/bench base=./base/bench
	[ "$stderr" = "gaterun: head=./head/bench: the sides are base=command and head=command, in that order" ]
	run -2 --separate-stderr gaterun -j g base=./base/bench head=./head/bench
}
