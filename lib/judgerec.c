/*
 * judgerec: the records of cmpbudget's minima mode (see judgerec.h).
 */
#include <stdio.h>
#include <string.h>

#include "jsonl.h"
#include "jsonwrite.h"
#include "judgerec.h"

/* A number, or null when it is not had. */
static void
num(struct jwriter *w, const char *key, int have, double v)
{
	if (have)
		jw_num(w, key, v);
	else
		jw_null(w, key);
}

/* A value passed through as read, or null. */
static void
raw(struct jwriter *w, const char *key, const struct jfield *f)
{
	if (f != NULL)
		jw_raw(w, key, f->raw, f->rawlen);
	else
		jw_null(w, key);
}

/* The metrics whose verdict is v (or, with doubted, that were doubted), as an array. */
static void
list(struct jwriter *w, const char *key, const struct judged *j, enum verdict v, int doubted)
{
	size_t i;

	jw_open(w, key, '[');
	for (i = 0; i < j->n; i++)
		if (doubted ? j->res[i].doubted : j->res[i].verdict == v)
			jw_str(w, NULL, j->res[i].e->name);
	jw_close(w);
}

static void
ident(struct jwriter *w, const struct rounds *rs, enum side s)
{
	size_t i;

	/* The members were JSON strings: their text passes through as written. */
	jw_open(w, side_name[s], '{');
	for (i = 0; i < rs->nid[s]; i++)
		jw_rawstr(w, rs->id[s][i].key, rs->id[s][i].val, strlen(rs->id[s][i].val));
	jw_close(w);
}

int
judge_records(FILE *fp, const struct judged *j)
{
	struct jwriter w;
	size_t i;
	int nreg = 0, rc = 0;

	for (i = 0; i < j->n; i++) {
		const struct result *r = &j->res[i];

		nreg += r->verdict == V_REGRESSED;
		jw_begin(&w, fp);
		jw_str(&w, "metric", r->e->name);
		raw(&w, "base", r->base);
		raw(&w, "head", r->head);
		num(&w, "delta", r->hasdelta, r->deltav);
		jw_num(&w, "budget", r->e->budget);
		jw_str(&w, "verdict", verdict_name[r->verdict]);
		jw_str(&w, "quartiles", r->quartiles);
		jw_str(&w, "better", r->e->better == BETTER_HIGHER ? "higher" : "lower");
		num(&w, "rounds", r->outcome != O_NONE, (double)r->rounds);
		num(&w, "ratio", r->hasratio, r->ratio);
		num(&w, "ratio_lo", r->hasinterval, r->lo);
		num(&w, "ratio_hi", r->hasinterval, r->hi);
		jw_num(&w, "confidence", j->confidence);
		num(&w, "floor", r->outcome != O_NONE, r->floor);
		jw_str(&w, "outcome", outcome_name[r->outcome]);
		if (j->agree)
			jw_bool(&w, "doubted", r->doubted);
		jw_str(&w, "budget_sha256", j->budget->sha256);
		rc |= jw_end(&w);
	}
	jw_begin(&w, fp);
	jw_str(&w, "verdict", j->error ? "error" : nreg ? "regressed" : "ok");
	list(&w, "regressed", j, V_REGRESSED, 0);
	jw_long(&w, "metrics", (long long)j->budget->n);
	if (j->error)
		jw_str(&w, "error", j->error);
	list(&w, "improved", j, V_IMPROVED, 0);
	if (j->agree)
		list(&w, "doubted", j, V_OK, 1);
	jw_open(&w, "unbudgeted", '[');
	for (i = 0; i < j->nunbudgeted; i++)
		jw_str(&w, NULL, j->unbudgeted[i]);
	jw_close(&w);
	if (j->settle >= 0 && !j->error)
		jw_bool(&w, "settled", judge_settled(j->res, j->n, j->settle));
	if (j->rs != NULL) {
		ident(&w, j->rs, SIDE_BASE);
		ident(&w, j->rs, SIDE_HEAD);
	}
	if (j->bfile != NULL) {
		jw_str(&w, "budget", j->bfile);
		jw_str(&w, "budget_sha256", j->budget->sha256);
	}
	return rc | jw_end(&w);
}
