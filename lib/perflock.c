/*
 * perflock: the pinned reference environment (perflock.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonl.h"
#include "jsonvalue.h"
#include "perfjson.h"
#include "perfprov.h"
#include "util.h"

/* One reference as the lock has it: its line, and its files sorted. */
struct ref {
	char *side, *package, *version;
	char **path, **sha;
	size_t n;
	unsigned long line;
};

static int
bypath(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
ref_free(struct ref *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->path[i]);
		free(r->sha[i]);
	}
	free(r->path);
	free(r->sha);
	free(r->side);
	free(r->package);
	free(r->version);
	memset(r, 0, sizeof *r);
}

static char *
str(const struct jrecord *o, const char *key, const char *where)
{
	const struct jfield *f = jget(o, key, strlen(key));

	if (f == NULL || f->type != J_STRING || f->rawlen == 0)
		die("%s: no string \"%s\"", where, key);
	return json_unescape(f->raw, f->rawlen);
}

/* What side says now, from its command's object in file: its files digested, sorted. */
static void
ref_now(struct ref *r, const char *side, const char *file)
{
	struct jrecord o = { 0 };
	const struct jfield *f;
	const char *p, *item, *err;
	char *text, hex[65], **order;
	size_t len, ilen, i;

	memset(r, 0, sizeof *r);
	text = read_all(file, &len);
	while (len > 0 && strchr(" \t\r\n", text[len - 1]) != NULL)
		len--;
	if ((err = jparse(text, len, &o)) != NULL)
		die("%s: %s", file, err);
	r->side = xstrdup(side);
	r->package = str(&o, "package", file);
	r->version = str(&o, "version", file);
	if ((f = jget(&o, "files", 5)) == NULL || f->type != J_ARRAY)
		die("%s: no array \"files\"", file);
	for (p = f->raw + 1; json_nextitem(&p, f->raw + f->rawlen, &item, &ilen); r->n++) {
		if (ilen < 2 || item[0] != '"')
			die("%s: \"files\": not a path", file);
		r->path = xrealloc(r->path, (r->n + 1) * sizeof *r->path);
		r->path[r->n] = json_unescape(item + 1, ilen - 2);
	}
	qsort(r->path, r->n, sizeof *r->path, bypath);
	order = r->path;
	r->sha = xmalloc((r->n ? r->n : 1) * sizeof *r->sha);
	for (i = 0; i < r->n; i++) {
		if (i > 0 && strcmp(order[i], order[i - 1]) == 0)
			die("%s: \"files\" names %s twice", file, order[i]);
		if (prov_file_sha256(order[i], hex) != 0)
			die("side %s: %s: cannot be read", side, order[i]);
		r->sha[i] = xstrdup(hex);
	}
	jrecord_free(&o);
	free(text);
}

static void
ref_line(struct buf *b, const struct ref *r)
{
	size_t i;

	buf_puts(b, "{\"reference\":");
	buf_str(b, r->side);
	buf_puts(b, ",\"package\":");
	buf_str(b, r->package);
	buf_puts(b, ",\"version\":");
	buf_str(b, r->version);
	buf_puts(b, ",\"files\":{");
	for (i = 0; i < r->n; i++) {
		buf_puts(b, i ? "," : "");
		buf_str(b, r->path[i]);
		buf_puts(b, ":");
		buf_str(b, r->sha[i]);
	}
	buf_puts(b, "}}\n");
}

void
lock_write(const char *path, char **side, char **file, int n)
{
	struct buf b = { 0 }, tmp = { 0 };
	struct ref r;
	struct stat st;
	int i, inplace;
	FILE *fp;

	for (i = 0; i < n; i++) {
		ref_now(&r, side[i], file[i]);
		ref_line(&b, &r);
		ref_free(&r);
	}
	/* Whole or not at all; a device, FIFO or symlink named is written in place. */
	inplace = lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
	buf_printf(&tmp, "%s.tmp", path);
	if ((fp = fopen(inplace ? path : tmp.p, "w")) == NULL)
		die("%s:", inplace ? path : tmp.p);
	fwrite(b.p ? b.p : "", 1, b.n, fp);
	if (fshut(fp, inplace ? path : tmp.p) != 0 || fclose(fp) != 0) {
		if (!inplace)
			remove(tmp.p);
		exit(2);
	}
	if (!inplace && rename(tmp.p, path) != 0)
		die("rename %s:", path);
	free(b.p);
	free(tmp.p);
}

/* The lock's references, one a line; or exit 2 naming the line. */
static size_t
lock_read(const char *path, struct ref **refs)
{
	struct jrecord o = { 0 };
	const struct jfield *f, *g;
	char *text, *p, *nl, where[600];
	const char *err;
	size_t len, n = 0, k;
	unsigned long line = 0;

	*refs = NULL;
	text = read_all(path, &len);
	for (p = text; p < text + len; p = nl + 1) {
		line++;
		if ((nl = memchr(p, '\n', (size_t)(text + len - p))) == NULL)
			nl = text + len;
		snprintf(where, sizeof where, "%s:%lu", path, line);
		if ((err = jparse(p, (size_t)(nl - p), &o)) != NULL)
			die("%s: %s", where, err);
		*refs = xrealloc(*refs, (n + 1) * sizeof **refs);
		memset(&(*refs)[n], 0, sizeof **refs);
		(*refs)[n].line = line;
		(*refs)[n].side = str(&o, "reference", where);
		(*refs)[n].package = str(&o, "package", where);
		(*refs)[n].version = str(&o, "version", where);
		if ((f = jget(&o, "files", 5)) == NULL || f->type != J_OBJECT)
			die("%s: no object \"files\"", where);
		jparse(f->raw, f->rawlen, &o);
		for (k = 0; k < o.n; k++) {
			g = &o.field[k];
			if (g->type != J_STRING || g->rawlen != 64)
				die("%s: \"files\": %.*s: not a SHA-256", where, (int)g->keylen, g->key);
			(*refs)[n].path = xrealloc((*refs)[n].path, (k + 1) * sizeof(char *));
			(*refs)[n].sha = xrealloc((*refs)[n].sha, (k + 1) * sizeof(char *));
			(*refs)[n].path[k] = json_unescape(g->key, g->keylen);
			(*refs)[n].sha[k] = xmemdup(g->raw, 64);
		}
		(*refs)[n++].n = o.n;
		if (nl == text + len)
			break;
	}
	jrecord_free(&o);
	free(text);
	return n;
}

int
lock_check(const char *path, char **side, char **file, int n)
{
	struct ref *locked, now;
	size_t nlocked = lock_read(path, &locked), k, i, j;
	int bad = 0, m;
	char *used = xmalloc(nlocked + 1);

	memset(used, 0, nlocked + 1);
	for (m = 0; m < n; m++) {
		ref_now(&now, side[m], file[m]);
		for (k = 0; k < nlocked && strcmp(locked[k].side, side[m]) != 0; k++)
			;
		if (k == nlocked) {
			warnmsg("%s: reference %s is not locked (%s %s here)", path, side[m], now.package, now.version);
			bad = 1;
			ref_free(&now);
			continue;
		}
		used[k] = 1;
		if (strcmp(locked[k].package, now.package) != 0 || strcmp(locked[k].version, now.version) != 0) {
			warnmsg("%s:%lu: reference %s: %s %s locked, %s %s here", path, locked[k].line, side[m],
			    locked[k].package, locked[k].version, now.package, now.version);
			bad = 1;
		}
		/* Both lists sorted: a file in one and not the other, or of another digest. */
		for (i = j = 0; i < locked[k].n || j < now.n; ) {
			int c = i == locked[k].n ? 1 : j == now.n ? -1 : strcmp(locked[k].path[i], now.path[j]);

			if (c == 0 && strcmp(locked[k].sha[i], now.sha[j]) == 0) {
				i++, j++;
				continue;
			}
			bad = 1;
			if (c == 0)
				warnmsg("%s:%lu: reference %s: %s: sha256 %s locked (%s %s), %s here (%s %s)", path,
				    locked[k].line, side[m], now.path[j], locked[k].sha[i], locked[k].package,
				    locked[k].version, now.sha[j], now.package, now.version);
			else if (c < 0)
				warnmsg("%s:%lu: reference %s: %s: locked (sha256 %s, %s %s), not loaded here (%s %s)",
				    path, locked[k].line, side[m], locked[k].path[i], locked[k].sha[i],
				    locked[k].package, locked[k].version, now.package, now.version);
			else
				warnmsg("%s:%lu: reference %s: %s: loaded here (sha256 %s, %s %s), not locked (%s %s)",
				    path, locked[k].line, side[m], now.path[j], now.sha[j], now.package, now.version,
				    locked[k].package, locked[k].version);
			if (c <= 0)
				i++;
			if (c >= 0)
				j++;
		}
		ref_free(&now);
	}
	for (k = 0; k < nlocked; k++) {
		if (!used[k]) {
			warnmsg("%s:%lu: reference %s is locked, and no reference of this run", path,
			    locked[k].line, locked[k].side);
			bad = 1;
		}
		ref_free(&locked[k]);
	}
	free(locked);
	free(used);
	return bad;
}
