/*
 * decide: the gate's verdict by the paired rule (decide.h). The rule is
 * judge_rule's; here it is applied to every metric, summed up in one
 * verdict, explained, and written.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "decide.h"
#include "msg.h"
#include "stats.h"
#include "util.h"

/*
 * A machine is busy when the benchmark's runs waited for a CPU in more
 * than this share of their time (PSI's "some" stall over the runs' wall
 * time), or lost more than this share to a hypervisor (steal).
 */
#define BUSY_PRESSURE 10.0
#define BUSY_STEAL 5.0

/* qsort has no context: the values whose indices cmpidx sorts. */
static const double *sortv;

static int
cmpidx(const void *a, const void *b)
{
	double x = sortv[*(const size_t *)a], y = sortv[*(const size_t *)b];

	return (x > y) - (x < y);
}

/*
 * The median of a side's n values as a field: the value as written when
 * one is the median (an odd count), else the mean of the middle two in
 * the shortest form. text receives the storage.
 */
static void
median_field(struct jfield *f, char **text, const double *v, const char *const *raw, size_t n)
{
	size_t *idx, i;
	char buf[40];

	memset(f, 0, sizeof *f);
	f->type = J_NUMBER;
	*text = NULL;
	if (n == 0)
		return;
	idx = xmalloc(n * sizeof *idx);
	for (i = 0; i < n; i++)
		idx[i] = i;
	sortv = v;
	qsort(idx, n, sizeof *idx, cmpidx);
	if (n % 2 == 1 || v[idx[n / 2 - 1]] == v[idx[n / 2]]) {
		/* A value that is the median passes through as written. */
		*text = xstrdup(raw[idx[n / 2]]);
		f->num = v[idx[n / 2]];
	} else {
		f->num = v[idx[n / 2 - 1]] / 2 + v[idx[n / 2]] / 2;
		fmt_double(buf, f->num);
		*text = xstrdup(buf);
	}
	f->raw = *text;
	f->rawlen = strlen(*text);
	free(idx);
}

static void
machine(struct machine *m, const struct disturb *d)
{
	char extra[128] = "", shared[64] = "";

	memset(m, 0, sizeof *m);
	m->busy = d->busy;
	m->reruns = (long)d->rerun;
	if (d->psi_runs > 0 && d->wall_s > 0) {
		m->known = 1;
		m->pressure = 100 * d->stall_s / d->wall_s;
		m->steal = 100 * d->steal_s / d->wall_s;
	}
	m->isbusy = m->known && (m->pressure > BUSY_PRESSURE || m->steal > BUSY_STEAL);
	if (m->steal >= 0.5)
		snprintf(extra, sizeof extra, ", steal %.0f %%", m->steal);
	if (d->watched > 0 && d->busy > 0)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", %zu of %zu runs had < 90 %% of a CPU",
		    d->busy, d->watched);
	if (m->reruns > 0)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", %ld round%s re-run", m->reruns,
		    m->reruns == 1 ? "" : "s");
	/* Every CPU was held by a gate (alternate -c auto): the runs met another gate's. */
	if (d->shared >= 2 && !isnan(d->shared_cpu))
		snprintf(shared, sizeof shared, ", CPU %.0f shared with %.0f other gates", d->shared_cpu, d->shared);
	else if (d->shared >= 1 && !isnan(d->shared_cpu))
		snprintf(shared, sizeof shared, ", CPU %.0f shared with another gate", d->shared_cpu);
	if (!m->known)
		snprintf(m->line, sizeof m->line, "unknown (the rounds carry no CPU pressure%s)", shared);
	else
		snprintf(m->line, sizeof m->line, "%s (CPU pressure %.0f %% during the gate%s%s)",
		    m->isbusy ? "busy" : "quiet", m->pressure, extra, shared);
}

void
decide(struct decision *d, const struct budget *b, const struct rounds *rs, const struct rule *ru,
    char ***err, size_t *nerr)
{
	size_t i, most = 1;
	double *work;
	int s;

	memset(d, 0, sizeof *d);
	d->n = b->n;
	d->rule = *ru;
	d->rounds = rs->nrounds;
	d->res = xmalloc((b->n ? b->n : 1) * sizeof *d->res);
	memset(d->res, 0, (b->n ? b->n : 1) * sizeof *d->res);
	for (s = 0; s < NSIDE; s++) {
		d->med[s] = xmalloc((b->n ? b->n : 1) * sizeof *d->med[s]);
		d->medtext[s] = xmalloc((b->n ? b->n : 1) * sizeof *d->medtext[s]);
	}
	for (i = 0; i < b->n; i++)
		if (rs->n[i] > most)
			most = rs->n[i];
	work = xmalloc(most * sizeof *work);
	for (i = 0; i < b->n; i++) {
		struct result *r = &d->res[i];

		r->e = &b->entry[i];
		for (s = 0; s < NSIDE; s++)
			median_field(&d->med[s][i], &d->medtext[s][i], rs->val[s][i], rs->raw[s][i], rs->n[i]);
		if (rs->n[i] == 0 && rs->nrounds == 0) {
			/* No rounds yet: the first block is all the rule can ask for. */
			judge_rule(r, NULL, 0, ru, work);
			continue;
		}
		if (rs->n[i] == 0) {
			r->verdict = V_ERROR;
			*err = xrealloc(*err, (*nerr + 1) * sizeof **err);
			for (s = 0; s < NSIDE && rs->seen[s][i] > 0; s++)
				;
			(*err)[(*nerr)++] = s < NSIDE ? msgf("%s: missing on side \"%s\"", r->e->name, side_name[s]) :
			    msgf("%s: no round has it on both sides", r->e->name);
			continue;
		}
		r->base = &d->med[SIDE_BASE][i];
		r->head = &d->med[SIDE_HEAD][i];
		judge_rule(r, rs->ratio[i], rs->n[i], ru, work);
	}
	free(work);
	machine(&d->m, &rs->dist);
}

enum verdict
decide_verdict(const struct decision *d, size_t nerr)
{
	size_t i;
	int undecided = 0;

	if (nerr > 0)
		return V_ERROR;
	for (i = 0; i < d->n; i++) {
		if (d->res[i].verdict == V_REGRESSED)
			return V_REGRESSED;
		undecided |= d->res[i].verdict == V_UNDECIDED;
	}
	return undecided ? V_UNDECIDED : V_OK;
}

/* "1.062 [0.981,1.14] at 95 %" */
static void
interval_text(struct buf *b, const struct result *r, double conf)
{
	if (r->hasinterval)
		buf_printf(b, "ratio %.4g [%.4g,%.4g] at %.4g %%", r->ratio, r->lo, r->hi, conf * 100);
	else
		buf_printf(b, "ratio %.4g, too few rounds for an interval at %.4g %%", r->ratio, conf * 100);
}

char *
decide_reason(const struct decision *d)
{
	struct buf b = { 0 };
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct result *r = &d->res[i];

		if (r->verdict != V_UNDECIDED)
			continue;
		buf_printf(&b, "%s: ", r->e->name);
		interval_text(&b, r, d->rule.confidence);
		buf_printf(&b, ", budget %.4g %%, %zu rounds; ", r->e->budget * 100, r->rounds);
	}
	buf_printf(&b, "machine: %s", d->m.line);
	buf_add(&b, "", 1);
	return b.p;
}

static void
putlist(FILE *fp, const struct decision *d, enum verdict v)
{
	size_t i;
	int first = 1;

	fputc('[', fp);
	for (i = 0; i < d->n; i++)
		if (d->res[i].verdict == v) {
			if (!first)
				fputc(',', fp);
			jput_str(fp, d->res[i].e->name);
			first = 0;
		}
	fputc(']', fp);
}

static void
putident(FILE *fp, const struct rounds *rs, enum side s)
{
	size_t i;

	/* The members were JSON strings: their text passes through as written. */
	fprintf(fp, ",\"%s\":{", side_name[s]);
	for (i = 0; i < rs->nid[s]; i++)
		fprintf(fp, "%s\"%s\":\"%s\"", i ? "," : "", rs->id[s][i].key, rs->id[s][i].val);
	fputc('}', fp);
}

static const char *
halfname(enum verdict v)
{
	return v == V_OK ? "none" : verdict_name[v];
}

void
decide_records(FILE *fp, const struct decision *d, const struct budget *b, const char *error,
    char **unbudgeted, size_t nunbudgeted, const struct rounds *rs, const char *bfile)
{
	enum verdict v = error != NULL ? V_ERROR : decide_verdict(d, 0);
	size_t i;
	char *why;

	for (i = 0; i < d->n; i++) {
		const struct result *r = &d->res[i];
		int have = r->verdict != V_ERROR;

		fputs("{\"metric\":", fp);
		jput_str(fp, r->e->name);
		fputs(",\"base\":", fp);
		jput_raw(fp, r->base);
		fputs(",\"head\":", fp);
		jput_raw(fp, r->head);
		fputs(",\"delta\":", fp);
		jput_double(fp, have && r->hasdelta, r->deltav);
		fputs(",\"budget\":", fp);
		jput_double(fp, 1, r->e->budget);
		fputs(",\"verdict\":", fp);
		jput_str(fp, verdict_name[r->verdict]);
		fputs(",\"better\":", fp);
		jput_str(fp, r->e->better == BETTER_HIGHER ? "higher" : "lower");
		fputs(",\"rounds\":", fp);
		jput_double(fp, 1, (double)r->rounds);
		fputs(",\"ratio\":", fp);
		jput_double(fp, have && r->hasratio, r->ratio);
		fputs(",\"ratio_lo\":", fp);
		jput_double(fp, have && r->hasinterval, r->lo);
		fputs(",\"ratio_hi\":", fp);
		jput_double(fp, have && r->hasinterval, r->hi);
		fputs(",\"confidence\":", fp);
		jput_double(fp, 1, d->rule.confidence);
		fputs(",\"bound\":", fp);
		jput_double(fp, have && r->hasinterval, r->bound);
		fputs(",\"halves\":", fp);
		if (have)
			fprintf(fp, "[\"%s\",\"%s\"]", halfname(r->half[0]), halfname(r->half[1]));
		else
			fputs("null", fp);
		fprintf(fp, ",\"budget_sha256\":\"%s\"}\n", b->sha256);
	}
	fputs("{\"verdict\":", fp);
	jput_str(fp, verdict_name[v]);
	fputs(",\"regressed\":", fp);
	putlist(fp, d, V_REGRESSED);
	fprintf(fp, ",\"metrics\":%zu", b->n);
	if (error != NULL) {
		fputs(",\"error\":", fp);
		jput_str(fp, error);
	}
	fputs(",\"improved\":", fp);
	putlist(fp, d, V_IMPROVED);
	fputs(",\"undecided\":", fp);
	putlist(fp, d, V_UNDECIDED);
	if (v == V_UNDECIDED) {
		why = decide_reason(d);
		fputs(",\"reason\":", fp);
		jput_str(fp, why);
		free(why);
	}
	fputs(",\"unbudgeted\":[", fp);
	for (i = 0; i < nunbudgeted; i++) {
		if (i)
			fputc(',', fp);
		jput_str(fp, unbudgeted[i]);
	}
	fputc(']', fp);
	fprintf(fp, ",\"rounds\":%zu,\"confidence\":", d->rounds);
	jput_double(fp, 1, d->rule.confidence);
	fputs(",\"machine\":", fp);
	jput_str(fp, d->m.line);
	fputs(",\"pressure\":", fp);
	jput_double(fp, d->m.known, d->m.pressure);
	putident(fp, rs, SIDE_BASE);
	putident(fp, rs, SIDE_HEAD);
	if (bfile != NULL) {
		fputs(",\"budget\":", fp);
		jput_str(fp, bfile);
		fprintf(fp, ",\"budget_sha256\":\"%s\"", b->sha256);
	}
	fputs("}\n", fp);
}

void
decide_free(struct decision *d)
{
	size_t i;
	int s;

	for (s = 0; s < NSIDE; s++) {
		if (d->medtext[s] != NULL)
			for (i = 0; i < d->n; i++)
				free(d->medtext[s][i]);
		free(d->medtext[s]);
		free(d->med[s]);
	}
	free(d->res);
}
