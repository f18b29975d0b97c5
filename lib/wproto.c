/*
 * wproto: reply lines of the worker protocol (wproto.h). Strict: one
 * space between fields, printable ASCII, numbers in full.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"
#include "jsonvalue.h"
#include "util.h"
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
		/* Two counts, each a decimal of at most 18 digits, no leading zero. */
		if (!starts(line, len, "ok "))
			return "expected 'ok <n_nonfinite> <n_raised>'";
		for (i = 0; i < 2; i++) {
			long *out = i == 0 ? &r->count : &r->raised;
			size_t k = 0;

			/* Digits past the 18th are counted, not added: no overflow. */
			for (*out = 0; k < vn && v[k] >= '0' && v[k] <= '9'; k++)
				if (k < 18)
					*out = *out * 10 + (v[k] - '0');
			if (k == 0 || k > 18 || (v[0] == '0' && k > 1) ||
			    (i == 0 ? k >= vn || v[k] != ' ' : k != vn))
				return "expected 'ok <n_nonfinite> <n_raised>'";
			v += k + 1;
			vn -= k + 1;
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

/* A count of a JSON reply: a whole number from 0. */
static int
count(const struct jrecord *rec, const char *key, long *out)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	if (f == NULL || f->type != J_NUMBER || f->num < 0 || f->num > 1e18 || f->num != floor(f->num))
		return 0;
	*out = (long)f->num;
	return 1;
}

const char *
wreply_parse_json(char op, const char *line, size_t len, struct wreply *r)
{
	struct jrecord rec = { 0 };
	const struct jfield *f, *ok;
	const char *err = NULL;
	size_t i, n = 0;

	memset(r, 0, sizeof *r);
	if (len + 1 > WPROTO_LINE_MAX)
		return "reply longer than 4096 bytes";
	if (!printable(line, len, 1))
		return "reply not printable ASCII";
	if (jparse(line, len, &rec) != NULL) {
		jrecord_free(&rec);
		return "expected a JSON object";
	}
	ok = jget(&rec, "ok", 2);
	if (ok == NULL || (ok->type != J_TRUE && ok->type != J_FALSE)) {
		err = "expected a JSON object with \"ok\": true or false";
	} else if (ok->type == J_FALSE) {
		f = jget(&rec, "error", 5);
		if (f == NULL || f->type != J_STRING || f->rawlen == 0 || f->rawlen >= sizeof r->text)
			err = "expected {\"ok\":false,\"error\":\"why\"}";
		else {
			r->err = 1;
			memcpy(r->text, f->raw, f->rawlen);
		}
	} else if (op == 'L') {
		f = jget(&rec, "sha256", 6);
		if (f == NULL || f->type != J_STRING || f->rawlen != 64 ||
		    strspn(f->raw, "0123456789abcdef") < 64)
			err = "expected \"sha256\": 64 lowercase hex digits";
		else
			memcpy(r->sha256, f->raw, 64);
	} else if (op == 'T') {
		f = jget(&rec, "ns", 2);
		if (f == NULL || f->type != J_NUMBER || !isfinite(f->num) || f->num < 0)
			err = "expected \"ns\": a finite time of 0 or more";
		else
			r->ns = f->num;
	} else if (op == 'E') {
		if (!count(&rec, "n_nonfinite", &r->count) || !count(&rec, "n_raised", &r->raised))
			err = "expected \"n_nonfinite\" and \"n_raised\": whole numbers from 0";
	} else if (op == 'V') {
		/* Each member but ok as k=v: a key and a value with no blank or '='. */
		for (i = 0; i < rec.n && err == NULL; i++) {
			f = &rec.field[i];
			if (f == ok)
				continue;
			if ((f->type != J_STRING && f->type != J_NUMBER) || f->keylen == 0 ||
			    f->rawlen == 0 || memchr(f->key, ' ', f->keylen) || memchr(f->key, '=', f->keylen) ||
			    memchr(f->key, '\\', f->keylen) || memchr(f->raw, ' ', f->rawlen) ||
			    memchr(f->raw, '\\', f->rawlen) || n + f->keylen + f->rawlen + 2 >= sizeof r->text) {
				err = "expected V's members strings or numbers without blanks";
				break;
			}
			n += (size_t)snprintf(r->text + n, sizeof r->text - n, "%s%.*s=%.*s", n ? " " : "",
			    (int)f->keylen, f->key, (int)f->rawlen, f->raw);
		}
		if (err == NULL && n == 0)
			err = "expected V's versions and threads";
	} else if (op != 'W') {
		err = "no such request";
	}
	jrecord_free(&rec);
	return err;
}

const char *
wreply_one_thread(const char *text, char *why, size_t size)
{
	const char *p = text, *e, *eq;
	char v[64];
	size_t n;

	if (!wreply_vget(text, "threads", v, sizeof v)) {
		snprintf(why, size, "reports no threads");
		return why;
	}
	if (strcmp(v, "1") != 0) {
		snprintf(why, size, "reports threads=%s, not one", v);
		return why;
	}
	/* Every runtime's own count, *_threads, at one too. */
	while (*p != '\0') {
		e = strchr(p, ' ');
		n = e ? (size_t)(e - p) : strlen(p);
		eq = memchr(p, '=', n);
		if (eq != NULL && eq - p > 8 && memcmp(eq - 8, "_threads", 8) == 0 &&
		    (n - (size_t)(eq - p) != 2 || eq[1] != '1')) {
			snprintf(why, size, "reports %.*s, not one", (int)n, p);
			return why;
		}
		p += n + (e != NULL);
	}
	if (!wreply_vget(text, "threads_source", v, sizeof v) ||
	    (strcmp(v, "omp") != 0 && strcmp(v, "proc") != 0 && strcmp(v, "assumed") != 0)) {
		snprintf(why, size, "reports %s%s, not threads_source omp, proc or assumed",
		    wreply_vget(text, "threads_source", v, sizeof v) ? "threads_source=" : "no threads_source",
		    wreply_vget(text, "threads_source", v, sizeof v) ? v : "");
		return why;
	}
	return NULL;
}

int
warg_f64(const unsigned char *in, size_t len, size_t n, unsigned char *out)
{
	size_t i;
	uint64_t u;
	double v;
	float f;
	int k;

	if (len != n * 4 && len != n * 8)
		return -1;
	for (i = 0; i < n; i++) {
		if (len == n * 4) {
			memcpy(&f, in + i * 4, 4);
			v = f;
		} else {
			memcpy(&v, in + i * 8, 8);
		}
		memcpy(&u, &v, 8);
		for (k = 0; k < 8; k++)
			out[i * 8 + (size_t)k] = (unsigned char)(u >> (8 * k));
	}
	return 0;
}

const char *
wresult_write(const unsigned char *b, size_t n, const char *type, FILE *fp, long *nonfinite,
    char *why, size_t size)
{
	int i32 = strcmp(type, "i32") == 0, k;
	char num[32];
	size_t i;
	uint64_t u;
	double v;

	*nonfinite = 0;
	for (i = 0; i < n; i++) {
		for (u = 0, k = 7; k >= 0; k--)
			u = u << 8 | b[i * 8 + (size_t)k];
		memcpy(&v, &u, 8);
		*nonfinite += !isfinite(v);
		if (!i32) {
			float f = (float)v;

			fwrite(&f, 4, 1, fp);
		} else if (v >= INT32_MIN && v <= INT32_MAX && v == floor(v)) {
			int32_t w = (int32_t)v;

			fwrite(&w, 4, 1, fp);
		} else {
			fmt_double(num, v);
			snprintf(why, size, "value %zu is %s, not an int32", i + 1, num);
			return why;
		}
	}
	return ferror(fp) ? "cannot be written" : NULL;
}
