#!/usr/bin/env bats
# readers: every tool that reads JSON lines keeps one rule (perfgate(7),
# "Records"; it lives in lib/jsonreader.c): a blank line is no record and
# is skipped, a CR before LF and a UTF-8 byte order mark at the start are
# not a record's text, a last line without LF is a line, and a NUL (or a
# byte order mark anywhere else) is a malformed record: exit 2, naming file
# and line. Each reader is given its own good file, then the same file with
# each of these changes, and must answer as it does on the good file.

load common

R=$DATA/refjudge

# The readers: NAME, and the command that reads in.jsonl (its answer is
# stdout, stderr and exit status; plotrounds' picture is shown on stdout).
READERS=(minjson cmpbudget cmpbudget-r gaterun-j plotrounds mergeshards noisesum countof refjudge)

setup() {
	cd "$BATS_TEST_TMPDIR"
	printf '[budget]\nx_ns = 0.5\n' >b.toml
	for r in 1 2 3 4 5 6 7 8; do
		printf '{"side":"base","round":%d,"x_ns":10}\n{"side":"head","round":%d,"x_ns":10.%d}\n' "$r" "$r" "$r"
	done >rounds.jsonl
	printf '{"side":"base","stat":"min","x_ns":10}\n{"side":"head","stat":"min","x_ns":10.1}\n' >stats.jsonl
	mkdir g0 && cp rounds.jsonl g0/runs.jsonl && gaterun -j -b b.toml g0 2>/dev/null
	cp g0/verdict.jsonl verdict.jsonl
	printf '{"side":"base","x_instr":100}\n{"side":"head","x_instr":101}\n' >counts.jsonl
}

# good NAME: the file NAME reads, valid.
good() {
	case $1 in
	minjson|cmpbudget-r|gaterun-j|plotrounds) cat rounds.jsonl ;;
	cmpbudget) cat stats.jsonl ;;
	mergeshards|noisesum) cat verdict.jsonl ;;
	countof) cat counts.jsonl ;;
	refjudge) cat "$R/runs.jsonl" ;;
	esac
}

# answer NAME: run NAME on in.jsonl, the answer in status, output and stderr.
answer() {
	rm -f out.svg
	case $1 in
	minjson) run --separate-stderr minjson in.jsonl ;;
	cmpbudget) run --separate-stderr cmpbudget -b b.toml in.jsonl ;;
	cmpbudget-r) run --separate-stderr cmpbudget -b b.toml -r in.jsonl stats.jsonl ;;
	gaterun-j) run --separate-stderr sh -c 'rm -rf g && mkdir g && cp in.jsonl g/runs.jsonl && { gaterun -j -b b.toml g; gaterun -v g; }' ;;
	plotrounds) run --separate-stderr sh -c 'plotrounds -o out.svg in.jsonl && cat out.svg' ;;
	mergeshards) run --separate-stderr mergeshards in.jsonl ;;
	noisesum) run --separate-stderr noisesum in.jsonl ;;
	countof) run --separate-stderr countof -j -b b.toml in.jsonl ;;
	refjudge) run --separate-stderr refjudge -c sum -s kata,plain,numpy in.jsonl "$R/stats.jsonl" ;;
	esac
}

# same_as_good CHANGE: for every reader, in.jsonl made from its good file by
# the sed or awk program CHANGE (run by change) is read as the good file is.
same_as_good() {
	local name want_status want_out want_err
	for name in "${READERS[@]}"; do
		good "$name" >in.jsonl
		answer "$name"
		[ "$status" -le 1 ] || { echo "$name: its good file fails: $stderr"; return 1; }
		want_status=$status want_out=$output want_err=$stderr
		good "$name" | change "$1" >in.jsonl
		answer "$name"
		[ "$status" -eq "$want_status" ] && [ "$output" = "$want_out" ] && [ "$stderr" = "$want_err" ] ||
		    { echo "$name: status $status (want $want_status): $stderr"; return 1; }
	done
}

# refused CHANGE: for every reader, in.jsonl changed so is exit 2 with one
# line naming in.jsonl and line 2.
refused() {
	local name
	for name in "${READERS[@]}"; do
		good "$name" | change "$1" >in.jsonl
		answer "$name"
		[ "$status" -eq 2 ] || { echo "$name: status $status"; return 1; }
		# gaterun -j reads in.jsonl as the gate's g/runs.jsonl.
		f=in.jsonl
		[ "$name" = gaterun-j ] && f=g/runs.jsonl
		[[ "$stderr" == "$name: $f:2: "* || "$stderr" == "${name%-*}: $f:2: "* ]] ||
		    [[ "$stderr" == *$'\n'"${name%-*}: $f:2: "* ]] || { echo "$name: $stderr"; return 1; }
	done
}

# change WHAT: the good file on stdin, changed.
change() {
	case $1 in
	blank) sed '1a\
\
 	 ' ;;
	crlf) sed 's/$/\r/' ;;
	nonl) head -c -1 ;;
	bom) printf '\357\273\277'; cat ;;
	bom2) sed '2s/^/\xef\xbb\xbf/' ;;
	nul) sed '2s/^{/{\x00/' ;;
	nul-string) sed '2s/":"/":"\x00/' ;;
	esac
}

@test "readers: a blank line, empty or only blanks, is skipped by every reader" {
	same_as_good blank
	[ "$(good minjson | change blank | sed -n 2,3p | od -An -c | tr -d ' \n')" = '\n\t\n' ]
}

@test "readers: lines that end in CR LF are read as lines that end in LF by every reader" {
	same_as_good crlf
}

@test "readers: a last line without LF is a line to every reader" {
	same_as_good nonl
}

@test "readers: a UTF-8 byte order mark at the start is not the first line's text to any reader" {
	same_as_good bom
}

@test "readers: a byte order mark on a later line is refused by every reader, naming file and line" {
	refused bom2
}

@test "readers: a NUL byte, between members or in a string, is refused by every reader, naming file and line" {
	refused nul
	refused nul-string
}

@test "readers: a file of blank lines is read as an empty file by every reader" {
	local name want_status want_err
	for name in "${READERS[@]}"; do
		: >in.jsonl
		answer "$name"
		want_status=$status want_err=$stderr
		printf '\n  \n\t\r\n\r\n' >in.jsonl
		answer "$name"
		[ "$status" -eq "$want_status" ] && [ "$stderr" = "$want_err" ] ||
		    { echo "$name: status $status (want $want_status): $stderr (want $want_err)"; return 1; }
	done
}
