/*
 * noisemaker: the disturbances of make bench-verdict, run until killed.
 *
 *	noisemaker spin       one CPU busy, steadily
 *	noisemaker spells     busy and idle in turn, each for 10 to 500 ms at random
 *	noisemaker thrash     a 64 MiB buffer read and written over and over:
 *	                      the caches and the memory bandwidth taken
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
	volatile unsigned long sink = 0;
	double until, ms;
	size_t i, n = 64u << 20;
	unsigned char *buf;

	if (argc != 2)
		return 2;
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	if (strcmp(argv[1], "spin") == 0) {
		for (;;)
			sink++;
	} else if (strcmp(argv[1], "spells") == 0) {
		for (;;) {
			ms = 10 + 490.0 * rand() / RAND_MAX;
			for (until = now() + ms / 1000; now() < until; )
				sink++;
			ms = 10 + 490.0 * rand() / RAND_MAX;
			usleep((useconds_t)(ms * 1000));
		}
	} else if (strcmp(argv[1], "thrash") == 0) {
		if ((buf = malloc(n)) == NULL)
			return 2;
		memset(buf, 1, n);
		for (;;)
			for (i = 0; i < n; i += 64)
				buf[i] = (unsigned char)(buf[i] + sink++);
	}
	return 2;
}
