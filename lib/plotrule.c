/*
 * plotrule: what a picture of a gate draws besides the values: base and
 * head paired round by round, as cmpbudget pairs them (rounds.c), and the
 * rule's interval and verdict after each round, as the gate looked.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "judge.h"
#include "plot.h"
#include "rule.h"
#include "util.h"

size_t
plot_looks(const char *name, double budget, int higher, const double *ratio, size_t n, double conf,
    struct plot_look *out)
{
	struct budget_entry e;
	struct rule_look *l = xmalloc((n ? n : 1) * sizeof *l);
	size_t k, decided;

	memset(&e, 0, sizeof e);
	e.name = (char *)name;
	e.budget = budget;
	e.better = higher ? BETTER_HIGHER : BETTER_LOWER;
	/* What the gate saw after each round: the running sequence, the verdict had it stopped there. */
	decided = rule_looks(&e, ratio, n, conf, l);
	for (k = 0; k < n; k++) {
		out[k].lo = l[k].lo;
		out[k].hi = l[k].hi;
		out[k].verdict = l[k].verdict;
	}
	free(l);
	return decided;
}

/* A value of base or head, for pairing: where it came from and which round. */
struct pv {
	size_t file;		/* (size_t)-1: a run without a round, paired by its place */
	long key;		/* the round, or the run's place among its side's */
	int head;
	size_t point;
};

static int
bykey(const void *a, const void *b)
{
	const struct pv *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->head != y->head)
		return x->head - y->head;
	return (x->point > y->point) - (x->point < y->point);
}

static void
keyof(const struct plot *p, size_t point, size_t *file, long *key)
{
	const struct plot_run *r = &p->run[p->point[point].run];

	*file = r->round >= 0 ? r->file : (size_t)-1;
	*key = r->round >= 0 ? r->round : (long)r->seq;
}

/*
 * The slots of metric m: with a pairing, one a distinct round of file,
 * in round order; without (any), one a round in run order, so that the
 * files of a comparison's rows follow each other.
 */
static void
slots(struct plot *p, size_t m, size_t file, int any)
{
	struct plot_metric *mt = &p->metric[m];
	size_t nk = p->first[m + 1] - p->first[m], k, n = 0, i, f, prev = (size_t)-1;
	struct pv *v = xmalloc((nk ? nk : 1) * sizeof *v);
	const struct plot_run *r, *q;
	long key;

	mt->slotround = xmalloc((nk ? nk : 1) * sizeof *mt->slotround);
	mt->nslot = 0;
	for (k = p->first[m]; k < p->first[m + 1]; k++) {
		i = p->ord[k];
		p->point[i].slot = (size_t)-1;
		if (any) {
			r = &p->run[p->point[i].run];
			q = prev == (size_t)-1 ? NULL : &p->run[p->point[prev].run];
			if (q == NULL || r->round < 0 || r->round != q->round || r->file != q->file)
				mt->slotround[mt->nslot++] = r->round;
			p->point[i].slot = mt->nslot - 1;
			prev = i;
			continue;
		}
		keyof(p, i, &f, &key);
		if (f != file)
			continue;
		v[n].file = 0;
		v[n].key = key;
		v[n].head = 0;
		v[n++].point = i;
	}
	if (any) {
		free(v);
		return;
	}
	qsort(v, n, sizeof *v, bykey);
	for (k = 0; k < n; k++) {
		if (k == 0 || v[k].key != v[k - 1].key)
			mt->slotround[mt->nslot++] = p->run[p->point[v[k].point].run].round;
		p->point[v[k].point].slot = mt->nslot - 1;
	}
	free(v);
}

static void
pair(struct plot *p, size_t m)
{
	struct plot_metric *mt = &p->metric[m];
	size_t k, n = 0, i, j, nf = 0, best = (size_t)-1, bestn = 0, *fcount = NULL, *ffile = NULL, s;
	struct pv *v = xmalloc((p->first[m + 1] - p->first[m] + 1) * sizeof *v);
	double b, h;
	int exact, bestexact;

	for (k = p->first[m]; k < p->first[m + 1]; k++) {
		i = p->ord[k];
		s = p->run[p->point[i].run].side;
		if (s != p->base && s != p->head)
			continue;
		keyof(p, i, &v[n].file, &v[n].key);
		v[n].head = s == p->head;
		v[n++].point = i;
	}
	qsort(v, n, sizeof *v, bykey);
	/* The pairs of each file: a shard's runs hold its own metrics' rounds, perhaps others' too. */
	for (k = 0; k + 1 < n; k++) {
		if (v[k].head || !v[k + 1].head || v[k].file != v[k + 1].file || v[k].key != v[k + 1].key)
			continue;
		for (j = 0; j < nf && ffile[j] != v[k].file; j++)
			;
		if (j == nf) {
			fcount = xrealloc(fcount, (nf + 1) * sizeof *fcount);
			ffile = xrealloc(ffile, (nf + 1) * sizeof *ffile);
			ffile[j] = v[k].file;
			fcount[nf++] = 0;
		}
		fcount[j]++;
	}
	/* The file whose pairs are the verdict's rounds; else the one with the most. */
	for (j = 0; j < nf; j++) {
		exact = (long)fcount[j] == mt->rounds;
		bestexact = best != (size_t)-1 && (long)bestn == mt->rounds;
		if (best == (size_t)-1 || (exact && !bestexact) || (!exact && !bestexact && fcount[j] > bestn)) {
			best = ffile[j];
			bestn = fcount[j];
		}
	}
	free(fcount);
	free(ffile);
	if (nf == 0) {
		free(v);
		slots(p, m, 0, 1);
		return;
	}
	slots(p, m, best, 0);
	mt->ratio_k = xmalloc(bestn * sizeof *mt->ratio_k);
	mt->pairslot = xmalloc(bestn * sizeof *mt->pairslot);
	for (k = 0; k + 1 < n; k++) {
		if (v[k].file != best || v[k].head || !v[k + 1].head || v[k].key != v[k + 1].key)
			continue;
		b = p->point[v[k].point].v;
		h = p->point[v[k + 1].point].v;
		/* A count of 0 on both sides is no change; from 0 to some, no ratio holds it. */
		mt->ratio_k[mt->npair] = b > 0 ? h / b : b == 0 && h == 0 ? 1 : b == 0 && h > 0 ? INFINITY : NAN;
		mt->pairslot[mt->npair++] = p->point[v[k].point].slot;
	}
	free(v);
}

void
plot_prepare(struct plot *p)
{
	size_t m, i;
	struct plot_metric *mt;
	double conf;

	p->first = xmalloc((p->nmetric + 2) * sizeof *p->first);
	p->ord = xmalloc((p->npoint ? p->npoint : 1) * sizeof *p->ord);
	memset(p->first, 0, (p->nmetric + 2) * sizeof *p->first);
	for (i = 0; i < p->npoint; i++)
		p->first[p->point[i].metric + 2]++;
	for (m = 0; m < p->nmetric; m++)
		p->first[m + 2] += p->first[m + 1];
	for (i = 0; i < p->npoint; i++)
		p->ord[p->first[p->point[i].metric + 1]++] = i;
	p->base = p->head = (size_t)-1;
	for (i = 0; i < p->nside; i++) {
		if (strcmp(p->side[i], "base") == 0)
			p->base = i;
		else if (strcmp(p->side[i], "head") == 0)
			p->head = i;
	}
	/* Two sides of other names: the second against the first, in the order they ran. */
	if ((p->base == (size_t)-1 || p->head == (size_t)-1) && p->nside == 2) {
		p->base = 0;
		p->head = 1;
	} else if (p->base == (size_t)-1 || p->head == (size_t)-1) {
		p->base = p->head = (size_t)-1;
	}
	for (m = 0; m < p->nmetric; m++) {
		mt = &p->metric[m];
		pair(p, m);
		conf = mt->hasconf ? mt->confidence : p->confidence;
		if (mt->verdict == NULL || !mt->hasbudget || !(conf > 0 && conf < 1) || p->counts || mt->npair == 0)
			continue;
		for (i = 0; i < mt->npair; i++)
			if (!(mt->ratio_k[i] > 0) || !isfinite(mt->ratio_k[i]))
				break;
		if (i < mt->npair)
			continue;
		mt->look = xmalloc(mt->npair * sizeof *mt->look);
		mt->decided = plot_looks(mt->name, mt->budget, mt->higher, mt->ratio_k, mt->npair, conf, mt->look);
	}
}
