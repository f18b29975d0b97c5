/*
 * Fuzz target: number conversion, both ways (jparse's reader in
 * lib/jsonl.c, fmt_double in lib/util.c).
 *
 * The input as a lexeme: {"x":INPUT} is one member x, a number whose raw
 * text is the whole input, exactly when the input is a JSON number that
 * strtod reads as finite; its value is strtod's, bit for bit; a JSON
 * number strtod reads as infinite is "number out of range"; and
 * jparse_like, on a line of the same layout, agrees.
 *
 * The first 8 bytes as a double v, when finite: fmt_double(v) is a JSON
 * number, reads back (strtod and jparse) as v bit for bit, and is no
 * longer than %g with the fewest digits that read back. Then v printed by
 * printf (%.Ne, %.Ng, %.Nf, N from the ninth byte, 0 to 40, or 17) and
 * the exact midpoints between v and its neighbours (the ties the fast
 * paths must leave to strtod) all read as strtod reads them.
 */
#include <float.h>
#include <math.h>

#include "fuzz.h"
#include "jsonl.h"
#include "util.h"

static struct jrecord rec;

/* jparse {"x":text} alone, then after a line of its layout through jparse_like. */
static const char *
parse_x(const char *text, size_t len, double *num, int *whole)
{
	static struct jlayout lay;
	static struct jrecord rec2;
	static char msg[256];
	char *line = malloc(len + 6);
	const char *err, *err2;
	int same;

	if (line == NULL)
		abort();
	memcpy(line, "{\"x\":", 5);
	memcpy(line + 5, text, len);
	line[len + 5] = '}';
	err = jparse(line, len + 6, &rec);
	if (err != NULL) {
		snprintf(msg, sizeof msg, "%s", err);
		err = msg;
	}
	*whole = err == NULL && rec.n == 1 && rec.field[0].type == J_NUMBER &&
	    rec.field[0].raw == line + 5 && rec.field[0].rawlen == len;
	if (*whole)
		*num = rec.field[0].num;
	/* The layout is {"x": and }, kept from this record: the fast path parses the value alone. */
	if (jparse_like("{\"x\":0}", 7, &rec2, &lay, &same) != NULL)
		abort();
	err2 = jparse_like(line, len + 6, &rec2, &lay, &same);
	FUZZ_CHECK((err == NULL) == (err2 == NULL) && (err == NULL || strcmp(err, err2) == 0),
	    "%.*s: jparse says %s, jparse_like %s", (int)len, text, err ? err : "valid",
	    err2 ? err2 : "valid");
	if (err == NULL && *whole)
		FUZZ_CHECK(same && fuzz_samebits(rec2.field[0].num, *num), "%.*s: jparse_like %a, jparse %a",
		    (int)len, text, rec2.field[0].num, *num);
	free(line);
	return err;
}

static void
check_lexeme(const char *text, size_t len)
{
	const char *err;
	double num = 0, want;
	int whole, valid = fuzz_isjsonnumber(text, len);

	err = parse_x(text, len, &num, &whole);
	if (!valid) {
		FUZZ_CHECK(!whole, "%.*s is no JSON number, read as %a", (int)len, text, num);
		return;
	}
	want = fuzz_strtod(text, len);
	if (isinf(want)) {
		FUZZ_CHECK(err != NULL && strcmp(err, "number out of range") == 0,
		    "%.*s overflows, jparse says %s", (int)len, text, err ? err : "valid");
		return;
	}
	FUZZ_CHECK(whole, "%.*s: %s", (int)len, text, err ? err : "not one number member");
	FUZZ_CHECK(fuzz_samebits(num, want), "%.*s reads %a, strtod %a", (int)len, text, num, want);
}

static void
check_double(double v, int prec)
{
	char buf[64], big[512];
	double back, num;
	int len, glen = 0, p, whole;
	long double lo, hi, next;

	len = fmt_double(buf, v);
	FUZZ_CHECK(len > 0 && len < 32 && (size_t)len == strlen(buf), "%a: fmt_double length %d", v, len);
	FUZZ_CHECK(fuzz_isjsonnumber(buf, (size_t)len), "%a: fmt_double wrote %s", v, buf);
	back = strtod(buf, NULL);
	FUZZ_CHECK(fuzz_samebits(back, v), "%a: fmt_double wrote %s, which reads %a", v, buf, back);
	FUZZ_CHECK(parse_x(buf, (size_t)len, &num, &whole) == NULL && whole && fuzz_samebits(num, v),
	    "%a: fmt_double wrote %s, which jparse reads %a", v, buf, num);
	/* Shortest: no longer than %g with the fewest digits that read back. */
	for (p = 1; p <= 17; p++) {
		glen = snprintf(big, sizeof big, "%.*g", p, v);
		if (fuzz_samebits(strtod(big, NULL), v))
			break;
	}
	FUZZ_CHECK(p <= 17 && (int)strlen(buf) <= glen, "%a: fmt_double wrote %s, %s is shorter",
	    v, buf, big);
	/* Every form at one precision, so that an input stays cheap and the fuzzer picks it. */
	len = snprintf(big, sizeof big, "%.*e", prec, v);
	check_lexeme(big, (size_t)len);
	len = snprintf(big, sizeof big, "%.*g", prec > 0 ? prec : 1, v);
	check_lexeme(big, (size_t)len);
	if (fabs(v) < 1e30 && prec <= 30) {
		len = snprintf(big, sizeof big, "%.*f", prec, v);
		check_lexeme(big, (size_t)len);
	}
	/* Halfway to each neighbour: a long double holds it exactly (64-bit mantissa). */
	if (LDBL_MANT_DIG >= 64) {
		next = nextafter(v, HUGE_VAL);
		hi = ((long double)v + next) / 2;
		next = nextafter(v, -HUGE_VAL);
		lo = ((long double)v + next) / 2;
		if (isfinite(hi)) {
			len = snprintf(big, sizeof big, "%.*Le", prec + 16, hi);
			check_lexeme(big, (size_t)len);
		}
		if (isfinite(lo)) {
			len = snprintf(big, sizeof big, "%.*Le", prec + 16, lo);
			check_lexeme(big, (size_t)len);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double v;

	check_lexeme((const char *)data, size);
	if (size >= 8) {
		memcpy(&v, data, sizeof v);
		/* The ninth byte, if any, picks the precision printf uses (0 to 40). */
		if (isfinite(v))
			check_double(v, size > 8 ? data[8] % 41 : 17);
	}
	return 0;
}
