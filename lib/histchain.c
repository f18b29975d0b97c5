/*
 * histchain: the chain of a metric's paired ratios along the first-parent
 * path. Each ratio is one gate of a commit against its parent on one
 * machine, so the machine cancels in each; their product over a stretch is
 * the stretch's change, which no single gate saw. A missing record is a
 * gap that breaks the chain: nothing is guessed across it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "histchain.h"
#include "outfile.h"
#include "util.h"

/* The confidence of a chained interval: the gate's default, 0.95. */
#define Z95 1.959963984540054

static char *
cut(char **p, char *end)
{
	char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));

	if (nl == NULL)
		nl = end;
	*nl = '\0';
	*p = nl < end ? nl + 1 : end;
	return s;
}

static void
addmetric(struct hist *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->nmetric; i++)
		if (strcmp(h->metric[i], name) == 0)
			return;
	h->metric = xrealloc(h->metric, (h->nmetric + 1) * sizeof *h->metric);
	h->metric[h->nmetric++] = xstrdup(name);
}

static void
onecommit(struct hist *h, char *s, char *end, const char *machine,
    void (*warn)(const struct hcommit *c, unsigned long line, const char *why))
{
	struct hcommit *c;
	struct hrec r;
	char *hash, *parents, *line, *sp;
	const char *why;
	unsigned long lineno = 0;
	size_t i;

	while (s < end && *s == '\n')
		s++;
	if (s >= end)
		return;
	hash = cut(&s, end);
	parents = cut(&s, end);
	h->c = xrealloc(h->c, (h->n + 1) * sizeof *h->c);
	c = &h->c[h->n++];
	memset(c, 0, sizeof *c);
	c->use = -1;
	c->hash = xstrdup(hash);
	if ((sp = strchr(parents, ' ')) != NULL)
		*sp = '\0';
	c->parent = xstrdup(parents);
	c->subject = xstrdup(s < end ? cut(&s, end) : "");
	while (s < end) {
		line = cut(&s, end);
		lineno++;
		if (line[0] == '\0')
			continue;
		if ((why = hrec_parse(line, strlen(line), &r)) != NULL) {
			warn(c, lineno, why);
			continue;
		}
		if (strcmp(r.commit, c->hash) != 0)
			why = "a record of another commit (copied from it?)";
		else if (strcmp(r.parent, c->parent) != 0)
			why = "a gate against another parent than the first";
		if (why != NULL) {
			warn(c, lineno, why);
			hrec_free(&r);
			continue;
		}
		c->rec = xrealloc(c->rec, (c->nrec + 1) * sizeof *c->rec);
		c->rec[c->nrec++] = r;
	}
	/* This machine's record, else the newest; among equals the last line. */
	for (i = 0; i < c->nrec; i++) {
		int mine = strcmp(c->rec[i].machine, machine) == 0;
		int used = c->use >= 0 && strcmp(c->rec[c->use].machine, machine) == 0;

		if (c->use < 0 || (mine && !used) ||
		    (mine == used && strcmp(c->rec[i].recorded, c->rec[c->use].recorded) >= 0))
			c->use = (long)i;
	}
	if (c->use >= 0)
		for (i = 0; i < c->rec[c->use].nm; i++)
			addmetric(h, c->rec[c->use].m[i].name);
}

void
hist_load(struct hist *h, char *buf, size_t len, const char *machine,
    void (*warn)(const struct hcommit *c, unsigned long line, const char *why))
{
	char *s = buf, *end = buf + len, *z;
	const char *last = NULL;
	size_t i;

	memset(h, 0, sizeof *h);
	while (s < end) {
		z = memchr(s, '\0', (size_t)(end - s));
		if (z == NULL)
			z = end;
		onecommit(h, s, z, machine, warn);
		s = z < end ? z + 1 : end;
	}
	for (i = 0; i < h->n; i++) {
		if (h->c[i].use < 0)
			continue;
		if (last != NULL && strcmp(last, h->c[i].rec[h->c[i].use].machine) != 0)
			h->c[i].machine_changed = 1;
		last = h->c[i].rec[h->c[i].use].machine;
	}
}

void
hist_free(struct hist *h)
{
	size_t i, j;

	for (i = 0; i < h->n; i++) {
		for (j = 0; j < h->c[i].nrec; j++)
			hrec_free(&h->c[i].rec[j]);
		free(h->c[i].rec);
		free(h->c[i].hash);
		free(h->c[i].parent);
		free(h->c[i].subject);
	}
	for (i = 0; i < h->nmetric; i++)
		free(h->metric[i]);
	free(h->metric);
	free(h->c);
	memset(h, 0, sizeof *h);
}

const struct hmetric *
hist_at(const struct hist *h, size_t i, const char *metric)
{
	const struct hcommit *c = &h->c[i];
	const struct hmetric *m;

	if (c->use < 0)
		return NULL;
	m = hrec_metric(&c->rec[c->use], metric);
	return m != NULL && m->have_ratio ? m : NULL;
}

int
hist_log(const struct hmetric *m, double *l, double *lo, double *hi)
{
	double a, b;

	if (m == NULL || !m->have_ratio)
		return 0;
	*l = log(m->ratio);
	a = m->have_interval ? log(m->lo) : *l;
	b = m->have_interval ? log(m->hi) : *l;
	if (m->higher) {
		*l = -*l;
		*lo = -b;
		*hi = -a;
	} else {
		*lo = a;
		*hi = b;
	}
	return 1;
}

static int
isstep(const struct hmetric *m)
{
	return strcmp(m->verdict, "regressed") == 0 || strcmp(m->verdict, "improved") == 0;
}

/*
 * A chained interval: each commit's interval read as a normal one at 95 %
 * (its half-widths' mean as 1.96 standard errors), the gates independent,
 * so the variances add. The confirming gate, not this interval, decides.
 */
static void
interval(const struct hist *h, const char *metric, struct hstretch *s)
{
	double var = 0, l = 0, lo = 0, hi = 0, se;
	size_t i;

	for (i = s->from; i <= s->to; i++) {
		hist_log(hist_at(h, i, metric), &l, &lo, &hi);
		se = (hi - lo) / (2 * Z95);
		var += se * se;
	}
	s->loglo = s->logsum - Z95 * sqrt(var);
	s->loghi = s->logsum + Z95 * sqrt(var);
}

struct hstretch *
hist_creeps(const struct hist *h, const char *metric, double creep, size_t *n)
{
	struct hstretch *out = NULL, best = { 0 };
	const struct hmetric *m;
	double run = 0, l = 0, lo = 0, hi = 0, limit = log1p(creep);
	size_t i, start = 0;
	int have = 0;

	*n = 0;
	/* Kadane's largest sum, restarted at each gap and step, over i = 0 .. n. */
	for (i = 0; i <= h->n; i++) {
		m = i < h->n ? hist_at(h, i, metric) : NULL;
		if (m == NULL || isstep(m)) {
			if (have && best.logsum > limit) {
				interval(h, metric, &best);
				out = xrealloc(out, (*n + 1) * sizeof *out);
				out[(*n)++] = best;
			}
			have = 0;
			run = 0;
			continue;
		}
		hist_log(m, &l, &lo, &hi);
		if (run <= 0) {
			run = 0;
			start = i;
		}
		run += l;
		if (!have || run > best.logsum) {
			best.from = start;
			best.to = i;
			best.logsum = run;
			have = 1;
		}
	}
	return out;
}

/* The commits of a stretch that slowed the metric most: their indices, largest ratio first. */
size_t
hist_top(const struct hist *h, const char *metric, const struct hstretch *s, size_t *idx)
{
	size_t i, j, n = 0;
	double l, lo, hi, lj, x;

	for (i = s->from; i <= s->to; i++) {
		hist_log(hist_at(h, i, metric), &l, &lo, &hi);
		for (j = n; j > 0; j--) {
			hist_log(hist_at(h, idx[j - 1], metric), &lj, &lo, &x);
			if (lj >= l)
				break;
			if (j < HIST_TOP)
				idx[j] = idx[j - 1];
		}
		if (j < HIST_TOP) {
			idx[j] = i;
			if (n < HIST_TOP)
				n++;
		}
	}
	return n;
}

/*
 * The confirming gate's budget file: the project's runs, and each timed
 * metric's creep budget in place of its budget, so that the ordinary gate
 * and rule judge the stretch's two ends against the creep budget.
 */
char *
hist_creepbudget(const struct budget *b, const char *path, const char *out)
{
	char *text = NULL, *why;
	size_t len = 0, i;
	int loose = 0, sec;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		die("open_memstream: %s", strerror(errno));
	for (i = 0; i < b->n; i++)
		loose |= !(budget_creep(b, b->entry[i].name, strlen(b->entry[i].name)) < 1);
	fprintf(m, "# history check's confirming gate: creep budgets, from the [history] of %s\n", path);
	fprintf(m, "runs = %ld\n%s", b->runs, loose ? "allow_loose = true\n" : "");
	for (sec = 0; sec < 2; sec++) {
		fprintf(m, "\n[%s]\n", sec ? "higher" : "budget");
		for (i = 0; i < b->n; i++)
			if ((b->entry[i].better == BETTER_HIGHER) == sec)
				fprintf(m, "%s = %.17g\n", b->entry[i].name,
				    budget_creep(b, b->entry[i].name, strlen(b->entry[i].name)));
	}
	fclose(m);
	why = outfile_put(out, text, len);
	free(text);
	return why;
}

