#!/bin/sh
# Install what the tests need when run as root; otherwise name the one
# command that would.
need=""
for pair in bats:bats tcc:tcc clang:clang mandoc:mandoc jq:jq git:git cc:gcc pkg-config:pkgconf \
    python3:python3 pgrep:procps patch:patch script:bsdutils valgrind:valgrind \
    rsvg-convert:librsvg2-bin xmllint:libxml2-utils; do
	cmd=${pair%%:*} pkg=${pair#*:}
	command -v "$cmd" >/dev/null 2>&1 || need="$need $pkg"
done
# make compare's BLAS side and NumPy: the header kata/blas.c includes, and
# an optimized BLAS behind -lblas (NumPy as people install it has one).
have() {
	for f in "$@"; do [ -e "$f" ] && return 0; done
	return 1
}
have /usr/include/cblas.h /usr/include/*/cblas.h || need="$need libblas-dev"
have /usr/lib/*/openblas*/libblas.so.3 || need="$need libopenblas0-serial"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$need" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq $need >/dev/null || exit 2
	exit 0
fi
echo "deps: the tests need$need; run: sudo apt-get install -y$need" >&2
exit 2
