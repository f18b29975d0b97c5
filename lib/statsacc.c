/*
 * statsacc: one field's values as minjson reduces them (see statsacc.h).
 */
#include <stdint.h>
#include <string.h>

#include "statsacc.h"
#include "util.h"

/* The texts of kept values longer than 7 bytes, each after its length. */
static char *arena;
static size_t arenalen, arenacap;

void
text_set(struct text *t, const char *s, size_t len)
{
	if (len > t->cap) {
		t->cap = len < 32 ? 32 : len;
		t->s = xrealloc(t->s, t->cap);
	}
	memcpy(t->s, s, len);
	t->len = len;
}

void
text_double(struct text *t, double v)
{
	char buf[32];
	int len = fmt_double(buf, v);

	text_set(t, buf, (size_t)len);
}

/* A reference to s: up to 7 bytes inline, the length in the low byte; else an arena offset, low byte 0. */
static uint64_t
keeptext(const char *s, size_t len)
{
	uint64_t ref = 0;
	uint32_t n32;
	size_t i;

	if (len <= 7) {
		for (i = len; i-- > 0;)
			ref = ref << 8 | (unsigned char)s[i];
		return ref << 8 | len;
	}
	if (len > UINT32_MAX)
		die("number of %zu bytes is too long", len);
	while (arenacap - arenalen < len + 4) {
		arenacap = arenacap ? arenacap * 2 : 1 << 16;
		arena = xrealloc(arena, arenacap);
	}
	ref = (uint64_t)arenalen << 8;
	n32 = (uint32_t)len;
	memcpy(arena + arenalen, &n32, 4);
	memcpy(arena + arenalen + 4, s, len);
	arenalen += len + 4;
	return ref;
}

/* The text kept by keeptext, into t. */
static void
gettext(uint64_t ref, struct text *t)
{
	char inl[8];
	size_t len = ref & 0xff, i;
	uint32_t n32;

	if (len != 0) {
		for (i = 0; i < len; i++)
			inl[i] = (char)(ref >> (8 * (i + 1)));
		text_set(t, inl, len);
		return;
	}
	memcpy(&n32, arena + (ref >> 8), 4);
	text_set(t, arena + (ref >> 8) + 4, n32);
}

void
acc_add(struct acc *a, double x, const char *raw, size_t rawlen, int need)
{
	if (a->n++ == 0) {
		a->min = a->max = x;
		text_set(&a->rmin, raw, rawlen);
		if (need & ACC_MAX)
			text_set(&a->rmax, raw, rawlen);
	} else {
		/* Strict: among equal values the first one read is passed through. */
		if (x < a->min) {
			a->min = x;
			text_set(&a->rmin, raw, rawlen);
		}
		if ((need & ACC_MAX) && x > a->max) {
			a->max = x;
			text_set(&a->rmax, raw, rawlen);
		}
	}
	if (need & ACC_MEAN)
		mean_add(&a->mean, x);
	if (need & ACC_VALUES) {
		if (a->vn == a->vcap) {
			a->vcap = a->vcap ? a->vcap * 2 : 256;
			a->v = xrealloc(a->v, a->vcap * sizeof *a->v);
			a->ref = xrealloc(a->ref, a->vcap * sizeof *a->ref);
		}
		a->v[a->vn] = x;
		a->ref[a->vn] = keeptext(raw, rawlen);
		a->vn++;
	}
}

void
acc_quantile(const struct acc *a, const double *sorted, double p, struct text *t)
{
	size_t lo, i;
	double frac, q = quantile(sorted, a->vn, p, &lo, &frac);

	if (frac != 0) {
		text_double(t, q);
		return;
	}
	for (i = 0; i < a->vn; i++)
		if (memcmp(&a->v[i], &sorted[lo], sizeof(double)) == 0)
			break;
	gettext(a->ref[i], t);
}
