#!/usr/bin/env bats
# pin (lib/pin.c): alternate -s -c auto, and so GATE_CPU=auto, takes a CPU no
# other gate holds, by a lock per CPU in PERFGATE_CPU_LOCKS; when every CPU
# is held it shares the least-held one, and says so. The choice is tested
# through the locks, never through timing: the processes here wait on files
# the test writes, so that they overlap however busy the machine is. Every
# alternate runs on CPUs 0 and 1 alone (taskset), as on a 2-core machine.

load common

setup() {
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS
	T=$BATS_TEST_TMPDIR
	cd "$T"
	taskset -c 0,1 true 2>/dev/null || skip "needs CPUs 0 and 1"
	pids=
}

teardown() {
	# A holder left by a failing test would hold its CPU: end the test's own.
	touch "$T/go" "$T/a.go" "$T/b.go" 2>/dev/null
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait
}

# A side that says where it may run ({"cpus":"1"}): its affinity mask.
where='sh -c '\''echo "{\"cpus\":\"$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)\"}"'\'

# holder NAME [CPU]: an alternate -s -c auto (or -c CPU) in the background whose one run waits
# for $T/go; returns once the run has started, so the CPU is held.
holder() {
	cat > "$T/$1.sh" <<SH
#!/bin/sh
touch '$T/$1.in'
i=0
while [ ! -e '$T/go' ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
echo "{\"cpus\":\"\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)\"}"
SH
	chmod +x "$T/$1.sh"
	taskset -c 0,1 alternate -s -c "${2:-auto}" -r 1 -o "$T/$1.jsonl" "$1=$T/$1.sh" 2> "$T/$1.err" &
	pids="$pids $!"
	waitfor "$T/$1.in"
}

# waitfor FILE: until FILE exists, at most a minute.
waitfor() {
	local i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

@test "pin: two gates at once run on two CPUs, the highest first; a third shares the least held and its records say so" {
	holder a
	holder b
	# Both CPUs are held: c shares CPU 1 (each has one gate; the highest wins).
	run -0 --separate-stderr taskset -c 0,1 alternate -s -c auto -r 2 c="$where"
	[ "$(printf '%s\n' "$output" | jq -c '[.pinned,.shared,.cpus]' | sort -u)" = '[1,1,"1"]' ]
	touch "$T/go"
	wait
	# a ran on CPU 1, b on CPU 0: each where its record says, alone.
	[ "$(jq -c '[.pinned,.shared,.cpus]' "$T/a.jsonl")" = '[1,0,"1"]' ]
	[ "$(jq -c '[.pinned,.shared,.cpus]' "$T/b.jsonl")" = '[0,0,"0"]' ]
}

@test "pin: a killed gate's CPU is free again at once" {
	holder a
	run -0 --separate-stderr taskset -c 0,1 alternate -s -c auto -r 1 b="$where"
	[ "$(printf '%s\n' "$output" | jq -c '[.pinned,.shared]')" = '[0,0]' ]
	# The kernel lets the lock go with the process: no wait, no stale file.
	kill -9 $pids
	wait $pids || true
	run -0 --separate-stderr taskset -c 0,1 alternate -s -c auto -r 1 b="$where"
	[ "$(printf '%s\n' "$output" | jq -c '[.pinned,.shared,.cpus]')" = '[1,0,"1"]' ]
}

@test "pin: a CPU given by number is held too: auto takes another, and a second gate on it shares" {
	holder a 1
	run -0 --separate-stderr taskset -c 0,1 alternate -s -c auto -r 1 c="$where"
	[ "$(printf '%s\n' "$output" | jq -c '[.pinned,.shared,.cpus]')" = '[0,0,"0"]' ]
	run -0 --separate-stderr taskset -c 0,1 alternate -s -c 1 -r 1 c="$where"
	[ "$(printf '%s\n' "$output" | jq -c '[.pinned,.shared,.cpus]')" = '[1,1,"1"]' ]
	# A CPU the process may not use is refused before anything runs.
	run -2 --separate-stderr taskset -c 0 alternate -s -c 1 -r 1 c="touch '$T/ran'"
	[ "$stderr" = "alternate: -c 1: CPU 1 is not one this process may use" ]
	[ ! -e "$T/ran" ]
}

@test "pin: a lock directory that cannot be used is one line naming PERFGATE_CPU_LOCKS, exit 2, nothing run" {
	printf 'x\n' > "$T/a file"
	PERFGATE_CPU_LOCKS="$T/a file" run -2 --separate-stderr alternate -s -c auto -r 1 a="touch '$T/ran'"
	[ "$stderr" = "alternate: -c auto: PERFGATE_CPU_LOCKS=$T/a file: cannot hold CPU locks there: Not a directory" ]
	[ "$output" = "" ]
	[ ! -e "$T/ran" ]
	PERFGATE_CPU_LOCKS="$T/no dir/locks" run -2 --separate-stderr alternate -s -c 0 -r 1 a="touch '$T/ran'"
	[ "$stderr" = "alternate: -c 0: PERFGATE_CPU_LOCKS=$T/no dir/locks: cannot hold CPU locks there: No such file or directory" ]
	[ ! -e "$T/ran" ]
	# A lock that is not a plain file is refused, not followed.
	mkdir "$T/locks"
	ln -s /dev/null "$T/locks/lock"
	PERFGATE_CPU_LOCKS="$T/locks" run -2 --separate-stderr alternate -s -c auto -r 1 a="touch '$T/ran'"
	[ "$stderr" = "alternate: -c auto: PERFGATE_CPU_LOCKS=$T/locks: cannot hold CPU locks there: Too many levels of symbolic links" ]
	[ ! -e "$T/ran" ]
	# Without -c nothing is locked, and no directory is needed.
	PERFGATE_CPU_LOCKS="$T/a file" run -0 --separate-stderr alternate -s -r 1 a="$where"
	[ "$(printf '%s\n' "$output" | jq -c '[.pinned,.shared]')" = '[null,null]' ]
}

@test "pin: PERFGATE_CPU_LOCKS names with blanks, quotes, ; and \$ and a leading dash are data" {
	for d in "-locks dir" "$T/a \"q\" 'b';\$x"; do
		PERFGATE_CPU_LOCKS=$d run -0 --separate-stderr taskset -c 0,1 alternate -s -c auto -r 1 a="$where"
		[ "$(printf '%s\n' "$output" | jq -c '[.pinned,.shared,.cpus]')" = '[1,0,"1"]' ]
		[ -f "$d/lock" ]
		[ -f "$d/cpu1.0" ]
	done
}

@test "pin: without PERFGATE_CPU_LOCKS the locks are the machine's, or this user's own when those cannot be used" {
	unset PERFGATE_CPU_LOCKS
	run -0 --separate-stderr alternate -s -c auto -r 1 a="$where"
	[ "$(printf '%s\n' "$output" | jq -r .pinned)" = "$(printf '%s\n' "$output" | jq -r .cpus)" ]
	[ -f /run/lock/perfgate-cpu/lock ] || [ -f "/tmp/perfgate-cpu-$(id -u)/lock" ]
	# The machine's directory is every user's: sticky and open to all, as /run/lock.
	if [ -d /run/lock/perfgate-cpu ]; then
		[ "$(stat -c %a /run/lock/perfgate-cpu)" = 1777 ]
	fi
}

# A gate of a benchmark that prints {"x_ns":8.0} on both sides; with
# BENCH_BARRIER=P its first run makes P.in and waits for P.go, holding its
# CPU the while.
barrier_gate() {
	cat > "$T/bench.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
extern const char line[];
int main(void)
{
	const char *b = getenv("BENCH_BARRIER");
	char in[4096], go[4096];
	FILE *fp;
	int i;

	if (b != NULL && *b != '\0') {
		snprintf(in, sizeof in, "%s.in", b);
		snprintf(go, sizeof go, "%s.go", b);
		if (access(in, F_OK) != 0 && (fp = fopen(in, "w")) != NULL) {
			fclose(fp);
			for (i = 0; i < 600 && access(go, F_OK) != 0; i++)
				usleep(100000);
		}
	}
	puts(line);
	return 0;
}
C
	printf 'const char line[] = "{\\"x_ns\\":8.0}";\n' > "$T/side.c"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	cd "$TOP" && taskset -c 0,1 perfgate GATE_BENCH_SRC="$T/bench.c" BUDGET="$T/b.toml" BASE="$T/side.c" HEAD="$T/side.c" \
	    GATEDIR="$T/$1" > "$T/$1.out" 2> "$T/$1.err"
}

@test "pin: three gates at once: two on CPUs of their own, the third shares and its machine line says so" {
	BENCH_BARRIER=$T/a barrier_gate a &
	pids=$!
	waitfor "$T/a.in"
	BENCH_BARRIER=$T/b barrier_gate b &
	pids="$pids $!"
	waitfor "$T/b.in"
	# Both CPUs are held by a gate that measures: c shares CPU 1 with a.
	run -0 barrier_gate c
	[ "$(tail -n 1 "$T/c.out" | jq -r .verdict)" = ok ]
	[ "$(jq -c '[.pinned,.shared]' "$T/c/runs.jsonl" | sort -u)" = '[1,1]' ]
	[[ "$(tail -n 1 "$T/c.out" | jq -r .machine)" == *", CPU 1 shared with another gate)" ]]
	grep -q '^machine: .*, CPU 1 shared with another gate)$' "$T/c.err"
	touch "$T/a.go" "$T/b.go"
	wait $pids
	# a and b had a CPU each while they waited, and no other gate on it,
	# then or after (a gate takes its CPU again for each block of rounds:
	# two gates may swap CPUs between blocks, but never share one).
	[ "$(jq -c 'select(.round == 1) | .pinned' "$T/a/runs.jsonl" | sort -u)" = 1 ]
	[ "$(jq -c 'select(.round == 1) | .pinned' "$T/b/runs.jsonl" | sort -u)" = 0 ]
	[ "$(jq -c .shared "$T/a/runs.jsonl" "$T/b/runs.jsonl" | sort -u)" = 0 ]
	run -1 grep -q 'shared with' "$T/a.err" "$T/b.err"
}
