#!/bin/sh
# run.sh FILE...: run bats files one at a time and end with one plain line,
# "tests: N passed, N failed, N skipped", the skips' reasons just above it.
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
# what the test needs. Each file's seconds go to build/tests.times.
mkdir -p build
: > build/tests.tap
: > build/tests.times
status=0 broke=""

# device NAME MAJOR MINOR: /dev/NAME is that character device (stat's
# %t and %T are hexadecimal).
device() {
	[ -c "/dev/$1" ] && [ "$(stat -c '%t %T' "/dev/$1")" = "$2 $3" ]
}

# devices FILE: check the three after FILE ran.
devices() {
	for d in 'null 1 3' 'zero 1 5' 'full 1 7'; do
		# shellcheck disable=SC2086
		set -- $d
		device "$@" && continue
		echo "tests: /dev/$1 is no longer a character device after $f: $(stat -c %F "/dev/$1" 2>&1)" >&2
		broke="$broke $f:/dev/$1"
		if [ "$(id -u)" = 0 ] && rm -f "/dev/$1" 2>/dev/null && mknod -m 666 "/dev/$1" c "$2" "$3"; then
			echo "tests: /dev/$1 made again" >&2
		fi
	done
}

for f in "$@"; do
	t0=$(date +%s%N)
	rm -f build/tests.status
	{ bats --tap --timing "$f"; echo $? > build/tests.status; } | tee -a build/tests.tap
	rc=$(cat build/tests.status 2>/dev/null || echo 2)
	t1=$(date +%s%N)
	echo "$f $(((t1 - t0) / 1000000))" >> build/tests.times
	[ "$rc" -eq 0 ] || { echo "tests: bats exited with status $rc on $f" >&2; status=1; }
	devices "$f"
done
[ -z "$broke" ] || status=1

passed=$(grep -c '^ok .*' build/tests.tap)
skipped=$(grep -c '^ok .* # skip' build/tests.tap)
passed=$((passed - skipped))
failed=$(grep -c '^not ok ' build/tests.tap)
if [ "$skipped" -gt 0 ]; then
	echo "tests: skipped, by reason:"
	sed -n 's/^ok .* # skip *//p' build/tests.tap | sort | uniq -c | sort -rn
	missing=$(sh tests/deps.sh -m | tr '\n' ' ')
	if [ -n "$missing" ]; then
		echo "tests: to run them: sudo apt-get install -y ${missing% }"
	else
		echo "tests: every package of tests/packages is here, yet $skipped skipped: the list misses what they need" >&2
		status=1
	fi
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || status=1
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
