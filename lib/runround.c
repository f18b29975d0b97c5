/*
 * runround: one round of benchmark sides (runround.h), the run code that
 * alternate and gaterun share.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "buf.h"
#include "gauge.h"
#include "jsonl.h"
#include "proc.h"
#include "progress.h"
#include "runround.h"
#include "runwatch.h"
#include "sides.h"
#include "stats.h"
#include "util.h"

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

const char *const runround_ownkeys[] = {
	"side", "round", "slot", "load", "pressure", "threads",
	"error", "status", "signal", "timed_out", "stderr", "deferred", "gate",
	"maxload", "waited_s", "retries", "discarded", "load_before", "pressure_before",
	"wall_s", "cpu", "ivcsw", "stall_s", "steal_s", "running", "reruns", "pinned", "shared"
};
const size_t runround_nownkeys = sizeof runround_ownkeys / sizeof runround_ownkeys[0];

/* End the round as failed: side ("" for none) and the message, then back to runround_run. */
static _Noreturn void
roundfail(struct runround *r, const char *side, const char *fmt, ...)
{
	va_list ap;
	FILE *fp;

	va_start(ap, fmt);
	vsnprintf(r->failmsg, sizeof r->failmsg, fmt, ap);
	va_end(ap);
	snprintf(r->failside, sizeof r->failside, "%s", side);
	/* The run being read goes with the frame longjmp leaves. */
	if (r->live != NULL)
		proc_result_free(r->live);
	if (r->livem != NULL)
		jrecord_free(r->livem);
	r->live = NULL;
	r->livem = NULL;
	/* For a script: two plain lines, the side and the message. */
	if (r->failpath != NULL && (fp = fopen(r->failpath, "w")) != NULL) {
		fprintf(fp, "%s\n%s\n", r->failside, r->failmsg);
		fclose(fp);
	}
	longjmp(r->fail, 1);
}

/* Write the held records and make sure they reached the file. */
static void
rflush(struct runround *r)
{
	if ((r->held.n > 0 && fwrite(r->held.p, 1, r->held.n, r->out) != r->held.n) ||
	    fflush(r->out) != 0 || ferror(r->out)) {
		int e = errno;

		r->held.n = 0;
		progress_erase(&r->prog);
		warnmsg("write %s: %s", r->outname, strerror(e));
		roundfail(r, "", "write %s: %s", r->outname, strerror(e));
	}
	r->held.n = 0;
}

/* The load average, or the CPU pressure. */
static double
readload(struct runround *r)
{
	const char *err;
	double v;

	if ((err = gauge_load(&r->gauges, &v)) != NULL) {
		progress_erase(&r->prog);
		warnmsg("%s", err);
		roundfail(r, "", "%s", err);
	}
	return v;
}

static double
readpressure(struct runround *r)
{
	const char *err;
	double v;

	if ((err = gauge_pressure(&r->gauges, &v)) != NULL) {
		progress_erase(&r->prog);
		warnmsg("%s", err);
		roundfail(r, "", "%s", err);
	}
	return v;
}

/* What the gate reads: the load average, or with -p the CPU pressure. */
static double
readgauge(struct runround *r)
{
	return r->gauges.pressurepath != NULL ? readpressure(r) : readload(r);
}

static const char *
gaugename(const struct runround *r)
{
	return r->gauges.pressurepath != NULL ? "CPU pressure" : "load average";
}

/*
 * Stop the round for a failed side: the message, then its stderr's tail,
 * on stderr; and the failure's record, in place of the round's held
 * records, on the output. res is NULL when the side could not even be
 * started.
 */
static _Noreturn void
sidefail(struct runround *r, const struct runside *s, long round, const char *why, struct proc_result *res)
{
	const char *p = NULL, *end = NULL, *nl;
	struct buf *h = &r->held;
	char own[512];

	/* A copy: res, which why may point into, is freed before the end. */
	snprintf(own, sizeof own, "%s", why);
	why = own;
	progress_erase(&r->prog);
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
	h->n = 0;
	buf_printf(h, "{\"error\":\"side %s, round %ld: ", s->name, round);
	buf_esc(h, why, strlen(why));
	buf_printf(h, "\",\"side\":\"%s\"", s->name);
	buf_add(h, s->extra.p, s->extra.n);
	buf_printf(h, ",\"round\":%ld", round);
	if (res != NULL && res->started) {
		if (res->timed_out)
			buf_add(h, ",\"timed_out\":true", 17);
		else if (WIFSIGNALED(res->status))
			buf_printf(h, ",\"signal\":%d", WTERMSIG(res->status));
		else if (WIFEXITED(res->status) && WEXITSTATUS(res->status) != 0)
			buf_printf(h, ",\"status\":%d", WEXITSTATUS(res->status));
	}
	if (res != NULL && res->threads > 0)
		buf_printf(h, ",\"threads\":%d", res->threads);
	if (res != NULL) {
		buf_add(h, ",\"stderr\":\"", 11);
		if (p != NULL)
			buf_esc(h, p, (size_t)(end - p));
		buf_add(h, "\"", 1);
	}
	buf_add(h, "}\n", 2);
	/* Said: the run's output goes with the frame roundfail leaves. */
	if (res != NULL)
		proc_result_free(res);
	rflush(r);
	roundfail(r, s->name, "side %s, round %ld: %s", s->name, round, why);
}

/* Whether metric f takes a key of the run's record. */
static int
clashes(const struct runround *r, const struct jfield *f)
{
	int pressure = r->gauges.pressurepath != NULL;

	return jfield_is(f, "side") || jfield_is(f, "round") || jfield_is(f, "slot") || jfield_is(f, "load") ||
	    ((pressure || r->watch) && jfield_is(f, "pressure")) ||
	    (r->watch && (jfield_is(f, "wall_s") || jfield_is(f, "cpu") || jfield_is(f, "ivcsw") ||
	    jfield_is(f, "stall_s") || jfield_is(f, "steal_s") || jfield_is(f, "running"))) ||
	    (r->maxreruns > 0 && jfield_is(f, "reruns")) ||
	    (r->pinned && (jfield_is(f, "pinned") || jfield_is(f, "shared"))) ||
	    (r->maxthreads > 0 && jfield_is(f, "threads")) ||
	    (r->notediscards && r->maxload > 0 && (jfield_is(f, "discarded") ||
	    jfield_is(f, "load_before") || jfield_is(f, "pressure_before")));
}

/* Run one side once and add its record; returns the gauge read after it. */
static double
runside(struct runround *r, const struct runside *s, long round, size_t slot)
{
	char *shell[] = { "/bin/sh", "-c", s->script, NULL };
	struct proc_opts opts = { 0 };
	struct proc_result res = { 0 };
	struct jrecord m = { 0 };
	struct buf *h = &r->held;
	char why[512], num[32];
	const char *msg;
	double load, gauge;
	long shared, n;
	struct runwatch rw;
	size_t i;

	opts.argv = s->argv != NULL ? s->argv : shell;
	opts.timeout_s = r->timeout;
	opts.capture_stdout = 1;
	opts.stderr_tail = TAILSIZE;
	if (r->maxthreads > 0)
		opts.threads_s = THREADS_S;
	/* Another gate on this CPU, at the start or the end of the run, shared it. */
	shared = r->pinned ? pin_sharers(&r->pin) : 0;
	if (r->watch)
		runwatch_start(&rw);
	if ((msg = proc_run(&opts, &res)) != NULL)
		sidefail(r, s, round, msg, NULL);
	r->live = &res;
	r->livem = &m;
	if (r->pinned && (n = pin_sharers(&r->pin)) > shared)
		shared = n;
	if (r->watch) {
		runwatch_end(&rw);
		if (runwatch_share(&res) < RUN_DISTURBED)
			r->disturbed = 1;
	}
	if ((msg = proc_failure(&opts, &res, why, sizeof why)) != NULL)
		sidefail(r, s, round, msg, &res);
	if (r->maxthreads > 0 && res.threads > r->maxthreads) {
		snprintf(why, sizeof why, "ran with %d threads, more than the %ld asked for",
		    res.threads, r->maxthreads);
		sidefail(r, s, round, why, &res);
	}
	if ((msg = (r->strings ? jmembers : jmetrics)(res.out, res.outlen, &m)) != NULL) {
		jrecord_free(&m);
		sidefail(r, s, round, msg, &res);
	}
	for (i = 0; i < m.n; i++) {
		const struct jfield *f = &m.field[i];

		if (clashes(r, f)) {
			snprintf(why, sizeof why, "metric \"%.*s\" clashes with a key of alternate's own",
			    (int)f->keylen, f->key);
			jrecord_free(&m);
			sidefail(r, s, round, why, &res);
		}
		if (side_taken(s, f->key, f->keylen)) {
			snprintf(why, sizeof why, "metric \"%.*s\" clashes with a member given by -a",
			    (int)f->keylen, f->key);
			jrecord_free(&m);
			sidefail(r, s, round, why, &res);
		}
	}
	load = gauge = readload(r);
	fmt_double(num, load);
	buf_printf(h, "{\"side\":\"%s\"", s->name);
	buf_add(h, s->extra.p, s->extra.n);
	buf_printf(h, ",\"round\":%ld,\"slot\":%zu,\"load\":%s", round, slot, num);
	if (r->gauges.pressurepath != NULL) {
		gauge = readpressure(r);
		fmt_double(num, gauge);
		buf_printf(h, ",\"pressure\":%s", num);
	}
	if (r->watch)
		runwatch_members(h, &rw, &res, r->gauges.pressurepath == NULL);
	if (r->maxreruns > 0)
		buf_printf(h, ",\"reruns\":%ld", r->reruns);
	if (r->pinned)
		buf_printf(h, ",\"pinned\":%ld,\"shared\":%ld", r->pin.cpu, shared);
	if (r->maxthreads > 0)
		buf_printf(h, ",\"threads\":%d", res.threads);
	if (r->notediscards && r->maxload > 0) {
		buf_printf(h, ",\"discarded\":%ld", r->discards);
		/* The read that opened the gate for this round: load before, not after. */
		fmt_double(num, r->before);
		buf_printf(h, ",\"%s_before\":%s", r->gauges.pressurepath != NULL ? "pressure" : "load", num);
	}
	for (i = 0; i < m.n; i++) {
		const struct jfield *f = &m.field[i];

		buf_add(h, ",\"", 2);
		buf_add(h, f->key, f->keylen);
		buf_add(h, "\":", 2);
		if (f->type == J_STRING)
			buf_add(h, "\"", 1);
		buf_add(h, f->raw, f->rawlen);
		if (f->type == J_STRING)
			buf_add(h, "\"", 1);
	}
	buf_add(h, "}\n", 2);
	jrecord_free(&m);
	proc_result_free(&res);
	r->live = NULL;
	r->livem = NULL;
	return gauge;
}

/*
 * Stop the round for a load gate that stayed closed: the message on
 * stderr, and a record saying the rest of the run was deferred. how is
 * "wait" (the gate did not open before a round) or "retries" (rounds kept
 * ending above it); n is the seconds waited or the retries used.
 */
static _Noreturn void
deferred(struct runround *r, long round, const char *how, double gauge, double n)
{
	char gbuf[32], mbuf[32], nbuf[32], msg[256];
	struct buf *h = &r->held;

	fmt_double(gbuf, gauge);
	fmt_double(mbuf, r->maxload);
	fmt_double(nbuf, n);
	if (strcmp(how, "wait") == 0)
		snprintf(msg, sizeof msg, "round %ld: the load gate stayed closed: %s %s still at or above %s after %s s",
		    round, gaugename(r), gbuf, mbuf, nbuf);
	else
		snprintf(msg, sizeof msg, "round %ld: the load gate stayed closed: %s %s at or above %s after the round, and all %s retries are used",
		    round, gaugename(r), gbuf, mbuf, nbuf);
	progress_erase(&r->prog);
	warnmsg("%s", msg);
	h->n = 0;
	buf_printf(h, "{\"error\":\"%s\",\"deferred\":true,\"round\":%ld,\"gate\":\"%s\",\"%s\":%s,\"maxload\":%s,\"%s\":%s",
	    msg, round, how, r->gauges.pressurepath != NULL ? "pressure" : "load", gbuf, mbuf,
	    strcmp(how, "wait") == 0 ? "waited_s" : "retries", nbuf);
	/* A wait, too, says how many retries the run had used. */
	if (strcmp(how, "wait") == 0)
		buf_printf(h, ",\"retries\":%ld", r->retried);
	buf_puts(h, "}\n");
	rflush(r);
	roundfail(r, "", "%s", msg);
}

/* Wait, up to maxwait seconds, for the gauge to fall below the gate. */
static void
gatewait(struct runround *r, long round, long shown, long total)
{
	char lbuf[32], gbuf[32];
	double start, waited, load;
	struct timespec ts;

	start = progress_now();
	while ((r->before = load = readgauge(r)) >= r->maxload) {
		waited = progress_now() - start;
		if (waited >= r->maxwait)
			deferred(r, round, "wait", load, r->maxwait);
		fmt_double(lbuf, load);
		fmt_double(gbuf, r->maxload);
		progress_show(&r->prog, "round %ld/%ld, waiting for %s %s to fall below %s",
		    shown, total, gaugename(r), lbuf, gbuf);
		waited = fmin(POLL_S, r->maxwait - waited);
		ts.tv_sec = (time_t)waited;
		ts.tv_nsec = (long)((waited - ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
}

const char *
runround_open(struct runround *r)
{
	static const char *threadvars[] = {
		"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
		"VECLIB_MAXIMUM_THREADS"
	};
	const char *err;
	size_t i;

	/* Read once now: a kernel without PSI is a usage error, not a failed round. */
	if ((err = gauge_open(&r->gauges, r->pressure)) != NULL)
		return err;
	/* Sides run on one core: a library that spawns threads would not. */
	for (i = 0; i < sizeof threadvars / sizeof threadvars[0]; i++)
		if (setenv(threadvars[i], "1", 1) != 0)
			return "cannot set the thread variables";
	proc_forward_signals();
	progress_start(&r->prog, 0);
	return NULL;
}

int
runround_run(struct runround *r, long round, long shown, long total)
{
	static size_t *order;
	static size_t norder;
	char lbuf[32], gbuf[32];
	volatile double load = 0;
	size_t slot;

	if (norder < r->nsides) {
		order = xrealloc(order, r->nsides * sizeof *order);
		norder = r->nsides;
	}
	r->prog.total = total * (long)r->nsides;
	r->prog.done = (shown - 1) * (long)r->nsides;
	r->failside[0] = r->failmsg[0] = '\0';
	if (setjmp(r->fail) != 0) {
		r->held.n = 0;
		return -1;
	}
	for (r->discards = 0, r->reruns = 0;;) {
		if (r->maxload > 0)
			gatewait(r, round, shown, total);
		williams(r->nsides, (size_t)(round - 1), order);
		r->disturbed = 0;
		for (slot = 0; slot < r->nsides; slot++) {
			progress_show(&r->prog, "round %ld/%ld, side %s (%zu/%zu)", shown, total,
			    r->sides[order[slot]].name, slot + 1, r->nsides);
			load = runside(r, &r->sides[order[slot]], round, slot);
			r->prog.done++;
			/* Without a gate no round is ever run again: write at once. */
			if (r->maxload <= 0 && r->maxreruns == 0)
				rflush(r);
		}
		if (r->maxload > 0 && load >= r->maxload) {
			/* The round ran on a loaded machine: drop it and run it again. */
			r->held.n = 0;
			if (r->used == r->retries)
				deferred(r, round, "retries", load, (double)r->retries);
			r->retried = ++r->used;
			r->discards++;
			r->prog.total += (long)r->nsides;
			fmt_double(lbuf, load);
			fmt_double(gbuf, r->maxload);
			progress_erase(&r->prog);
			warnmsg("round %ld discarded: %s %s at or above %s after it (retry %ld of %ld)",
			    round, gaugename(r), lbuf, gbuf, r->used, r->retries);
			continue;
		}
		if (!r->disturbed || r->rerunsused == r->maxreruns)
			break;
		/* Something else ran in a run's place: the round again, while -W allows. */
		r->held.n = 0;
		r->rerunsused++;
		r->reruns++;
		r->prog.total += (long)r->nsides;
	}
	rflush(r);
	return 0;
}

void
runround_close(struct runround *r)
{
	progress_erase(&r->prog);
	if (r->pinned)
		pin_release(&r->pin);
	r->pinned = 0;
	free(r->held.p);
	r->held.p = NULL;
	r->held.n = 0;
}
