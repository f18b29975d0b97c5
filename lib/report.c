/*
 * report: the table and the Markdown of cmpbudget. Both show the same
 * cells: each side's statistic, the change, the budget and the verdict,
 * then the paired ratios' median with its interval and their outcome.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"
#include "outfile.h"
#include "report.h"
#include "util.h"

enum { NCOL = 8, CELL = 256 };

/* The columns whose cells are numbers, right-aligned. */
static const int colright[NCOL] = { 0, 1, 1, 1, 1, 0, 0, 0 };

/* Whether the rows are the paired rule's (cmpbudget -D): its evidence in the last column. */
static int
ruled(const struct report *rp)
{
	return rp->n > 0 && rp->res[0].ruled;
}

static void
headers(char cell[NCOL][CELL], double confidence, int rule)
{
	static const char *const name[NCOL] = {
		"metric", "base", "head", "Δ %", "budget %", "verdict", NULL, "outcome"
	};
	int c;

	for (c = 0; c < NCOL; c++)
		snprintf(cell[c], CELL, "%s", name[c] ? name[c] : "");
	snprintf(cell[6], CELL, "ratio (%.4g%% CI)", confidence * 100);
	if (rule)
		snprintf(cell[7], CELL, "evidence");
}

/*
 * What the paired rule's verdict rests on: the bound on the change shown,
 * or the claim shown in both halves of the rounds, or what is not shown.
 */
static void
evidence(char *cell, const struct result *r)
{
	const char *dir = r->e->better == BETTER_HIGHER ? "≥" : "≤";

	switch (r->verdict) {
	case V_OK:
		snprintf(cell, CELL, "%s %+.1f %%", dir, r->bound * 100);
		break;
	case V_REGRESSED:
	case V_IMPROVED:
		snprintf(cell, CELL, "shown in both halves");
		break;
	case V_UNDECIDED:
		if (r->possible)
			snprintf(cell, CELL, "a possible change");
		else if (r->hasinterval)
			snprintf(cell, CELL, "%s %+.1f %%, not within", dir, r->bound * 100);
		else
			snprintf(cell, CELL, "too few rounds");
		break;
	default:
		snprintf(cell, CELL, "-");
	}
}

/*
 * How the sides' columns write their numbers, one notation for both, so
 * that a person compares numbers written alike down a column and across a
 * row: fixed (27390.7, 3584410) while every value lies within
 * [FIXED_LO, FIXED_HI) or is 0, else scientific (1e-07, 2.5e+12).
 */
enum notation { FIXED, SCIENTIFIC };

#define FIXED_LO 1e-3
#define FIXED_HI 1e12

static int
fits_fixed(const struct jfield *f)
{
	double a;

	if (f == NULL || f->type != J_NUMBER)
		return 1;
	a = fabs(f->num);
	return a == 0 || (a >= FIXED_LO && a < FIXED_HI);
}

static enum notation
notation(const struct report *rp)
{
	size_t i;

	for (i = 0; i < rp->n; i++)
		if (!fits_fixed(rp->res[i].base) || !fits_fixed(rp->res[i].head))
			return SCIENTIFIC;
	return FIXED;
}

/* Trailing zeros of a fraction (in s, up to an exponent or the end) go, and a bare point with them. */
static void
trim_zeros(char *s)
{
	char *dot = strchr(s, '.'), *end, *z;

	if (dot == NULL)
		return;
	end = dot + strcspn(dot, "eE");
	for (z = end; z > dot + 1 && z[-1] == '0'; z--)
		;
	if (z == dot + 1)
		z = dot;
	memmove(z, end, strlen(end) + 1);
}

/*
 * A number for a person to read: rounded to six significant digits,
 * finer than any noise the gate can see, in the column's notation; the
 * records keep every digit. 27390.6875 is 27390.7, 123456789 is
 * 123457000, 1e-7 is 1e-07.
 */
static void
readable(char *cell, const struct jfield *f, enum notation nt)
{
	char e[32];
	int exp10, decimals;

	if (f == NULL) {
		snprintf(cell, CELL, "-");
		return;
	}
	if (f->type != J_NUMBER) {
		snprintf(cell, CELL, "%.*s", (int)f->rawlen, f->raw);
		return;
	}
	/* The six digits, rounded once; the exponent after the rounding (999999.7 is 1.00000e+06). */
	snprintf(e, sizeof e, "%.5e", f->num);
	if (nt == SCIENTIFIC || f->num == 0) {
		snprintf(cell, CELL, "%s", f->num == 0 ? "0" : e);
		trim_zeros(cell);
		return;
	}
	exp10 = atoi(strchr(e, 'e') + 1);
	decimals = exp10 >= 5 ? 0 : 5 - exp10;
	snprintf(cell, CELL, "%.*f", decimals, strtod(e, NULL));
	trim_zeros(cell);
}

/*
 * v times 10^shift, decimals figures after the point, in a dozen
 * characters at most: a ratio of 1e308 is a figure a person reads, not a
 * 300-digit cell (issue 20). From 10^6 on it is m.mme+N, the shift added to
 * the exponent so that a delta times 100 never overflows to "inf".
 */
static void
bounded(char *cell, size_t n, double v, int shift, int decimals, int sign)
{
	double m;
	int e;

	if (!isfinite(v) || fabs(v) * pow(10, shift) < 1e6) {
		snprintf(cell, n, sign ? "%+.*f" : "%.*f", decimals, v * pow(10, shift));
		return;
	}
	e = (int)floor(log10(fabs(v)));
	m = v / pow(10, e);
	if (fabs(m) >= 9.995) {
		m /= 10;
		e++;
	}
	snprintf(cell, n, sign ? "%+.2fe%+d" : "%.2fe%+d", m, e + shift);
}

static void
cells(const struct result *r, char cell[NCOL][CELL], enum notation nt)
{
	char ratio[32], lo[32], hi[32];

	/* An arrow marks a metric where higher is better. */
	snprintf(cell[0], CELL, "%s%s", r->e->name, r->e->better == BETTER_HIGHER ? " ↑" : "");
	readable(cell[1], r->base, nt);
	readable(cell[2], r->head, nt);
	if (r->hasdelta)
		bounded(cell[3], CELL, r->deltav, 2, 1, 1);
	else
		snprintf(cell[3], CELL, "-");
	snprintf(cell[4], CELL, "%.4g", r->e->budget * 100);
	snprintf(cell[5], CELL, "%s%s", verdict_name[r->verdict], r->doubted ? " (doubted)" : "");
	if (r->hasinterval) {
		bounded(ratio, sizeof ratio, r->ratio, 0, 3, 0);
		bounded(lo, sizeof lo, r->lo, 0, 3, 0);
		bounded(hi, sizeof hi, r->hi, 0, 3, 0);
		snprintf(cell[6], CELL, "%s [%s,%s]", ratio, lo, hi);
	} else if (r->hasratio) {
		bounded(cell[6], CELL, r->ratio, 0, 3, 0);
	} else
		snprintf(cell[6], CELL, "-");
	if (r->ruled)
		evidence(cell[7], r);
	else
		snprintf(cell[7], CELL, "%s", r->outcome == O_NONE ? "-" : outcome_name[r->outcome]);
}

/* Width on a terminal: UTF-8 continuation bytes take no column. */
static int
width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void
padded(FILE *fp, const char *s, int w, int right)
{
	int pad = w - width(s);

	if (right)
		fprintf(fp, "%*s%s", pad > 0 ? pad : 0, "", s);
	else
		fprintf(fp, "%s%*s", s, pad > 0 ? pad : 0, "");
}

void
report_table(FILE *fp, const struct report *rp)
{
	char cell[NCOL][CELL];
	int w[NCOL], c, last;
	enum notation nt = notation(rp);
	size_t i;

	headers(cell, rp->confidence, ruled(rp));
	for (c = 0; c < NCOL; c++)
		w[c] = width(cell[c]);
	for (i = 0; i < rp->n; i++) {
		cells(&rp->res[i], cell, nt);
		for (c = 0; c < NCOL; c++)
			if (width(cell[c]) > w[c])
				w[c] = width(cell[c]);
	}
	for (i = 0; i <= rp->n; i++) {
		if (i == 0)
			headers(cell, rp->confidence, ruled(rp));
		else
			cells(&rp->res[i - 1], cell, nt);
		for (c = 0; c < NCOL; c++) {
			last = c == NCOL - 1;
			/* No trailing blanks: the last column is left-aligned and not padded. */
			if (last)
				fputs(cell[c], fp);
			else
				padded(fp, cell[c], w[c], colright[c]);
			fputs(last ? "\n" : "  ", fp);
		}
	}
}

/*
 * The metrics with verdict v, as "`a`, `b`", after prefix; nothing when
 * none.
 */
static void
mdlist(FILE *fp, const struct report *rp, enum verdict v, const char *prefix)
{
	size_t i;
	int first = 1;

	for (i = 0; i < rp->n; i++)
		if (rp->res[i].verdict == v) {
			fprintf(fp, "%s ", first ? prefix : ",");
			md_code(fp, rp->res[i].e->name);
			first = 0;
		}
}

static void
markdown(FILE *fp, const struct report *rp, const char *note)
{
	char cell[NCOL][CELL];
	size_t i, nreg = 0, nund = 0;
	enum notation nt = notation(rp);
	int c;

	for (i = 0; i < rp->n; i++) {
		nreg += rp->res[i].verdict == V_REGRESSED;
		nund += rp->res[i].verdict == V_UNDECIDED;
	}
	if (rp->error != NULL) {
		fputs("**cmpbudget: error**: ", fp);
		md_text(fp, rp->error);
	} else if (nreg) {
		mdlist(fp, rp, V_REGRESSED, "**cmpbudget: regressed**:");
		mdlist(fp, rp, V_UNDECIDED, "; undecided:");
		mdlist(fp, rp, V_IMPROVED, "; improved:");
	} else if (nund) {
		mdlist(fp, rp, V_UNDECIDED, "**cmpbudget: undecided**:");
		mdlist(fp, rp, V_IMPROVED, "; improved:");
	} else {
		fprintf(fp, "**cmpbudget: ok**: %zu metric%s within budget", rp->n, rp->n == 1 ? "" : "s");
		mdlist(fp, rp, V_IMPROVED, "; improved:");
	}
	fputs("\n", fp);
	if (rp->n == 0)
		return;
	headers(cell, rp->confidence, ruled(rp));
	fputs("\n|", fp);
	for (c = 0; c < NCOL; c++)
		fprintf(fp, " %s |", cell[c]);
	fputs("\n|", fp);
	for (c = 0; c < NCOL; c++)
		fputs(colright[c] ? " ---: |" : " :--- |", fp);
	fputs("\n", fp);
	for (i = 0; i < rp->n; i++) {
		cells(&rp->res[i], cell, nt);
		fputs("|", fp);
		for (c = 0; c < NCOL; c++) {
			/* What a reviewer must see: a verdict other than ok, in bold. */
			int bold = c == 5 && rp->res[i].verdict != V_OK;

			fputs(bold ? " **" : " ", fp);
			md_text(fp, cell[c]);
			fputs(bold ? "** |" : " |", fp);
		}
		fputs("\n", fp);
	}
	if (note != NULL) {
		fputs("\n", fp);
		md_text(fp, note);
		fputs("\n", fp);
	}
}

/*
 * Written whole through outfile (a regular file renamed into place, a
 * device such as /dev/null or a FIFO in place, never replaced).
 */
char *
report_markdown(const char *path, const struct report *rp)
{
	return report_markdown_note(path, rp, NULL);
}

char *
report_markdown_note(const char *path, const struct report *rp, const char *note)
{
	struct outfile o;
	char *msg;

	if ((msg = outfile_open(&o, path, "w")) != NULL)
		return msg;
	markdown(o.fp, rp, note);
	return outfile_commit(&o);
}
