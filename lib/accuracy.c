/*
 * accuracy: scores against an oracle, and the labels (accuracy.h).
 */
#include <math.h>
#include <string.h>

#include "accuracy.h"

double
acc_ulp_f32(float got, double want)
{
	double ulp;
	int e;

	/*
	 * float32's spacing at want: 2^(e-24) for |want| in [2^(e-1), 2^e),
	 * and the subnormals' 2^-149 below 2^-126 (zero included), so that
	 * any nonzero answer to an exact zero counts its distance in the
	 * smallest steps float32 has.
	 */
	if (fabs(want) < 0x1p-126) {
		ulp = 0x1p-149;
	} else {
		frexp(want, &e);
		ulp = ldexp(1.0, e - 24);
	}
	return fabs((double)got - want) / ulp;
}

static void
special(struct acc_score *s, double got, double want)
{
	int gotnan = isnan(got), wantnan = isnan(want);

	s->n++;
	if (!gotnan || wantnan)
		s->covered++;
	if (isfinite(want)) {
		if (!isfinite(got)) {
			s->disagree++;
			s->inf = 1;
		}
	} else if (wantnan ? !gotnan : got != want) {
		s->disagree++;
	}
}

void
acc_add_f32(struct acc_score *s, float got, double want)
{
	double u;

	if (isfinite(got) && isfinite(want)) {
		s->n++;
		s->covered++;
		u = acc_ulp_f32(got, want);
		if (u > s->max_ulp_finite)
			s->max_ulp_finite = u;
		return;
	}
	special(s, got, want);
}

void
acc_add_i32(struct acc_score *s, int32_t got, double want)
{
	double u;

	if (!isfinite(want)) {
		special(s, (double)got, want);
		return;
	}
	s->n++;
	s->covered++;
	u = fabs((double)got - want);
	if (u > s->max_ulp_finite)
		s->max_ulp_finite = u;
}

void
acc_missing(struct acc_score *s, size_t k)
{
	s->n += k;
	s->disagree += k;
	if (k > 0)
		s->inf = 1;
}

double
acc_max_ulp(const struct acc_score *s)
{
	return s->inf ? INFINITY : s->max_ulp_finite;
}

double
acc_coverage(const struct acc_score *s)
{
	return s->n == 0 ? 1 : (double)s->covered / (double)s->n;
}

const char *
acc_label(const char *verdict, double impl_ulp, double ref_ulp, double budget)
{
	int accurate = impl_ulp <= budget || impl_ulp <= ref_ulp;

	if (strcmp(verdict, "faster") == 0)
		return accurate ? "ahead" : "faster-less-accurate";
	if (strcmp(verdict, "tie") == 0)
		return accurate ? "tie" : "tie-less-accurate";
	/* Slower, and more accurate than that faster reference: a trade, still a perf defect. */
	if (strcmp(verdict, "slower") == 0)
		return impl_ulp < ref_ulp ? "tradeoff" : "behind";
	return NULL;
}

int
acc_label_drafted(const char *label)
{
	return strcmp(label, "behind") == 0 || strstr(label, "less-accurate") != NULL;
}
