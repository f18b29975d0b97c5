/*
 * utf8check: check utf8_valid (lib/utf8.c) against a decoder written the
 * other way round (code points first, then RFC 3629's limits) on every
 * sequence of up to three bytes, and on four-byte sequences with every
 * first two bytes and the edge values of the last two. Prints one line of
 * counts; exits 0, or 1 on any disagreement.
 */
#include <stddef.h>
#include <stdio.h>

#include "utf8.h"

static long checked, bad;

/* The reference: decode, then refuse overlong forms, surrogates and U+110000 up. */
static size_t
reference(const unsigned char *s, size_t len)
{
	size_t i = 0, k, need;
	unsigned long cp, min;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xE0) == 0xC0)
			need = 1, cp = s[i] & 0x1F, min = 0x80;
		else if ((s[i] & 0xF0) == 0xE0)
			need = 2, cp = s[i] & 0x0F, min = 0x800;
		else if ((s[i] & 0xF8) == 0xF0)
			need = 3, cp = s[i] & 0x07, min = 0x10000;
		else
			return i;
		if (len - i <= need)
			return i;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			return i;
		i += need + 1;
	}
	return len;
}

static void
check(const unsigned char *s, size_t len)
{
	size_t want = reference(s, len), got = utf8_valid(s, len);

	checked++;
	if (got != want && ++bad <= 10)
		fprintf(stderr, "utf8check: %02x %02x %02x %02x (%zu bytes): utf8_valid %zu, reference %zu\n",
		    s[0], len > 1 ? s[1] : 0, len > 2 ? s[2] : 0, len > 3 ? s[3] : 0, len, got, want);
}

int
main(void)
{
	static const unsigned char edge[] = { 0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xF4, 0xFF };
	unsigned char s[4];
	unsigned a, b, c, d;

	for (a = 0; a < 256; a++) {
		s[0] = (unsigned char)a;
		check(s, 1);
		for (b = 0; b < 256; b++) {
			s[1] = (unsigned char)b;
			check(s, 2);
			for (c = 0; c < 256; c++) {
				s[2] = (unsigned char)c;
				check(s, 3);
			}
			for (c = 0; c < sizeof edge; c++)
				for (d = 0; d < sizeof edge; d++) {
					s[2] = edge[c];
					s[3] = edge[d];
					check(s, 4);
				}
		}
	}
	printf("utf8check: %ld texts, %ld wrong\n", checked, bad);
	return bad == 0 ? 0 : 1;
}
