#!/bin/sh
# What the fake reference of tests/compare.bats says pins it: its package,
# its version (FAKE_REFVER, default 1.0) and the library files it loads
# (FAKE_LIBS, paths separated by blanks; default lib/ref.so here).
libs=
for l in ${FAKE_LIBS:-lib/ref.so}; do
	libs="$libs${libs:+,}\"$(realpath -m -- "$l")\""
done
echo "{\"package\":\"ref\",\"version\":\"${FAKE_REFVER:-1.0}\",\"files\":[$libs]}"
