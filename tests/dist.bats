#!/usr/bin/env bats
# dist: make dist writes a versioned release that builds and checks itself
# from a clean directory, byte for byte the same from the same files.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	V=$(cat "$TOP/VERSION")
	unset MAKEFLAGS MAKELEVEL
}

@test "dist: make dist writes perfgate-<version>.tar.gz, the same bytes twice" {
	[[ "$V" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	run -0 make -C "$TOP" --no-print-directory dist DISTDIR="$T"
	[ "${lines[-1]}" = "dist: $T/perfgate-$V.tar.gz" ]
	sum=$(sha256sum < "$T/perfgate-$V.tar.gz")
	run -0 make -C "$TOP" --no-print-directory dist DISTDIR="$T"
	[ "$(sha256sum < "$T/perfgate-$V.tar.gz")" = "$sum" ]
	# Everything under one directory named for the version, owned by root.
	[ "$(tar -tzf "$T/perfgate-$V.tar.gz" | cut -d/ -f1 | sort -u)" = "perfgate-$V" ]
	[ "$(tar -tzvf "$T/perfgate-$V.tar.gz" | awk '{ print $2 }' | sort -u)" = "0/0" ]
	tar -tzf "$T/perfgate-$V.tar.gz" | grep -qx "perfgate-$V/ci/perfgate-ci.sh"
	tar -tzf "$T/perfgate-$V.tar.gz" | grep -qx "perfgate-$V/MANIFEST"
	[ ! -e "$TOP/build/dist" ]
}

@test "dist: the unpacked release builds, checks, lints its pages, installs, and makes the same release again" {
	make -C "$TOP" -s dist DISTDIR="$T" > /dev/null
	mkdir "$T/clean" && tar -xzf "$T/perfgate-$V.tar.gz" -C "$T/clean"
	cd "$T/clean/perfgate-$V"
	run -0 make all check lint-man
	run -0 bin/plotrounds -V
	[ "$output" = "plotrounds $V" ]
	run -0 bin/mergeshards -V
	[ "$output" = "mergeshards $V" ]
	run -0 make install DESTDIR="$T/dest" PREFIX=/usr
	[ -x "$T/dest/usr/bin/plotrounds" ] && [ -f "$T/dest/usr/share/man/man1/mergeshards.1" ]
	[ -f "$T/dest/usr/share/perfgate/perfgate-ci.sh" ] && [ -f "$T/dest/usr/share/perfgate/shard.sh" ]
	# Every installed man page's footer names the version.
	for page in "$T"/dest/usr/share/man/man1/*.1 "$T"/dest/usr/share/man/man7/perfgate.7; do
		grep -qx ".Os perfgate $V" "$page"
	done
	mandoc -Tlint -W warning "$T"/dest/usr/share/man/man1/*.1
	# Without git, the release's MANIFEST says what a release holds.
	run -0 make --no-print-directory dist DISTDIR="$T/again"
	[ "$(tar -tzf "$T/again/perfgate-$V.tar.gz")" = "$(tar -tzf "$T/perfgate-$V.tar.gz")" ]
}

@test "dist: every tool and perfgate answer -V with the name and VERSION, nothing else" {
	for t in $(cd "$TOP" && sed -n 's/^TOOLS [+]*= //p' Makefile) perfgate; do
		run -0 --separate-stderr "$t" -V
		[ "$output" = "$t $V" ]
		[ "$stderr" = "" ]
	done
	run -2 --separate-stderr minjson -V -x a
}
