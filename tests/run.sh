#!/bin/sh
# run.sh FILE...: run bats files and end with one plain line, "tests: N
# passed, N failed, N skipped", the skips' reasons just above it.
#
# The files tests/untimed lists time nothing (they parse, refuse, count
# instructions, wait for processes): they run first, TESTS_JOBS at a time
# (default 2, this kind of machine's cores), the longest first, so that
# no lane is left with a long file when the other is done: longest by
# the last run's wall clock (build/tests.times), else by the seconds
# tests/untimed gives. The others gate or time real runs, and a timed run
# must not share a CPU with another test: they run after, one at a time.
#
# After each file, /dev/null, /dev/zero and /dev/full must still be the
# character devices they were: a test run as root that renames over one
# (or points a linker's output at it) replaces it for every process, and
# every later test reading it fails for a reason that has nothing to do
# with what it tests. The file that broke one is named, and as root the
# device is made again, so that the files after it run on the real one.
#
# The exit status is 0 only when every file's bats exited 0 (a file that
# bats cannot load fails the run even when no test says "not ok"), no test
# failed, some passed, and the devices held; a skip fails the run too when
# every package of tests/packages is present, since then the list misses
# what the test needs. Each file's TAP, status and milliseconds (wall
# clock and CPU) are in build/tests/; all of the TAP in build/tests.tap,
# the times in build/tests.times. TESTS_DEV (default /dev) and
# TESTS_PACKAGES (default tests/packages) and TESTS_UNTIMED (default
# tests/untimed) are for run.sh's own tests.
here=$(dirname "$0")
dev=${TESTS_DEV:-/dev}
packages=${TESTS_PACKAGES:-$here/packages}
untimed=${TESTS_UNTIMED:-$here/untimed}
jobs=${TESTS_JOBS:-2}
out=build/tests

# device NAME MAJOR MINOR: /dev/NAME is that character device (stat's
# %t and %T are hexadecimal).
device() {
	[ -c "$dev/$1" ] && [ "$(stat -c '%t %T' "$dev/$1")" = "$2 $3" ]
}

# devices FILE BESIDE: check the three after FILE ran (BESIDE: what else
# may have run at the same time); each that broke is named in $o.devices.
devices() {
	for d in 'null 1 3' 'zero 1 5' 'full 1 7'; do
		# shellcheck disable=SC2086
		held "$1" "$2" $d
	done
}

# held FILE BESIDE NAME MAJOR MINOR: one of them.
held() {
	device "$3" "$4" "$5" && return 0
	echo "tests: $dev/$3 is no longer a character device after $1$2: $(stat -c %F "$dev/$3" 2>&1)" >&2
	echo "$dev/$3" >> "$o.devices"
	if [ "$(id -u)" = 0 ] && rm -f "$dev/$3" 2>/dev/null && mknod -m 666 "$dev/$3" c "$4" "$5"; then
		echo "tests: $dev/$3 made again" >&2
	fi
}

# cpu FILE: the CPU milliseconds, user and system, that `times` wrote to
# FILE this shell's children had used (`times` must run in this shell,
# not in a $(...), which has children of its own). A busy machine
# inflates them far less than the wall clock.
cpu() {
	awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d\n", t * 1000 }' "$1"
}

# one FILE BESIDE: run one bats file, its results in $out/NAME.*. Alone
# (BESIDE empty), its TAP is shown as it comes; beside others, whole when
# it is done.
one() {
	o=$out/$(basename "$1" .bats)
	rm -f "$o".*
	t0=$(date +%s%N)
	times > "$o.cpu0"
	if [ -z "$2" ]; then
		{ bats --tap --timing "$1"; echo $? > "$o.status"; } | tee "$o.tap"
	else
		bats --tap --timing "$1" > "$o.tap"
		echo $? > "$o.status"
	fi
	t1=$(date +%s%N)
	times > "$o.cpu"
	echo "$1 $(((t1 - t0) / 1000000)) $(($(cpu "$o.cpu") - $(cpu "$o.cpu0")))" > "$o.time"
	devices "$1" "$2"
	[ -z "$2" ] || flock "$out/lock" cat "$o.tap"
}

# run.sh --one BESIDE FILE: one file, for xargs.
if [ "${1-}" = --one ]; then
	one "$3" "$2"
	exit 0
fi

mkdir -p "$out"
# untimed FILE: tests/untimed lists it (a file and its seconds a line).
untimed() {
	awk -v f="$(basename "$1")" '$1 == f { found = 1 } END { exit !found }' "$untimed"
}
# The untimed files, each with its cost in ms, longest first: the last
# run's wall clock, read before this run overwrites it, else the list's.
for f in "$@"; do
	untimed "$f" && printf '%s\n' "$f"
done | awk -v list="$untimed" -v last=build/tests.times '
	BEGIN {
		while ((getline l < list) > 0) { split(l, a, " "); if (a[1] !~ /^#/ && a[2] != "") ms[a[1]] = a[2] * 1000 }
		while ((getline l < last) > 0) { split(l, a, " "); n = split(a[1], p, "/"); if (a[2] ~ /^[0-9]+$/) ms[p[n]] = a[2] }
	}
	{ n = split($0, p, "/"); print (p[n] in ms ? ms[p[n]] : 0) "\t" $0 }' |
    sort -t "$(printf '\t')" -k1,1nr | cut -f2- > "$out/untimed.order"
rm -f "$out"/*.tap "$out"/*.status "$out"/*.time "$out"/*.devices "$out"/*.cpu*
tr '\n' '\0' < "$out/untimed.order" |
    xargs -0 -r -n 1 -P "$jobs" sh "$0" --one " (or a file run beside it; TESTS_JOBS=1 tells which)"
for f in "$@"; do
	untimed "$f" || one "$f" ""
done

status=0
: > build/tests.tap
: > build/tests.times
for f in "$@"; do
	o=$out/$(basename "$f" .bats)
	cat "$o.tap" >> build/tests.tap 2>/dev/null
	cat "$o.time" >> build/tests.times 2>/dev/null
	rc=$(cat "$o.status" 2>/dev/null || echo 2)
	[ "$rc" -eq 0 ] || { echo "tests: bats exited with status $rc on $f" >&2; status=1; }
	[ ! -e "$o.devices" ] || status=1
done

passed=$(grep -c '^ok ' build/tests.tap)
skipped=$(grep -c '^ok .* # skip' build/tests.tap)
passed=$((passed - skipped))
failed=$(grep -c '^not ok ' build/tests.tap)
if [ "$skipped" -gt 0 ]; then
	echo "tests: skipped, by reason:"
	sed -n 's/^ok .* # skip *//p' build/tests.tap | sort | uniq -c | sort -rn
	missing=$(sh "$here/deps.sh" -m "$packages" | tr '\n' ' ')
	if [ -n "$missing" ]; then
		echo "tests: to run them: sudo apt-get install -y ${missing% }"
	else
		echo "tests: every package of $packages is here, yet $skipped skipped: the list misses what they need" >&2
		status=1
	fi
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || status=1
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
