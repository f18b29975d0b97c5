/*
 * progress: the one-line progress display of a long run, on standard
 * error and only when it is a terminal, so that logs never hold it.
 */
#ifndef PERFGATE_PROGRESS_H
#define PERFGATE_PROGRESS_H

struct progress {
	int tty;		/* standard error is a terminal */
	int shown;		/* a line is on screen, to be erased */
	double t0;		/* monotonic seconds at the start */
	long done, total;	/* runs finished, and in all */
};

/* Monotonic seconds. */
double progress_now(void);

/* Start the display of total runs. */
void progress_start(struct progress *p, long total);

/*
 * Show "argv0: <fmt ...>, N s elapsed[, about N s left]" in place of the
 * last line shown; nothing when standard error is not a terminal.
 */
void progress_show(struct progress *p, const char *fmt, ...);

/* Erase the line shown, before anything else is written to stderr. */
void progress_erase(struct progress *p);

#endif
