#ifndef PERFGATE_HISTCHAIN_H
#define PERFGATE_HISTCHAIN_H

#include <stddef.h>

#include "histnote.h"

/*
 * The first-parent path of a range, oldest first, each commit with the
 * records its note holds (perfgate(1), "history"), read from
 *	git log --first-parent --reverse -z --notes=perfgate --format=%H%n%P%n%s%n%N
 */
struct hcommit {
	char *hash, *parent, *subject;	/* parent: the first, "" for a root */
	struct hrec *rec;
	size_t nrec;
	long use;		/* the record the chain uses, -1: none (a gap) */
	int machine_changed;	/* its record's machine is not the last used one's */
};

struct hist {
	struct hcommit *c;
	size_t n;
	char **metric;		/* every metric of a used record, in order of first sight */
	size_t nmetric;
};

/*
 * Read git's output into h. A line of a note that is not a record of
 * perfgate's, a record of another commit or against another parent than
 * the first, is skipped, and warn is called with the commit and why. The
 * record used is machine's own when there is one, else the newest.
 */
void hist_load(struct hist *h, char *buf, size_t len, const char *machine,
    void (*warn)(const struct hcommit *c, unsigned long line, const char *why));
void hist_free(struct hist *h);
/* The used record's figures for metric at commit i, or NULL: a gap. */
const struct hmetric *hist_at(const struct hist *h, size_t i, const char *metric);

/*
 * A stretch of commits [from, to] of the path whose chained ratio (the
 * product of the commits' ratios, each of them within its gate's budget)
 * slows the metric by more than its creep budget: a creep proposed. logsum
 * is the chained ratio's log, toward slower (a higher-is-better metric's
 * ratios inverted), lo and hi its interval.
 */
struct hstretch {
	size_t from, to;
	double logsum, loglo, loghi;
};

/*
 * The stretch of the largest chained slowdown in each run of consecutive
 * commits that have the metric, a run ending at a gap and at a commit the
 * gate called regressed or improved (a step no gate missed). Only those
 * beyond creep (a fraction) are returned; *n of them.
 */
struct hstretch *hist_creeps(const struct hist *h, const char *metric, double creep, size_t *n);
/* The slower-ward log of one commit's ratio and its interval. */
int hist_log(const struct hmetric *m, double *l, double *lo, double *hi);

/* The commits of a stretch that slowed metric most, largest first: at most HIST_TOP indices in idx. */
enum { HIST_TOP = 5 };
size_t hist_top(const struct hist *h, const char *metric, const struct hstretch *s, size_t *idx);
struct budget;
/*
 * The confirming gate's budget file, out: b's runs, each timed metric's
 * creep budget in place of its budget (path: where b was read), so that
 * the ordinary gate and rule judge a stretch's two ends. NULL, or why not.
 */
char *hist_creepbudget(const struct budget *b, const char *path, const char *out);

#endif
