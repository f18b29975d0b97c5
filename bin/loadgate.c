/*
 * loadgate: read the machine's load as the load gate of make compare and
 * alternate(1) reads it, so that a user can check a host before a long
 * run. Writes one record, the load average, the CPU pressure where the
 * kernel has it, which one the gate reads and its bound; exits 1 when the
 * gate is closed (the gauge at or above the bound). --max N is the long
 * form of -l N, as the reference-benchmark contract's "load --max" has it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gauge.h"
#include "json.h"
#include "tool.h"
#include "util.h"
#include "version.h"

/* make compare's bounds: percent of 10 s stalled; runnable tasks, cores + 1. */
#define MAXPRESSURE 30

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s [-l max | --max max]\n"
	    "       %s -V\n", argv0, argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct gauge g;
	const char *err, *env, *name;
	double max = -1, load, pressure = -1, v;
	char vbuf[32], mbuf[32];
	int c, havepsi;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	/* --max N and --max=N: -l N under its long name, before getopt sees it. */
	for (c = 1; c < argc && strcmp(argv[c], "--") != 0; c++) {
		if (strcmp(argv[c], "--max") == 0)
			argv[c] = "-l";
		else if (strncmp(argv[c], "--max=", 6) == 0)
			argv[c] += 4, argv[c][0] = '-', argv[c][1] = 'l';
		else if (strncmp(argv[c], "--", 2) == 0) {
			warnmsg("unknown option %s", argv[c]);
			usage();
		}
	}
	opterr = 0;
	while ((c = getopt(argc, argv, ":l:m:")) != -1) {
		switch (c) {
		case 'l':
			if ((err = parse_double(optarg, 0, 1e9, &max)) != NULL)
				die("-l %s: %s", optarg, err);
			if (max <= 0)
				die("-l %s: out of range", optarg);
			break;
		case 'm':
			opt_moved('m', 'l', "the most load, as alternate -l");
		default:
			optionerror(c);
			usage();
		}
	}
	if (optind != argc)
		usage();
	/*
	 * The gate's rule (mk/compare.sh): CPU pressure where the kernel has
	 * it, or a test fakes it; else the load average.
	 */
	env = getenv("PERFGATE_PRESSURE");
	havepsi = (env != NULL && *env != '\0') ||
	    ((getenv("PERFGATE_LOADAVG") == NULL || *getenv("PERFGATE_LOADAVG") == '\0') &&
	    access("/proc/pressure/cpu", R_OK) == 0);
	if ((err = gauge_open(&g, havepsi)) != NULL)
		die("%s", err);
	if ((err = gauge_load(&g, &load)) != NULL)
		die("%s", err);
	if (havepsi && (err = gauge_pressure(&g, &pressure)) != NULL)
		die("%s", err);
	if (max < 0)
		max = havepsi ? MAXPRESSURE : (double)sysconf(_SC_NPROCESSORS_ONLN) + 1;
	v = havepsi ? pressure : load;
	name = havepsi ? "pressure" : "load";
	fputs("{\"load\":", stdout);
	jput_double(stdout, 1, load);
	fputs(",\"pressure\":", stdout);
	jput_double(stdout, havepsi, pressure);
	printf(",\"gauge\":\"%s\",\"max\":", name);
	jput_double(stdout, 1, max);
	printf(",\"open\":%s}\n", v < max ? "true" : "false");
	fmt_double(vbuf, v);
	fmt_double(mbuf, max);
	fprintf(stderr, "%s: %s %s %s %s: the gate is %s\n", argv0,
	    havepsi ? "CPU pressure" : "load average", vbuf, v < max ? "below" : "at or above", mbuf,
	    v < max ? "open" : "closed");
	if (fshut(stdout, "<stdout>") != 0)
		return 2;
	return v < max ? 0 : 1;
}
