/*
 * statsacc: one field's values as minjson reduces them. The minimum and
 * the maximum keep their text as read (a value selected is written byte
 * for byte), the mean is kept running, and for quantiles every value is
 * kept with its text, 16 bytes each: the double and a reference to the
 * text, inline when short, else in one shared arena.
 */
#ifndef PERFGATE_STATSACC_H
#define PERFGATE_STATSACC_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* A text: a value's as read, or one computed. */
struct text {
	char *s;
	size_t len, cap;
};

/* What an accumulator keeps beyond the minimum (acc_add's need). */
enum { ACC_MAX = 1, ACC_MEAN = 2, ACC_VALUES = 4 };

struct acc {
	size_t n;
	double min, max;
	struct text rmin, rmax;
	struct mean mean;
	double *v;		/* kept for quantiles: the values, in the order read */
	uint64_t *ref;		/* and each one's text */
	size_t vn, vcap;
};

/* Copy s[0..len) into t. */
void text_set(struct text *t, const char *s, size_t len);
/* v's shortest text that reads back to it, into t. */
void text_double(struct text *t, double v);

/* Add x, whose text is raw[0..rawlen), keeping what need (ACC_*) asks for. */
void acc_add(struct acc *a, double x, const char *raw, size_t rawlen, int need);

/*
 * The p-quantile of a's values (sorted: a->v in order) into t. One that
 * falls on one value passes that value's text through: the text of the
 * first value read that is the same double, bit for bit (so "-0" is never
 * written for 0).
 */
void acc_quantile(const struct acc *a, const double *sorted, double p, struct text *t);

#endif
