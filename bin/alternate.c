/*
 * alternate: run benchmark sides in interleaved, balanced rounds.
 * Each round runs every side once, in an order taken from a Williams design,
 * and writes one record per run: the side's name, the round, the slot, the
 * load average (and with -p the CPU pressure; with -w what disturbed the
 * run: its wall and CPU time, its involuntary context switches, the CPU
 * pressure stall and steal time during it), then the side's own metrics
 * byte for byte. A side that fails, or a load gate that stays closed, ends
 * the run with one more record that says what happened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pin.h"
#include "runround.h"
#include "sides.h"
#include "stats.h"
#include "util.h"
#include "version.h"

static struct runround rr;

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-dpsw] [-a name:key=value] [-c cpu|auto] [-l maxload] [-L wait]"
	    " [-F failfile] [-n first] [-o file] [-r rounds] [-R retries] [-t timeout] [-T maxthreads] [-W reruns]"
	    " name=command ...\n", argv0);
	exit(2);
}

/* -a's members until the sides take them: static, so that a die() on a
 * later option leaves them reachable, not leaked. */
static char **members;

int
main(int argc, char *argv[])
{
	long cpu = -1, rounds = 3, first = 1, round;
	const char *outpath = NULL, *err;
	char *perr;
	struct runside *sides;
	size_t i, nsides = 0, nmembers = 0;
	int c, numbered = 0, pinned = 0;
	const char *pinarg = NULL;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	rr.maxwait = 60;
	rr.timeout = 300;
	rr.retries = 10;
	members = xmalloc((size_t)argc * sizeof *members);
	opterr = 0;
	/* '+': options end at the first side, as POSIX has it. */
	while ((c = getopt(argc, argv, "+:a:c:dF:l:L:n:o:pr:R:st:T:wW:")) != -1) {
		switch (c) {
		case 'a':
			members[nmembers++] = optarg;
			break;
		case 'c':
			if ((err = pin_parse(optarg, &cpu)) != NULL)
				die("-c %s: %s", optarg, err);
			pinned = 1;
			pinarg = optarg;
			break;
		case 'd':
			rr.notediscards = 1;
			break;
		case 'l':
			if ((err = parse_double(optarg, 0, 1e9, &rr.maxload)) != NULL)
				die("-l %s: %s", optarg, err);
			if (rr.maxload <= 0)
				die("-l %s: out of range", optarg);
			break;
		case 'L':
			if ((err = parse_double(optarg, 0, 1e9, &rr.maxwait)) != NULL)
				die("-L %s: %s", optarg, err);
			break;
		case 'n':
			if ((err = parse_long(optarg, 1, 1000000000, &first)) != NULL)
				die("-n %s: %s", optarg, err);
			numbered = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'F':
			rr.failpath = optarg;
			break;
		case 'p':
			rr.pressure = 1;
			break;
		case 'r':
			if ((err = parse_long(optarg, 1, 1000000000, &rounds)) != NULL)
				die("-r %s: %s", optarg, err);
			break;
		case 'R':
			if ((err = parse_long(optarg, 0, 1000000000, &rr.retries)) != NULL)
				die("-R %s: %s", optarg, err);
			break;
		case 's':
			rr.strings = 1;
			break;
		case 't':
			if ((err = parse_double(optarg, 0, 1e9, &rr.timeout)) != NULL)
				die("-t %s: %s", optarg, err);
			break;
		case 'T':
			if ((err = parse_long(optarg, 1, 1000000, &rr.maxthreads)) != NULL)
				die("-T %s: %s", optarg, err);
			break;
		case 'w':
			rr.watch = 1;
			break;
		case 'W':
			if ((err = parse_long(optarg, 0, 1000000, &rr.maxreruns)) != NULL)
				die("-W %s: %s", optarg, err);
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	sides = xmalloc((size_t)argc * sizeof *sides);
	for (i = 0; i < (size_t)argc; i++)
		side_add(sides, &nsides, argv[i]);
	for (i = 0; i < nmembers; i++)
		side_member(sides, nsides, members[i], runround_ownkeys, runround_nownkeys);
	/*
	 * With three sides or more the orders are rows of a Williams design,
	 * balanced only over whole periods: a run is made whole, and says so.
	 * A block of a longer run (-n) is its caller's to balance.
	 */
	if (!numbered && nsides >= 3 && rounds % (long)williams_rows(nsides) != 0) {
		long period = (long)williams_rows(nsides), whole = (rounds / period + 1) * period;

		warnmsg("-r %ld rounded up to %ld: a Williams design of %zu sides balances over whole periods of %ld rounds",
		    rounds, whole, nsides, period);
		rounds = whole;
	}
	free(members);
	if (rr.maxreruns > 0 && !rr.watch)
		die("-W %ld: needs -w, which tells a disturbed run", rr.maxreruns);

	rr.sides = sides;
	rr.nsides = nsides;
	if ((err = runround_open(&rr)) != NULL)
		die("%s", err);
	/* Children inherit the mask, so every side lands on this CPU, held against other gates. */
	if (pinned && (perr = pin_take(cpu, &rr.pin)) != NULL)
		die("-c %s: %s", pinarg, perr);
	rr.pinned = pinned;
	if (outpath != NULL) {
		if ((rr.out = fopen(outpath, "a")) == NULL)
			die("%s:", outpath);
		rr.outname = outpath;
	} else {
		rr.out = stdout;
		rr.outname = "<stdout>";
	}

	/*
	 * Rounds are numbered from first, and the design's rows with them, so
	 * that a block run later continues both where an earlier one ended.
	 */
	for (round = first; round < first + rounds; round++)
		if (runround_run(&rr, round, round - first + 1, rounds) != 0) {
			/* Said on stderr already; the record, too, when it could be written. */
			runround_close(&rr);
			return 2;
		}
	runround_close(&rr);
	side_free(sides, nsides);
	return fshut(rr.out, rr.outname);
}
