#!/usr/bin/env bats
# hostile: the gate as a hostile or unlucky user meets it (issue 20): a
# gate killed at any point, a full disk, two gates at once, names that a
# shell or make would read as code, benchmarks that leave processes
# behind. Each test failed on the code before its fix. Kills are simulated
# by an mv in PATH that kills the shell that ran it after its Nth rename;
# full disks by a small tmpfs (root); concurrency by two real gates.
load common

setup() {
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS LD_LIBRARY_PATH LD_PRELOAD
	T=$BATS_TEST_TMPDIR
	G=$T/gate
	export GATE_OBJECTS=$T/objects
	cd "$TOP"
}

# store FUNCTION ARG...: one of store.sh's functions, run as gate.sh runs it.
store() {
	sh -c '. "$0"; "$@"' "$TOP/mk/store.sh" "$@"
}

# killer: $T/wrap/mv renames, then kills the shell that ran it with
# SIGKILL at its KILL_AT-th call (counted in $T/mv.n), as a CI cancel or
# the OOM killer would, between any two steps.
killer() {
	mkdir -p "$T/wrap"
	cat > "$T/wrap/mv" <<'SH'
#!/bin/sh
/bin/mv "$@"
s=$?
n=$(($(cat "$KILL_COUNT" 2>/dev/null || echo 0) + 1))
echo "$n" > "$KILL_COUNT"
[ "$n" = "${KILL_AT:-0}" ] && kill -9 "$PPID"
exit "$s"
SH
	chmod +x "$T/wrap/mv"
	export KILL_COUNT=$T/mv.n
}

# killed_at N COMMAND...: COMMAND with the killer in PATH, killed after
# its Nth rename (or not, when it makes fewer).
killed_at() {
	rm -f "$KILL_COUNT"
	KILL_AT=$1 PATH="$T/wrap:$PATH" "${@:2}" || true
}

@test "hostile: kills: an object store killed after any rename never serves an object under another's key" {
	cd "$T"
	killer
	mkdir A R1 R2
	printf '#include "h.h"\nint v(void) { return V; }\n' > A/x.c
	cp A/x.c R1/ && cp A/x.c R2/
	echo '#define V 1' > R1/h.h
	echo '#define V 2' > R2/h.h
	GATE_OBJECTS=$T/ref store compile R1/x.o cc -O2 '' R1/x.c
	GATE_OBJECTS=$T/ref store compile R2/x.o cc -O2 '' R2/x.c
	run -1 cmp -s R1/x.o R2/x.o
	# Each kill in a store of its own that holds the first header's
	# object; the second header's is being stored when the kill comes.
	for k in 1 2 3 4 5 6 7 8; do
		export GATE_OBJECTS=$T/objects$k
		mkdir "A$k" && cp R1/x.c R1/h.h "A$k/"
		run -0 store compile "A$k/x.o" cc -O2 '' "A$k/x.c"
		cp R2/h.h "A$k/h.h"
		killed_at "$k" store compile "A$k/x.o" cc -O2 '' "A$k/x.c"
		# Back to the first header: the first object, here and in a new
		# directory that only the store can serve.
		cp R1/h.h "A$k/h.h"
		mkdir "B$k" && cp R1/x.c R1/h.h "B$k/"
		run -0 store compile "B$k/x.o" cc -O2 '' "B$k/x.c"
		cmp "B$k/x.o" R1/x.o
		run -0 store compile "A$k/x.o" cc -O2 '' "A$k/x.c"
		cmp "A$k/x.o" R1/x.o
		mkdir "C$k" && cp R2/x.c R2/h.h "C$k/"
		run -0 store compile "C$k/x.o" cc -O2 '' "C$k/x.c"
		cmp "C$k/x.o" R2/x.o
	done
}

@test "hostile: kills: a program store killed after any rename never serves another program" {
	cd "$T"
	killer
	mkdir lib s
	printf 'int lv(void);\n#include <stdio.h>\nint main(void) { printf("%%d\\n", lv()); return 0; }\n' > drv.c
	cc -c -o drv.o drv.c
	echo 'int side_unused;' > s/k.c
	lib() {
		echo "int lv(void) { return $1; }" > lv.c
		cc -c -o lv.o lv.c && rm -f lib/liblv.a && ar rcs lib/liblv.a lv.o
	}
	for k in 1 2 3 4 5 6 7 8; do
		export GATE_OBJECTS=$T/objects$k
		lib 1
		mkdir "s$k" "t$k" && cp s/k.c "s$k/" && cp s/k.c "t$k/"
		run -0 store cmd_program "s$k/bench" cc -O2 '' "s$k/k.c" drv.o "-L$T/lib -llv"
		[ "$("s$k/bench")" = 1 ]
		lib 2
		killed_at "$k" store cmd_program "s$k/bench" cc -O2 '' "s$k/k.c" drv.o "-L$T/lib -llv"
		lib 1
		run -0 store cmd_program "t$k/bench" cc -O2 '' "t$k/k.c" drv.o "-L$T/lib -llv"
		[ "$("t$k/bench")" = 1 ]
		run -0 store cmd_program "s$k/bench" cc -O2 '' "s$k/k.c" drv.o "-L$T/lib -llv"
		[ "$("s$k/bench")" = 1 ]
	done
}

# A benchmark that prints the line its side's file defines, a budget of
# 0.25 on x_ns; side NAME LINE writes a side's file.
fixed_bench() {
	cat > "$T/fixed.c" <<'C'
#include <stdio.h>
extern const char line[];
int main(void) { puts(line); return 0; }
C
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
}
side() {
	printf 'const char line[] = "%s";\n' "$(printf '%s' "$2" | sed 's/"/\\"/g')" > "$T/$1.c"
}
fixed_args() {
	echo GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" BASE="$T/base.c" HEAD="$T/head.c"
}

@test "hostile: kills: a build killed by a signal is said so, not timed out" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	echo 'kill -9 $$' > "$T/die.sh"
	run -2 --separate-stderr perfgate $(fixed_args) GATEDIR="$G" GATE_BUILD="sh $T/die.sh"
	[ "$(last | jq -r .error)" = "base: build: $T/base.c (sha256:$(sha256sum < "$T/base.c" | cut -c1-64)): the build was killed by signal 9; log in $G/base/build.log" ] ||
	    [ "$(last | jq -r .error)" = "head: build: $T/head.c (sha256:$(sha256sum < "$T/head.c" | cut -c1-64)): the build was killed by signal 9; log in $G/head/build.log" ]
}

# slow_bench: fixed_bench's benchmark, half a second a run.
slow_bench() {
	fixed_bench
	cat > "$T/fixed.c" <<'C'
#include <stdio.h>
#include <unistd.h>
extern const char line[];
int main(void) { usleep(500000); puts(line); return 0; }
C
}

# wait_for FILE: until FILE exists (at most 20 s).
wait_for() {
	local i
	for i in $(seq 200); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

@test "hostile: concurrency: a second gate in a GATEDIR in use refuses with one line, the first answers right" {
	slow_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	side slow '{"x_ns":30.0}'
	perfgate $(fixed_args) HEAD="$T/base.c" GATEDIR="$G" > "$T/out1" 2> "$T/err1" &
	pid=$!
	wait_for "$G/lock"
	run -2 --separate-stderr perfgate $(fixed_args) HEAD="$T/slow.c" GATEDIR="$G"
	# make's own line, and perfgate's saying it again, last; nothing else.
	[ "${#stderr_lines[@]}" -le 2 ]
	[[ "${stderr_lines[-1]}" == "gate: both: lock: GATEDIR $G is in use by pid "[0-9]* ]]
	for l in "${stderr_lines[@]}"; do [[ "$l" == *"GATEDIR $G is in use by pid "[0-9]* ]]; done
	[ "$(last | jq -r .step)" = lock ]
	wait "$pid"
	[ "$(tail -n 1 "$T/out1" | jq -r .verdict)" = ok ]
	[ "$(tail -n 1 "$T/out1" | jq -r .head.source)" = "sha256:$(sha256sum < "$T/base.c" | cut -c1-64)" ]
	# Then the second, alone: its own answer (its benchmark without the
	# half-second wait, which only had to keep the first gate in the lock:
	# 32 rounds of it were 16 s).
	sed '/usleep/s/usleep(500000); //' "$T/fixed.c" >"$T/fast.c"
	run -1 cmp -s "$T/fixed.c" "$T/fast.c"
	run -1 --separate-stderr perfgate $(fixed_args) GATE_BENCH_SRC="$T/fast.c" HEAD="$T/slow.c" GATEDIR="$G"
	[ "$(last | jq -r .verdict)" = regressed ]
}

@test "hostile: kills: a gate killed with its process group leaves a lock that the next gate takes over, and answers right" {
	slow_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":30.0}'
	setsid perfgate $(fixed_args) GATEDIR="$G" > /dev/null 2>&1 &
	pid=$!
	wait_for "$G/runs.id"
	sleep 1
	kill -9 -- "-$pid"
	wait "$pid" || true
	run --separate-stderr perfgate $(fixed_args) GATEDIR="$G"
	[ "$status" = 1 ] || { echo "$stderr" >&3; echo "$output" >&3; }
	[ "$(last | jq -r .verdict)" = regressed ]
}

@test "hostile: cache: rounds copied from another GATEDIR are measured again, not reused" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	side slow '{"x_ns":24.0}'
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$T/aa"
	run -1 --separate-stderr perfgate $(fixed_args) HEAD="$T/slow.c" GATEDIR="$G"
	cp "$T/aa/runs.jsonl" "$G/runs.jsonl"
	run -1 --separate-stderr perfgate $(fixed_args) HEAD="$T/slow.c" GATEDIR="$G"
	[ "$(last | jq -r .verdict)" = regressed ]
	[[ "$stderr" == *"the rounds in $G/runs.jsonl are not whole or not of this "*": measured again"* ]]
	# Cut short mid-record: measured again too.
	head -c 100 "$T/aa/runs.jsonl" > "$G/runs.jsonl"
	run -1 --separate-stderr perfgate $(fixed_args) HEAD="$T/slow.c" GATEDIR="$G"
	[ "$(last | jq -r .verdict)" = regressed ]
}

@test "hostile: cache: the exit status is the verdict record's: no status file beside it is read" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":24.0}'
	run -1 --separate-stderr perfgate $(fixed_args) GATEDIR="$G"
	# No side channel: what is in GATEDIR besides the records does not count.
	[ ! -e "$G/verdict.status" ] && [ ! -e "$G/verdict.why" ] && [ ! -e "$G/stats.jsonl" ]
	echo 0 > "$G/verdict.status"
	run -1 --separate-stderr perfgate $(fixed_args) GATEDIR="$G"
	[ "$(last | jq -r .verdict)" = regressed ]
}

@test "hostile: disk: a disk full while the rounds are written leaves nothing that a later gate trusts" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	mkdir "$T/small"
	mount -t tmpfs -o size=1m tmpfs "$T/small"
	# The third run fills the disk: the rounds written so far fit in the
	# page they have; appending them to runs.jsonl.tmp does not.
	cat > "$T/fill.sh" <<'SH'
n=$(($(cat "$FILL_COUNT" 2>/dev/null || echo 0) + 1))
echo "$n" > "$FILL_COUNT"
[ "$n" = 3 ] && cat /dev/zero > "$FILL_DIR/filler" 2>/dev/null
exec "$@"
SH
	export FILL_COUNT=$T/fill.n FILL_DIR=$T/small
	run --separate-stderr perfgate $(fixed_args) GATEDIR="$T/small/g" \
	    GATE_BENCH="sh $T/fill.sh \$(GATE_SIDE)/bench"
	st=$status
	rm -f "$T/small/filler"
	[ "$st" -eq 2 ]
	run --separate-stderr perfgate $(fixed_args) GATEDIR="$T/small/g" \
	    GATE_BENCH="sh $T/fill.sh \$(GATE_SIDE)/bench"
	umount "$T/small"
	[ "$status" -eq 0 ]
	[ "$(last | jq -r .verdict)" = ok ]
}

@test "hostile: cache: a library found through LD_LIBRARY_PATH set in GATE_BENCH is in the key" {
	mkdir "$T/lib" "$T/other"
	printf 'const char *val(void);\n#include <stdio.h>\nint main(void) { puts(val()); return 0; }\n' > "$T/lib.c"
	printf 'const char *val(void) { return "{\\"x_ns\\":%s}"; }\n' 8.0 > "$T/v.c"
	cc -shared -fPIC -o "$T/other/libv.so" "$T/v.c"
	cc -shared -fPIC -o "$T/lib/libv.so" "$T/v.c"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	echo 'int side_unused;' > "$T/base.c"
	echo 'int side_unused;' > "$T/head.c"
	# Linked against one directory, run with another.
	set -- perfgate GATE_BENCH_SRC="$T/lib.c" GATE_LDLIBS="-L$T/other -lv" \
	    GATE_BENCH="env LD_LIBRARY_PATH=$T/lib \$(GATE_SIDE)/bench" \
	    BUDGET="$T/b.toml" BASE="$T/base.c" HEAD="$T/head.c" GATEDIR="$G"
	run -0 --separate-stderr "$@"
	grep -q "^lib [0-9a-f]* $T/lib/libv.so$" "$G/head.key"
	printf 'const char *val(void) { return "{\\"x_ns\\":%s}"; }\n' 7.0 > "$T/v.c"
	cc -shared -fPIC -o "$T/lib/libv.so" "$T/v.c"
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.metric) | .base')" = 7 ]
}

# A repository holding tests/fixtures/project as its first commit, as
# tests/project.bats makes it.
mkrepo() {
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$T
	REPO=$T/${1:-repo}
	cp -R "$TOP/tests/fixtures/project" "$REPO"
	cd "$REPO"
	git init -q -b main
	git add -A
	git commit -q -m 'fx: a sum and a max'
}

@test "hostile: cache: a GATEDIR inside the work tree, not ignored, is not an uncommitted change" {
	mkrepo
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=. GATEDIR="$REPO/results/g"
	[ "$(last | jq -r .head.dirty)" = null ]
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=. GATEDIR="$REPO/results/g"
	[[ "$stderr" == *"gate: reused the measurements"* ]]
}

@test "hostile: cache: untracked symlinks, dangling or to a directory, are uncommitted changes like any file" {
	mkrepo
	ln -s nowhere dangling
	ln -s src srclink
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	d1=$(last | jq -r .head.dirty)
	[ "$d1" != null ]
	ln -sfn elsewhere dangling
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	[ "$(last | jq -r .head.dirty)" != "$d1" ]
	# The real index is untouched.
	[ -z "$(git diff --cached --name-only)" ]
	[ "$(git status --porcelain --untracked-files=all | sort | tr '\n' ' ')" = "?? build/ ?? dangling ?? srclink " ] ||
	    [ "$(git status --porcelain | grep -c '^??')" -ge 2 ]
}

@test "hostile: cache: an untracked file's content, not only its name, is in the dirty digest" {
	mkrepo
	echo one > notes.txt
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	d1=$(last | jq -r .head.dirty)
	echo two > notes.txt
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	[ "$(last | jq -r .head.dirty)" != "$d1" ]
}

@test "hostile: concurrency: refjudge refuses a second record of one side for a round (two compares in one file)" {
	cd "$T"
	R=$DATA/refjudge
	{ cat "$R/runs.jsonl"; grep '"side":"plain"' "$R/runs.jsonl" | head -n 1; } > runs.jsonl
	n=$(wc -l < runs.jsonl)
	run -2 --separate-stderr refjudge -c sum -s kata,plain,numpy runs.jsonl "$R/stats.jsonl"
	[ "$stderr" = "refjudge: runs.jsonl:$n: row sum: second record for side plain, round 1" ]
	[ -z "$output" ]
}

@test "hostile: concurrency: a second make compare in a COMPARE_DIR in use refuses with one line" {
	cd "$T"
	export PERFGATE_PRESSURE=$T/pressure
	setpressure 1.00
	unset RESUME
	C=$DATA/compare
	slow="sh -c 'sleep 0.5; exec $C/side.sh impl'"
	make -s --no-print-directory -f "$C/Makefile" compare COMPARE_CMD_impl="$slow" > out1 2> err1 &
	pid=$!
	wait_for build/compare/lock.pid
	run -2 --separate-stderr make -s --no-print-directory -f "$C/Makefile" compare
	[[ "$stderr" == "compare: COMPARE_DIR build/compare is in use by pid "[0-9]*$'\n'* ]]
	wait "$pid"
	[ "$(jq -r '.status, .rows_valid, .rows_total' docs/perf.json | paste -sd ' ')" = "complete 3 3" ]
	[ "$(jq -r '.rows[0].rounds' docs/perf.json)" = 2 ]
}

@test "hostile: cache: make compare's uncommitted digest takes an untracked file's content" {
	mkrepo
	export PERFGATE_PRESSURE=$T/pressure
	setpressure 1.00
	unset RESUME
	C=$DATA/compare
	# The fake sides count their calls in ./calls: not the change tested.
	echo calls >> .git/info/exclude
	echo one > notes.txt
	# Twice: the first run's outputs (docs/) are there from the second on.
	make -s --no-print-directory -f "$C/Makefile" compare 2>/dev/null
	make -s --no-print-directory -f "$C/Makefile" compare 2>/dev/null
	d1=$(jq -r .run.uncommitted_sha256 docs/perf.json)
	echo two > notes.txt
	make -s --no-print-directory -f "$C/Makefile" compare 2>/dev/null
	[ "$(jq -r .run.uncommitted_sha256 docs/perf.json)" != "$d1" ]
}

# proj: a directory $T/proj whose Makefile includes gate.mk, as a user's
# does, for names relative to it.
proj() {
	mkdir -p "$T/proj"
	printf 'include %s/mk/gate.mk\n' "$TOP" > "$T/proj/Makefile"
	cd "$T/proj"
}

@test "hostile: names: make gate-clean with a GATEDIR holding a blank removes that directory and nothing else" {
	proj
	mkdir results
	echo keep > results/data.txt
	# A gate's directory, as a gate makes it.
	sh -c 'sh "$0/mk/gate.sh" lock "perf results" $$' "$TOP"
	echo gone > "perf results/x"
	run -0 --separate-stderr make -s gate-clean GATEDIR="$T/proj/perf results"
	[ "$(cat results/data.txt)" = keep ]
	[ ! -e "perf results" ]
}

@test "hostile: names: a GATEDIR make cannot name (a blank, ; : % | # * ? [ or \$) is refused in one line naming it, and nothing is made" {
	local c d
	mkdir "$T/n"
	for c in ' ' ';' ':' '%' '|' '#' '*' '?' '[' '$'; do
		d="$T/n/g${c}x"
		run -2 --separate-stderr make -s -f "$TOP/mk/gate.mk" gate GATEDIR="$d"
		[[ "$stderr" == *"gate: GATEDIR \"$d\" holds "*": make cannot name its files.  Stop." ]] || { echo "[$c] $stderr"; false; }
		[ "$(grep -c . <<< "$stderr")" -eq 1 ]
		[ "$(ls "$T/n")" = "" ] || { ls "$T/n"; false; }
	done
	# A quote, & and = are names make can say.
	run -0 --separate-stderr make -s -f "$TOP/mk/gate.mk" -n gate GATEDIR="$T/n/g'\"&=x"
}

@test "hostile: names: a side's file whose name holds ; \$ quotes or a leading dash runs nothing and is gated" {
	fixed_bench
	side base '{"x_ns":8.0}'
	proj
	for name in 'k;touch pwned;.c' '-top.c' 'a b.c' "q'uo\"te.c" 'd$(E)${IFS}$$x.c' '`touch pwned`.c'; do
		printf 'const char line[] = "{\\"x_ns\\":9.0}";\n' > "$name"
		run --separate-stderr perfgate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" BASE="$T/base.c" HEAD="$name" GATEDIR="$T/g"
		[ "$status" -eq 0 ] || { echo "$name: $stderr"; false; }
		[ "$(last | jq -r .head.source)" = "sha256:$(sha256sum < "./$name" | cut -c1-64)" ]
		[ ! -e pwned ] && [ ! -e "$T/g/head/pwned" ]
		# make -n prints the sides' steps, and runs none of them.
		run -0 --separate-stderr make -n gate GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" BASE="$T/base.c" HEAD="$name" \
		    GATEDIR="$T/dry"
		[ ! -e pwned ] && [ ! -e "$T/dry" ]
	done
}

@test "hostile: names: a GATEDIR with a leading dash: an ok gate removes the last regression's explanation" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":16.0}'
	proj
	mkdir -- -keep && echo keep > -keep/explain.jsonl
	run -1 --separate-stderr perfgate $(fixed_args) GATEDIR=-g
	[ -e '-g/explain.jsonl' ] || [ -e '-g/explain.txt' ]
	side head '{"x_ns":8.0}'
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR=-g
	[[ "$stderr" != *"rm:"* ]] || { echo "$stderr"; false; }
	[ ! -e '-g/explain.jsonl' ] && [ ! -e '-g/explain.txt' ]
	[ "$(cat -- -keep/explain.jsonl)" = keep ]
}

@test "hostile: names: revisions whose names hold \$(E), \${IFS} or quotes are the revisions named" {
	mkrepo
	git branch 'v1'
	sed 's|^/\* The largest|/* The very largest|' src/fx.c > "$T/fx.c"
	cp "$T/fx.c" src/fx.c
	git commit -q -am 'fx: a comment'
	for b in 'v1$(E)' 'v1${IFS}x' "v1'q" 'v1$$x'; do
		git branch -f "$b" HEAD
		run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" BASE=v1 HEAD="$b"
		[ "$(last | jq -r .head.commit)" = "$(git rev-parse HEAD)" ] || { echo "$b: $stderr"; false; }
		[ "$(last | jq -r .head.revision)" = null ] || [ "$(last | jq -r .head.revision)" = "$b" ]
		[ ! -e pwned ]
	done
}

@test "hostile: names: make install and uninstall with a PREFIX holding a blank and a quote touch nothing else" {
	mkdir -p "$T/my" "$T/x"
	echo keep > "$T/my/keep"
	echo keep > "$T/x/keep"
	cd "$TOP"
	run -0 --separate-stderr make -s install PREFIX="$T/my to'ols"
	[ -x "$T/my to'ols/bin/alternate" ] && [ -f "$T/my to'ols/share/perfgate/gate.mk" ]
	[ -f "$T/my to'ols/share/man/man7/perfgate.7" ]
	run -0 --separate-stderr make -s uninstall PREFIX="$T/my to'ols"
	[ -z "$(find "$T/my to'ols" -type f)" ]
	[ "$(cat "$T/my/keep")" = keep ] && [ "$(cat "$T/x/keep")" = keep ]
}

@test "hostile: names: make uninstall with a PREFIX holding a blank, a quote and a \$ removes that tree, as written, and nothing else" {
	# make would read $y as a variable: PREFIX would be "my  to'ols", the tree beside.
	p="$T/x/my \$y to'ols"
	mkdir -p "$T/x/my  to'ols/share/perfgate" "$T/x/my" "$T/x/tools"
	echo keep > "$T/x/my  to'ols/share/perfgate/keep"
	echo keep > "$T/x/my/keep"
	cd "$TOP"
	# pkg-config cannot pass a $: install stops at perfgate.pc, all else written.
	run -2 --separate-stderr make -s install PREFIX="$p"
	[[ "$stderr" == *"pkg-config cannot pass a '\$'"* ]]
	[ -x "$p/bin/alternate" ] && [ -f "$p/share/perfgate/gate.mk" ] && [ -f "$p/share/man/man7/perfgate.7" ]
	run -0 --separate-stderr make uninstall PREFIX="$p"
	# Every rm line names its paths in quotes, as the shell got them.
	printf '%s\n' "$output" | grep '^rm \|rm -f' | grep -v "'$T/x/my \$y to'\\\\''ols/" && false
	[ -z "$(find "$p" -type f)" ]
	[ "$(cat "$T/x/my  to'ols/share/perfgate/keep")" = keep ] && [ "$(cat "$T/x/my/keep")" = keep ]
}

@test "hostile: names: make compare-drafts with a COMPARE_DIR holding a blank removes its drafts and nothing else" {
	cd "$T"
	export PERFGATE_PRESSURE=$T/pressure
	setpressure 1.00
	unset RESUME
	C=$DATA/compare
	make -s --no-print-directory -f "$C/Makefile" compare 2>/dev/null
	mkdir -p results/drafts "perf results/drafts"
	echo keep > results/drafts/data.txt
	echo gone > "perf results/drafts/old.md"
	run -0 --separate-stderr make -s --no-print-directory -f "$C/Makefile" compare-drafts COMPARE_DIR="$T/perf results"
	[ "$(cat results/drafts/data.txt)" = keep ]
	[ ! -e "perf results/drafts/old.md" ]
}

# left MARK: the pids of processes whose command line holds MARK (a number
# no other process uses), killed after they are counted, so that a failing
# test leaves none behind either.
left() {
	local p
	p=$(pgrep -f -- "$1" || true)
	[ -z "$p" ] || kill -9 $p 2>/dev/null || true
	printf '%s' "$p"
}

@test "hostile: orphans: a benchmark's daemon that forked twice and called setsid does not outlive the round" {
	mark=$((RANDOM + 40000))
	cat > "$T/daemon.sh" <<SH
( setsid sh -c 'sleep $mark.5' > /dev/null 2>&1 & ) 
echo '{"x_ns":1}'
SH
	run -0 --separate-stderr alternate -r 2 a="sh $T/daemon.sh" b="sh $T/daemon.sh"
	sleep 0.2
	[ -z "$(left "sleep $mark.5")" ]
}

@test "hostile: orphans: a benchmark that ignores TERM leaves no setsid child when it is timed out" {
	mark=$((RANDOM + 40000))
	cat > "$T/stubborn.sh" <<SH
trap '' TERM
setsid sh -c 'trap "" TERM; sleep $mark.5' > /dev/null 2>&1 &
sleep $mark.25
SH
	run -2 --separate-stderr alternate -r 1 -t 1 a="sh $T/stubborn.sh" b="sh $T/stubborn.sh"
	[[ "$stderr" == *"timed out"* ]] || [[ "$output" == *"timed out"* ]]
	sleep 0.2
	[ -z "$(left "sleep $mark.5")" ] && [ -z "$(left "sleep $mark.25")" ]
}

@test "hostile: orphans: a gate whose benchmark leaves a daemon leaves no process" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	mark=$((RANDOM + 40000))
	cat > "$T/wrap.sh" <<SH
( setsid sh -c 'sleep $mark.5' > /dev/null 2>&1 & )
exec "\$@"
SH
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$G" GATE_BENCH="sh $T/wrap.sh \$(GATE_SIDE)/bench"
	sleep 0.2
	[ -z "$(left "sleep $mark.5")" ]
}

@test "hostile: orphans: kill -9 of the gate's process group leaves no benchmark running" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	mark=$((RANDOM + 40000))
	printf 'sleep %s.5\nexec "$@"\n' "$mark" > "$T/slow.sh"
	setsid perfgate $(fixed_args) GATEDIR="$G" GATE_BENCH="sh $T/slow.sh \$(GATE_SIDE)/bench" > /dev/null 2>&1 &
	pid=$!
	for i in $(seq 100); do
		pgrep -f "sleep $mark.5" > /dev/null && break
		sleep 0.1
	done
	pgrep -f "sleep $mark.5" > /dev/null
	kill -9 -- "-$pid"
	wait "$pid" || true
	sleep 0.3
	[ -z "$(left "sleep $mark.5")" ]
}

@test "hostile: names: a side's version and description reach perf-table.md as text, not HTML or a heading" {
	cd "$T"
	export PERFGATE_PRESSURE=$T/pressure
	setpressure 1.00
	unset RESUME
	C=$DATA/compare
	run -0 --separate-stderr make -s --no-print-directory -f "$C/Makefile" compare FAKE_CC="'<img src=x onerror=alert(1)> *b* [l](u)'" \
	    COMPARE_ABOUT_ref="printf '%s\n' '{\"about\":\"one\\n# pwned <script>\"}'"
	[ "$(jq -r .sides.impl.version docs/perf.json)" = '<img src=x onerror=alert(1)> *b* [l](u)' ]
	grep -qF -- '- impl: version &lt;img src=x onerror=alert(1)&gt; \*b\* \[l\](u)' docs/perf-table.md
	[ "$(jq -r .sides.ref.about docs/perf.json)" = 'one
# pwned <script>' ]
	grep -qF -- '- ref: version ref 1.0, license BSD-3-Clause, about one\u000a# pwned &lt;script&gt;' docs/perf-table.md
	run -1 grep -q '<img\|<script\|^# pwned' docs/perf-table.md
	run -0 --separate-stderr make -s --no-print-directory -f "$C/Makefile" compare-check
}

@test "hostile: scale: a budget of 10^5 metrics is read in seconds, duplicates still found" {
	awk 'BEGIN { print "runs = 3\n\n[budget]"; for (i = 0; i < 100000; i++) printf "m%d_ns = 0.1\n", i }' > "$T/big.toml"
	run -0 timeout 10 cmpbudget -b "$T/big.toml" -q
	[ "$output" = 3 ]
	echo 'm7_ns = 0.2' >> "$T/big.toml"
	run -2 --separate-stderr timeout 10 cmpbudget -b "$T/big.toml" -q
	[ "$stderr" = "cmpbudget: $T/big.toml:100004: duplicate key m7_ns (first on line 11)" ]
}

@test "hostile: scale: cmpbudget -p -r and plotrounds judge and draw 3*10^4 metrics in seconds" {
	# Before: 39 s and 145 s (a lookup of every metric in every record).
	"$TOP/lab/manymetrics.sh" "$T/m" 30000
	minjson "$T/m/runs.jsonl" > "$T/m/stats.jsonl"
	run -0 --separate-stderr timeout 20 cmpbudget -b "$T/m/budget.toml" -p -r "$T/m/runs.jsonl" "$T/m/stats.jsonl"
	[ "$(printf '%s\n' "$output" | grep -c '"metric":"m[0-9]*_ns"')" = 30000 ]
	printf '%s\n' "$output" > "$T/m/verdict.jsonl"
	run -0 timeout 20 plotrounds -v "$T/m/verdict.jsonl" -o "$T/m/rounds.svg" "$T/m/runs.jsonl"
	[ "$(grep -c '<circle' "$T/m/rounds.svg")" -ge 150000 ]
	grep -q 'm29999_ns' "$T/m/rounds.svg"
}

# rounds3 FILE METRIC BASE HEAD: three rounds of one metric, as alternate writes them.
rounds3() {
	local r
	for r in 1 2 3; do
		printf '{"side":"base","round":%d,"%s":%s}\n{"side":"head","round":%d,"%s":%s}\n' "$r" "$2" "$3" "$r" "$2" "$4"
	done > "$1"
}

@test "hostile: names: a metric of 0 ns is an error with its reason, never improved -100 %" {
	printf '[budget]\nz_ns = 0.1\n' > "$T/b.toml"
	rounds3 "$T/r.jsonl" z_ns 0 0
	minjson "$T/r.jsonl" > "$T/s.jsonl"
	run -2 --separate-stderr cmpbudget -b "$T/b.toml" -r "$T/r.jsonl" "$T/s.jsonl"
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r .verdict)" = error ]
	[[ "$stderr" == *"z_ns: base 0 is not above 0: no ratio"* ]]
	mkdir "$T/d"
	cp "$T/r.jsonl" "$T/d/runs.jsonl"
	run -2 --separate-stderr gaterun -j -b "$T/b.toml" "$T/d"
	[ "$(tail -n 1 "$T/d/verdict.jsonl" | jq -r .verdict)" = error ]
	[ "$(tail -n 1 "$T/d/verdict.jsonl" | jq -r '.improved | length')" = 0 ]
}

@test "hostile: scale: a head of 1e308 gives table cells of a dozen characters, not 300 digits" {
	printf '[budget]\nbig_ns = 0.1\n' > "$T/b.toml"
	rounds3 "$T/r.jsonl" big_ns 1 1e308
	minjson "$T/r.jsonl" > "$T/s.jsonl"
	run -1 --separate-stderr cmpbudget -b "$T/b.toml" -r "$T/r.jsonl" -m "$T/v.md" "$T/s.jsonl"
	row=$(grep '^| big_ns' "$T/v.md")
	[ "${#row}" -lt 120 ] || { echo "$row"; false; }
	[[ "$row" == *"| +1.00e+310 |"* ]] && [[ "$row" == *"| 1.00e+308 |"* ]]
	[[ "$stderr" != *inf* ]]
	[ "$(printf '%s\n' "$stderr" | awk '{ if (length($0) > n) n = length($0) } END { print n }')" -lt 120 ]
}

@test "hostile: names: an unbudgeted metric named with \\u001b is escaped once in the verdict, and on stderr" {
	printf '[budget]\na_ns = 0.1\n' > "$T/b.toml"
	for r in 1 2 3; do
		printf '{"side":"base","round":%d,"a_ns":10,"e\\u001bx_ns":1}\n{"side":"head","round":%d,"a_ns":10,"e\\u001bx_ns":1}\n' "$r" "$r"
	done > "$T/r.jsonl"
	minjson "$T/r.jsonl" > "$T/s.jsonl"
	run -0 --separate-stderr cmpbudget -b "$T/b.toml" -r "$T/r.jsonl" "$T/s.jsonl"
	printf '%s\n' "$output" | tail -n 1 | grep -qF '"unbudgeted":["e\u001bx_ns"]'
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r '.unbudgeted[0]')" = "$(printf 'e\033x_ns')" ]
	[[ "$stderr" == *'not judged: e\u001bx_ns'* ]]
	[[ "$stderr" != *$'\033'* ]]
	mkdir "$T/d"
	cp "$T/r.jsonl" "$T/d/runs.jsonl"
	run -2 --separate-stderr sh -c 'gaterun -j -b "$1/b.toml" "$1/d"; gaterun -v "$1/d"' sh "$T"
	tail -n 1 "$T/d/verdict.jsonl" | grep -qF '"unbudgeted":["e\u001bx_ns"]'
	[[ "$stderr" != *$'\033'* ]]
}

@test "hostile: cache: a file named in an environment word of GATE_BENCH, or after = in a word, is in the key" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	echo one > "$T/in.txt"
	echo one > "$T/in2.txt"
	set -- perfgate $(fixed_args) GATEDIR="$G" GATE_BENCH="DATA=$T/in.txt \$(GATE_SIDE)/bench --data=$T/in2.txt"
	run -0 --separate-stderr "$@"
	grep -q "^run $(sha256sum < "$T/in.txt" | cut -c1-64) $T/in.txt$" "$G/head.key"
	echo two > "$T/in.txt"
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	echo two > "$T/in2.txt"
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	run -0 --separate-stderr "$@"
	[[ "$stderr" == *"gate: reused the measurements"* ]]
}

@test "hostile: bench: cd DIR && ./bench runs in DIR, as GATE_BUILD's form does and the key says" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$G" GATE_BENCH="cd \$(GATE_SIDE) && X='a b' ./bench"
	[ "$(last | jq -r .verdict)" = ok ]
	grep -q "^run [0-9a-f]* $G/head/./bench$" "$G/head.key"
}

@test "hostile: bench: a form the gate cannot key (a pipe, \$(...), a redirection) is refused in one line naming GATE_BENCH, before any build" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	for b in "\$(GATE_SIDE)/bench | cat" "\$(GATE_SIDE)/bench \$\$(date)" "\$(GATE_SIDE)/bench 2>/dev/null"; do
		run -2 --separate-stderr perfgate $(fixed_args) GATEDIR="$G" GATE_BENCH="$b"
		[[ "$(last | jq -r .error)" == *": GATE_BENCH: "* ]]
		[[ "$stderr" != *"gate: building"* ]]
	done
}

@test "hostile: timeouts: a compiler that never answers --version costs the build's timeout, not a minute a question" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	printf '#!/bin/sh\ncase " $* " in *" --version "*|*" -v "*) sleep 59.7; exit 0 ;; esac\nexec cc "$@"\n' > "$T/slowcc"
	chmod +x "$T/slowcc"
	run -2 --separate-stderr timeout 40 perfgate $(fixed_args) GATEDIR="$G" CC="$T/slowcc" GATE_BUILD_TIMEOUT=3
	[[ "$(last | jq -r .error)" == *"compiler $T/slowcc did not answer --version within 3 s (GATE_BUILD_TIMEOUT)"* ]]
	run pgrep -f 'sleep 59.7'
	[ "$status" = 1 ]
}

@test "hostile: cache: rounds restored on another machine (another kernel, CPU or core count) are measured again; the sides' keys hold no machine" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$G"
	grep -q '^machine_kernel ' "$G/runs.id"
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$G"
	[[ "$stderr" == *"gate: reused the measurements"* ]]
	# Another host: its kernel says so.
	mkdir "$T/host"
	printf '#!/bin/sh\necho Linux 9.9.9-other \\#1 SMP x86_64\n' > "$T/host/uname"
	chmod +x "$T/host/uname"
	PATH="$T/host:$PATH" run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$G"
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	[[ "$stderr" != *"gate: reused the measurements"* ]]
	run -1 grep -q machine "$G/head.key"
}

@test "hostile: settings: a TMPDIR that does not exist is said in one line naming TMPDIR, before anything is built" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	TMPDIR=$T/missing run -2 --separate-stderr make -s gate $(fixed_args) GATEDIR="$G"
	[ "$(last | jq -r .error)" = "both: settings: TMPDIR=$T/missing: no such directory (the compiler and mktemp write there)" ]
	[[ "$stderr" != *"gate: building"* ]]
}

# A repository subrepo: one file, one commit, for a submodule or a nested
# repository.
subrepo() {
	mkdir "$1"
	(cd "$1" && git init -q -b main && echo one > data.txt && git add -A && git commit -q -m one)
}

@test "hostile: cache: an edit in a nested repository or a submodule inside a work tree side is an uncommitted change" {
	mkrepo
	subrepo "$T/origin"
	git -c protocol.file.allow=always submodule add -q "$T/origin" sub
	subrepo nested
	git add nested 2>/dev/null
	git commit -q -m 'a submodule and a nested repository'
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	[ "$(last | jq -r .head.dirty)" = null ]
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	[[ "$stderr" == *"gate: reused the measurements"* ]]
	echo two > nested/data.txt
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	d1=$(last | jq -r .head.dirty)
	[ "$d1" != null ]
	echo two > sub/data.txt
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=.
	[[ "$stderr" == *"gaterun: measuring base and head"* ]]
	[ "$(last | jq -r .head.dirty)" != "$d1" ]
}

@test "hostile: cache: a revision with a submodule is exported with the submodule's files, or refused naming it" {
	mkrepo
	subrepo "$T/origin"
	git -c protocol.file.allow=always submodule add -q "$T/origin" sub
	git commit -q -m 'a submodule'
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" BASE=HEAD HEAD=HEAD GATEDIR="$T/g"
	[ "$(cat "$T/g/base/tree/sub/data.txt")" = one ]
	# A clone whose submodule was never fetched, its origin gone.
	git clone -q "$REPO" "$T/clone"
	rm -rf "$T/origin"
	cd "$T/clone"
	run -2 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" BASE=HEAD HEAD=HEAD GATEDIR="$T/g2"
	[[ "$(last | jq -r .error)" == *"the revision holds submodule sub at commit "*", which no repository here has"* ]]
}

@test "hostile: cache: a GATEDIR outside the work tree puts no gate-objects in it: the next gate finds the tree clean" {
	mkrepo
	unset GATE_OBJECTS
	printf '/bench/bench\n' > .gitignore
	git commit -q -am 'build/ not ignored'
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=. GATEDIR="$T/out/g"
	[ ! -e build/gate-objects ]
	[ -d "$T/out/gate-objects" ]
	run -0 --separate-stderr perfgate GATE_MK="$TOP/mk/gate.mk" HEAD=. GATEDIR="$T/out/g"
	[ "$(last | jq -r .head.dirty)" = null ]
	[[ "$stderr" == *"gate: reused the measurements"* ]]
}

@test "hostile: names: a metric named n or stat (once minjson's own keys) is a metric like any other" {
	# The gate summed its rounds with minjson, whose n and stat clashed
	# after every round was measured; gaterun judges the rounds itself.
	fixed_bench
	side base '{"x_ns":8.0,"n":1,"stat":2}'
	side head '{"x_ns":8.0,"n":1,"stat":2}'
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$G"
	[ "$(last | jq -r .verdict)" = ok ]
}

@test "hostile: names: make gate-clean removes only a directory that carries the gate's mark" {
	proj
	mkdir src
	echo keep > src/main.c
	run -2 --separate-stderr make -s gate-clean GATEDIR=src
	[ "$(cat src/main.c)" = keep ]
	[[ "$stderr" == *"GATEDIR src holds files no gate wrote"* ]]
	[ ! -e src/lock ] && [ ! -e src/.perfgate-gatedir ]
	run -0 --separate-stderr make -s gate-clean GATEDIR=made
	[ ! -e made ]
}

@test "hostile: kata: the kata's gate across revisions (HEAD~1, a tag) and a directory builds that tree's kata/kernels.c" {
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$T
	mkdir -p "$T/pg/kata"
	cp "$TOP/kata/kernels.c" "$TOP/kata/kernels.h" "$T/pg/kata/"
	cp "$TOP/budget.toml" "$T/pg/"
	printf 'include %s/mk/gate.mk\n' "$TOP" > "$T/pg/Makefile"
	printf '/build/\n' > "$T/pg/.gitignore"
	cd "$T/pg"
	git init -q -b main && git add -A && git commit -q -m one && git tag v1
	echo '/* a comment */' >> kata/kernels.c
	git commit -q -am two
	for args in "BASE=HEAD~1 HEAD=." "BASE=v1 HEAD=HEAD" "BASE=v1 HEAD=$T/pg"; do
		run --separate-stderr perfgate $args GATEDIR="$T/g" GATE_DEADLINE=2
		[[ "$stderr" != *"linker input file not found"* ]]
		# A kata gate on a shared machine may be undecided; never an error.
		[ "$(last | jq -r .verdict)" != error ] || { printf '%s\n' "$stderr"; false; }
	done
	cmp "$T/g/base/kernels.c" <(git show v1:kata/kernels.c)
	cmp "$T/g/head/kernels.c" kata/kernels.c
}

@test "hostile: reasons: a read-only GATEDIR is said in one line with the system's reason, never an empty lock line" {
	fixed_bench
	side base '{"x_ns":8.0}'
	side head '{"x_ns":8.0}'
	mkdir "$T/ro"
	mount -t tmpfs -o size=1m tmpfs "$T/ro" || skip "no tmpfs mount here"
	run -0 --separate-stderr perfgate $(fixed_args) GATEDIR="$T/ro/g"
	mount -o remount,ro "$T/ro"
	run -2 --separate-stderr perfgate $(fixed_args) GATEDIR="$T/ro/g"
	umount "$T/ro"
	[[ "$stderr" == *"gate: both: lock: cannot write in GATEDIR $T/ro/g: Read-only file system"* ]]
	run -1 grep -q 'lock: *$' <<<"$stderr"
}
