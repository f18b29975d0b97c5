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
# registered, so none can leak). Each side is built (every time: builds are
# incremental), then alternate runs both sides in interleaved rounds, and
# cmpbudget judges them against the budget, confirming a regression with
# more rounds first.
#
# What is cached is keyed by content, never by a file's timestamp: each
# side's key ($(GATEDIR)/<side>.key) is its identity and what actually runs
# (the digests of the built benchmark and the files its command names, the
# libraries it loads, the command, BENCH_* variables); the measurement is
# reused while both keys and the rounds' settings are the same. The verdict
# is keyed by the budget's path and content and the rule's settings
# ($(GATEDIR)/judge.id). Each key file is rewritten only when it changes,
# so that make's comparison of timestamps compares contents.
#
# A project gates itself by setting GATE_BUILD and GATE_BENCH (both run with
# GATE_SIDE set to the side's tree) and GATE_BUDGET before including this
# file; BASE and HEAD then default to HEAD (the last commit) and . (the work
# tree).
#
# The last line gate prints on stdout is the summary record; its "verdict"
# is "ok", "regressed", "undecided" or "error". make turns any failing recipe into exit
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
GATE_DEFAULT_BUILD = 1
# A revision or a directory on the kata's gate means that tree's
# kata/kernels.c (gate.sh side, store.sh's tree_file), built in GATEDIR.
GATE_TREE_FILE = kata/kernels.c
export GATE_TREE_FILE
else
# A project's own build: never the kata's file, whatever the environment
# holds (a make that includes gate.mk exports it to what it runs).
GATE_TREE_FILE =
export GATE_TREE_FILE
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
GATE_HEADERS ?= $(wildcard $(PERFGATE_DIR)/bench/*.h) $(GATE_KATA_H)
# From another project's Makefile, build the tools in the checkout they live
# in; a tool depends on its source and every module of lib/, as it does there.
$(PERFGATE_BIN)/%: $(PERFGATE_DIR)/bin/%.c $(wildcard $(PERFGATE_DIR)/lib/*.[ch]) $(PERFGATE_DIR)/bench/sha256.h
	@+$(MAKE) --no-print-directory -C $(PERFGATE_DIR) bin/$* >&2
else
PERFGATE_BIN ?= $(abspath $(GATE_MK_DIR)/../../bin)
GATE_SHARE ?= $(GATE_MK_DIR)
GATE_HEADERS ?= $(wildcard $(GATE_MK_DIR)/bench/*.h) $(GATE_KATA_H)
# Installed, the default gate is the kata's from any directory: where
# there is no kata/kernels.c or budget.toml, those installed beside
# gate.mk.
ifdef GATE_DEFAULT_BUILD
ifeq ($(wildcard kata/kernels.c),)
BASE := $(patsubst kata/kernels.c,$(GATE_SHARE)/kata/kernels.c,$(BASE))
HEAD := $(patsubst kata/kernels.c,$(GATE_SHARE)/kata/kernels.c,$(HEAD))
endif
ifeq ($(wildcard budget.toml),)
GATE_BUDGET ?= $(GATE_SHARE)/budget.toml
endif
endif
endif

BUDGET ?= $(or $(GATE_BUDGET),budget.toml)
GATEDIR ?= build/gate
CC ?= cc
CFLAGS ?= -std=c11 -O2
BASE_CC ?= $(CC)
HEAD_CC ?= $(CC)
BASE_CFLAGS ?= $(CFLAGS)
HEAD_CFLAGS ?= $(CFLAGS)
# Rounds; empty: the budget file's `runs`, as cmpbudget -q reads it.
RUNS ?=
# Seconds: one build, one run of a side.
GATE_BUILD_TIMEOUT ?= 300
# store.sh's compiler-version query has the build's timeout too.
export GATE_BUILD_TIMEOUT
GATE_TIMEOUT ?= 120
# More options for alternate, for example the load gate: -l 1.5, or on CPU
# pressure: -p -l 10.
GATE_ALTERNATE_FLAGS ?=
# The CPU every run of the gate is pinned to (alternate -c): auto, the
# highest-numbered CPU the gate may use; a CPU number; or off. On a shared
# machine a neighbour slows one CPU at a time: on one CPU both sides of a
# round meet the same spells (make bench-verdict measured it).
GATE_CPU ?= auto
export GATE_CPU
# The rule (perfgate(7), "The rule"): every interval of the paired ratios
# at GATE_CONFIDENCE; rounds measured on, while it cannot tell, up to
# GATE_DEADLINE seconds of measuring, then `undecided`; with GATE_FOCUS on,
# the rounds after the first block run only the metrics in doubt
# (BENCH_CASES).
GATE_CONFIDENCE ?= 0.95
GATE_DEADLINE ?= 20
GATE_FOCUS ?= on
export GATE_CONFIDENCE GATE_DEADLINE GATE_FOCUS
# A metric the benchmark prints that the budget does not name: `ok` names
# it on stderr and in the summary's "unbudgeted"; `error` cannot be decided
# (cmpbudget -u), for projects that want every metric budgeted.
GATE_UNBUDGETED ?= ok
# Where gate.sh report writes the gate's exit status, for perfgate.
GATE_STATUS ?=
# GATE_SHARD=i/n gates only shard i of n of the budget's metrics (shard.sh
# has the rule), for a suite split over CI runners; mergeshards(1) judges
# the shards as one.
export GATE_SHARD

# How a side is built and benchmarked. Both run with GATE_SIDE set to the
# side's tree (or, for a source file, the side's directory holding a copy
# named after the file); GATE_CC and GATE_CFLAGS are the side's compiler and
# flags. The build also finds GATE_SIDE, GATE_CC, GATE_CFLAGS and
# GATE_INCLUDES (the -I flags of bench.h) in its environment, so that a
# side's own Makefile can use them. The defaults compile GATE_BENCH_SRC with
# the side's file.
GATE_BENCH_SRC ?= $(GATE_SHARE)/kata/bench.c
GATE_INCLUDES ?= $(addprefix -I,$(sort $(abspath $(dir $(GATE_HEADERS)))))
GATE_LDLIBS ?= -lm
# The side's directory and file are the shell's ($GATE_SIDE, $GATE_FILE,
# set by gate.sh side), so that no name is ever read as shell code.
GATE_BUILD ?= $(GATE_SH) program "$$GATE_SIDE/bench" $(call gate_q,$(GATE_CC)) $(call gate_q,$(GATE_CFLAGS)) \
    $(call gate_q,$(GATE_INCLUDES)) "$$GATE_SIDE/$$GATE_FILE" $(call gate_q,$(GATE_DRIVER)) $(call gate_q,$(GATE_LDLIBS))

# The default build compiles GATE_BENCH_SRC, the driver, into an object of
# its own, again only when its content or the content of a header it
# includes changes (gate.sh driver), and only once for both sides when they
# share compiler and flags; each side compiles its file the same way
# (gate.sh object) and links the two, again only when an object changed
# (gate.sh program).
# Objects kept by their key for every gate, as ccache keeps them.
GATE_OBJECTS ?= $(dir $(abspath $(GATEDIR)))gate-objects
export GATE_OBJECTS
gate_driver = $(GATEDIR)/driver/$(if $(filter same,$(GATE_DRIVER_SHARED)),both,$(1)).o
GATE_DRIVER_SHARED = $(if $(subst x$(BASE_CC)|$(BASE_CFLAGS),,x$(HEAD_CC)|$(HEAD_CFLAGS)),apart,same)
GATE_BENCH ?= $(call gate_q,$(GATE_SIDE)/bench)

GATE_SH = sh $(call gate_q,$(GATE_MK_DIR)/gate.sh)
GATE_TOOLS = $(PERFGATE_BIN)/gaterun $(PERFGATE_BIN)/cmpbudget $(PERFGATE_BIN)/plotrounds
# The explanation's (explain.sh).
GATE_TOOLS += $(PERFGATE_BIN)/cgdiff $(PERFGATE_BIN)/countof
# The bench command's one parser (benchcmd(1)), for the sides' keys (store.sh).
GATE_TOOLS += $(PERFGATE_BIN)/benchcmd
GATE_BENCHCMD = $(PERFGATE_BIN)/benchcmd
export GATE_BENCHCMD
# The writer of the gate's records, error verdicts too (gate.sh fail).
GATE_GATERUN = $(PERFGATE_BIN)/gaterun
export GATE_GATERUN

# What a side names, asked of the shell: make's own functions split a name
# on blanks.
gate_kind = $(shell if [ -d $(call gate_q,$(1)) ]; then echo tree; elif [ -e $(call gate_q,$(1)) ]; then echo file; \
    else echo rev; fi)
# A revision's side is the directory of this Makefile within the export of
# the whole repository, as . is within the work tree.
gate_prefix = $(shell git rev-parse --show-prefix 2>/dev/null)
gate_q = '$(subst ','\'',$(1))'
# A user's BASE and HEAD pass through make untouched ($ and all) when they
# come from the command line or the environment; a makefile's own
# definition is expanded as make expands it.
gate_raw = $(if $(filter command line environment,$(origin $(1))),$(value $(1)),$($(1)))
gate_base := $(call gate_raw,BASE)
gate_head := $(call gate_raw,HEAD)
# Under make -n the sides' recipes (marked + for make's job slots) are
# printed, not run.
gate_dry := $(if $(findstring n,$(firstword -$(MAKEFLAGS))),echo)
# A GATEDIR that begins with a dash is named by its absolute path, so that
# every tool and command the gate hands it to reads it as a path, never as
# an option (not ./NAME: make drops the ./ from the names of targets).
ifneq ($(filter -%,$(GATEDIR)),)
override GATEDIR := $(abspath $(GATEDIR))
endif
# Make cannot name the files of a GATEDIR whose name holds a blank, nor
# one with a character it reads in a target's name (; : % | #, the
# wildcards * ? [) or a $ (which it would expand): refused, never misread.
gate_unnameable := ; : % | * ? [ \# $$
gate_unnameable_in := $(strip $(foreach c,$(gate_unnameable),$(findstring $(c),$(value GATEDIR))))
ifneq ($(MAKECMDGOALS),gate-clean)
ifneq ($(words $(GATEDIR)),1)
$(error gate: GATEDIR "$(GATEDIR)" holds a blank: make cannot name its files)
endif
ifneq ($(gate_unnameable_in),)
$(error gate: GATEDIR "$(value GATEDIR)" holds $(gate_unnameable_in): make cannot name its files)
endif
endif

# gate_side_rules(side, VAR, CC, CFLAGS): the identity, build and key of
# one side. The build runs on every gate (it is a make recipe: `+`, so that
# a GATE_BUILD of $(MAKE) shares make's job slots); the key file changes
# only when what would run changes.
define gate_side_rules
$(1)_KIND := $$(call gate_kind,$$($(2)))
$(1)_SIDE := $$(if $$(filter tree,$$($(1)_KIND)),$$(shell cd -- $$(call gate_q,$$($(2))) && pwd),$$(abspath \
    $$(GATEDIR)/$(1)$$(if $$(filter rev,$$($(1)_KIND)),/tree/$$(gate_prefix))))
ifdef GATE_DEFAULT_BUILD
$(1)_SIDE := $$(abspath $$(GATEDIR)/$(1))
endif

$$(GATEDIR)/$(1).key: GATE_SIDE = $$($(1)_SIDE)
$$(GATEDIR)/$(1).key: GATE_CC = $(3)
$$(GATEDIR)/$(1).key: GATE_CFLAGS = $(4)
ifdef GATE_DEFAULT_BUILD
$$(GATEDIR)/$(1).key: GATE_DRIVER = $$(call gate_driver,$(1))
$$(GATEDIR)/$(1).key: $$(call gate_driver,$(1))
$$(call gate_driver,$(1)): GATE_CC = $(3)
$$(call gate_driver,$(1)): GATE_CFLAGS = $(4)
endif
$$(GATEDIR)/$(1).key: FORCE | $$(GATEDIR)/runs.id
	+@$$(gate_dry) GATE_CC=$$(call gate_q,$$(GATE_CC)) GATE_CFLAGS=$$(call gate_q,$$(GATE_CFLAGS)) \
	    GATE_INCLUDES=$$(call gate_q,$$(GATE_INCLUDES)) $$(GATE_SH) side $$(call gate_q,$$(GATEDIR)) $(1) $$($(1)_KIND) \
	    $$(call gate_q,$$($(2))) $$(call gate_q,$$(GATE_SIDE)) $$(call gate_q,$$(GATE_BUILD_TIMEOUT)) \
	    $$(call gate_q,$$(GATE_BUILD)) $$(call gate_q,$$(GATE_BENCH)) \
	    $$(foreach f,$$(if $$(filter file,$$($(1)_KIND)),$$(GATE_BENCH_SRC)) $$(GATE_HEADERS),$$(call gate_q,$$(f)))
endef

$(eval $(call gate_side_rules,base,gate_base,$(BASE_CC),$(BASE_CFLAGS)))
$(eval $(call gate_side_rules,head,gate_head,$(HEAD_CC),$(HEAD_CFLAGS)))

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

$(GATEDIR)/driver/%.o: FORCE | $(GATEDIR)/runs.id
	@$(GATE_SH) driver $(call gate_q,$(GATEDIR)) $(call gate_q,$@) $(call gate_q,$(GATE_CC)) $(call gate_q,$(GATE_CFLAGS)) \
	    $(call gate_q,$(GATE_INCLUDES)) $(call gate_q,$(abspath $(GATE_BENCH_SRC)))

# One gate a GATEDIR: this make holds it (gate.sh lock) for as long as it
# runs, or refuses with one line, before anything in it is read or
# written. Taken as the makefile is read when a goal is the gate's (make
# -n excepted: it writes nothing), else by the first step.
GATE_MAKE_PID := $(shell echo $$PPID)
ifneq ($(filter gate noise gate-clean,$(MAKECMDGOALS)),)
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS))),)
gate_lock_err := $(shell $(GATE_SH) lock $(call gate_q,$(GATEDIR)) $(GATE_MAKE_PID))
ifneq ($(gate_lock_err),)
$(info {"verdict":"error","error":"both: lock: $(subst ",\",$(subst \,\\,$(gate_lock_err)))","side":"both","step":"lock"})
$(error gate: both: lock: $(gate_lock_err))
endif
endif
endif

# The rounds' settings, and the budget read (cmpbudget -q, its one reader)
# before anything is built: a bad budget is an answer at once.
$(GATEDIR)/runs.id: FORCE | $(GATE_TOOLS) $(BUDGET)
	@GATE_LOCK_PID=$(GATE_MAKE_PID) $(GATE_SH) settings $(call gate_q,$(GATEDIR)) $(call gate_q,$(PERFGATE_BIN)) $(call gate_q,$(BUDGET)) $(call gate_q,$(RUNS)) \
	    $(call gate_q,$(GATE_TIMEOUT)) $(call gate_q,$(GATE_ALTERNATE_FLAGS))

# What the verdict depends on besides the rounds: the budget's path and
# content and the rule's settings.
$(GATEDIR)/judge.id: FORCE | $(GATEDIR)/runs.id
	@$(GATE_SH) rule $(call gate_q,$(GATEDIR)) $(call gate_q,$(BUDGET)) $(call gate_q,$(GATE_CONFIRM)) $(call gate_q,$(GATE_NOISE)) \
	    $(call gate_q,$(GATE_UNBUDGETED))

# gaterun measures and judges (gate.sh measure): runs.jsonl is rewritten
# whole after every round, so make must not delete it when the gate is
# interrupted: the rounds measured so far are whole, and the next gate goes
# on from them.
.PRECIOUS: $(GATEDIR)/runs.jsonl
$(GATEDIR)/runs.jsonl: $(GATEDIR)/base.key $(GATEDIR)/head.key $(GATEDIR)/runs.id | $(GATEDIR)/judge.id
	@$(GATE_SH) measure $(call gate_q,$(GATEDIR)) $(call gate_q,$(PERFGATE_BIN))

$(GATEDIR)/verdict.jsonl: $(GATEDIR)/runs.jsonl $(GATEDIR)/judge.id
	@$(GATE_SH) judge $(call gate_q,$(GATEDIR)) $(call gate_q,$(PERFGATE_BIN))

# A budget file that does not exist is an answer too, not make's own error,
# and is given before anything is built.
$(BUDGET): | $(PERFGATE_BIN)/gaterun
	@$(GATE_SH) fail $(call gate_q,$(GATEDIR)) both budget $(call gate_q,no budget file $(BUDGET))

.PHONY: gate gate-clean noise FORCE
FORCE:

# After the verdict: why it regressed (mk/explain.sh: each regressed metric
# run once more under callgrind, alone, and the two sides' functions
# compared by cgdiff), unless GATE_EXPLAIN=off; `make explain` explains the
# last gate again from what it kept. An ok gate starts no process for it
# (an explanation left by an earlier gate is removed). Then the gate's status: make's own for
# `make gate`; through perfgate (GATE_STATUS set) a regression or an
# undecided gate is an answer, so the recipe ends well and make prints no
# "Error" line of its own: perfgate says the answer, and its reason, last.
GATE_EXPLAIN ?= on
GATE_EXPLAIN_SH = sh $(call gate_q,$(GATE_MK_DIR)/explain.sh)
gate_explain_args = $(call gate_q,$(GATEDIR)) $(call gate_q,$(PERFGATE_BIN)) $(call gate_q,$(GATE_LAYOUT_EPS)) $(call gate_q,$(GATE_COUNTS_TIMEOUT))
gate_after = s=$$?; $(call gate_after_s,$(1))
gate_after_s = if [ "$$s" = 1 ] && [ $(call gate_q,$(GATE_EXPLAIN)) != off ]; then \
    $(GATE_EXPLAIN_SH) gate $(1) $(gate_explain_args); \
    elif [ -e $(call gate_q,$(GATEDIR)/explain.jsonl) ] || [ -e $(call gate_q,$(GATEDIR)/explain.txt) ]; then rm -f -- $(call gate_q,$(GATEDIR)/explain.jsonl) $(call gate_q,$(GATEDIR)/explain.txt); fi; \
    if [ "$$s" = 1 ] || [ "$$s" = 2 ]; then [ -z $(call gate_q,$(GATE_STATUS)) ] || exit 0; fi; exit "$$s"
explain: | $(PERFGATE_BIN)/cgdiff $(PERFGATE_BIN)/countof
	@$(GATE_EXPLAIN_SH) again last $(gate_explain_args)
.PHONY: explain

# GATE_MODE=counts or both: counts.mk has the gate.
include $(GATE_MK_DIR)/counts.mk
ifeq ($(GATE_MODE),time)
gate: $(GATEDIR)/verdict.jsonl
	@$(GATE_SH) report $(call gate_q,$(GATEDIR)) $(call gate_q,$(PERFGATE_BIN)) $(call gate_q,$(GATE_STATUS)); $(call gate_after,time)
endif

# An A/A study: NOISE_GATES gates of HEAD against itself, to choose a
# budget from this machine's noise rather than guess it.
NOISE_GATES ?= 20
NOISE_MARGIN ?= 1.5
noise: $(GATEDIR)/head.key $(GATEDIR)/runs.id $(GATEDIR)/judge.id | $(GATE_TOOLS) $(PERFGATE_BIN)/noisesum
	@sh $(call gate_q,$(GATE_MK_DIR)/noise.sh) $(call gate_q,$(GATEDIR)) $(call gate_q,$(PERFGATE_BIN)) $(call gate_q,$(NOISE_GATES)) $(call gate_q,$(NOISE_MARGIN))

# Only a directory that carries the gate's mark (store.sh, gatedir_claim).
gate-clean:
	@if [ -f $(call gate_q,$(GATEDIR)/.perfgate-gatedir) ]; then rm -rf -- $(call gate_q,$(GATEDIR)); \
	elif [ -e $(call gate_q,$(GATEDIR)) ]; then \
	echo "gate: GATEDIR "$(call gate_q,$(GATEDIR))" has no mark of a gate's (.perfgate-gatedir): not removed" >&2; exit 2; fi

.DEFAULT_GOAL := $(GATE_SAVED_GOAL)
