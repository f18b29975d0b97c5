/*
 * numcheck: check perfgate's number conversion (lib/jsonnum.c) against strtod
 * on numbers of every shape, and fmt_double (lib/util.c) for round trips.
 *
 * usage: numcheck [-f] [-n count] [-s seed]
 *
 * Generates count rounds (default 100000) of a dozen numbers, eight shapes, from a
 * seeded generator, so every run checks the same numbers: %.17g of random
 * doubles and of random bit patterns, 16 to 19 significant digits,
 * subnormals, exponents at the edges (1e-330 to 1e310), mantissas of 30 to
 * 400 digits, decimals next to the midpoint between two doubles (rounded
 * to 16 to 19 digits, where the Eisel-Lemire path must decide or give up),
 * and whole numbers up to 2^64. Each must convert to strtod's double bit
 * for bit (an overflow to infinity must be refused), through jnum_parse
 * and, for one in eight, through jparse and jparse_like as a record's
 * member. Each random double must also come back from fmt_double's text
 * unchanged. -f flips a bit of one result in a thousand, to show that the
 * check fails. Prints one line of counts; exits 0, or 1 on any mismatch.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonlayout.h"
#include "jsonnum.h"
#include "json.h"
#include "util.h"

#define MAXSHOWN 10

static uint64_t state;
static long checked, trips, bad, viarecord;
static int flip;
static struct jrecord rec;
static struct jlayout lay;

/* splitmix64: small, seeded, the same numbers on every machine. */
static uint64_t
rnd(void)
{
	uint64_t z = (state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* A whole number in [lo, hi]. */
static long
between(long lo, long hi)
{
	return lo + (long)(rnd() % (uint64_t)(hi - lo + 1));
}

static uint64_t
bitsof(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof b);
	return b;
}

static double
frombits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof d);
	return d;
}

static void
mismatch(const char *shape, const char *s, const char *what, double got, double want)
{
	if (++bad <= MAXSHOWN)
		fprintf(stderr, "numcheck: %s: %.80s: %s: got %016llx, strtod %016llx\n",
		    shape, s, what, (unsigned long long)bitsof(got),
		    (unsigned long long)bitsof(want));
}

/* s through jnum_parse, and now and then through a record, against strtod. */
static void
check(const char *shape, const char *s)
{
	size_t len = strlen(s);
	const char *p = s, *err;
	char line[1100];
	double want, got = 0;
	int same, n;

	checked++;
	want = strtod(s, NULL);
	err = jnum_parse(&p, s + len, &got);
	if (flip && checked % 1000 == 0)
		got = frombits(bitsof(got) ^ 1);
	if (isinf(want)) {
		if (err == NULL)
			mismatch(shape, s, "overflow accepted", got, want);
		return;
	}
	if (err != NULL) {
		if (++bad <= MAXSHOWN)
			fprintf(stderr, "numcheck: %s: %.80s: refused: %s\n", shape, s, err);
		return;
	}
	if (p != s + len) {
		if (++bad <= MAXSHOWN)
			fprintf(stderr, "numcheck: %s: %.80s: stopped after %zu bytes\n",
			    shape, s, (size_t)(p - s));
		return;
	}
	if (bitsof(got) != bitsof(want)) {
		mismatch(shape, s, "jnum_parse", got, want);
		return;
	}
	if (checked % 8 != 0)
		return;
	/* As a member: jparse, then jparse_like on the same layout. */
	n = snprintf(line, sizeof line, "{\"a\":1,\"x\":%s}", s);
	if (n < 0 || (size_t)n >= sizeof line)
		return;
	viarecord++;
	if ((err = jparse(line, (size_t)n, &rec)) != NULL || rec.n != 2 ||
	    bitsof(rec.field[1].num) != bitsof(want)) {
		mismatch(shape, s, err != NULL ? err : "jparse", rec.n == 2 ? rec.field[1].num : 0, want);
		return;
	}
	if ((err = jparse_like(line, (size_t)n, &rec, &lay, &same)) != NULL || rec.n != 2 ||
	    bitsof(rec.field[1].num) != bitsof(want))
		mismatch(shape, s, err != NULL ? err : "jparse_like", rec.n == 2 ? rec.field[1].num : 0, want);
}

/* d's shortest text from fmt_double must read back to d, by strtod and jnum. */
static void
roundtrip(double d)
{
	char buf[32];
	const char *p = buf, *err;
	double v = 0;
	int n;

	if (!isfinite(d))
		return;
	trips++;
	n = fmt_double(buf, d);
	err = jnum_parse(&p, buf + n, &v);
	if (bitsof(strtod(buf, NULL)) != bitsof(d) || err != NULL || p != buf + n ||
	    bitsof(v) != bitsof(d))
		mismatch("fmt_double", buf, err != NULL ? err : "round trip", v, d);
}

/* A random finite double of any magnitude: random bits, the exponent's all-ones skipped. */
static double
anydouble(void)
{
	uint64_t b;

	do
		b = rnd();
	while ((b >> 52 & 0x7FF) == 0x7FF);
	return frombits(b);
}

/* ndig random significant digits, the first not 0, into s. */
static void
digits(char *s, int ndig)
{
	int i;

	s[0] = (char)('1' + rnd() % 9);
	for (i = 1; i < ndig; i++)
		s[i] = (char)('0' + rnd() % 10);
	s[ndig] = '\0';
}

/*
 * A JSON number of the digits d (no leading zero) times 10^e, in one of
 * three spellings: d.ddde±x, ddd.ddd or 0.000ddd; a sign now and then.
 * out has room for strlen(d) + 60 bytes.
 */
static void
spell(char *out, const char *d, long e)
{
	int nd = (int)strlen(d), point = nd + (int)e;	/* digits before the point */
	char *o = out;
	long x;

	if (rnd() % 4 == 0)
		*o++ = '-';
	if (rnd() % 3 == 0 || point > 40 || point < -40) {
		x = point - 1;
		*o++ = d[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, d + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		*o++ = rnd() % 2 ? 'e' : 'E';
		if (x < 0)
			*o++ = '-';
		else if (rnd() % 2)
			*o++ = '+';
		sprintf(o, "%ld", x < 0 ? -x : x);
		return;
	}
	if (point >= nd) {
		memcpy(o, d, (size_t)nd);
		o += nd;
		memset(o, '0', (size_t)(point - nd));
		o += point - nd;
	} else if (point > 0) {
		memcpy(o, d, (size_t)point);
		o += point;
		*o++ = '.';
		memcpy(o, d + point, (size_t)(nd - point));
		o += nd - point;
	} else {
		*o++ = '0';
		*o++ = '.';
		memset(o, '0', (size_t)-point);
		o += -point;
		memcpy(o, d, (size_t)nd);
		o += nd;
	}
	*o = '\0';
}

static void
shapes(long count)
{
	char s[1100], d[900];
	long i;
	int k;

	for (i = 0; i < count; i++) {
		/* %.17g of doubles as measurements: a quotient of nanoseconds by calls. */
		double q = (double)between(1, 2000000000) / (double)between(1, 100000);

		snprintf(s, sizeof s, "%.17g", q);
		check("quotient", s);
		snprintf(s, sizeof s, "%.*g", (int)between(1, 16), q);
		check("quotient", s);
		roundtrip(q);

		/* %.17g of random bit patterns: every magnitude, subnormals included. */
		q = anydouble();
		snprintf(s, sizeof s, "%.17g", q);
		check("bits", s);
		/* fmt_double writes 1e300 with %f first: one in sixteen is enough. */
		if (i % 16 == 0)
			roundtrip(q);

		/* 16 to 19 significant digits, exponents where measurements live. */
		digits(d, (int)between(16, 19));
		spell(s, d, between(-40, 25));
		check("digits", s);

		/* Subnormals: their bits, and short decimals down to 1e-330. */
		q = frombits(rnd() & 0x000FFFFFFFFFFFFFULL);
		snprintf(s, sizeof s, "%.17g", q);
		check("subnormal", s);
		if (i % 16 == 0)
			roundtrip(q);
		digits(d, (int)between(1, 19));
		spell(s, d, between(-345, -300));
		check("subnormal", s);

		/* The edges: DBL_MAX and beyond, the smallest normal and below. */
		digits(d, (int)between(1, 19));
		spell(s, d, rnd() % 2 ? between(280, 310) : between(-330, -290));
		check("edge", s);

		/* Long mantissas, 30 to 400 digits: the slow path's. */
		if (i % 4 == 0) {
			digits(d, (int)between(30, 400));
			spell(s, d, between(-420, 300));
			check("long", s);
		}

		/* Whole numbers up to 2^64, ties above 2^53 included. */
		snprintf(s, sizeof s, "%llu", (unsigned long long)(rnd() >> between(0, 20)));
		check("whole", s);

#if LDBL_MANT_DIG > DBL_MANT_DIG
		/*
		 * Next to a midpoint: the exact midpoint between a double and the
		 * next (exact in long double), rounded to 16 to 19 digits, then
		 * nudged by one in the last digit.
		 */
		{
			double lo = fabs(anydouble()), hi = nextafter(lo, INFINITY);
			long double mid = ((long double)lo + hi) / 2;
			char *e;
			int nd = (int)between(16, 19), last;

			if (isinf(hi))
				continue;
			snprintf(s, sizeof s, "%.*Le", nd - 1, mid);
			check("halfway", s);
			/* s is d.ddd...e±x: nudge the last digit before the 'e'. */
			if ((e = strchr(s, 'e')) == NULL)
				continue;
			last = e[-1] - '0';
			k = rnd() % 2 ? 1 : -1;
			if (last + k < 0 || last + k > 9)
				continue;
			e[-1] = (char)('0' + last + k);
			check("halfway", s);
		}
#endif
	}
}

int
main(int argc, char *argv[])
{
	long count = 100000;
	const char *why;
	int c;

	setargv0(argv[0]);
	state = 20261130;
	while ((c = getopt(argc, argv, "fn:s:")) != -1) {
		switch (c) {
		case 'f':
			flip = 1;
			break;
		case 'n':
			if ((why = parse_long(optarg, 1, 100000000, &count)) != NULL)
				die("-n %s: %s", optarg, why);
			break;
		case 's':
			state = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: numcheck [-f] [-n count] [-s seed]\n");
			return 2;
		}
	}
	shapes(count);
	printf("numcheck: %ld numbers (%ld also in records), %ld round trips, %ld wrong\n",
	    checked, viarecord, trips, bad);
	jrecord_free(&rec);
	jlayout_free(&lay);
	return bad == 0 ? 0 : 1;
}
