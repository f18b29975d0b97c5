/*
 * fuzz.h: what the fuzz targets share. Each target defines
 * LLVMFuzzerTestOneInput, which libFuzzer (clang -fsanitize=fuzzer), AFL++
 * (afl-clang-fast -fsanitize=fuzzer) and the plain replay driver (driver.c)
 * all call. A target checks properties, not only "no crash": a broken one
 * is reported by FUZZ_CHECK, which prints what differed and aborts, so
 * every engine sees a crash and keeps the input.
 */
#ifndef PERFGATE_FUZZ_H
#define PERFGATE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz: %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* The same double, bit for bit: -0 is not 0, and a NaN would be itself. */
static inline int
fuzz_samebits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* strtod on s[0..len), which need not end in NUL. */
static inline double
fuzz_strtod(const char *s, size_t len)
{
	char small[128], *buf = small;
	double v;

	if (len >= sizeof small && (buf = malloc(len + 1)) == NULL)
		abort();
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, NULL);
	if (buf != small)
		free(buf);
	return v;
}

/*
 * Is s[0..len) a JSON number (RFC 8259): -? (0 | [1-9][0-9]*) (. [0-9]+)?
 * ([eE] [+-]? [0-9]+)? Written as plainly as the grammar, apart from the
 * parser under test.
 */
static inline int
fuzz_isjsonnumber(const char *s, size_t len)
{
	size_t i = 0, d;

	if (i < len && s[i] == '-')
		i++;
	if (i < len && s[i] == '0')
		i++;
	else if (i < len && s[i] >= '1' && s[i] <= '9')
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return 0;
	if (i < len && s[i] == '.') {
		d = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	return i == len;
}

#endif
