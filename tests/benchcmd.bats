#!/usr/bin/env bats
# benchcmd: the gate's one parser of a bench command (lib/benchargv.c):
# the words, the sh form written to bench.cmd, what the key digests, and
# the forms refused. The gate's own use of it is in store.bats and
# hostile.bats.

load common

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "benchcmd: a directory and a variable become env -C DIR -- NAME=value before the words" {
	run -0 --separate-stderr benchcmd 'cd /tmp && LANG=C ./bench --data=in.txt'
	[ "$output" = "$(printf '%s\n' env -C /tmp -- LANG=C ./bench --data=in.txt)" ]
	run -0 --separate-stderr benchcmd "./bench 'two words' \"a \\\"q\\\"\" back\\ slash"
	[ "$output" = "$(printf '%s\n' ./bench 'two words' 'a "q"' 'back slash')" ]
}

@test "benchcmd -S: one line of quoted words that splits back to the same words" {
	cmd="cd '/tmp/a b' && X='1 2' ./bench \"it's\" -- -x"
	run -0 --separate-stderr benchcmd -S "$cmd"
	s=$output
	[ "$(benchcmd "$s")" = "$(benchcmd "$cmd")" ]
	[ "$(printf '%s\n' "$s" | wc -l)" -eq 1 ]
	# The sh form runs as the words do.
	[ "$(sh -c "exec $(benchcmd -S "printf '%s|' 'a b' c")")" = 'a b|c|' ]
}

@test "benchcmd -K: the program found in PATH and every file a word names, whole or after =" {
	echo data > 'in put.txt'
	run -0 --separate-stderr benchcmd -K "DATA=in\\ put.txt cat --file=in\\ put.txt /etc/hostname"
	[[ "$output" == *"file $(command -v cat)"* ]]
	[[ "$output" == *"file /etc/hostname"* ]]
	[[ "$output" == *"file "*"in put.txt"* ]]
}

@test "benchcmd: a pipe, a redirection, a \$ expansion, a glob, two commands are refused in one line, exit 2" {
	for c in 'a | b' './bench > out' 'echo $HOME' './bench *.txt' './bench; rm x' './bench & wait' 'echo `id`' "./bench \$(id)"; do
		run -2 --separate-stderr benchcmd "$c"
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "benchcmd: "* ]]
	done
}

@test "benchcmd: usage is the man page's SYNOPSIS; no command, or two, is a usage error" {
	need_pkg mandoc mandoc
	run -2 --separate-stderr benchcmd -Z
	[ "${stderr_lines[0]}" = "benchcmd: unknown option -Z" ]
	[ "$(printf '%s\n' "${stderr_lines[@]:1}" | sed 's/^usage: //' | tr -s ' \n' '  ' | sed 's/ $//')" = "$(man_synopsis benchcmd)" ]
	run -2 --separate-stderr benchcmd
	run -2 --separate-stderr benchcmd -K -S ./bench
}

@test "benchcmd: every EXAMPLES line of the man page runs" {
	mapfile -t ex < <(man_examples benchcmd)
	[ "${#ex[@]}" -eq 2 ]
	for e in "${ex[@]}"; do
		run -0 --separate-stderr sh -c "$e"
		[ -n "$output" ]
	done
}
