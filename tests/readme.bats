#!/usr/bin/env bats
# readme: README.md is a test. Every fenced block of it is one of four
# kinds, and tests/readme.py runs it or checks it so:
#
#   ```sh            commands: each line that is not blank or a comment is
#                    run, as written, by bash, and must exit 0 (or the
#                    status <!-- status: N N ... --> gives for each line,
#                    in order);
#   ``` with "$ command" as its first line
#                    a transcript: the command runs (stdout and stderr
#                    together) and its output must match the lines below
#                    it, numbers masked (every number matches any number;
#                    a digest shown as 19cac3b1… must begin so), runs of
#                    blanks alike, "…" standing for any text in a line or,
#                    alone on a line, for any lines; the gate's progress
#                    lines ("gate: ...") the README leaves out are passed
#                    over;
#   <!-- file: PATH --> on the line before the fence
#                    (```make, ```toml, ```c ...) the block's text is
#                    written to PATH, for the commands after it;
#   ```text          illustrative: neither run nor compared. THE MARK for
#                    a block that cannot run here (it needs the network,
#                    a quiet machine, minutes, or runs the tests
#                    themselves): tag its fence ```text, and say in the
#                    prose what produces it (make bench-gate, a test
#                    file).
#
# Any other block fails the first test, naming its line, so a new
# section's blocks are picked up as they are written: run, or marked.
#
# Each ## section runs in a scratch copy of this checkout of its own
# (the files git lists, tracked or not, with the built tools and
# objects; bin/ first in PATH), its blocks in order in one bash; each
# command in a subshell of its own, each setup in that bash, so that a
# setup's cd or export carries to the blocks after it. Before a
# block, HTML comments, invisible on GitHub, may prepare it:
#   <!-- setup: SHELL -->   run first, must exit 0 (fixtures: files,
#                           a git history from tests/readme/*.sh);
#   <!-- then: SHELL -->    run after, must exit 0 (a check of a file);
#   <!-- status: N ... -->  the exit status of each command of a sh block.
# README.md's outputs are real ones, masked; when the program changes
# what it prints, this test fails until the README shows it again. A
# section with a problem is tried again, up to 3 times in all, each in a
# fresh copy, before the problem counts: a gate's output varies beyond
# what masking hides (on a busy machine an A/A gate needs its third round
# about one time in ten), a stale README fails every time.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS
	export GIT_CONFIG_NOSYSTEM=1
}

# readme LINES...: a README of these lines in $T/README.md.
readme() {
	printf '%s\n' "$@" > "$T/README.md"
}

@test "readme: every fenced block of README.md runs, is compared, is written for the commands, or is marked \`\`\`text" {
	run -0 python3 "$TOP/tests/readme.py" lint "$TOP/README.md"
	[ "$output" = "" ]
}

@test "readme: every section of README.md runs as written, and every output it shows is what the programs print" {
	run python3 "$TOP/tests/readme.py" run "$TOP/README.md" "$TOP" "$T/scratch"
	printf '%s\n' "$output"
	# Each section's seconds, beside run.sh's times of each file.
	mkdir -p "$TOP/build/tests" && cp "$T/scratch/times" "$TOP/build/tests/readme.sections" || true
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
}

@test "readme: a block neither run nor marked is refused, naming its line" {
	readme '# x' '' '```make' 'all:' '```' '' '```' 'plain' '```' '' '```text' 'false' '```'
	run -1 python3 "$TOP/tests/readme.py" lint "$T/README.md"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == 'README.md:3: a block neither run nor marked: '* ]]
	[[ "${lines[1]}" == 'README.md:7: a block neither run nor marked: '* ]]
}

@test "readme: a stale output fails (a digest shown that the file no longer has), a fresh one with other numbers passes" {
	printf 'runs = 3\n' > "$T/b.toml"
	sum=$(sha256sum < "$T/b.toml" | cut -c1-8)
	readme '## one' '' '```' "\$ sha256sum $T/b.toml" "85bd6bb0…  $T/b.toml" '```'
	run -1 python3 "$TOP/tests/readme.py" run "$T/README.md" "$TOP" "$T/s1"
	[[ "${lines[0]}" == "README.md:3: \$ sha256sum $T/b.toml: the output differs from the transcript (numbers masked); it was:" ]]
	[ "${lines[1]}" = "    $(sha256sum "$T/b.toml")" ]
	readme '## one' '' '```' "\$ sha256sum $T/b.toml" "$sum…  $T/b.toml" '```' \
	    '' '```' '$ printf "metric  base\nx_ns  %s\n" 27390.7' 'metric base' 'x_ns     1.5' '```'
	run -0 python3 "$TOP/tests/readme.py" run "$T/README.md" "$TOP" "$T/s2"
	[ "$output" = "" ]
}

@test "readme: a command that fails is named with its line and output; <!-- status: --> says what a line should exit" {
	readme '## one' '' '```sh' 'true' 'echo oops; exit 3' '```' '' '<!-- status: 1 0 -->' '```sh' 'false' 'true' '```'
	run -1 python3 "$TOP/tests/readme.py" run "$T/README.md" "$TOP" "$T/s"
	[ "${lines[0]}" = 'README.md:5: echo oops; exit 3: status 3, not 0' ]
	[ "${lines[1]}" = '    oops' ]
	[ "$(printf '%s\n' "$output" | grep -c '^README')" -eq 1 ]
}

@test "readme: setup, file and then run in order in one shell a section; '…' lines and left-out progress lines match; text is never run" {
	readme '## one' '' '<!-- setup: mkdir d && cd d && export V=7 -->' '<!-- file: f.txt -->' \
	    '<!-- then: grep -qx hello f.txt -->' '```toml' 'hello' '```' '' '```sh' '[ "$V" = 7 ] && [ -f f.txt ]' '```' '' \
	    '```' '$ printf "gate: building\nA 1\nB 2\nC 3\nD\n"' 'A 9' '…' 'D' '```' '' \
	    '```text' 'touch ran' '```' '' '## two' '' '```sh' '[ ! -e d ] && [ ! -e ran ] && [ ! -e ../s0.0/ran ]' '```'
	run -0 python3 "$TOP/tests/readme.py" run "$T/README.md" "$TOP" "$T/s"
	[ "$output" = "" ]
	[ -f "$T/s/s0.0/d/f.txt" ] && [ ! -e "$T/s/s0.0/d/ran" ]
}

@test "readme: the marking rule is documented where the lead and writers look: this file's header and tests/README.md" {
	grep -q '```text' "$TOP/tests/README.md"
	grep -q '<!-- setup: ' "$TOP/tests/README.md"
}
