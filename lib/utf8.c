/*
 * utf8: UTF-8 validation by RFC 3629 (see utf8.h).
 */
#include <stddef.h>

#include "utf8.h"

int
utf8_seqlen(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xBF;
	int n, i;

	/* The second byte's range shuts out overlong forms, surrogates and U+110000 up. */
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (end - p < n)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return n;
}

size_t
utf8_valid(const unsigned char *s, size_t len)
{
	const unsigned char *p = s, *end = s + len;
	int n;

	while (p < end) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((n = utf8_seqlen(p, end)) == 0)
			break;
		p += n;
	}
	return (size_t)(p - s);
}
