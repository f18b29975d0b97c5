/*
 * jsonwrite: the one writer of JSON text. Every record a tool writes goes
 * through these functions, so that strings are escaped by one rule and
 * numbers formatted by one rule:
 *
 *   strings: '"' and '\' escaped, \b \f \n \r \t by name, the other control
 *   characters as \u00XX, and every byte that is not part of valid UTF-8
 *   (RFC 3629) as \ufffd, so that any bytes (a file name, a program's
 *   stderr) make valid JSON that every reader of ours accepts;
 *
 *   numbers: the shortest text that reads back to the same double
 *   (fmt_double), and null for NaN and the infinities, which JSON lacks.
 *
 * A record is begun, given members and ended:
 *
 *	struct jwriter w;
 *	jw_begin(&w, stdout);
 *	jw_str(&w, "metric", "sum_ns");
 *	jw_num(&w, "base", 8.25);
 *	jw_end(&w);			writes {"metric":"sum_ns","base":8.25}\n
 *
 * Values copied from input (a number "passed through unchanged") go out
 * with jw_raw, byte for byte.
 */
#ifndef PERFGATE_JSONWRITE_H
#define PERFGATE_JSONWRITE_H

#include <stddef.h>
#include <stdio.h>

/*
 * The escaper: s[0..len) as a JSON string body, given to put in pieces
 * (put(ctx, bytes, n)). jescape and buf_esc are this with a FILE or a buf.
 */
void jesc(const char *s, size_t len, void (*put)(void *ctx, const char *p, size_t n), void *ctx);

/* s[0..len) as a JSON string body (without the quotes) to fp. */
void jescape(FILE *fp, const char *s, size_t len);

/* s as a JSON string, quoted and escaped, or null when s is NULL. */
void jput_str(FILE *fp, const char *s);

/* v in the shortest form that reads back to it, or null when !have or v is not finite. */
void jput_double(FILE *fp, int have, double v);

struct jfield;
/* f's value byte for byte as the input had it, or null when f is NULL. */
void jput_raw(FILE *fp, const struct jfield *f);

/* Objects and arrays nest JW_DEPTH deep inside a record. */
enum { JW_DEPTH = 4 };

struct jwriter {
	FILE *fp;
	int members;		/* written so far at this level: a comma goes before the next */
	int depth;
	int outer[JW_DEPTH];	/* the enclosing levels' members */
	char close[JW_DEPTH];
};

/* Begin a record on fp: '{'. */
void jw_begin(struct jwriter *w, FILE *fp);
/*
 * The next member's key (escaped) and colon; its value follows. Inside an
 * array (jw_open with '[') the key is NULL: an item, a comma before it.
 */
void jw_key(struct jwriter *w, const char *key);
void jw_keyn(struct jwriter *w, const char *key, size_t keylen);
/* A key as read (jfield's key: escapes as written), passed through unchanged. */
void jw_keyraw(struct jwriter *w, const char *key, size_t keylen);
/* Members: a string (null when s is NULL), a number, an integer, a boolean, null. */
void jw_str(struct jwriter *w, const char *key, const char *s);
void jw_strn(struct jwriter *w, const char *key, const char *s, size_t len);
void jw_num(struct jwriter *w, const char *key, double v);
void jw_long(struct jwriter *w, const char *key, long long v);
void jw_bool(struct jwriter *w, const char *key, int v);
void jw_null(struct jwriter *w, const char *key);
/* A member whose value is JSON text already (a number as read, an array). */
void jw_raw(struct jwriter *w, const char *key, const char *raw, size_t len);
/* A member read from a record: its key and its string's body val[0..len) as written (escapes kept). */
void jw_rawstr(struct jwriter *w, const char *key, const char *val, size_t len);
/* A member read from a record (struct jfield): its key and value as written, passed through. */
void jw_field(struct jwriter *w, const struct jfield *f);
/* A member that is an object ('{') or an array ('['), ended by jw_close. */
void jw_open(struct jwriter *w, const char *key, char c);
void jw_close(struct jwriter *w);
/* End the record: "}\n". Returns 0, or -1 when fp has had an error. */
int jw_end(struct jwriter *w);

#endif
