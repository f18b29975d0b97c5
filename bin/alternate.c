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
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "gauge.h"
#include "jsonl.h"
#include "pin.h"
#include "proc.h"
#include "progress.h"
#include "runwatch.h"
#include "sides.h"
#include "stats.h"
#include "util.h"
#include "version.h"

/* How much of a failing side's stderr is shown again under the message. */
#define TAILSIZE 2048

/* How often a closed load gate is read again while waiting. */
#define POLL_S 0.5

/*
 * How often a side's thread count is read with -T: often enough to see a
 * thread that lives a few hundredths of a second, seldom enough that the
 * reads (some microseconds each) cost the side under a thousandth.
 */
#define THREADS_S 0.01

/*
 * Keys of alternate's own, which neither -a nor a metric may take: those of
 * a run's record and those of a failure's record.
 */
static const char *const ownkeys[] = {
	"side", "round", "slot", "load", "pressure", "threads",
	"error", "status", "signal", "timed_out", "stderr", "deferred", "gate",
	"maxload", "waited_s", "retries", "discarded", "load_before", "pressure_before",
	"wall_s", "cpu", "ivcsw", "stall_s", "steal_s", "running", "reruns", "pinned", "shared"
};

static struct side *sides;
static size_t nsides;

static FILE *out;
static const char *outname = "<stdout>";

static struct gauge gauges;	/* with pressurepath set, -p: the gate reads CPU pressure */
static double maxload;		/* 0: no load gate */
static double maxwait = 60;
static double timeout = 300;
static long maxthreads;		/* -T: 0, threads not watched */
static int strings;		/* -s: string members pass through */
static int notediscards;	/* -d: records say how often their round was discarded */
static int watch;		/* -w: records say what disturbed each run */
static long discards;		/* how often the running round was discarded */
static double before;		/* what the gate read before the running round */
static long retried;		/* the retries used so far, for a record of deferral */
static long maxreruns;		/* -W: disturbed rounds run again, at most this many in all */
static long reruns;		/* how often the running round was run again for a disturbance */
static int disturbed;		/* a run of the running round had less than RUN_DISTURBED of a CPU */

static const char *failpath;	/* -F: a failure's side and message, as plain lines */

/* -c: the CPU every run is on, held against other gates; records say how many shared it. */
static int pinned;
static struct pin pin;

/*
 * -F: what failed, for a script, in two plain lines: the side (empty when
 * no side failed) and the message, the failure record's "error".
 */
static void
failnote(const char *side, const char *msg)
{
	FILE *fp;

	if (failpath == NULL || (fp = fopen(failpath, "w")) == NULL)
		return;
	fprintf(fp, "%s\n%s\n", side, msg);
	fclose(fp);
}

/* A round's records, held until the round has passed the load gate. */
static struct buf held;

/* The progress display: only on a terminal. */
static struct progress prog;

/* Write the held records and make sure they reached the file. */
static void
rflush(void)
{
	if (held.n > 0 && fwrite(held.p, 1, held.n, out) != held.n)
		die("write %s:", outname);
	if (fflush(out) != 0 || ferror(out))
		die("write %s:", outname);
	held.n = 0;
}

/* The load average; or exit 2. */
static double
readload(void)
{
	const char *err;
	double v;

	if ((err = gauge_load(&gauges, &v)) != NULL) {
		progress_erase(&prog);
		die("%s", err);
	}
	return v;
}

/* The CPU pressure, with -p; or exit 2. */
static double
readpressure(void)
{
	const char *err;
	double v;

	if ((err = gauge_pressure(&gauges, &v)) != NULL) {
		progress_erase(&prog);
		die("%s", err);
	}
	return v;
}

/* What the gate reads: the load average, or with -p the CPU pressure. */
static double
readgauge(void)
{
	return gauges.pressurepath != NULL ? readpressure() : readload();
}

static const char *
gaugename(void)
{
	return gauges.pressurepath != NULL ? "CPU pressure" : "load average";
}

/*
 * Stop the run for a failed side: the message, then its stderr's tail, on
 * stderr; and the failure's record, in place of the round's held records,
 * on the output. res is NULL when the side could not even be started.
 */
static _Noreturn void
sidefail(const struct side *s, long round, const char *why, const struct proc_result *res)
{
	const char *p = NULL, *end = NULL, *nl;

	progress_erase(&prog);
	warnmsg("side %s, round %ld: %s", s->name, round, why);
	if (res != NULL && res->errtail != NULL && res->errtaillen > 0) {
		p = res->errtail;
		end = p + res->errtaillen;
		/* A full tail probably starts mid-line: show whole lines only. */
		if (res->errtaillen >= TAILSIZE && (nl = memchr(p, '\n', end - p)) != NULL)
			p = nl + 1;
		fprintf(stderr, "%s: side %s's stderr ended with:\n", argv0, s->name);
		for (nl = p; nl < end; ) {
			const char *e = memchr(nl, '\n', end - nl);

			if (e == NULL)
				e = end;
			fprintf(stderr, "  %.*s\n", (int)(e - nl), nl);
			nl = e + 1;
		}
	}
	held.n = 0;
	{
		char note[1024];

		snprintf(note, sizeof note, "side %s, round %ld: %s", s->name, round, why);
		failnote(s->name, note);
	}
	buf_printf(&held, "{\"error\":\"side %s, round %ld: ", s->name, round);
	buf_esc(&held, why, strlen(why));
	buf_printf(&held, "\",\"side\":\"%s\"", s->name);
	buf_add(&held, s->extra.p, s->extra.n);
	buf_printf(&held, ",\"round\":%ld", round);
	if (res != NULL && res->started) {
		if (res->timed_out)
			buf_add(&held, ",\"timed_out\":true", 17);
		else if (WIFSIGNALED(res->status))
			buf_printf(&held, ",\"signal\":%d", WTERMSIG(res->status));
		else if (WIFEXITED(res->status) && WEXITSTATUS(res->status) != 0)
			buf_printf(&held, ",\"status\":%d", WEXITSTATUS(res->status));
	}
	if (res != NULL && res->threads > 0)
		buf_printf(&held, ",\"threads\":%d", res->threads);
	if (res != NULL) {
		buf_add(&held, ",\"stderr\":\"", 11);
		if (p != NULL)
			buf_esc(&held, p, (size_t)(end - p));
		buf_add(&held, "\"", 1);
	}
	buf_add(&held, "}\n", 2);
	rflush();
	exit(2);
}

/* Run one side once and add its record; returns the gauge read after it. */
static double
runside(const struct side *s, long round, size_t slot)
{
	char *argv[] = { "/bin/sh", "-c", s->script, NULL };
	struct proc_opts opts = { 0 };
	struct proc_result res = { 0 };
	struct jrecord m = { 0 };
	char why[512], num[32];
	const char *msg;
	double load, gauge;
	long shared, n;
	struct runwatch rw;
	size_t i;

	opts.argv = argv;
	opts.timeout_s = timeout;
	opts.capture_stdout = 1;
	opts.stderr_tail = TAILSIZE;
	if (maxthreads > 0)
		opts.threads_s = THREADS_S;
	/* Another gate on this CPU, at the start or the end of the run, shared it. */
	shared = pinned ? pin_sharers(&pin) : 0;
	if (watch)
		runwatch_start(&rw);
	if ((msg = proc_run(&opts, &res)) != NULL)
		sidefail(s, round, msg, NULL);
	if (pinned && (n = pin_sharers(&pin)) > shared)
		shared = n;
	if (watch) {
		runwatch_end(&rw);
		if (runwatch_share(&res) < RUN_DISTURBED)
			disturbed = 1;
	}
	if ((msg = proc_failure(&opts, &res, why, sizeof why)) != NULL)
		sidefail(s, round, msg, &res);
	if (maxthreads > 0 && res.threads > maxthreads) {
		snprintf(why, sizeof why, "ran with %d threads, more than the %ld asked for",
		    res.threads, maxthreads);
		sidefail(s, round, why, &res);
	}
	if ((msg = (strings ? jmembers : jmetrics)(res.out, res.outlen, &m)) != NULL)
		sidefail(s, round, msg, &res);
	for (i = 0; i < m.n; i++) {
		const struct jfield *f = &m.field[i];

		if (jfield_is(f, "side") || jfield_is(f, "round") || jfield_is(f, "slot") || jfield_is(f, "load") ||
		    ((gauges.pressurepath != NULL || watch) && jfield_is(f, "pressure")) ||
		    (watch && (jfield_is(f, "wall_s") || jfield_is(f, "cpu") || jfield_is(f, "ivcsw") ||
		    jfield_is(f, "stall_s") || jfield_is(f, "steal_s") || jfield_is(f, "running"))) ||
		    (maxreruns > 0 && jfield_is(f, "reruns")) ||
		    (pinned && (jfield_is(f, "pinned") || jfield_is(f, "shared"))) ||
		    (maxthreads > 0 && jfield_is(f, "threads")) ||
		    (notediscards && maxload > 0 && (jfield_is(f, "discarded") ||
		    jfield_is(f, "load_before") || jfield_is(f, "pressure_before")))) {
			snprintf(why, sizeof why, "metric \"%.*s\" clashes with a key of alternate's own",
			    (int)f->keylen, f->key);
			sidefail(s, round, why, &res);
		}
		if (side_taken(s, f->key, f->keylen)) {
			snprintf(why, sizeof why, "metric \"%.*s\" clashes with a member given by -a",
			    (int)f->keylen, f->key);
			sidefail(s, round, why, &res);
		}
	}
	load = gauge = readload();
	fmt_double(num, load);
	buf_printf(&held, "{\"side\":\"%s\"", s->name);
	buf_add(&held, s->extra.p, s->extra.n);
	buf_printf(&held, ",\"round\":%ld,\"slot\":%zu,\"load\":%s", round, slot, num);
	if (gauges.pressurepath != NULL) {
		gauge = readpressure();
		fmt_double(num, gauge);
		buf_printf(&held, ",\"pressure\":%s", num);
	}
	if (watch)
		runwatch_members(&held, &rw, &res, gauges.pressurepath == NULL);
	if (maxreruns > 0)
		buf_printf(&held, ",\"reruns\":%ld", reruns);
	if (pinned)
		buf_printf(&held, ",\"pinned\":%ld,\"shared\":%ld", pin.cpu, shared);
	if (maxthreads > 0)
		buf_printf(&held, ",\"threads\":%d", res.threads);
	if (notediscards && maxload > 0) {
		buf_printf(&held, ",\"discarded\":%ld", discards);
		/* The read that opened the gate for this round: load before, not after. */
		fmt_double(num, before);
		buf_printf(&held, ",\"%s_before\":%s", gauges.pressurepath != NULL ? "pressure" : "load", num);
	}
	for (i = 0; i < m.n; i++) {
		const struct jfield *f = &m.field[i];

		buf_add(&held, ",\"", 2);
		buf_add(&held, f->key, f->keylen);
		buf_add(&held, "\":", 2);
		if (f->type == J_STRING)
			buf_add(&held, "\"", 1);
		buf_add(&held, f->raw, f->rawlen);
		if (f->type == J_STRING)
			buf_add(&held, "\"", 1);
	}
	buf_add(&held, "}\n", 2);
	jrecord_free(&m);
	proc_result_free(&res);
	return gauge;
}

/*
 * Stop the run for a load gate that stayed closed: the message on stderr,
 * and a record saying the rest of the run was deferred. how is "wait" (the
 * gate did not open before a round) or "retries" (rounds kept ending above
 * it); n is the seconds waited or the retries used.
 */
static _Noreturn void
deferred(long round, const char *how, double gauge, double n)
{
	char gbuf[32], mbuf[32], nbuf[32], msg[256];

	fmt_double(gbuf, gauge);
	fmt_double(mbuf, maxload);
	fmt_double(nbuf, n);
	if (strcmp(how, "wait") == 0)
		snprintf(msg, sizeof msg, "round %ld: the load gate stayed closed: %s %s still at or above %s after %s s",
		    round, gaugename(), gbuf, mbuf, nbuf);
	else
		snprintf(msg, sizeof msg, "round %ld: the load gate stayed closed: %s %s at or above %s after the round, and all %s retries are used",
		    round, gaugename(), gbuf, mbuf, nbuf);
	progress_erase(&prog);
	warnmsg("%s", msg);
	failnote("", msg);
	held.n = 0;
	buf_printf(&held, "{\"error\":\"%s\",\"deferred\":true,\"round\":%ld,\"gate\":\"%s\",\"%s\":%s,\"maxload\":%s,\"%s\":%s",
	    msg, round, how, gauges.pressurepath != NULL ? "pressure" : "load", gbuf, mbuf,
	    strcmp(how, "wait") == 0 ? "waited_s" : "retries", nbuf);
	/* A wait, too, says how many retries the run had used. */
	if (strcmp(how, "wait") == 0)
		buf_printf(&held, ",\"retries\":%ld", retried);
	buf_puts(&held, "}\n");
	rflush();
	exit(2);
}

/* Wait, up to maxwait seconds, for the gauge to fall below the gate. */
static void
gatewait(long round, long shown_round, long rounds)
{
	char lbuf[32], gbuf[32];
	double start, waited, load;
	struct timespec ts;

	start = progress_now();
	while ((before = load = readgauge()) >= maxload) {
		waited = progress_now() - start;
		if (waited >= maxwait)
			deferred(round, "wait", load, maxwait);
		fmt_double(lbuf, load);
		fmt_double(gbuf, maxload);
		progress_show(&prog, "round %ld/%ld, waiting for %s %s to fall below %s",
		    shown_round, rounds, gaugename(), lbuf, gbuf);
		waited = fmin(POLL_S, maxwait - waited);
		ts.tv_sec = (time_t)waited;
		ts.tv_nsec = (long)((waited - ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-dpsw] [-a name:key=value] [-c cpu|auto] [-l maxload] [-L wait]"
	    " [-F failfile] [-n first] [-o file] [-r rounds] [-R retries] [-t timeout] [-T maxthreads] [-W reruns]"
	    " name=command ...\n", argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const char *threadvars[] = {
		"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
		"VECLIB_MAXIMUM_THREADS"
	};
	long cpu = -1, rounds = 3, retries = 10, used = 0, first = 1, round, rerunsused = 0;
	const char *outpath = NULL, *err;
	char lbuf[32], gbuf[32];
	char **members;
	double load = 0;
	size_t *order, i, slot, nmembers = 0;
	int c, pressure = 0, numbered = 0;
	const char *pinarg = NULL;
	char *perr;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
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
			notediscards = 1;
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
		case 'n':
			if ((err = parse_long(optarg, 1, 1000000000, &first)) != NULL)
				die("-n %s: %s", optarg, err);
			numbered = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'F':
			failpath = optarg;
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
		case 's':
			strings = 1;
			break;
		case 't':
			if ((err = parse_double(optarg, 0, 1e9, &timeout)) != NULL)
				die("-t %s: %s", optarg, err);
			break;
		case 'T':
			if ((err = parse_long(optarg, 1, 1000000, &maxthreads)) != NULL)
				die("-T %s: %s", optarg, err);
			break;
		case 'w':
			watch = 1;
			break;
		case 'W':
			if ((err = parse_long(optarg, 0, 1000000, &maxreruns)) != NULL)
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
		side_member(sides, nsides, members[i], ownkeys, sizeof ownkeys / sizeof ownkeys[0]);
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
	if (maxreruns > 0 && !watch)
		die("-W %ld: needs -w, which tells a disturbed run", maxreruns);
	order = xmalloc(nsides * sizeof *order);

	/* Read once now: a kernel without PSI is a usage error, not a failed round. */
	if ((err = gauge_open(&gauges, pressure)) != NULL)
		die("%s", err);
	/* Sides run on one core: a library that spawns threads would not. */
	for (i = 0; i < sizeof threadvars / sizeof threadvars[0]; i++)
		if (setenv(threadvars[i], "1", 1) != 0)
			die("setenv %s:", threadvars[i]);
	/* Children inherit the mask, so every side lands on this CPU. */
	if (pinned && (perr = pin_take(cpu, &pin)) != NULL)
		die("-c %s: %s", pinarg, perr);
	if (outpath != NULL) {
		if ((out = fopen(outpath, "a")) == NULL)
			die("%s:", outpath);
		outname = outpath;
	} else {
		out = stdout;
	}
	proc_forward_signals();
	progress_start(&prog, rounds * (long)nsides);

	/*
	 * Rounds are numbered from first, and the design's rows with them, so
	 * that a block run later continues both where an earlier one ended.
	 */
	for (round = first; round < first + rounds; round++) {
		for (discards = 0, reruns = 0;;) {
			if (maxload > 0)
				gatewait(round, round - first + 1, rounds);
			williams(nsides, (size_t)(round - 1), order);
			disturbed = 0;
			for (slot = 0; slot < nsides; slot++) {
				progress_show(&prog, "round %ld/%ld, side %s (%zu/%zu)", round - first + 1, rounds,
				    sides[order[slot]].name, slot + 1, nsides);
				load = runside(&sides[order[slot]], round, slot);
				prog.done++;
				/* Without a gate no round is ever run again: write at once. */
				if (maxload <= 0 && maxreruns == 0)
					rflush();
			}
			if (maxload > 0 && load >= maxload) {
				/* The round ran on a loaded machine: drop it and run it again. */
				held.n = 0;
				if (used == retries)
					deferred(round, "retries", load, (double)retries);
				retried = ++used;
				discards++;
				prog.total += (long)nsides;
				fmt_double(lbuf, load);
				fmt_double(gbuf, maxload);
				progress_erase(&prog);
				warnmsg("round %ld discarded: %s %s at or above %s after it (retry %ld of %ld)",
				    round, gaugename(), lbuf, gbuf, used, retries);
				continue;
			}
			if (!disturbed || rerunsused == maxreruns)
				break;
			/* Something else ran in a run's place: the round again, while -W allows. */
			held.n = 0;
			rerunsused++;
			reruns++;
			prog.total += (long)nsides;
		}
		rflush();
	}
	progress_erase(&prog);
	side_free(sides, nsides);
	if (pinned)
		pin_release(&pin);
	free(order);
	free(held.p);
	return fshut(out, outname);
}
