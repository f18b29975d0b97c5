/*
 * perfacc: the accuracy part of the reference benchmarks' document
 * (perfacc.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfacc.h"
#include "util.h"

int
acc_doc_has(const struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (jget(&d->rows[i], "accuracy", 8) != NULL)
			return 1;
	return 0;
}

/* A member of an object given as a field, parsed into r; or exit 2. */
static void
member(struct jrecord *r, const struct jrecord *row, const char *key, const char *where)
{
	const struct jfield *f = doc_need(row, key, J_OBJECT, where);
	const char *err;

	if ((err = jparse(f->raw, f->rawlen, r)) != NULL)
		die("%s: %s: %s", where, key, err);
}

/* A score as the document has it: "inf", or the number. */
static void
score(struct buf *b, const struct jrecord *r, const char *key, const char *where)
{
	const struct jfield *f = jget(r, key, strlen(key));

	if (f != NULL && f->type == J_STRING && f->rawlen == 3 && memcmp(f->raw, "inf", 3) == 0)
		buf_puts(b, "inf");
	else
		buf_printf(b, "%.3g", doc_num(r, key, where));
}

/* One side's cell: "1.58", or "inf (finite 1.58, disagree 4, coverage 0.9998)". */
static void
cell(struct buf *b, const struct jrecord *s, const char *where)
{
	const struct jfield *m = jget(s, "max_ulp", 7), *fin = jget(s, "max_ulp_finite", 14);
	double dis = doc_num(s, "disagree", where), cov = doc_num(s, "coverage", where);

	score(b, s, "max_ulp", where);
	if (dis == 0 && cov == 1 && m != NULL && fin != NULL && m->rawlen == fin->rawlen &&
	    memcmp(m->raw, fin->raw, m->rawlen) == 0)
		return;
	buf_puts(b, " (finite ");
	score(b, s, "max_ulp_finite", where);
	buf_printf(b, ", disagree %.0f, coverage %.4g)", dis, cov);
}

void
acc_table(struct buf *b, const struct doc *d)
{
	struct jrecord acc = { 0 };
	struct items it = { 0 };
	const struct jfield *f;
	char *s;
	size_t i, nside = 0;
	int head = 0;

	for (i = 0; i < d->nrows; i++) {
		if (jget(&d->rows[i], "accuracy", 8) == NULL)
			continue;
		member(&acc, &d->rows[i], "accuracy", d->path);
		if (!head) {
			head = 1;
			buf_puts(b, "\n## Accuracy\n\nEach side evaluated each case once on the same"
			    " inputs, scored against an oracle of higher precision: the largest"
			    " error in units in the last place of the result type (`inf`: a finite"
			    " value was expected, NaN or an infinity came back); where it is not"
			    " the whole story, the largest over the finite results, the special-value"
			    " disagreements and the share of points with a value. Each reference's"
			    " label weighs the speed verdict with the finite error against the"
			    " case's budget (`[accuracy]`, in ulp): ahead, faster-less-accurate,"
			    " tie, tie-less-accurate, behind, tradeoff.\n\n| case | budget |");
			for (doc_items_open(&it, &acc, "sides", d->path); doc_items_next(&it, d->path); nside++) {
				s = doc_str(&it.r, "side", d->path);
				buf_printf(b, " %s |", s);
				free(s);
			}
			buf_puts(b, " labels |\n|---|---:|");
			for (; nside > 0; nside--)
				buf_puts(b, "---:|");
			buf_puts(b, "---|\n");
		}
		s = doc_str(&d->rows[i], "case", d->path);
		buf_printf(b, "| %s | ", s);
		free(s);
		f = jget(&acc, "budget_ulp", 10);
		if (f != NULL && f->type == J_NUMBER)
			buf_printf(b, "%.3g |", f->num);
		else
			buf_puts(b, "none |");
		for (doc_items_open(&it, &acc, "sides", d->path); doc_items_next(&it, d->path); ) {
			buf_puts(b, " ");
			cell(b, &it.r, d->path);
			buf_puts(b, " |");
		}
		buf_puts(b, " ");
		nside = 0;
		for (doc_items_open(&it, &acc, "labels", d->path); doc_items_next(&it, d->path); nside++) {
			char *ref = doc_str(&it.r, "reference", d->path);

			s = doc_str(&it.r, "label", d->path);
			buf_printf(b, "%s%s %s", nside ? ", " : "", ref, s);
			free(ref);
			free(s);
		}
		buf_puts(b, nside ? " |\n" : "– |\n");
		jrecord_free(&acc);
	}
	jrecord_free(&it.r);
}

int
acc_row_flagged(const struct jrecord *row, const char *where, char **ref, char **label)
{
	static const char *worst[] = { "faster-less-accurate", "tie-less-accurate" };
	struct jrecord acc = { 0 };
	struct items it = { 0 };
	size_t k;
	char *s;

	*ref = *label = NULL;
	if (jget(row, "accuracy", 8) == NULL)
		return 0;
	member(&acc, row, "accuracy", where);
	for (k = 0; k < 2 && *label == NULL; k++)
		for (doc_items_open(&it, &acc, "labels", where); doc_items_next(&it, where); ) {
			s = doc_str(&it.r, "label", where);
			if (*label == NULL && strcmp(s, worst[k]) == 0) {
				*label = s;
				*ref = doc_str(&it.r, "reference", where);
			} else {
				free(s);
			}
		}
	jrecord_free(&it.r);
	jrecord_free(&acc);
	return *label != NULL;
}

void
acc_draft(struct buf *b, const struct jrecord *row, const char *where)
{
	struct jrecord acc = { 0 };
	struct items it = { 0 };
	const struct jfield *f;
	char *s, *l;
	size_t k;

	if (jget(row, "accuracy", 8) == NULL)
		return;
	member(&acc, row, "accuracy", where);
	f = jget(&acc, "budget_ulp", 10);
	buf_puts(b, "\nAccuracy against the oracle, in ulp (budget ");
	if (f != NULL && f->type == J_NUMBER)
		buf_printf(b, "%.*s", (int)f->rawlen, f->raw);
	else
		buf_puts(b, "none");
	buf_puts(b, "):\n\n");
	for (doc_items_open(&it, &acc, "sides", where); doc_items_next(&it, where); ) {
		s = doc_str(&it.r, "side", where);
		buf_printf(b, "- %s: max_ulp ", s);
		score(b, &it.r, "max_ulp", where);
		buf_puts(b, ", max_ulp_finite ");
		score(b, &it.r, "max_ulp_finite", where);
		buf_printf(b, ", disagree %.0f, coverage %.6g\n", doc_num(&it.r, "disagree", where),
		    doc_num(&it.r, "coverage", where));
		free(s);
	}
	buf_puts(b, "\nLabels:");
	k = 0;
	for (doc_items_open(&it, &acc, "labels", where); doc_items_next(&it, where); k++) {
		s = doc_str(&it.r, "reference", where);
		l = doc_str(&it.r, "label", where);
		buf_printf(b, "%s %s %s", k ? "," : "", s, l);
		free(s);
		free(l);
	}
	buf_puts(b, k ? "\n" : " none\n");
	jrecord_free(&it.r);
	jrecord_free(&acc);
}
