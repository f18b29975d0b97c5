# Shared by benchrec.bats and benchgate.bats: the fixtures, the harnesses
# each test needs (a skip naming the package), and the environment: no
# network, no module download, git and HOME of the test's own.
D=$DATA/benchrec
FIX=$TOP/tests/fixtures
MK=$TOP/mk/gate.mk

setup_file() {
	# One Go build cache for the file: no network, no module download.
	export GOCACHE=$BATS_FILE_TMPDIR/gocache GOPATH=$BATS_FILE_TMPDIR/gopath
}

setup() {
	T=$BATS_TEST_TMPDIR
	export GOFLAGS=-mod=mod GOTOOLCHAIN=local GOPROXY=off
	export GOCACHE=$BATS_FILE_TMPDIR/gocache GOPATH=$BATS_FILE_TMPDIR/gopath
	export GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@example.org
	export GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@example.org
	export GIT_CONFIG_NOSYSTEM=1 HOME=$T
	unset MAKEFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS BENCH_CASES
}

need() {
	command -v "$1" >/dev/null || skip "$1 is not installed"
}

need_gbench() {
	need c++
	[ -e /usr/include/benchmark/benchmark.h ] || skip "libbenchmark-dev is not installed"
}

need_pytest() {
	need pytest
	pytest --help 2>/dev/null | grep -q -- --benchmark-json || skip "pytest-benchmark is not installed"
}

# The gbench fixture's benchmark, built in $T/gb.
build_gbench() {
	cp -R "$FIX/gbench" "$T/gb"
	make -s -C "$T/gb" GATE_MK="$MK" bench/bench >/dev/null
}

# A repository holding fixture $1 as its first commit and its planted
# slowdown ($2 replaced by $3) as its second.
slowed_repo() {
	cp -R "$FIX/$1" "$T/repo"
	cd "$T/repo"
	git init -q -b main
	git add -A
	git commit -q -m "$1: a sum and a max"
	cp "$3" "$2"
	git commit -q -am "$1: a slower sum"
}
