/*
 * accbudget: the [accuracy] section of a budget file (accbudget.h). Only
 * that section's lines are read here: `case = number`, a non-negative
 * number of ulp, comments and blank lines; the other sections are
 * budget.c's to check.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accbudget.h"
#include "util.h"

static char *
trim(char *s)
{
	char *e;

	s += strspn(s, " \t");
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]) != NULL)
		*--e = '\0';
	return s;
}

const char *
accbudget_read(const char *path, struct accbudget *b, char *err, size_t errlen)
{
	char line[4096], *p, *eq, *key, *val, *end, *hash;
	unsigned long lineno = 0;
	int in = 0;
	double v;
	size_t i;
	FILE *fp;

	memset(b, 0, sizeof *b);
	if ((fp = fopen(path, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return err;
	}
	while (fgets(line, sizeof line, fp) != NULL) {
		lineno++;
		if ((hash = strchr(line, '#')) != NULL)
			*hash = '\0';
		p = trim(line);
		if (*p == '[') {
			in = strcmp(p, "[accuracy]") == 0;
			continue;
		}
		if (!in || *p == '\0')
			continue;
		if ((eq = strchr(p, '=')) == NULL) {
			snprintf(err, errlen, "%s:%lu: [accuracy]: expected 'case = ulp'", path, lineno);
			goto bad;
		}
		*eq = '\0';
		key = trim(p);
		val = trim(eq + 1);
		errno = 0;
		v = strtod(val, &end);
		if (*key == '\0' || *val == '\0' || *end != '\0' || errno != 0 || !isfinite(v) ||
		    v < 0 || strchr("+-.", *val) != NULL) {
			snprintf(err, errlen, "%s:%lu: [accuracy]: the budget of %s must be a"
			    " non-negative number of ulp, not '%s'", path, lineno, key, val);
			goto bad;
		}
		for (i = 0; i < b->n; i++)
			if (strcmp(b->name[i], key) == 0) {
				snprintf(err, errlen, "%s:%lu: [accuracy]: duplicate case %s", path, lineno, key);
				goto bad;
			}
		b->name = xrealloc(b->name, (b->n + 1) * sizeof *b->name);
		b->ulp = xrealloc(b->ulp, (b->n + 1) * sizeof *b->ulp);
		b->name[b->n] = xstrdup(key);
		b->ulp[b->n++] = v;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto bad;
	}
	fclose(fp);
	return NULL;
bad:
	fclose(fp);
	accbudget_free(b);
	return err;
}

double
accbudget_get(const struct accbudget *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (strcmp(b->name[i], name) == 0)
			return b->ulp[i];
	return -1;
}

void
accbudget_free(struct accbudget *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->name[i]);
	free(b->name);
	free(b->ulp);
	memset(b, 0, sizeof *b);
}
