/*
 * jsonfmt: print a fixed, seeded series of numbers and byte strings as
 * JSON, either by bench.h's writer (jsonfmt bench) or by the tools' one
 * writer, lib/jsonwrite.c (jsonfmt lib), one value a line, so that a test
 * can hold the two to the same text byte for byte. The series mixes
 * hand-picked awkward values with random bit patterns and random bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "jsonwrite.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

static uint64_t
next(void)
{
	/* xorshift64*: the same series on every machine. */
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717u;
}

static const double picked[] = {
	0, 1, 10, 100, 1e21, 1e22, 0.1, 0.5, 27390.6875, 987.45703125, 1e-7,
	123456789, 3584410, 231770, 226789, 5e-324, 2.2250738585072014e-308,
	1.7976931348623157e308, 64.6152, 743.542, 1e15, 1e16, 1e17, 12345678901234567.0
};

int
main(int argc, char **argv)
{
	int bench = argc == 2 && strcmp(argv[1], "bench") == 0;
	char buf[32], str[24];
	size_t i, k, n;
	uint64_t bits;
	double v;

	if (argc != 2 || (!bench && strcmp(argv[1], "lib") != 0)) {
		fprintf(stderr, "usage: jsonfmt bench | lib\n");
		return 2;
	}
	for (i = 0; i < 200000; i++) {
		if (i < sizeof picked / sizeof picked[0])
			v = picked[i];
		else if (i % 3 == 0)
			v = (double)(next() % 100000000) / (double)(1u << (next() % 20));
		else {
			do {
				bits = next() & ~(UINT64_C(1) << 63);
				memcpy(&v, &bits, sizeof v);
			} while (v != v || v > 1.7976931348623157e308);
		}
		if (bench) {
			bench_fmt_(buf, v);
			fputs(buf, stdout);
		} else
			jput_double(stdout, 1, v);
		putchar('\n');
	}
	for (i = 0; i < 100000; i++) {
		/* Bytes of every kind, weighted to UTF-8's lead and tail bytes. */
		n = (size_t)(next() % (sizeof str - 1));
		for (k = 0; k < n; k++) {
			bits = next();
			str[k] = (char)(bits % 4 == 0 ? 0x80 + bits / 4 % 0x80 : bits % 4 == 1 ? bits / 4 % 0x20 : bits / 4 % 0x100);
			if (str[k] == '\0')
				str[k] = 'x';
		}
		str[n] = '\0';
		if (bench)
			bench_putstr_(str);
		else
			jput_str(stdout, str);
		putchar('\n');
	}
	return ferror(stdout) ? 2 : 0;
}
