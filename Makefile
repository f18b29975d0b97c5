# perfgate: protect the speed of C code the way unit tests protect its values.
# GNU make. Every variable below can be set on the command line.

PREFIX = /usr/local
MANPREFIX = $(PREFIX)/share/man
DATADIR = $(PREFIX)/share/perfgate
# perfgate.pc, for pkg-config: bench.h's directory and the version.
PKGCONFIGDIR = $(PREFIX)/share/pkgconfig
CC = cc
CFLAGS = -std=c11 -O2
WARNFLAGS = -Wall -Wextra
LDFLAGS =
LDLIBS = -lm

# Required flags, kept apart so that `make CFLAGS=-O0` still builds.
PG_CFLAGS = -std=c11
PG_CPPFLAGS = -D_GNU_SOURCE -Ilib -Ibench

# The version, from the VERSION file: every tool's -V, the man pages'
# footers, make dist's tarball.
PERFGATE_VERSION := $(shell cat VERSION 2>/dev/null || echo unknown)

# The kernels checked and benchmarked: any file that defines kata/kernels.h.
KATA = kata/kernels.c

TOOLS = bestof alternate minjson cmpbudget countof
# the gate's measuring loop and rule (mk/gate.sh)
TOOLS += gaterun
# The explanation of a regression (mk/explain.sh)
TOOLS += cgdiff
# make compare's own (mk/compare.mk)
TOOLS += refjudge perfdoc
# the load gate, read before a long run (perfgate load)
TOOLS += loadgate
TOOLS += plotrounds mergeshards noisesum
TOOLS += benchrec
# the bench command's one parser, for the shell (lib/benchargv.c)
TOOLS += benchcmd
# make compare's accuracy (lib/accuracy.c)
TOOLS += ulpscore
# make compare's workers (bench/worker.h, lib/wproto.c)
TOOLS += wside
# perfgate history (bin/histnote.c: notes, the chain, the page)
TOOLS += histnote
SCRIPTS = bin/perfgate
TOOLBIN = $(TOOLS:%=bin/%)
# bin/ holds the tools, one .c each; lib/ the modules they share, built
# into one static library. Objects are kept apart, in build/obj/.
OBJDIR = build/obj
LIBSRC = $(wildcard lib/*.c)
LIBOBJ = $(LIBSRC:%.c=$(OBJDIR)/%.o)
LIBA = $(OBJDIR)/libperfgate.a
HDR = $(wildcard lib/*.h) bench/sha256.h
MAN1 = $(TOOLS:%=man/%.1)
# The perfgate command's own page (bin/perfgate, a script).
MAN1 += man/perfgate.1
MAN7 = man/perfgate.7

.PHONY: all test check grade bench bench-gate bench-harness bench-verdict bench-tools bench-timer lint lint-man lint-sh warnings test-san deps install uninstall clean
.PHONY: dist distcheck

all: $(TOOLBIN)

$(OBJDIR)/%.o: %.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(PG_CFLAGS) $(CFLAGS) $(WARNFLAGS) $(PG_CPPFLAGS) $(CPPFLAGS) -c -o $@.tmp $<
	mv -f $@.tmp $@

$(OBJDIR)/lib/version.o: VERSION
$(OBJDIR)/lib/version.o: PG_CPPFLAGS += -DPERFGATE_VERSION='"$(PERFGATE_VERSION)"'

$(LIBA): $(LIBOBJ)
	rm -f $@.tmp
	$(AR) rc $@.tmp $(LIBOBJ)
	mv -f $@.tmp $@

$(TOOLBIN): bin/%: $(OBJDIR)/bin/%.o $(LIBA)
	$(CC) $(LDFLAGS) -o $@.tmp $< $(LIBA) $(LDLIBS)
	mv -f $@.tmp $@

# kata_check is rebuilt on every run, so that KATA=any/kernels.c is checked
# as it is now.
check:
	@mkdir -p build/check
	$(CC) $(PG_CFLAGS) $(CFLAGS) $(WARNFLAGS) -Ikata -o build/check/kata_check kata/kata_check.c kata/plain.c $(KATA) $(LDLIBS)
	build/check/kata_check

bench:
	@mkdir -p build/bench
	$(CC) $(PG_CFLAGS) $(CFLAGS) -Ikata -Ibench -o build/bench/bench kata/bench.c $(KATA) $(LDLIBS)
	build/bench/bench

# The tools against their peers (jq, mawk, hyperfine), side by side in one run.
bench-tools: all
	@for s in lab/*-peers.sh; do sh "$$s" || exit 2; done

# One gate's time, perfgate's against a naive gate's, side by side.
bench-gate:
	@sh lab/bench-gate.sh

# The gate's answers on a machine made busy in known ways (lab/bench-verdict.sh):
# false claims, misses, undecided, seconds per verdict. LAB_N scales it.
bench-verdict:
	@sh lab/bench-verdict.sh

# A whole gate of a Google Benchmark project (2x head, and against itself),
# a go test and a hyperfine project beside it (lab/bench-harness.sh).
bench-harness:
	@sh lab/bench-harness.sh

# bench.h against Google Benchmark on the same kernel, side by side.
bench-timer:
	@sh lab/timer-vs-gbench.sh

# The gate: make gate BASE=old/kernels.c HEAD=new/kernels.c (see mk/gate.mk).
PERFGATE_DIR = .
PERFGATE_BIN = bin
include mk/gate.mk

# make compare: the kata against plain C and NumPy (see mk/compare.mk).
include mk/compare.mk

# The gate's proof: it catches the planted slowdowns and passes the kata
# against itself.
grade: all
	@sh kata/grade.sh

deps:
	@sh tests/deps.sh

lint-man:
	mandoc -Tlint -W warning $(MAN1) $(MAN7)

# Every shell file we ship, as POSIX sh (store.sh is sourced and has no
# #! line): shellcheck-clean, a finding fixed or disabled on its own line
# with the reason.
SHELL_FILES = bin/perfgate $(wildcard mk/*.sh ci/*.sh tests/*.sh)
lint-sh:
	shellcheck -s sh $(SHELL_FILES)

# The lints: the man pages, the shell, the C's warnings.
lint: lint-man lint-sh warnings

# Every C file, warning-free under gcc, clang and tcc.
warnings:
	@sh tests/warnings.sh

# The tool tests again, under AddressSanitizer and UndefinedBehaviorSanitizer.
test-san: deps
	@sh tests/sanitize.sh

# Every test; make warnings and make lint-man are tests/warnings.bats, so
# that a compiler or mandoc missing (make test as a user, without root to
# install it) is a skip naming it, and the rest still runs.
test: deps all check compare-ci
	@sh tests/run.sh tests/*.bats

# The installed directories, each quoted for the shell once: a PREFIX may
# hold blanks, quotes or a `$` (uninstall removes only what install wrote).
# A directory given on the command line or in the environment is taken as
# written ($(value)), never expanded by make: PREFIX='/x/$y' is /x/$y, not
# /x/. The defaults of MANPREFIX, DATADIR and PKGCONFIGDIR are PREFIX's,
# so they are built here from PREFIX as written.
inst_raw = $(if $(filter command line environment,$(origin $(1))),$(value $(1)),$($(1)))
inst_dir = $(if $(filter command line environment,$(origin $(1))),$(value $(1)),$(inst_prefix)$(2))
inst_q = '$(subst ','\'',$(inst_destdir)$(1))'
inst_prefix := $(call inst_raw,PREFIX)
inst_destdir := $(call inst_raw,DESTDIR)
IBIN := $(call inst_q,$(inst_prefix)/bin)
IMAN1 := $(call inst_q,$(call inst_dir,MANPREFIX,/share/man)/man1)
IMAN7 := $(call inst_q,$(call inst_dir,MANPREFIX,/share/man)/man7)
IDATA := $(call inst_q,$(call inst_dir,DATADIR,/share/perfgate))
IPC := $(call inst_q,$(call inst_dir,PKGCONFIGDIR,/share/pkgconfig))

install: all
	mkdir -p -- $(IBIN) $(IMAN1) $(IMAN7)
	cp -f $(TOOLBIN) $(SCRIPTS) $(IBIN)/
	mkdir -p -- $(IDATA)/bench $(IDATA)/kata
	cp -f mk/gate.mk mk/gate.sh mk/store.sh mk/noise.sh mk/counts.mk mk/explain.sh $(IDATA)/
	cp -f mk/compare.mk mk/compare.sh $(IDATA)/
	cp -f ci/perfgate-ci.sh mk/shard.sh $(IDATA)/
	# bench/ is what a benchmark includes: installed whole.
	cp -f $(wildcard bench/*) $(IDATA)/bench/
	cp -f kata/kernels.h kata/kernels.c kata/bench.c $(IDATA)/kata/
	# The kata's budget, for the installed default gate.
	cp -f budget.toml $(IDATA)/
	cp -f $(MAN1) $(IMAN1)/
	cp -f $(MAN7) $(IMAN7)/
	# Every installed page's footer names this version.
	for p in $(notdir $(MAN1)); do sed -i 's/^\.Os.*/.Os perfgate $(PERFGATE_VERSION)/' $(IMAN1)/"$$p" || exit 1; done
	for p in $(notdir $(MAN7)); do sed -i 's/^\.Os.*/.Os perfgate $(PERFGATE_VERSION)/' $(IMAN7)/"$$p" || exit 1; done
	# perfgate.pc, written for this PREFIX from mk/perfgate.pc.in (each
	# value escaped for pkg-config, so that a PREFIX with blanks works).
	mkdir -p -- $(IPC)
	sh mk/perfgate-pc.sh -o $(IPC)/perfgate.pc mk/perfgate.pc.in $(call pc_q,$(inst_prefix)) \
	    $(call pc_q,$(call inst_dir,DATADIR,/share/perfgate)) $(call pc_q,$(PERFGATE_VERSION))

# mk/uninstall.sh removes, each directory one quoted argument (IBIN and
# kin: single quotes, each ' written '\''), so that no path is split.
uninstall:
	sh mk/uninstall.sh $(IBIN) $(IDATA) $(IMAN1) $(IMAN7) $(IPC) $(TOOLS)

# A make value quoted for the shell: a PREFIX with blanks or quotes is one word.
pc_q = '$(subst ','\'',$(1))'

clean:
	rm -f -- $(foreach t,$(TOOLBIN),$(call pc_q,$(t))) bin/*.tmp
	rm -rf build

# A release: perfgate-<version>.tar.gz in DISTDIR, holding the files git
# tracks (in an unpacked release, those its MANIFEST lists) under
# perfgate-<version>/, byte for byte the same from the same files: sorted,
# owned by root, dated by the last commit (or SOURCE_DATE_EPOCH).
DISTDIR = .
DISTNAME = perfgate-$(PERFGATE_VERSION)
dist:
	rm -rf build/dist
	mkdir -p build/dist/$(DISTNAME)
	if [ -f MANIFEST ]; then cat MANIFEST; else git ls-files; fi | grep -vx MANIFEST | LC_ALL=C sort > build/dist/MANIFEST
	test -s build/dist/MANIFEST
	tar -cf - -T build/dist/MANIFEST | tar -xf - -C build/dist/$(DISTNAME)
	cp build/dist/MANIFEST build/dist/$(DISTNAME)/MANIFEST
	# The CI templates check the perfgate they install against the commit
	# its tag names (PERFGATE_COMMIT), which no commit can hold of itself:
	# the source tree's templates leave it empty. A release packed from a
	# clean commit writes that commit in; from a dirty tree, or without
	# git (an unpacked release, already filled), nothing changes.
	if c=$$(git rev-parse --verify --quiet HEAD 2>/dev/null) && git diff --quiet HEAD -- 2>/dev/null; then \
	    sed -i "s/^\( *PERFGATE_COMMIT: \)\"\"$$/\1\"$$c\"/" build/dist/$(DISTNAME)/ci/github/*.yml build/dist/$(DISTNAME)/ci/gitlab/*.yml; fi
	cd build/dist && tar --sort=name --owner=0 --group=0 --numeric-owner \
	    --mtime=@$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)} \
	    -cf - $(DISTNAME) | gzip -n -9 > $(DISTNAME).tar.gz.tmp
	mkdir -p $(DISTDIR)
	mv -f build/dist/$(DISTNAME).tar.gz.tmp $(DISTDIR)/$(DISTNAME).tar.gz
	rm -rf build/dist
	@echo "dist: $(DISTDIR)/$(DISTNAME).tar.gz"

# The release builds and checks itself from a clean directory of its own.
distcheck: dist
	rm -rf build/distcheck
	mkdir -p build/distcheck
	tar -xzf $(DISTDIR)/$(DISTNAME).tar.gz -C build/distcheck
	$(MAKE) -C build/distcheck/$(DISTNAME) all check lint-man
	build/distcheck/$(DISTNAME)/bin/plotrounds -V
	rm -rf build/distcheck

# Fuzz every parser FUZZ_S seconds a target with sanitizers on, and print
# executions, coverage and crashes per target (tests/fuzz/run.sh).
FUZZ_S = 10
.PHONY: fuzz
fuzz:
	@FUZZ_S='$(FUZZ_S)' sh tests/fuzz/run.sh
