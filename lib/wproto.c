/*
 * wproto: reply lines of the worker protocol (wproto.h). Strict: one
 * space between fields, printable ASCII, numbers in full.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wproto.h"

static int
printable(const char *s, size_t n, int spaces)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < (spaces ? 0x20 : 0x21) || s[i] > 0x7e)
			return 0;
	return 1;
}

static int
starts(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && memcmp(line, word, n) == 0;
}

const char *
wreply_parse(char op, const char *line, size_t len, struct wreply *r)
{
	const char *v = line + 3;
	size_t vn = len >= 3 ? len - 3 : 0, i;
	char num[64], *end;

	memset(r, 0, sizeof *r);
	if (len + 1 > WPROTO_LINE_MAX)
		return "reply longer than 4096 bytes";
	if (!printable(line, len, 1))
		return "reply not printable ASCII";
	if (starts(line, len, "err ") && len > 4) {
		r->err = 1;
		memcpy(r->text, line + 4, len - 4);
		return NULL;
	}
	switch (op) {
	case 'L':
		if (!starts(line, len, "ok ") || vn != 64)
			return "expected 'ok <sha256>'";
		for (i = 0; i < 64; i++)
			if (strchr("0123456789abcdef", v[i]) == NULL || v[i] == '\0')
				return "expected 'ok <sha256>': 64 lowercase hex digits";
		memcpy(r->sha256, v, 64);
		return NULL;
	case 'W':
		return len == 2 && memcmp(line, "ok", 2) == 0 ? NULL : "expected 'ok'";
	case 'T':
		if (!starts(line, len, "ns ") || vn == 0 || vn >= sizeof num ||
		    !printable(v, vn, 0) || strchr("0123456789", v[0]) == NULL)
			return "expected 'ns <float>'";
		memcpy(num, v, vn);
		num[vn] = '\0';
		errno = 0;
		r->ns = strtod(num, &end);
		if (*end != '\0' || errno != 0 || !isfinite(r->ns) || r->ns < 0)
			return "expected 'ns <float>': a finite time of 0 or more";
		return NULL;
	case 'E':
		if (!starts(line, len, "ok ") || vn == 0 || vn > 18 || (v[0] == '0' && vn > 1))
			return "expected 'ok <n_nonfinite>'";
		for (i = 0; i < vn; i++) {
			if (v[i] < '0' || v[i] > '9')
				return "expected 'ok <n_nonfinite>'";
			r->count = r->count * 10 + (v[i] - '0');
		}
		return NULL;
	case 'V':
		if (len < 3 || memcmp(line, "v ", 2) != 0)
			return "expected 'v k=v ...'";
		/* Each field k=v, a nonempty key and value, one space apart. */
		for (i = 2; i < len; ) {
			size_t s = i, eq = 0;

			while (i < len && line[i] != ' ') {
				if (line[i] == '=' && eq == 0)
					eq = i;
				i++;
			}
			if (eq == 0 || eq == s || eq + 1 == i)
				return "expected 'v k=v ...'";
			if (i < len && ++i == len)
				return "expected 'v k=v ...'";
		}
		memcpy(r->text, line + 2, len - 2);
		return NULL;
	}
	return "no such request";
}

int
wreply_vget(const char *text, const char *key, char *out, size_t size)
{
	size_t kl = strlen(key), n;
	const char *p = text, *e;

	while (*p != '\0') {
		e = strchr(p, ' ');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n > kl && memcmp(p, key, kl) == 0 && p[kl] == '=') {
			n -= kl + 1;
			if (n >= size)
				n = size - 1;
			memcpy(out, p + kl + 1, n);
			out[n] = '\0';
			return 1;
		}
		p += n + (e != NULL);
	}
	return 0;
}
