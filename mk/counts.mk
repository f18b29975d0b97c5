# counts.mk: the gate's counts mode, included by gate.mk after its side rules.
#
#	make gate GATE_MODE=counts	each side once under valgrind: instructions
#					and allocations a call, judged by the
#					budget file's [counts] section
#	make gate GATE_MODE=both	the time gate, then the counts gate; a time
#					regression whose instructions moved by
#					GATE_LAYOUT_EPS at most is "layout_suspect"
#
# Each side's bench command is run as the gate keyed it: countof -f splits
# GATEDIR/SIDE/bench.cmd by the one parser (benchcmd(1)), no shell reads it.
# Counts are deterministic, so each side runs once (no rounds, no
# confirmation) and the two sides may run at once. In both mode the counting
# waits for the time verdict (its confirming rounds included), so that
# valgrind does not slow the measurement. The verdict of counts mode is
# $(GATEDIR)/counts/verdict.jsonl, of both mode
# $(GATEDIR)/both/verdict.jsonl, each with its verdict.status and
# verdict.txt beside it; the counts' picture is $(GATEDIR)/counts/rounds.svg
# (plotrounds(1)). See countof(1) and perfgate(7).

GATE_MODE ?= time
# Seconds one side may take under valgrind.
GATE_COUNTS_TIMEOUT ?= 600
# How far (a fraction) a time regression's instructions may move and still
# call the time regression a matter of code layout or noise.
GATE_LAYOUT_EPS ?= 0.01
# More options for countof: -c adds simulated cache misses (m_l1_misses, m_ll_misses).
GATE_COUNTS_FLAGS ?=
GATE_COUNTOF = $(PERFGATE_BIN)/countof

GATE_RESULT = $(GATEDIR)$(if $(filter counts,$(GATE_MODE)),/counts)$(if $(filter both,$(GATE_MODE)),/both)
# Where a failing step of this mode writes its error verdict.
GATE_COUNTS_FAIL = $(GATE_SH) fail $(GATE_RESULT)
, := ,

ifeq ($(filter time counts both,$(GATE_MODE)),)
GATE_RESULT = $(GATEDIR)/mode
$(GATEDIR)/mode/verdict.jsonl: FORCE
	@$(GATE_SH) fail $(GATEDIR)/mode both mode $(call gate_q,GATE_MODE=$(GATE_MODE): not time$(,) counts or both)
endif

# What the counts depend on besides the sides: the timeout, countof's
# flags, the bench environment (BENCH_CALLS above all). What the verdict
# depends on besides the counts: the budget's content, the threshold.
$(GATEDIR)/counts.id: FORCE
	@mkdir -p $(GATEDIR)/counts
	@printf 'timeout %s\nflags %s\nenv %s\n' $(call gate_q,$(GATE_COUNTS_TIMEOUT)) $(call gate_q,$(GATE_COUNTS_FLAGS)) \
	    "$$(env | grep '^BENCH_' | sort | tr '\n' ' ')" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(GATEDIR)/counts/judge.id: FORCE | $(BUDGET)
	@mkdir -p $(GATEDIR)/counts
	@printf 'budget %s\nbudget_sha256 %s\neps %s\n' $(call gate_q,$(BUDGET)) "$$(sha256sum < $(BUDGET) | cut -c1-64)" \
	    $(call gate_q,$(GATE_LAYOUT_EPS)) > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(GATEDIR)/counts/%.jsonl: $(GATEDIR)/%.key $(GATEDIR)/counts.id | $(GATE_COUNTOF) \
    $(if $(filter both,$(GATE_MODE)),$(GATEDIR)/verdict.jsonl)
	@echo "gate: counting $*, once under valgrind" >&2
	@$(GATE_COUNTOF) $(GATE_COUNTS_FLAGS) -s $* -t $(GATE_COUNTS_TIMEOUT) -d $(GATEDIR)/counts/$*.dumps \
	    -o $(GATEDIR)/counts/$*.log -f $(GATEDIR)/$*/bench.cmd > $@.tmp 2> $(GATEDIR)/counts/$*.err || { \
	    tail -n 5 $(GATEDIR)/counts/$*.log >&2; cat $(GATEDIR)/counts/$*.err >&2; \
	    $(GATE_COUNTS_FAIL) $* count "$$(cat $(GATEDIR)/counts/$*.err); log in $(GATEDIR)/counts/$*.log"; }
	@mv -f $@.tmp $@

# countof's status is the verdict's (0 or 1; 2 writes an error summary).
$(GATEDIR)/counts/verdict.jsonl: $(GATEDIR)/counts/base.jsonl $(GATEDIR)/counts/head.jsonl $(GATEDIR)/counts/judge.id | $(GATE_COUNTOF) \
    $(PERFGATE_BIN)/plotrounds
	@$(GATE_COUNTOF) -j -b $(BUDGET) $(GATEDIR)/counts/base.jsonl $(GATEDIR)/counts/head.jsonl > $@.tmp \
	    2> $(GATEDIR)/counts/verdict.txt; status=$$?; \
	    if [ $$status -gt 2 ] || [ ! -s $@.tmp ]; then cat $(GATEDIR)/counts/verdict.txt >&2; \
	    $(GATE_COUNTS_FAIL) both judge "countof -j failed (status $$status)"; fi; \
	    echo $$status > $(GATEDIR)/counts/verdict.status
	@mv -f $@.tmp $@
	@$(PERFGATE_BIN)/plotrounds -v $@ -o $(GATEDIR)/counts/rounds.svg $(GATEDIR)/counts/base.jsonl $(GATEDIR)/counts/head.jsonl || \
	    echo "gate: no picture of the counts ($(GATEDIR)/counts/rounds.svg)" >&2

$(GATEDIR)/both/verdict.jsonl: $(GATEDIR)/verdict.jsonl $(GATEDIR)/counts/verdict.jsonl | $(GATE_COUNTOF)
	@mkdir -p $(GATEDIR)/both
	@$(GATE_COUNTOF) -l -e $(GATE_LAYOUT_EPS) $(GATEDIR)/verdict.jsonl $(GATEDIR)/counts/verdict.jsonl > $@.tmp \
	    2> $(GATEDIR)/both/layout.txt; status=$$?; \
	    if [ $$status -gt 2 ] || [ ! -s $@.tmp ]; then cat $(GATEDIR)/both/layout.txt >&2; \
	    $(GATE_COUNTS_FAIL) both judge "countof -l failed (status $$status)"; fi; \
	    echo $$status > $(GATEDIR)/both/verdict.status
	@cat $(GATEDIR)/verdict.txt $(GATEDIR)/counts/verdict.txt $(GATEDIR)/both/layout.txt > $(GATEDIR)/both/verdict.txt
	@mv -f $@.tmp $@

# The gate of these modes: the table, the records, the exact status for
# perfgate (GATE_STATUS), as gate.sh's report does for time.
ifneq ($(GATE_MODE),time)
gate: $(GATE_RESULT)/verdict.jsonl
	@[ ! -f $(GATE_RESULT)/verdict.txt ] || cat $(GATE_RESULT)/verdict.txt >&2; \
	    cat $(GATE_RESULT)/verdict.jsonl; \
	    status=$$(cat $(GATE_RESULT)/verdict.status 2>/dev/null); \
	    case $$status in 0|1) ;; *) status=2 ;; esac; \
	    if [ -n $(call gate_q,$(GATE_STATUS)) ]; then echo $$status > $(call gate_q,$(GATE_STATUS)); fi; \
	    s=$$status; $(call gate_after_s,$(GATE_MODE))
endif
