# Shared by every tests/*.bats file: the tools under test come first in PATH
# (PERFGATE_BIN, default the checkout's bin/, lets test-san swap them).
bats_require_minimum_version 1.5.0
TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
BIN=${PERFGATE_BIN:-$TOP/bin}
PATH="$BIN:$PATH"
DATA=$TOP/tests/data
