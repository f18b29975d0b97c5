# compare.mk: make compare, an implementation against its references (GNU make).
#
#	make compare              every case, one row each, into docs/perf.json,
#	                          and its picture, build/compare/compare.svg
#	make compare RESUME=1     only the rows the last run deferred, merged
#	make compare-check        docs/perf-table.md is what docs/perf.json renders
#	make compare-table        write docs/perf-table.md from docs/perf.json again
#	make compare-drafts       an issue draft per row slower than a reference
#	make compare-ci           nothing timed, for every pull request: every side
#	                          has a licence (a GPL reference only as a black
#	                          box), every row an entry for every reference,
#	                          the table is what perf.json renders, the implementation's
#	                          allocations a call are those perf.json records,
#	                          every public function of COMPARE_HEADER has a case
#	                          or a line "- `name`: reason" in COMPARE_EXEMPT
#	make compare-lock         rewrite COMPARE_LOCK (docs/refs.lock), the pinned
#	                          reference environment, from this machine
#	make compare-allocs       record the allocations in perf.json, nothing timed,
#	                          nothing built but the implementation: the rows,
#	                          timings, date and commit of the measurement kept,
#	                          a new case a deferred row
#
# make compare fails (status 2) when a row is deferred: the document and its
# table are written with the valid rows and the deferred ones, and the
# deferred cases are named, but an incomplete document is not a success.
#
# A side is a name and a command that prints one JSON line of metrics; the
# first of COMPARE_SIDES is the implementation, the others its references.
# A project declares its own before including this file:
#
#	COMPARE_SIDES = mine theirs
#	COMPARE_CASES = parse encode
#	COMPARE_CMD_mine = build/bench
#	COMPARE_CMD_theirs = build/bench-theirs
#	COMPARE_PREREQ = build/bench build/bench-theirs
#	include path/to/perfgate/mk/compare.mk
#
# Each side runs one case at a time (BENCH_CASES) and reports the SHA-256 of
# its inputs (BENCH_SHA256=1, "<case>_input_sha256"), as bench.h and
# kata/numpy_worker.py do. See perfdoc(1) and perfgate(7).
#
# Where each side S comes from, recorded in perf.json:
#	COMPARE_VERSION_S   a command whose first line is its version
#	COMPARE_CC_S, COMPARE_CFLAGS_S, COMPARE_SOURCES_S   a C side's compiler,
#	                    flags and sources: every file the build reads is
#	                    digested (cc -M); a reference's compiler and flags
#	                    are fixed by its name, checked against perf.json
#	COMPARE_LICENSE_S   its SPDX licence expression, which every side needs
#	                    (none, NOASSERTION or NONE is refused); a GPL
#	                    reference is refused unless
#	COMPARE_BLACKBOX_S = 1: a separate program, never built or linked here
#	COMPARE_ABOUT_S     a command printing a JSON object about it
#	COMPARE_LOCK_S      a reference's command printing what pins it:
#	                    {"package":...,"version":...,"files":[paths]}

COMPARE_SAVED_GOAL := $(.DEFAULT_GOAL)
COMPARE_MK_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
# The tools: a checkout's bin/, or the bin/ of the prefix an installed
# share/perfgate/compare.mk lives in.
COMPARE_BIN ?= $(or $(PERFGATE_BIN),$(if $(wildcard $(COMPARE_MK_DIR)/../bin/alternate.c),$(COMPARE_MK_DIR)/../bin,$(abspath $(COMPARE_MK_DIR)/../../bin)))

COMPARE_DIR ?= build/compare
COMPARE_DOC ?= docs/perf.json
COMPARE_TABLE ?= docs/perf-table.md
# Rounds of a row: 6 is a full Williams cycle of three sides.
COMPARE_ROUNDS ?= 6
COMPARE_RETRIES ?= 10
COMPARE_WAIT ?= 60
COMPARE_TIMEOUT ?= 120
# The CPU every side of a row is pinned to: auto, one no gate or compare
# on the machine holds (alternate -c auto, the highest-numbered of those),
# or a CPU number.
COMPARE_CPU ?= auto
# The gate: CPU pressure (percent of 10 s stalled) where the kernel has it,
# else the 1-minute load average.
COMPARE_MAXPRESSURE ?= 30
COMPARE_MAXLOAD ?= $(shell echo $$(( $$(nproc) + 1 )))
RESUME ?= 0
# The commit measured, checked: HEAD in full, the tree clean. Without it the
# commit is HEAD, with -dirty-<8 hex digits of the changes> when dirty.
COMPARE_COMMIT ?=
# The implementation's allocations a call, counted by bench.h's counts mode
# (BENCH_MODE=counts, glibc) and recorded in perf.json; 0: not counted.
COMPARE_ALLOCS ?= 1
# The implementation's public functions, each wanting a case or an exemption.
COMPARE_EXEMPT ?= docs/perf-exempt.md

# The kata's sides: kata (KATA), plain (kata/plain.c) under the same
# benchmark, and NumPy through kata/numpy_worker.py.
ifeq ($(origin COMPARE_SIDES),undefined)
COMPARE_SIDES = kata plain numpy
COMPARE_CASES ?= matmul sum rmsnorm count_below
KATA ?= kata/kernels.c
CC ?= cc
CFLAGS ?= -std=c11 -O2
# The first Python that imports NumPy: Debian's python3-numpy is for /usr/bin/python3.
COMPARE_PYTHON ?= $(firstword $(foreach p,python3 /usr/bin/python3,$(shell $(p) -c 'import numpy' >/dev/null 2>&1 && echo $(p))))
COMPARE_CMD_kata = $(COMPARE_DIR)/kata/bench
COMPARE_CMD_plain = $(COMPARE_DIR)/plain/bench
COMPARE_CMD_numpy = $(COMPARE_PYTHON) kata/numpy_worker.py
# The C sides as built, and digested, file by file (every header too).
# kata is the implementation, built as KATA, CC and CFLAGS say; plain and
# blas are C references, fixed by their names: committed sources built by
# cc at -O2 -ffp-contract=off (no fused multiply-add the compiler chose),
# whatever CC and CFLAGS are (other flags would make another reference).
COMPARE_REF_CFLAGS = -std=c11 -O2 -ffp-contract=off
COMPARE_CC_kata = $(CC)
COMPARE_CFLAGS_kata = $(CFLAGS) -Ikata -Ibench
COMPARE_SOURCES_kata = kata/bench.c $(KATA)
COMPARE_CC_plain = cc
COMPARE_CFLAGS_plain = $(COMPARE_REF_CFLAGS) -Ikata -Ibench -DPLAIN_AS_KATA
COMPARE_SOURCES_plain = kata/bench.c kata/plain.c
COMPARE_LDLIBS_kata = -lm
COMPARE_LDLIBS_plain = -lm
COMPARE_VERSION_kata = $(CC) --version
COMPARE_VERSION_plain = $(COMPARE_CC_plain) --version
# perfgate's licence (LICENSE) is BSD-3-Clause, NumPy's and OpenBLAS's too.
COMPARE_LICENSE_kata = BSD-3-Clause
COMPARE_LICENSE_plain = BSD-3-Clause
COMPARE_LICENSE_numpy = BSD-3-Clause
COMPARE_ABOUT_numpy = $(COMPARE_PYTHON) kata/numpy_worker.py --about
# The BLAS a C programmer links (-lblas), called directly: kata/blas.c.
COMPARE_SIDES += blas
COMPARE_BLAS_LIBS ?= -lblas
COMPARE_CMD_blas = $(COMPARE_DIR)/blas/bench
COMPARE_CC_blas = cc
COMPARE_CFLAGS_blas = $(COMPARE_REF_CFLAGS) -Ikata -Ibench
COMPARE_SOURCES_blas = kata/bench.c kata/blas.c kata/plain.c
COMPARE_LDLIBS_blas = $(COMPARE_BLAS_LIBS) -lm
COMPARE_VERSION_blas = $(COMPARE_CC_blas) --version
COMPARE_LICENSE_blas = BSD-3-Clause
COMPARE_ABOUT_blas = $(COMPARE_DIR)/blas/about
# The pinned reference environment (docs/refs.lock): each reference's
# package, version and the libraries it loads, as it says them.
COMPARE_LOCK ?= docs/refs.lock
COMPARE_LOCK_plain = $(COMPARE_DIR)/plain/worker --lock
COMPARE_LOCK_blas = $(COMPARE_DIR)/blas/worker --lock
COMPARE_LOCK_numpy = $(COMPARE_PYTHON) kata/numpy_worker.py --lock
# Four sides: a Williams cycle is 4 rounds, so 8 (6 would leave it half run).
ifeq ($(origin COMPARE_ROUNDS),file)
COMPARE_ROUNDS = 8
endif
# Accuracy: the oracle in long double (kata/oracle.c), count_below's
# results int32, the budgets budget.toml's [accuracy] section.
COMPARE_ORACLE = $(COMPARE_DIR)/oracle/bench
COMPARE_RESULT_count_below = i32
COMPARE_ACCURACY ?= budget.toml
# COMPARE_WORKERS=1: every side a long-lived worker (wside, bench/worker.h),
# started once in its run directory, fed each case's inputs as
# COMPARE_INPUT writes them (BENCH_INPUT), loaded as a float64 matrix of
# COMPARE_SHAPE_<case> (COLSxROWS, column-major: bench.c's values in
# order, as kata/worker.c says); NumPy's speaks JSON lines.
COMPARE_INPUT = $(COMPARE_DIR)/kata/bench
COMPARE_SHAPE_matmul = 384x192
COMPARE_SHAPE_sum = 1x8192
COMPARE_SHAPE_rmsnorm = 17x1024
COMPARE_SHAPE_count_below = 257x1024
COMPARE_WORKER_kata = $(abspath $(COMPARE_DIR)/kata/worker)
COMPARE_WORKER_plain = $(abspath $(COMPARE_DIR)/plain/worker)
COMPARE_WORKER_blas = $(abspath $(COMPARE_DIR)/blas/worker)
COMPARE_WORKER_numpy = $(COMPARE_PYTHON) $(abspath kata/numpy_worker.py) --worker
COMPARE_WORKER_JSON_numpy = 1
COMPARE_PREREQ = compare-sides
COMPARE_CI_PREREQ = compare-side-kata
COMPARE_HEADER ?= kata/kernels.h
endif
# What compare-ci and compare-allocs build: the implementation is enough.
COMPARE_CI_PREREQ ?= $(COMPARE_PREREQ)
# The pinned reference environment: a committed file naming, for every
# reference, its package, its version and the SHA-256 of every library
# file it loads, from its COMPARE_LOCK_S command (one JSON object,
# {"package":...,"version":...,"files":[paths]}); make compare refuses a
# machine whose references differ, make compare-lock rewrites the file on
# purpose. Empty: nothing is pinned.
COMPARE_LOCK ?=

# compare.sh's environment, given to its recipe alone: exported, the
# variables would be expanded (NumPy looked for) in every recipe of the
# including Makefile.
compare_q = '$(subst ','\'',$(1))'
COMPARE_ENV = $(foreach v,COMPARE_BIN COMPARE_DIR COMPARE_DOC COMPARE_TABLE COMPARE_SIDES \
    COMPARE_CASES COMPARE_ROUNDS COMPARE_RETRIES COMPARE_WAIT COMPARE_TIMEOUT COMPARE_CPU \
    COMPARE_MAXPRESSURE COMPARE_MAXLOAD RESUME COMPARE_COMMIT COMPARE_ALLOCS COMPARE_HEADER COMPARE_EXEMPT \
    COMPARE_LOCK,$(v)=$(call compare_q,$($(v)))) \
    $(foreach s,$(COMPARE_SIDES),$(foreach k,CMD VERSION CC CFLAGS SOURCE SOURCES ABOUT LICENSE BLACKBOX LOCK,\
    COMPARE_$(k)_$(s)=$(call compare_q,$(COMPARE_$(k)_$(s)))))

.PHONY: compare compare-check compare-table compare-drafts compare-sides compare-side-kata compare-ci compare-allocs compare-lock

COMPARE_TOOLS = $(COMPARE_BIN)/alternate $(COMPARE_BIN)/minjson $(COMPARE_BIN)/refjudge $(COMPARE_BIN)/perfdoc

# Accuracy's part of compare.sh's environment (COMPARE_ORACLE: none, none scored).
COMPARE_WORKERS ?= 0
COMPARE_ACC_ENV = $(foreach v,COMPARE_ORACLE COMPARE_ACCURACY COMPARE_WORKERS COMPARE_INPUT,$(v)=$(call compare_q,$($(v)))) \
    $(foreach s,$(COMPARE_SIDES),COMPARE_WORKER_$(s)=$(call compare_q,$(COMPARE_WORKER_$(s))) \
        COMPARE_WORKER_JSON_$(s)=$(call compare_q,$(COMPARE_WORKER_JSON_$(s)))) \
    $(foreach c,$(COMPARE_CASES),COMPARE_RESULT_$(c)=$(call compare_q,$(COMPARE_RESULT_$(c))) \
        COMPARE_SHAPE_$(c)=$(call compare_q,$(COMPARE_SHAPE_$(c))))
COMPARE_TOOLS += $(COMPARE_BIN)/ulpscore $(COMPARE_BIN)/wside
# The picture of the document, $(COMPARE_DIR)/compare.svg: each row's references, ratio and quartiles.
COMPARE_TOOLS += $(COMPARE_BIN)/plotrounds

# RESUME=1 on a document with no deferred row has nothing to do: it builds
# no side and looks for no NumPy. Asked of perfdoc when it is built already,
# else compare.sh finds out after the build.
ifeq ($(RESUME)$(filter compare,$(MAKECMDGOALS)),1compare)
COMPARE_DEFERRED := $(shell if test -f $(call compare_q,$(COMPARE_DOC)) && test -x $(call compare_q,$(COMPARE_BIN)/perfdoc); \
    then $(call compare_q,$(COMPARE_BIN)/perfdoc) -q $(call compare_q,$(COMPARE_DOC)) 2>/dev/null || echo '?'; else echo '?'; fi)
endif
ifeq ($(RESUME)$(filter compare,$(MAKECMDGOALS))$(COMPARE_DEFERRED),1compare)
compare: $(COMPARE_TOOLS)
	@echo $(call compare_q,compare: $(COMPARE_DOC) has no deferred row: nothing to resume) >&2
else
compare: $(COMPARE_TOOLS) $(COMPARE_PREREQ)
	@$(COMPARE_ENV) $(COMPARE_ACC_ENV) sh $(COMPARE_MK_DIR)/compare.sh; s=$$?; \
	    [ ! -f $(call compare_q,$(COMPARE_DOC)) ] || $(call compare_q,$(COMPARE_BIN)/plotrounds) -C $(call compare_q,$(COMPARE_DOC)) \
	    -o $(call compare_q,$(COMPARE_DIR)/compare.svg) || echo $(call compare_q,compare: no picture ($(COMPARE_DIR)/compare.svg)) >&2; exit $$s
endif

# The kata's two C sides, built every time: a build is a fraction of a
# second, and a KATA or CC given on the command line must never meet a
# binary built from another.
compare-sides: compare-side-kata
	@test -n '$(COMPARE_PYTHON)' || { echo "compare: no python3 on PATH, nor /usr/bin/python3, imports numpy: apt-get install python3-numpy" >&2; exit 2; }
	@mkdir -p $(COMPARE_DIR)/plain
	$(COMPARE_CC_plain) $(COMPARE_CFLAGS_plain) -o $(COMPARE_DIR)/plain/bench $(COMPARE_SOURCES_plain) $(COMPARE_LDLIBS_plain)
	@mkdir -p $(COMPARE_DIR)/blas
	$(COMPARE_CC_blas) $(COMPARE_CFLAGS_blas) -o $(COMPARE_DIR)/blas/bench $(COMPARE_SOURCES_blas) $(COMPARE_LDLIBS_blas)
	$(CC) $(CFLAGS) -Ikata -o $(COMPARE_DIR)/blas/about kata/blas_about.c $(COMPARE_BLAS_LIBS) -ldl
	$(COMPARE_CC_kata) $(COMPARE_CFLAGS_kata) -o $(COMPARE_DIR)/kata/worker kata/worker.c $(KATA) -lm
	$(COMPARE_CC_plain) $(COMPARE_CFLAGS_plain) -o $(COMPARE_DIR)/plain/worker kata/worker.c kata/plain.c -lm
	$(COMPARE_CC_blas) $(COMPARE_CFLAGS_blas) -o $(COMPARE_DIR)/blas/worker kata/worker.c kata/blas.c kata/plain.c $(COMPARE_BLAS_LIBS) -lm
	@mkdir -p $(COMPARE_DIR)/oracle
	$(CC) $(CFLAGS) -Ikata -Ibench -DBENCH_ORACLE -DPLAIN_AS_KATA -o $(COMPARE_DIR)/oracle/bench kata/bench.c kata/oracle.c kata/plain.c -lm

compare-side-kata:
	@mkdir -p $(COMPARE_DIR)/kata
	$(COMPARE_CC_kata) $(COMPARE_CFLAGS_kata) -o $(COMPARE_DIR)/kata/bench $(COMPARE_SOURCES_kata) $(COMPARE_LDLIBS_kata)

# Nothing timed: no load gate, no NumPy, the implementation built alone.
compare-ci: $(COMPARE_BIN)/perfdoc $(COMPARE_CI_PREREQ)
	@$(COMPARE_ENV) sh $(COMPARE_MK_DIR)/compare.sh ci

compare-allocs: $(COMPARE_TOOLS) $(COMPARE_CI_PREREQ)
	@$(COMPARE_ENV) sh $(COMPARE_MK_DIR)/compare.sh allocs

# Rewrite COMPARE_LOCK from what the references here say, on purpose.
compare-lock: $(COMPARE_TOOLS) $(COMPARE_PREREQ)
	@$(COMPARE_ENV) sh $(COMPARE_MK_DIR)/compare.sh lock

# Paths are quoted for the shell: a name may hold blanks, quotes or ;.
compare-check: $(COMPARE_BIN)/perfdoc
	$(call compare_q,$(COMPARE_BIN)/perfdoc) -c $(call compare_q,$(COMPARE_TABLE)) $(call compare_q,$(COMPARE_DOC))

compare-table: $(COMPARE_BIN)/perfdoc
	$(call compare_q,$(COMPARE_BIN)/perfdoc) -t -o $(call compare_q,$(COMPARE_TABLE)) $(call compare_q,$(COMPARE_DOC))

compare-drafts: $(COMPARE_BIN)/perfdoc
	@rm -rf -- $(call compare_q,$(COMPARE_DIR)/drafts)
	$(call compare_q,$(COMPARE_BIN)/perfdoc) -d $(call compare_q,$(COMPARE_DIR)/drafts) $(call compare_q,$(COMPARE_DOC))
	@ls $(call compare_q,$(COMPARE_DIR)/drafts) 2>/dev/null | sed -n 's/\.title\.txt$$//p' | \
	    while read -r c; do echo "draft: "$(call compare_q,$(COMPARE_DIR)/drafts/)"$$c.md"; done

.DEFAULT_GOAL := $(COMPARE_SAVED_GOAL)
