#!/bin/sh
# project.sh DIR: README.md's "Gating your own code" project in a new git
# repository DIR, around the Makefile already there (the README's own
# block): src/lib.c, its benchmark perf/bench.c, perf/budget.toml; commits
# v1.0, two more, origin/main at the last. Used by tests/readme.bats.
set -e
mkdir -p "$1/src" "$1/perf"
cd "$1"
git init -q -b main
export GIT_AUTHOR_NAME=lib GIT_AUTHOR_EMAIL=lib@example.org
export GIT_COMMITTER_NAME=lib GIT_COMMITTER_EMAIL=lib@example.org
printf 'bench/\nbuild/\n' > .gitignore
cat > src/lib.h <<'C'
#include <stddef.h>
long lib_sum(const int *x, size_t n);
C
cat > src/lib.c <<'C'
#include "lib.h"

long
lib_sum(const int *x, size_t n)
{
	long s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	return s;
}
C
cat > perf/bench.c <<'C'
#include "bench.h"
#include "../src/lib.h"

static int x[4096];

static void
run_sum(void *arg)
{
	(void)arg;
	bench_keep_int((int)lib_sum(x, 4096));
}

int
main(int argc, char *argv[])
{
	(void)argc;
	bench_init(argv[0]);
	bench_add("lib_sum_ns", run_sum, NULL);
	return bench_report();
}
C
printf 'runs = 3\n\n[budget]\nlib_sum_ns = 0.5\n' > perf/budget.toml
mkdir -p bench
git add -A && git commit -q -m 'lib: a sum' && git tag v1.0
printf 'lib: a sum\n' > README && git add README && git commit -q -m 'README'
printf '\nIt adds ints.\n' >> README && git commit -q -am 'README: what it adds'
git update-ref refs/remotes/origin/main HEAD
