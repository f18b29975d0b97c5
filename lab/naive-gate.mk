# naive-gate.mk: the seed's method alone, for make bench-gate to time
# perfgate against: build both sides at once, run them alternately three
# times each, and fail when a metric's minimum on HEAD is over BASE's
# times 1 + its budget. No identity, no cache, no confirmation. The
# benchmark runs with the seed's effort, 12 batches of 3 ms a metric
# (perfgate's bench.h takes 4 now, chosen from measured drift).
#	make -f lab/naive-gate.mk BASE=a.c HEAD=b.c NAIVE=build/naive
NAIVE ?= build/naive
BUDGET ?= budget.toml
CC ?= cc
NAIVE_EFFORT = BENCH_REPS=12 BENCH_MIN_S=0.003
naive-gate: $(NAIVE)/base $(NAIVE)/head
	for i in 1 2 3; do printf 'base '; $(NAIVE_EFFORT) $(NAIVE)/base | tail -n 1; printf 'head '; $(NAIVE_EFFORT) $(NAIVE)/head | tail -n 1; done > $(NAIVE)/runs
	tr -d '{}"' < $(NAIVE)/runs | tr ',:' '  ' | awk 'FILENAME != "-" { if ($$2 == "=") b[$$1] = $$3; next } \
	    { for (i = 2; i < NF; i += 2) { k = $$1 SUBSEP $$i; if (!(k in m) || $$(i+1) < m[k]) m[k] = $$(i+1); n[$$i] } } \
	    END { for (x in n) if (m["head", x] > m["base", x] * (1 + b[x])) { print "regressed " x; bad = 1 } exit bad }' $(BUDGET) -
$(NAIVE)/%: FORCE
	@mkdir -p $(NAIVE)
	$(CC) -std=c11 -O2 -Ibench -Ikata -o $@ kata/bench.c $(if $(filter base,$*),$(BASE),$(HEAD)) -lm
FORCE:
.PHONY: naive-gate FORCE
