/*
 * progress: the one-line progress display (progress.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"

double
progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void
progress_start(struct progress *p, long total)
{
	p->tty = isatty(2);
	p->shown = 0;
	p->t0 = progress_now();
	p->done = 0;
	p->total = total;
}

void
progress_erase(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		p->shown = 0;
	}
}

void
progress_show(struct progress *p, const char *fmt, ...)
{
	va_list ap;
	double el;

	if (!p->tty)
		return;
	el = progress_now() - p->t0;
	fputs("\r\033[K", stderr);
	fprintf(stderr, "%s: ", argv0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ", %.1f s elapsed", el);
	/* The estimate needs one finished run to know what a run costs. */
	if (p->done > 0)
		fprintf(stderr, ", about %.1f s left",
		    el / p->done * (p->total - p->done));
	fflush(stderr);
	p->shown = 1;
}
