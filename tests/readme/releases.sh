#!/bin/sh
# releases.sh DIR: a small C library's history in a new git repository
# DIR, as README.md's "Gate a project's past releases" meets it: tags
# v1.4 and v1.5, no perf files in any commit, and between them one commit
# that makes vec_sum several times slower (a volatile accumulator). Used by
# tests/readme.bats, through the README's own <!-- setup: --> line.
set -e
mkdir -p "$1/include" "$1/src"
cd "$1"
git init -q -b main
export GIT_AUTHOR_NAME=vec GIT_AUTHOR_EMAIL=vec@example.org
export GIT_COMMITTER_NAME=vec GIT_COMMITTER_EMAIL=vec@example.org
cat > include/vec.h <<'C'
#include <stddef.h>
float vec_sum(const float *x, size_t n);
float vec_max(const float *x, size_t n);
C
sum() {
	cat <<C
#include "vec.h"

float
vec_sum(const float *x, size_t n)
{
	$1 s[8] = { 0 };
	size_t i, j;

	for (i = 0; i + 8 <= n; i += 8)
		for (j = 0; j < 8; j++)
			s[j] += x[i + j];
	for (; i < n; i++)
		s[0] += x[i];
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

float
vec_max(const float *x, size_t n)
{
	float m = n ? x[0] : 0;
	size_t i;

	for (i = 1; i < n; i++)
		m = x[i] > m ? x[i] : m;
	return m;
}
C
}
sum float > src/vec.c
printf 'vec: a sum and a max of floats\n' > README
git add -A && git commit -q -m 'vec: sum and max' && git tag v1.4
printf '\nvec_sum adds in eight lanes.\n' >> README
git commit -q -am 'README: how vec_sum adds'
sum 'volatile float' > src/vec.c
git commit -q -am 'vec: sum through memory, for the debugger'
printf '\nvec_max returns 0 for no floats.\n' >> README
git commit -q -am 'README: vec_max of nothing'
git tag v1.5
