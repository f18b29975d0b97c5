/*
 * alternate: run benchmark sides in interleaved, balanced rounds.
 * Each round runs every side once, in an order taken from a Williams design,
 * and writes one record per run: the side's name, the round, the slot, the
 * load average (and with -p the CPU pressure), then the side's own metrics
 * byte for byte.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jsonl.h"
#include "proc.h"
#include "stats.h"
#include "util.h"

/* How much of a failing side's stderr is shown again under the message. */
#define TAILSIZE 2048

/* How often a closed load gate is read again while waiting. */
#define POLL_S 0.5

struct side {
	char *name;
	char *script;		/* "exec <command>", for /bin/sh -c */
};

static struct side *sides;
static size_t nsides;

static FILE *out;
static const char *outname = "<stdout>";

static const char *loadpath;	/* NULL: getloadavg(3) */
static const char *pressurepath;	/* -p: the gate reads CPU pressure here */
static double maxload;		/* 0: no load gate */
static double maxwait = 60;
static double timeout = 300;

/* A round's records, held until the round has passed the load gate. */
static char *rbuf;
static size_t rlen, rcap;

/* The progress display: only on a terminal. */
static int tty;
static int shown;
static double t0;
static long runsdone, runstotal;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
erase(void)
{
	if (shown) {
		fputs("\r\033[K", stderr);
		shown = 0;
	}
}

static void
progress(const char *fmt, ...)
{
	va_list ap;
	double el;

	if (!tty)
		return;
	el = now() - t0;
	fputs("\r\033[K", stderr);
	fprintf(stderr, "%s: ", argv0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ", %.1f s elapsed", el);
	/* The estimate needs one finished run to know what a run costs. */
	if (runsdone > 0)
		fprintf(stderr, ", about %.1f s left",
		    el / runsdone * (runstotal - runsdone));
	fflush(stderr);
	shown = 1;
}

static void
radd(const char *s, size_t n)
{
	if (rlen + n > rcap) {
		rcap = (rlen + n) * 2 + 256;
		rbuf = xrealloc(rbuf, rcap);
	}
	memcpy(rbuf + rlen, s, n);
	rlen += n;
}

static void
raddf(const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	radd(tmp, (size_t)n);
}

/* Write the held records and make sure they reached the file. */
static void
rflush(void)
{
	if (rlen > 0 && fwrite(rbuf, 1, rlen, out) != rlen)
		die("write %s:", outname);
	if (fflush(out) != 0 || ferror(out))
		die("write %s:", outname);
	rlen = 0;
}

/* The start of a small file such as /proc/loadavg, as a string; or exit 2. */
static void
readsmall(const char *path, char *buf, size_t size)
{
	FILE *fp;
	size_t n;

	if ((fp = fopen(path, "r")) == NULL) {
		erase();
		die("%s:", path);
	}
	n = fread(buf, 1, size - 1, fp);
	if (ferror(fp)) {
		erase();
		die("%s:", path);
	}
	fclose(fp);
	buf[n] = '\0';
}

/* A gauge's figure at s, ended by a blank or the end of the line; or exit 2. */
static double
gaugenum(const char *s, const char *path, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || (*end != '\0' && *end != ' ' && *end != '\n') ||
	    errno == ERANGE || !isfinite(v) || v < 0) {
		erase();
		die("%s:1: expected %s", path, what);
	}
	return v;
}

/*
 * The 1-minute load average: the first field of loadpath (PERFGATE_LOADAVG,
 * else /proc/loadavg), or getloadavg(3) where there is no such file.
 */
static double
readload(void)
{
	char line[128];
	double v;

	if (loadpath == NULL) {
		if (getloadavg(&v, 1) != 1) {
			erase();
			die("cannot read the load average");
		}
		return v;
	}
	readsmall(loadpath, line, sizeof line);
	return gaugenum(line, loadpath, "a load average");
}

/*
 * The CPU pressure: "some avg10" of pressurepath (PERFGATE_PRESSURE, else
 * /proc/pressure/cpu), the percentage of the last ten seconds in which a
 * runnable task waited for a CPU. It answers within seconds where the load
 * average lags by tens.
 */
static double
readpressure(void)
{
	char line[256], *p;

	readsmall(pressurepath, line, sizeof line);
	if (strncmp(line, "some ", 5) != 0 || (p = strstr(line, "avg10=")) == NULL) {
		erase();
		die("%s:1: expected \"some avg10=\"", pressurepath);
	}
	return gaugenum(p + 6, pressurepath, "a CPU pressure after avg10=");
}

/* What the gate reads: the load average, or with -p the CPU pressure. */
static double
readgauge(void)
{
	return pressurepath != NULL ? readpressure() : readload();
}

static const char *
gaugename(void)
{
	return pressurepath != NULL ? "CPU pressure" : "load average";
}

static int
iskey(const struct jfield *f, const char *key)
{
	return f->keylen == strlen(key) && memcmp(f->key, key, f->keylen) == 0;
}

/* Stop the run for a failed side: the message, then its stderr's tail. */
static _Noreturn void
sidefail(const struct side *s, long round, const char *why, const struct proc_result *res)
{
	const char *p, *end, *nl;

	erase();
	warnmsg("side %s, round %ld: %s", s->name, round, why);
	if (res != NULL && res->errtail != NULL && res->errtaillen > 0) {
		p = res->errtail;
		end = p + res->errtaillen;
		/* A full tail probably starts mid-line: show whole lines only. */
		if (res->errtaillen >= TAILSIZE && (nl = memchr(p, '\n', end - p)) != NULL)
			p = nl + 1;
		fprintf(stderr, "%s: side %s's stderr ended with:\n", argv0, s->name);
		while (p < end) {
			nl = memchr(p, '\n', end - p);
			if (nl == NULL)
				nl = end;
			fprintf(stderr, "  %.*s\n", (int)(nl - p), p);
			p = nl + 1;
		}
	}
	exit(2);
}

/* Run one side once and add its record; returns the gauge read after it. */
static double
runside(const struct side *s, long round, size_t slot)
{
	char *argv[] = { "/bin/sh", "-c", s->script, NULL };
	struct proc_opts opts = { 0 };
	struct proc_result res = { 0 };
	struct jrecord rec = { 0 };
	char why[512], num[32];
	const char *msg;
	double load, gauge;
	size_t i;

	opts.argv = argv;
	opts.timeout_s = timeout;
	opts.capture_stdout = 1;
	opts.stderr_tail = TAILSIZE;
	if ((msg = proc_run(&opts, &res)) != NULL) {
		erase();
		die("side %s, round %ld: %s", s->name, round, msg);
	}
	if ((msg = proc_failure(&opts, &res, why, sizeof why)) != NULL)
		sidefail(s, round, msg, &res);
	if ((msg = jmetrics(res.out, res.outlen, &rec)) != NULL)
		sidefail(s, round, msg, &res);
	for (i = 0; i < rec.n; i++) {
		const struct jfield *f = &rec.field[i];

		if (iskey(f, "side") || iskey(f, "round") || iskey(f, "slot") || iskey(f, "load") ||
		    (pressurepath != NULL && iskey(f, "pressure"))) {
			snprintf(why, sizeof why, "metric \"%.*s\" clashes with a key of alternate's own",
			    (int)f->keylen, f->key);
			sidefail(s, round, why, &res);
		}
	}
	load = gauge = readload();
	fmt_double(num, load);
	raddf("{\"side\":\"%s\",\"round\":%ld,\"slot\":%zu,\"load\":%s", s->name, round, slot, num);
	if (pressurepath != NULL) {
		gauge = readpressure();
		fmt_double(num, gauge);
		raddf(",\"pressure\":%s", num);
	}
	for (i = 0; i < rec.n; i++) {
		const struct jfield *f = &rec.field[i];

		radd(",\"", 2);
		radd(f->key, f->keylen);
		radd("\":", 2);
		radd(f->raw, f->rawlen);
	}
	radd("}\n", 2);
	jrecord_free(&rec);
	proc_result_free(&res);
	return gauge;
}

/* Wait, up to maxwait seconds, for the gauge to fall below the gate. */
static void
gatewait(long round, long rounds)
{
	char lbuf[32], gbuf[32], wbuf[32];
	double start, waited, load;
	struct timespec ts;

	start = now();
	while ((load = readgauge()) >= maxload) {
		waited = now() - start;
		fmt_double(lbuf, load);
		fmt_double(gbuf, maxload);
		if (waited >= maxwait) {
			fmt_double(wbuf, maxwait);
			erase();
			die("round %ld: the load gate stayed closed: %s %s still at or above %s after %s s",
			    round, gaugename(), lbuf, gbuf, wbuf);
		}
		progress("round %ld/%ld, waiting for %s %s to fall below %s",
		    round, rounds, gaugename(), lbuf, gbuf);
		waited = fmin(POLL_S, maxwait - waited);
		ts.tv_sec = (time_t)waited;
		ts.tv_nsec = (long)((waited - ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
}

static void
addside(const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *p;
	size_t i, namelen;
	char *name;

	if (eq == NULL)
		die("%s: a side is name=command", arg);
	if (eq == arg)
		die("%s: empty side name", arg);
	if (eq[1] == '\0')
		die("%s: empty command", arg);
	/* Names go into records unescaped, and into shell commands: keep them plain. */
	for (p = arg; p < eq; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("._+-", *p))
			die("%s: a side name holds only letters, digits and ._+-", arg);
	namelen = (size_t)(eq - arg);
	name = xmalloc(namelen + 1);
	memcpy(name, arg, namelen);
	name[namelen] = '\0';
	for (i = 0; i < nsides; i++)
		if (strcmp(sides[i].name, name) == 0)
			die("duplicate side name %s", name);
	sides[nsides].name = name;
	sides[nsides].script = xmalloc(strlen(eq + 1) + sizeof "exec ");
	strcpy(sides[nsides].script, "exec ");
	strcat(sides[nsides].script, eq + 1);
	nsides++;
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s [-c cpu] [-l maxload] [-L wait] [-o file] [-p] [-r rounds]"
	    " [-R retries] [-t timeout] name=command ...\n", argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const char *threadvars[] = {
		"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
		"VECLIB_MAXIMUM_THREADS"
	};
	long cpu = -1, rounds = 3, retries = 10, used = 0, round;
	const char *outpath = NULL, *err, *env;
	char lbuf[32], gbuf[32];
	double load = 0;
	size_t *order, i, slot;
	int c, pressure = 0;

	setargv0(argv[0]);
	opterr = 0;
	/* '+': options end at the first side, as POSIX has it. */
	while ((c = getopt(argc, argv, "+:c:l:L:o:pr:R:t:")) != -1) {
		switch (c) {
		case 'c':
			if ((err = parse_long(optarg, 0, CPU_SETSIZE - 1, &cpu)) != NULL)
				die("-c %s: %s", optarg, err);
			break;
		case 'l':
			if ((err = parse_double(optarg, 0, 1e9, &maxload)) != NULL)
				die("-l %s: %s", optarg, err);
			if (maxload <= 0)
				die("-l %s: out of range", optarg);
			break;
		case 'L':
			if ((err = parse_double(optarg, 0, 1e9, &maxwait)) != NULL)
				die("-L %s: %s", optarg, err);
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'p':
			pressure = 1;
			break;
		case 'r':
			if ((err = parse_long(optarg, 1, 1000000000, &rounds)) != NULL)
				die("-r %s: %s", optarg, err);
			break;
		case 'R':
			if ((err = parse_long(optarg, 0, 1000000000, &retries)) != NULL)
				die("-R %s: %s", optarg, err);
			break;
		case 't':
			if ((err = parse_double(optarg, 0, 1e9, &timeout)) != NULL)
				die("-t %s: %s", optarg, err);
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
		addside(argv[i]);
	order = xmalloc(nsides * sizeof *order);

	if (pressure) {
		if ((env = getenv("PERFGATE_PRESSURE")) != NULL && *env != '\0')
			pressurepath = env;
		else
			pressurepath = "/proc/pressure/cpu";
		/* Read once now: a kernel without PSI is a usage error, not a failed round. */
		readpressure();
	}
	/* The file's two decimals, not getloadavg's binary fixed point. */
	if ((env = getenv("PERFGATE_LOADAVG")) != NULL && *env != '\0')
		loadpath = env;
	else if (access("/proc/loadavg", R_OK) == 0)
		loadpath = "/proc/loadavg";
	/* Sides run on one core: a library that spawns threads would not. */
	for (i = 0; i < sizeof threadvars / sizeof threadvars[0]; i++)
		if (setenv(threadvars[i], "1", 1) != 0)
			die("setenv %s:", threadvars[i]);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)cpu, &set);
		/* Children inherit the mask, so every side lands on this CPU. */
		if (sched_setaffinity(0, sizeof set, &set) != 0)
			die("-c %ld: cannot pin to that CPU:", cpu);
	}
	if (outpath != NULL) {
		if ((out = fopen(outpath, "a")) == NULL)
			die("%s:", outpath);
		outname = outpath;
	} else {
		out = stdout;
	}
	proc_forward_signals();
	tty = isatty(2);
	t0 = now();
	runstotal = rounds * (long)nsides;

	for (round = 1; round <= rounds; round++) {
		for (;;) {
			if (maxload > 0)
				gatewait(round, rounds);
			williams(nsides, (size_t)(round - 1), order);
			for (slot = 0; slot < nsides; slot++) {
				progress("round %ld/%ld, side %s (%zu/%zu)", round, rounds,
				    sides[order[slot]].name, slot + 1, nsides);
				load = runside(&sides[order[slot]], round, slot);
				runsdone++;
				/* Without a gate no round is ever discarded: write at once. */
				if (maxload <= 0)
					rflush();
			}
			if (maxload <= 0 || load < maxload)
				break;
			/* The round ran on a loaded machine: drop it and run it again. */
			fmt_double(lbuf, load);
			fmt_double(gbuf, maxload);
			rlen = 0;
			if (used == retries) {
				erase();
				die("round %ld: the load gate stayed closed: %s %s at or above %s after the round, and all %ld retries are used",
				    round, gaugename(), lbuf, gbuf, retries);
			}
			used++;
			runstotal += (long)nsides;
			erase();
			warnmsg("round %ld discarded: %s %s at or above %s after it (retry %ld of %ld)",
			    round, gaugename(), lbuf, gbuf, used, retries);
		}
		rflush();
	}
	erase();
	for (i = 0; i < nsides; i++) {
		free(sides[i].name);
		free(sides[i].script);
	}
	free(sides);
	free(order);
	free(rbuf);
	return fshut(out, outname);
}
