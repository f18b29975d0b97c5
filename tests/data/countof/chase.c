/*
 * chase: a benchmark whose time depends on memory access order alone.
 * Each call follows 65536 links of a cycle through 4 Mi indices (16 MiB);
 * the side's file orders the cycle (order-seq.c, order-random.c). Every
 * side runs the same instructions a call; only the cache misses differ.
 * Prints {"chase_ns":...} with bench.h, or its counts (BENCH_MODE=counts).
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#define CHASE_N (1u << 22)
#define CHASE_STEPS 65536

/* The side's file: next[] one cycle through all n indices. */
void order(unsigned *next, unsigned n);

static unsigned *next, at;

static void
run_chase(void *arg)
{
	unsigned p = at;
	int i;

	(void)arg;
	for (i = 0; i < CHASE_STEPS; i++)
		p = next[p];
	at = p;
	bench_keep_int(p);
}

int
main(int argc, char *argv[])
{
	(void)argc;
	bench_init(argv[0]);
	if ((next = malloc(sizeof(*next) * CHASE_N)) == NULL) {
		fprintf(stderr, "chase: out of memory\n");
		return 2;
	}
	order(next, CHASE_N);
	bench_add("chase_ns", run_chase, NULL);
	return bench_report();
}
