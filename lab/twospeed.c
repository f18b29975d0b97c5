/*
 * twospeed: a benchmark with two speeds per process, for make
 * bench-verdict. Its buffer's rows lie 4096 bytes apart in about a third
 * of the runs, so that they alias in the L1 cache's sets and the walk
 * misses, and 4160 bytes apart in the others: where the buffer lands, not
 * the code, sets the speed of a run. Prints {"walk_ns":...}.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ROWS 64
#define COLS 16

static unsigned char *buf;
static size_t stride;
static volatile unsigned sink;

static void
walk(void *arg)
{
	unsigned s = 0;
	size_t r, c;

	(void)arg;
	for (c = 0; c < COLS; c++)
		for (r = 0; r < ROWS; r++)
			s += buf[r * stride + c * 64];
	sink = s;
}

int
main(int argc, char *argv[])
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	srand((unsigned)getpid() ^ (unsigned)ts.tv_nsec);
	stride = rand() % 3 == 0 ? 4096 : 4160;
	if ((buf = aligned_alloc(4096, ROWS * 4160 + 4096)) == NULL)
		return 2;
	for (size_t i = 0; i < ROWS * 4160 + 4096; i++)
		buf[i] = (unsigned char)i;
	(void)argc;
	bench_init(argv[0]);
	bench_add("walk_ns", walk, NULL);
	return bench_report();
}
