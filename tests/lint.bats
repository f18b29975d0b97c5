#!/usr/bin/env bats
# lint: make lint-sh, shellcheck over every shell file perfgate ships
# (bin/perfgate, mk/*.sh, ci/*.sh, tests/*.sh), clean; in make test through
# this file, so that a machine without shellcheck skips it, naming it.
# (make lint-man and make warnings are tests/warnings.bats.)

load common

@test "lint: every shell file we ship is shellcheck-clean" {
	command -v shellcheck > /dev/null || skip "shellcheck is not installed"
	cd "$TOP"
	run -0 make -s --no-print-directory lint-sh
	[ "$output" = "" ]
}

@test "lint: make lint-sh names every shell file we ship" {
	cd "$TOP"
	run -0 make -s --no-print-directory -n lint-sh
	for f in bin/perfgate mk/*.sh ci/*.sh tests/*.sh; do
		[[ " $output " == *" $f "* ]] || { echo "not linted: $f"; return 1; }
	done
	# Every file with a #!/bin/sh line in bin, mk, ci and tests is one.
	for f in bin/* mk/* ci/* tests/*; do
		[ -f "$f" ] && [ "$(head -c 9 "$f")" = '#!/bin/sh' ] || continue
		[[ " $output " == *" $f "* ]] || { echo "a shell file not linted: $f"; return 1; }
	done
}
