/*
 * cgsuspect: the suspects between two key files (cgsuspect.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cgsuspect.h"
#include "msg.h"
#include "util.h"

/* One key file: its lines, split at the first blank into name and value. */
struct keyfile {
	char **name, **value;
	size_t n;
};

static char *
key_read(const char *path, struct keyfile *k)
{
	FILE *fp = fopen(path, "rb");
	char *line = NULL, *sp;
	size_t cap = 0;
	ssize_t len;

	memset(k, 0, sizeof *k);
	if (fp == NULL)
		return msgf("%s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		sp = strchr(line, ' ');
		k->name = xrealloc(k->name, (k->n + 1) * sizeof *k->name);
		k->value = xrealloc(k->value, (k->n + 1) * sizeof *k->value);
		k->value[k->n] = xstrdup(sp != NULL ? sp + 1 : "");
		if (sp != NULL)
			*sp = '\0';
		k->name[k->n++] = xstrdup(line);
	}
	free(line);
	if (ferror(fp)) {
		fclose(fp);
		return msgf("%s: %s", path, strerror(errno));
	}
	fclose(fp);
	return NULL;
}

static void
key_free(struct keyfile *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->name[i]);
		free(k->value[i]);
	}
	free(k->name);
	free(k->value);
}

/* The value of the first line called name, "" when none. */
static const char *
key_get(const struct keyfile *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->name[i], name) == 0)
			return k->value[i];
	return "";
}

/* s with every from replaced by to, as a new string. */
static char *
replace(const char *s, const char *from, const char *to)
{
	struct buf b = { 0 };
	const char *p;
	size_t fl = strlen(from);

	while (fl > 0 && (p = strstr(s, from)) != NULL) {
		buf_add(&b, s, (size_t)(p - s));
		buf_add(&b, to, strlen(to));
		s = p + fl;
	}
	buf_add(&b, s, strlen(s) + 1);
	return b.p;
}

/*
 * The side's build command with its own directory (PATH.key's PATH, as
 * its real path) read as $GATE_SIDE and, for a source file's side, its
 * copy of the file (PATH.value's basename) as $GATE_FILE, as the gate's
 * build digest reads it: two sides built alike show alike.
 */
static char *
build_of(const char *path, const struct keyfile *k)
{
	char *dir = xstrdup(path), real[PATH_MAX], *s, *t, *v = NULL, *file;
	size_t n = strlen(dir), cap = 0;
	FILE *fp;

	if (n > 4 && strcmp(dir + n - 4, ".key") == 0)
		dir[n - 4] = '\0';
	s = xstrdup(key_get(k, "build"));
	if (realpath(dir, real) != NULL) {
		t = replace(s, real, "$GATE_SIDE");
		free(s);
		s = t;
	}
	file = msgf("%s.value", dir);
	if (strcmp(key_get(k, "kind"), "file") == 0 && (fp = fopen(file, "r")) != NULL) {
		if (getline(&v, &cap, fp) > 0) {
			char *from, *base;

			v[strcspn(v, "\n")] = '\0';
			base = strrchr(v, '/') ? strrchr(v, '/') + 1 : v;
			from = msgf("$GATE_SIDE/%s", base);
			t = *base ? replace(s, from, "$GATE_SIDE/$GATE_FILE") : xstrdup(s);
			free(from);
			free(s);
			s = t;
		}
		free(v);
		fclose(fp);
	}
	free(file);
	free(dir);
	return s;
}

static void
add(char ***out, size_t *n, char *s)
{
	*out = xrealloc(*out, (*n + 1) * sizeof **out);
	(*out)[(*n)++] = s;
}

/* The lib lines' paths (after the digest) of k, sorted, as indices. */
static const char *
lib_path(const char *v)
{
	const char *sp = strchr(v, ' ');

	return sp != NULL ? sp + 1 : "";
}

static const struct keyfile *sorting;

static int
cmplib(const void *a, const void *b)
{
	return strcmp(lib_path(sorting->value[*(const size_t *)a]), lib_path(sorting->value[*(const size_t *)b]));
}

static size_t *
libs(const struct keyfile *k, size_t *n)
{
	size_t *ix = xmalloc((k->n + 1) * sizeof *ix), i;

	for (i = 0, *n = 0; i < k->n; i++)
		if (strcmp(k->name[i], "lib") == 0)
			ix[(*n)++] = i;
	sorting = k;
	qsort(ix, *n, sizeof *ix, cmplib);
	return ix;
}

char *
cg_suspects(const char *base, const char *head, char ***out, size_t *n)
{
	struct keyfile b, h;
	char *why, *bb, *hb;
	size_t *bl, *hl, nb, nh, i = 0, j = 0;

	if ((why = key_read(base, &b)) != NULL)
		return why;
	if ((why = key_read(head, &h)) != NULL) {
		key_free(&b);
		return why;
	}
	if (strcmp(key_get(&b, "cc_version"), key_get(&h, "cc_version")) != 0)
		add(out, n, msgf("compiler: %s -> %s", key_get(&b, "cc_version"), key_get(&h, "cc_version")));
	if (strcmp(key_get(&b, "cflags"), key_get(&h, "cflags")) != 0)
		add(out, n, msgf("flags: %s -> %s", key_get(&b, "cflags"), key_get(&h, "cflags")));
	bb = build_of(base, &b);
	hb = build_of(head, &h);
	if (strcmp(bb, hb) != 0)
		add(out, n, msgf("build command: %s -> %s", bb, hb));
	free(bb);
	free(hb);
	/* Shared libraries by path: a digest that differs, or one side's only. */
	bl = libs(&b, &nb);
	hl = libs(&h, &nh);
	while (i < nb || j < nh) {
		const char *bv = i < nb ? b.value[bl[i]] : NULL, *hv = j < nh ? h.value[hl[j]] : NULL;
		int c = bv == NULL ? 1 : hv == NULL ? -1 : strcmp(lib_path(bv), lib_path(hv));

		if (c > 0)
			add(out, n, msgf("shared library: only head loads %s", lib_path(hv))), j++;
		else if (c < 0)
			add(out, n, msgf("shared library: only base loads %s", lib_path(bv))), i++;
		else {
			if (strcspn(bv, " ") != strcspn(hv, " ") || strncmp(bv, hv, strcspn(bv, " ")) != 0)
				add(out, n, msgf("shared library: %s differs (sha256:%.16s -> sha256:%.16s)", lib_path(bv),
				    bv, hv));
			i++, j++;
		}
	}
	free(bl);
	free(hl);
	key_free(&b);
	key_free(&h);
	return NULL;
}
