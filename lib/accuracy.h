/*
 * accuracy: a side's results scored against an oracle of higher precision,
 * and the label of the implementation against one reference (the one place
 * where speed and accuracy are weighed together).
 */
#ifndef PERFGATE_ACCURACY_H
#define PERFGATE_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

struct acc_score {
	size_t n;		/* points expected */
	size_t covered;		/* points with a value (not NaN, or NaN expected) */
	size_t disagree;	/* special-value disagreements, missing points included */
	double max_ulp_finite;	/* over the points where both are finite */
	int inf;		/* a finite value was expected, NaN or an infinity came */
};

/* The distance of got from want in units in the last place of float32 at want. */
double acc_ulp_f32(float got, double want);

/* One point of a float32 result, or an int32 one (its ulp is 1). */
void acc_add_f32(struct acc_score *s, float got, double want);
void acc_add_i32(struct acc_score *s, int32_t got, double want);

/* k points expected that the side did not return. */
void acc_missing(struct acc_score *s, size_t k);

/* The largest error, with infinity for a special value where a finite was due. */
double acc_max_ulp(const struct acc_score *s);
double acc_coverage(const struct acc_score *s);

/*
 * The label of the implementation against a reference, from the row's
 * verdict (slower, faster, tie) and each side's max_ulp_finite, with the
 * case's budget in ulp (0 when none is declared): within the budget or no
 * worse than the reference is "as accurate".
 *	faster	ahead | faster-less-accurate
 *	tie	tie | tie-less-accurate
 *	slower	behind | tradeoff (the faster reference less accurate than
 *		the implementation, whatever the budget)
 * NULL for a verdict not among these.
 */
const char *acc_label(const char *verdict, double impl_ulp, double ref_ulp, double budget);

/* Whether a label calls for a draft: behind, or less accurate. */
int acc_label_drafted(const char *label);

#endif
