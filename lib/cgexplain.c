/*
 * cgexplain: the explanation's records beside cgdiff's comparison of
 * functions (cgexplain.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgexplain.h"
#include "jsonl.h"
#include "jsonvalue.h"
#include "msg.h"
#include "util.h"

/* The last record of path, parsed into rec over *text (to free). */
static char *
last_record(const char *path, struct jrecord *rec, char **text)
{
	struct jreader r;
	const char *line, *why;
	size_t len;
	unsigned long at = 0;
	int got;

	*text = NULL;
	if (jreader_open(&r, path) != 0)
		return msgf("%s: %s", path, strerror(errno));
	while ((got = jreader_next(&r, &line, &len)) == 1) {
		free(*text);
		*text = xmalloc(len + 1);
		memcpy(*text, line, len);
		(*text)[len] = '\0';
		at = r.lineno;
	}
	jreader_close(&r);
	if (got < 0)
		return msgf("%s: %s", path, strerror(errno));
	if (*text == NULL)
		return msgf("%s: no record", path);
	if ((why = jparse(*text, strlen(*text), rec)) != NULL)
		return msgf("%s:%lu: %s", path, at, why);
	return NULL;
}

char *
cgx_names(const char *path, FILE *out)
{
	static const char *const arrays[] = { "regressed", "layout_suspect" };
	struct jrecord rec = { 0 };
	char *text, *why, **seen = NULL;
	size_t nseen = 0, i, len;
	const struct jfield *f;
	const char *p, *item;
	int a;

	if ((why = last_record(path, &rec, &text)) != NULL)
		goto out;
	for (a = 0; a < 2 && why == NULL; a++) {
		if ((f = jget(&rec, arrays[a], strlen(arrays[a]))) == NULL)
			continue;
		if (f->type != J_ARRAY) {
			why = msgf("%s: %s is not an array", path, arrays[a]);
			break;
		}
		for (p = f->raw + 1; why == NULL && json_nextitem(&p, f->raw + f->rawlen, &item, &len);) {
			char *name;

			while (len > 0 && strchr(" \t\r\n", item[len - 1]) != NULL)
				len--;
			if (*item != '"') {
				why = msgf("%s: %s holds a value that is no name", path, arrays[a]);
				break;
			}
			name = json_unescape(item + 1, len - 2);
			/* One a line: a name that holds a line's end would be two. */
			if (strcspn(name, "\n") != strlen(name) || *name == '\0') {
				why = msgf("%s: %s holds a name that is empty or holds a newline", path, arrays[a]);
				free(name);
				break;
			}
			for (i = 0; i < nseen && strcmp(seen[i], name) != 0; i++)
				;
			if (i < nseen) {
				free(name);
				continue;
			}
			seen = xrealloc(seen, (nseen + 1) * sizeof *seen);
			seen[nseen++] = name;
		}
	}
	for (i = 0; why == NULL && i < nseen; i++)
		fprintf(out, "%s\n", seen[i]);
out:
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	free(text);
	jrecord_free(&rec);
	return why;
}

int
cgx_unexplained(const char *metric, const char *why)
{
	struct jwriter w;

	jw_begin(&w, stdout);
	jw_str(&w, "metric", metric);
	jw_str(&w, "kind", "summary");
	jw_bool(&w, "explained", 0);
	jw_str(&w, "error", why);
	jw_end(&w);
	fprintf(stderr, "explain %s: no explanation: %s\n", metric, why);
	return fflush(stdout) != 0 || ferror(stdout) ? 2 : 0;
}

/* Member name of rec, a number, or NULL; another type is an error in *why. */
static const struct jfield *
count_of(const struct jrecord *rec, const char *name, const char *path, char **why)
{
	const struct jfield *f = jget(rec, name, strlen(name));

	if (f != NULL && f->type != J_NUMBER) {
		if (*why == NULL)
			*why = msgf("%s: %s is not a number", path, name);
		return NULL;
	}
	return f;
}

/* Whether two members, either absent, are the same as written. */
static int
same(const struct jfield *a, const struct jfield *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return a->rawlen == b->rawlen && memcmp(a->raw, b->raw, a->rawlen) == 0;
}

static void
put_count(struct jwriter *w, const char *key, const struct jfield *f)
{
	if (f != NULL)
		jw_raw(w, key, f->raw, f->rawlen);
	else
		jw_null(w, key);
}

static int
text_of(const struct jfield *f)
{
	return f != NULL ? (int)f->rawlen : 4;
}

char *
cgx_allocs_read(struct cgx_allocs *a, const char *key, const char *base, const char *head)
{
	char *why, *ka, *kb;
	size_t n;

	memset(a, 0, sizeof *a);
	if (key == NULL)
		return msgf("%s, %s: the counts of a case need -k key", base, head);
	/* The case: the key without its _instr. */
	n = strlen(key);
	if (n > 6 && strcmp(key + n - 6, "_instr") == 0)
		n -= 6;
	if ((why = last_record(base, &a->br, &a->bt)) != NULL || (why = last_record(head, &a->hr, &a->ht)) != NULL)
		return why;
	ka = msgf("%.*s_allocs", (int)n, key);
	kb = msgf("%.*s_alloc_bytes", (int)n, key);
	a->ba = count_of(&a->br, ka, base, &why);
	a->bb = count_of(&a->br, kb, base, &why);
	a->ha = count_of(&a->hr, ka, head, &why);
	a->hb = count_of(&a->hr, kb, head, &why);
	free(ka);
	free(kb);
	return why;
}

void
cgx_allocs_put(const struct cgx_allocs *a, const char *metric)
{
	struct jwriter w;

	if ((a->ba == NULL && a->ha == NULL && a->bb == NULL && a->hb == NULL) || (same(a->ba, a->ha) && same(a->bb, a->hb)))
		return;
	jw_begin(&w, stdout);
	jw_str(&w, "metric", metric);
	jw_str(&w, "kind", "allocs");
	put_count(&w, "base_allocs", a->ba);
	put_count(&w, "head_allocs", a->ha);
	put_count(&w, "base_alloc_bytes", a->bb);
	put_count(&w, "head_alloc_bytes", a->hb);
	jw_end(&w);
	fprintf(stderr, "  allocations a call: %.*s -> %.*s, bytes a call: %.*s -> %.*s\n", text_of(a->ba),
	    a->ba ? a->ba->raw : "none", text_of(a->ha), a->ha ? a->ha->raw : "none", text_of(a->bb),
	    a->bb ? a->bb->raw : "none", text_of(a->hb), a->hb ? a->hb->raw : "none");
}

void
cgx_allocs_free(struct cgx_allocs *a)
{
	free(a->bt);
	free(a->ht);
	jrecord_free(&a->br);
	jrecord_free(&a->hr);
}
