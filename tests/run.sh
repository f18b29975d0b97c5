#!/bin/sh
# Run bats files and end with one plain line: "tests: N passed, N failed".
# The exit status is bats' own (a file that bats cannot load fails the run
# even when no test says "not ok"), kept past tee in a file, since a
# pipeline's status is its last command's.
mkdir -p build
rm -f build/tests.status
{ bats --tap "$@"; echo $? >build/tests.status; } | tee build/tests.tap
status=$(cat build/tests.status 2>/dev/null || echo 2)
passed=$(grep -c '^ok ' build/tests.tap)
failed=$(grep -c '^not ok ' build/tests.tap)
echo "tests: $passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && exit 0
[ "$status" -eq 0 ] || echo "tests: bats exited with status $status" >&2
exit 1
