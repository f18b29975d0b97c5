/*
 * jsonwrite: the one writer of JSON text (see jsonwrite.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "jsonwrite.h"
#include "utf8.h"
#include "util.h"

void
jesc(const char *s, size_t len, void (*put)(void *ctx, const char *p, size_t n), void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char esc[8];
	int n;

	while (p < end) {
		const unsigned char *run = p;

		/* The common case: a run of plain ASCII, written at once. */
		while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			put(ctx, (const char *)run, (size_t)(p - run));
		if (p == end)
			break;
		if (*p >= 0x80) {
			if ((n = utf8_seqlen(p, end)) > 0) {
				put(ctx, (const char *)p, (size_t)n);
				p += n;
			} else {
				put(ctx, "\\ufffd", 6);
				p++;
			}
			continue;
		}
		esc[0] = '\\';
		switch (*p) {
		case '"': esc[1] = '"'; n = 2; break;
		case '\\': esc[1] = '\\'; n = 2; break;
		case '\b': esc[1] = 'b'; n = 2; break;
		case '\f': esc[1] = 'f'; n = 2; break;
		case '\n': esc[1] = 'n'; n = 2; break;
		case '\r': esc[1] = 'r'; n = 2; break;
		case '\t': esc[1] = 't'; n = 2; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			n = 6;
		}
		put(ctx, esc, (size_t)n);
		p++;
	}
}

static void
put_file(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

void
jescape(FILE *fp, const char *s, size_t len)
{
	jesc(s, len, put_file, fp);
}

void
jput_str(FILE *fp, const char *s)
{
	if (s == NULL) {
		fputs("null", fp);
		return;
	}
	fputc('"', fp);
	jescape(fp, s, strlen(s));
	fputc('"', fp);
}

void
jput_double(FILE *fp, int have, double v)
{
	char buf[32];

	if (!have || !isfinite(v)) {
		fputs("null", fp);
		return;
	}
	fmt_double(buf, v);
	fputs(buf, fp);
}

void
jput_raw(FILE *fp, const struct jfield *f)
{
	if (f == NULL)
		fputs("null", fp);
	else
		fwrite(f->raw, 1, f->rawlen, fp);
}

void
jw_begin(struct jwriter *w, FILE *fp)
{
	w->fp = fp;
	w->members = 0;
	w->depth = 0;
	fputc('{', fp);
}

void
jw_keyn(struct jwriter *w, const char *key, size_t keylen)
{
	if (w->members++ > 0)
		fputc(',', w->fp);
	if (key == NULL)
		return;
	fputc('"', w->fp);
	jescape(w->fp, key, keylen);
	fputs("\":", w->fp);
}

void
jw_keyraw(struct jwriter *w, const char *key, size_t keylen)
{
	if (w->members++ > 0)
		fputc(',', w->fp);
	if (key == NULL)
		return;
	fputc('"', w->fp);
	fwrite(key, 1, keylen, w->fp);
	fputs("\":", w->fp);
}

void
jw_key(struct jwriter *w, const char *key)
{
	jw_keyn(w, key, key != NULL ? strlen(key) : 0);
}

void
jw_str(struct jwriter *w, const char *key, const char *s)
{
	jw_key(w, key);
	jput_str(w->fp, s);
}

void
jw_strn(struct jwriter *w, const char *key, const char *s, size_t len)
{
	jw_key(w, key);
	fputc('"', w->fp);
	jescape(w->fp, s, len);
	fputc('"', w->fp);
}

void
jw_num(struct jwriter *w, const char *key, double v)
{
	jw_key(w, key);
	jput_double(w->fp, 1, v);
}

void
jw_long(struct jwriter *w, const char *key, long long v)
{
	jw_key(w, key);
	fprintf(w->fp, "%lld", v);
}

void
jw_bool(struct jwriter *w, const char *key, int v)
{
	jw_key(w, key);
	fputs(v ? "true" : "false", w->fp);
}

void
jw_null(struct jwriter *w, const char *key)
{
	jw_key(w, key);
	fputs("null", w->fp);
}

void
jw_raw(struct jwriter *w, const char *key, const char *raw, size_t len)
{
	jw_key(w, key);
	fwrite(raw, 1, len, w->fp);
}

void
jw_rawstr(struct jwriter *w, const char *key, const char *val, size_t len)
{
	jw_keyraw(w, key, key != NULL ? strlen(key) : 0);
	fputc('"', w->fp);
	fwrite(val, 1, len, w->fp);
	fputc('"', w->fp);
}

void
jw_field(struct jwriter *w, const struct jfield *f)
{
	jw_keyraw(w, f->key, f->keylen);
	fwrite(f->raw, 1, f->rawlen, w->fp);
}

void
jw_open(struct jwriter *w, const char *key, char c)
{
	if (w->depth == JW_DEPTH)
		die("jw_open: more than %d levels", JW_DEPTH);
	jw_key(w, key);
	fputc(c, w->fp);
	w->outer[w->depth] = w->members;
	w->close[w->depth++] = c == '[' ? ']' : '}';
	w->members = 0;
}

void
jw_close(struct jwriter *w)
{
	if (w->depth == 0)
		die("jw_close: nothing open");
	fputc(w->close[--w->depth], w->fp);
	w->members = w->outer[w->depth];
}

int
jw_end(struct jwriter *w)
{
	fputs("}\n", w->fp);
	return ferror(w->fp) ? -1 : 0;
}
