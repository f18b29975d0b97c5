# gate.mk: the perfgate gate, for any project's Makefile (GNU make).
#
#	make gate BASE=old/kernels.c HEAD=new/kernels.c
#	make gate BASE=origin/main HEAD=.
#
# A side (BASE or HEAD) is one of three kinds, told apart by what it names:
# an existing file is a source file compiled with GATE_BENCH_SRC; an
# existing directory is a git work tree taken as it is (uncommitted changes
# included); anything else is a git revision, exported at its exact commit
# to $(GATEDIR)/<side>/tree through an index of its own (no worktree is
# registered, so none can leak). Each side is built, then alternate runs both sides in
# interleaved rounds, minjson reduces the rounds, and cmpbudget judges them
# against the budget. Every step writes $@.tmp and renames it, so make's
# dependency graph is the cache: a new budget re-judges the same runs; a new
# side identity (content or commit and uncommitted changes, compiler, flags,
# commands) or RUNS re-measures.
#
# A project gates itself by setting GATE_BUILD and GATE_BENCH (both run with
# GATE_SIDE set to the side's tree) and GATE_BUDGET before including this
# file; BASE and HEAD then default to HEAD (the last commit) and . (the work
# tree).
#
# The last line gate prints on stdout is the summary record; its "verdict"
# is "ok", "regressed" or "error". make turns any failing recipe into exit
# status 2, so scripts that need the exact 0, 1 or 2 run `perfgate` instead.
# See perfgate(7).

# Including this file must not change the includer's default goal.
GATE_SAVED_GOAL := $(.DEFAULT_GOAL)

GATE_MK_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

# A project that builds its own sides gates its commits; otherwise the gate
# is the kata's, whose benchmark also depends on kata/kernels.h.
ifeq ($(origin GATE_BUILD),undefined)
BASE ?= kata/kernels.c
HEAD ?= kata/kernels.c
GATE_KATA_H = $(GATE_SHARE)/kata/kernels.h
else
BASE ?= HEAD
HEAD ?= .
GATE_KATA_H =
endif

# Where the tools are: a perfgate checkout's bin/, or beside an installed
# share/perfgate: the bin/ of the same prefix.
ifneq ($(wildcard $(GATE_MK_DIR)/../bin/alternate.c),)
PERFGATE_DIR ?= $(patsubst %/,%,$(dir $(GATE_MK_DIR)))
PERFGATE_BIN ?= $(PERFGATE_DIR)/bin
GATE_SHARE ?= $(PERFGATE_DIR)
GATE_HEADERS ?= $(PERFGATE_DIR)/bench/bench.h $(PERFGATE_DIR)/bench/bench_counts.h $(GATE_KATA_H)
# From another project's Makefile, build the tools in the checkout they live in.
$(PERFGATE_BIN)/%: $(PERFGATE_DIR)/bin/%.c
	$(MAKE) -C $(PERFGATE_DIR) bin/$*
else
PERFGATE_BIN ?= $(abspath $(GATE_MK_DIR)/../../bin)
GATE_SHARE ?= $(GATE_MK_DIR)
GATE_HEADERS ?= $(GATE_MK_DIR)/bench/bench.h $(GATE_MK_DIR)/bench/bench_counts.h $(GATE_KATA_H)
endif

BUDGET ?= $(or $(GATE_BUDGET),budget.toml)
GATEDIR ?= build/gate
CC ?= cc
CFLAGS ?= -std=c11 -O2
BASE_CC ?= $(CC)
HEAD_CC ?= $(CC)
BASE_CFLAGS ?= $(CFLAGS)
HEAD_CFLAGS ?= $(CFLAGS)
# RUNS defaults to the budget file's top-level `runs`, else 3.
RUNS ?= $(or $(shell sed -n '/^\[/q; s/^[ 	]*runs[ 	]*=[ 	]*\([0-9][0-9]*\).*/\1/p' $(BUDGET) 2>/dev/null),3)
# Seconds: one build, one run of a side.
GATE_BUILD_TIMEOUT ?= 300
GATE_TIMEOUT ?= 120
# More options for alternate, for example the load gate: -l 1.5, or on CPU
# pressure: -p -l 10.
GATE_ALTERNATE_FLAGS ?=
# How many more blocks of RUNS rounds a regression may be measured with
# before it is reported: one always, more while it lies within the noise of
# its own measurement (gate.sh, doubtful).
GATE_CONFIRM ?= 2

# How a side is built and benchmarked. Both run with GATE_SIDE set to the
# side's tree (or, for a source file, the side's directory holding a copy
# named after the file); GATE_CC and GATE_CFLAGS are the side's compiler and
# flags. The build also finds GATE_SIDE, GATE_CC, GATE_CFLAGS and
# GATE_INCLUDES (the -I flags of bench.h) in its environment, so that a
# side's own Makefile can use them. The defaults compile GATE_BENCH_SRC with
# the side's file.
GATE_BENCH_SRC ?= $(GATE_SHARE)/bench/bench.c
GATE_INCLUDES ?= $(addprefix -I,$(sort $(abspath $(dir $(GATE_HEADERS)))))
GATE_LDLIBS ?= -lm
GATE_BUILD ?= $(GATE_CC) $(GATE_CFLAGS) $(GATE_INCLUDES) -o $(GATE_SIDE)/bench $(abspath $(GATE_BENCH_SRC)) $(GATE_SIDE)/$(GATE_FILE) $(GATE_LDLIBS)
GATE_BENCH ?= $(GATE_SIDE)/bench

GATE_SH = sh $(GATE_MK_DIR)/gate.sh
GATE_TOOLS = $(PERFGATE_BIN)/alternate $(PERFGATE_BIN)/minjson $(PERFGATE_BIN)/cmpbudget

gate_kind = $(if $(wildcard $(1)/.),tree,$(if $(wildcard $(1)),file,rev))
# A revision's side is the directory of this Makefile within the export of
# the whole repository, as . is within the work tree.
gate_prefix = $(shell git rev-parse --show-prefix 2>/dev/null)
gate_q = '$(subst ','\'',$(1))'

# gate_side_rules(side, VALUE, CC, CFLAGS): the identity and the build of one side.
define gate_side_rules
$(1)_KIND := $$(call gate_kind,$(2))
$(1)_SIDE := $$(abspath $$(if $$(filter tree,$$($(1)_KIND)),$(2),$$(GATEDIR)/$(1)$$(if $$(filter rev,$$($(1)_KIND)),/tree/$$(gate_prefix))))

# The side's tree, file, compiler and flags, for its identity and its build.
$$(GATEDIR)/$(1).id $$(GATEDIR)/$(1)/built: GATE_SIDE = $$($(1)_SIDE)
$$(GATEDIR)/$(1).id $$(GATEDIR)/$(1)/built: GATE_FILE = $$(notdir $(2))
$$(GATEDIR)/$(1).id $$(GATEDIR)/$(1)/built: GATE_CC = $(3)
$$(GATEDIR)/$(1).id $$(GATEDIR)/$(1)/built: GATE_CFLAGS = $(4)
$$(GATEDIR)/$(1).id: FORCE | $$(BUDGET)
	@mkdir -p $$(GATEDIR)
	@$$(GATE_SH) id $$(GATEDIR) $(1) $$($(1)_KIND) $$(call gate_q,$(2)) $$(call gate_q,$$(GATE_CC)) \
	    $$(call gate_q,$$(GATE_CFLAGS)) $$(call gate_q,$$(GATE_BUILD)) $$(call gate_q,$$(GATE_BENCH)) \
	    $$(if $$(filter file,$$($(1)_KIND)),$$(GATE_BENCH_SRC)) $$(GATE_HEADERS)

$$(GATEDIR)/$(1)/built: $$(GATEDIR)/$(1).id
	@GATE_CC=$$(call gate_q,$$(GATE_CC)) GATE_CFLAGS=$$(call gate_q,$$(GATE_CFLAGS)) \
	    GATE_INCLUDES=$$(call gate_q,$$(GATE_INCLUDES)) $$(GATE_SH) build $$(GATEDIR) $(1) $$($(1)_KIND) $$(call gate_q,$(2)) $$(GATE_SIDE) \
	    $$(GATE_BUILD_TIMEOUT) $$(call gate_q,$$(GATE_BUILD)) $$(call gate_q,$$(GATE_BENCH))
endef

$(eval $(call gate_side_rules,base,$(BASE),$(BASE_CC),$(BASE_CFLAGS)))
$(eval $(call gate_side_rules,head,$(HEAD),$(HEAD_CC),$(HEAD_CFLAGS)))

# A bare `make gate` builds the two sides at once: compiling is most of the
# time a gate spends outside its measurements, and nothing is measured
# while both build. Not when both sides are one tree (two builds in one
# directory would race), nor with other goals; GATE_JOBS=1 builds one side
# after the other.
GATE_JOBS ?= 2
ifeq ($(MAKECMDGOALS),gate)
ifneq ($(base_SIDE),$(head_SIDE))
MAKEFLAGS += -j$(GATE_JOBS)
endif
endif

# What the runs depend on besides the two builds.
$(GATEDIR)/runs.id: FORCE
	@mkdir -p $(GATEDIR)
	@printf 'runs %s\ntimeout %s\nalternate %s\nconfirm %s\nenv %s\n' $(call gate_q,$(RUNS)) \
	    $(call gate_q,$(GATE_TIMEOUT)) $(call gate_q,$(GATE_ALTERNATE_FLAGS)) $(call gate_q,$(GATE_CONFIRM)) \
	    "$$(env | grep '^BENCH_' | sort | tr '\n' ' ')" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(GATEDIR)/runs.jsonl: $(GATEDIR)/base/built $(GATEDIR)/head/built $(GATEDIR)/runs.id | $(GATE_TOOLS)
	@$(GATE_SH) measure $(GATEDIR) $(PERFGATE_BIN) $(call gate_q,$(RUNS)) $(GATE_TIMEOUT) $(call gate_q,$(GATE_ALTERNATE_FLAGS)) \
	    $(call gate_q,$(BUDGET)) $(call gate_q,$(GATE_CONFIRM))

$(GATEDIR)/stats.jsonl: $(GATEDIR)/runs.jsonl
	@$(PERFGATE_BIN)/minjson -x round,slot,load,pressure -s min,q1,median,q3 $< > $@.tmp || \
	    $(GATE_SH) fail $(GATEDIR) both statistics "minjson failed on $<"
	@mv -f $@.tmp $@

$(GATEDIR)/verdict.jsonl: $(GATEDIR)/stats.jsonl $(BUDGET) | $(GATE_TOOLS)
	@$(GATE_SH) judge $(GATEDIR) $(PERFGATE_BIN) $(BUDGET)

# A budget file that does not exist is an answer too, not make's own error,
# and is given before anything is built.
$(BUDGET):
	@$(GATE_SH) fail $(GATEDIR) both budget $(call gate_q,no budget file $(BUDGET))

.PHONY: gate gate-clean FORCE
FORCE:

# GATE_MODE=counts or both (counts.mk) reports another verdict.
include $(GATE_MK_DIR)/counts.mk

gate: $(GATE_RESULT)/verdict.jsonl
	@$(GATE_SH) report $(GATE_RESULT)

gate-clean:
	rm -rf $(GATEDIR)

.DEFAULT_GOAL := $(GATE_SAVED_GOAL)
