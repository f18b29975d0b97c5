/*
 * plot: the picture of a gate's evidence, one metric at a time: first
 * the paired ratios head / base round by round, the rule's interval after
 * each round, the budget's band and the round the metric was decided at;
 * below, smaller, each side's values. plotrounds(1) reads the records,
 * plotrule.c pairs them and asks the rule; this draws them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "plot.h"
#include "plotsvg.h"
#include "util.h"
#include "version.h"

/*
 * The picture's geometry, in SVG user units (pixels): 640 wide with
 * text of 13 and titles of 16, so that a thumbnail 400 wide still reads.
 */
enum {
	WIDTH = 640, LEFT = 58, RIGHT = 66, TITLEH = 46, EVH = 150, RAWGAP = 8,
	RAWH = 62, AXISH = 30, GAP = 14, HEADH = 46, LEGENDH = 52, COUNTH = 76
};
#define PW ((double)(WIDTH - LEFT - RIGHT))

/* The picture being drawn: set by plot_svg, read by its helpers; the headline's height, 0 without a verdict. */
static const struct plot *P;
static double HD;

#define EACHPOINT(k, i, m) for ((k) = P->first[m]; (k) < P->first[(m) + 1] && ((i) = P->ord[k], 1); (k)++)

/* A verdict's colour: the colour-blind tell vermilion, green, purple and black apart, and the words say it too. */
static const char *
vcolour(const char *v)
{
	if (v == NULL || strcmp(v, "ok") == 0)
		return OI_BLACK;
	if (strcmp(v, "improved") == 0)
		return OI_GREEN;
	if (strcmp(v, "undecided") == 0)
		return OI_PURPLE;
	return OI_VERMILION;
}

/* The unit of a metric, from its suffix: matmul_ns is in ns. */
static const char *
unit(const char *name)
{
	const char *u = strrchr(name, '_');

	return u && u[1] ? u + 1 : "";
}

static double
xof(size_t slot, size_t n)
{
	return LEFT + ((double)slot + 0.5) * PW / (double)(n ? n : 1);
}

/* Text, escaped, with a white halo so that it reads over the lines under it. */
static void
text(FILE *fp, double x, double y, const char *anchor, const char *attr, const char *s)
{
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" stroke=\"white\" stroke-width=\"3\""
	    " paint-order=\"stroke\" %s>", x, y, anchor, attr);
	plot_xml(fp, s);
	fputs("</text>\n", fp);
}

/* A label at the right of a panel: its line's height, its place, colour and words. */
struct label {
	double y, ly;
	const char *colour;
	char s[32];
};

/* Labels at the right may not overlap: sorted top down, each at least 13 units below the last. */
static void
spread(struct label *a, size_t n)
{
	struct label t;
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && a[j - 1].y > a[j].y; j--) {
			t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		a[i].ly = i > 0 && a[i].y < a[i - 1].ly + 13 ? a[i - 1].ly + 13 : a[i].y;
}

/* The panel's title: the metric, its verdict with change and budget; below, what the rule saw. */
/* A count's figures: each side's, counted once, and their ratio; the values panel would hold two points. */
static void
counted(char *buf, size_t n, size_t mi)
{
	const struct plot_metric *m = &P->metric[mi];
	char b[32] = "?", h[32] = "?";
	size_t k, i;

	for (k = P->first[mi]; k < P->first[mi + 1]; k++) {
		i = P->ord[k];
		if (P->run[P->point[i].run].side == P->base)
			plot_human(b, sizeof b, P->point[i].v);
		else if (P->run[P->point[i].run].side == P->head)
			plot_human(h, sizeof h, P->point[i].v);
	}
	if (m->npair > 0 && isfinite(m->ratio_k[0]))
		snprintf(buf, n, "base %s, head %s, counted once: head / base %.4f", b, h, m->ratio_k[0]);
	else
		snprintf(buf, n, "base %s, head %s, counted once", b, h);
}

static void
title(FILE *fp, size_t mi, double top)
{
	const struct plot_metric *m = &P->metric[mi];
	char buf[200];
	double conf = m->hasconf ? m->confidence : P->confidence;

	fprintf(fp, "<text x=\"%d\" y=\"%.1f\" font-size=\"16\" fill=\"%s\" font-weight=\"bold\">", LEFT, top + 20,
	    vcolour(m->verdict));
	plot_xml(fp, m->name);
	if (m->higher)
		fputs(" (higher is better)", fp);
	if (m->verdict) {
		fputs(": ", fp);
		plot_xml(fp, m->verdict);
		if (m->hasdelta) {
			snprintf(buf, sizeof buf, ", %+.1f %%", m->delta * 100);
			fputs(buf, fp);
		}
		if (m->hasbudget) {
			snprintf(buf, sizeof buf, " (budget %.4g %%)", m->budget * 100);
			fputs(buf, fp);
		}
	}
	fputs("</text>\n", fp);
	buf[0] = '\0';
	if (P->counts) {
		counted(buf, sizeof buf, mi);
	} else if (m->hasratio && m->hasinterval && conf > 0)
		snprintf(buf, sizeof buf, "median ratio head / base %.4g, interval [%.4g, %.4g] at %.4g %%, %ld rounds",
		    m->ratio, m->lo, m->hi, conf * 100, m->rounds);
	else if (m->npair > 0)
		snprintf(buf, sizeof buf, "head / base, %zu paired round%s", m->npair, m->npair == 1 ? "" : "s");
	if (buf[0])
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" fill=\"#333\">%s</text>\n", LEFT, top + 38, buf);
}

/*
 * The band the budget allows, as the rule (rule.h) has it: a ratio above
 * 1 + budget is beyond it one way, below 1 / (1 + budget) the other. A
 * count (countof -j) only regresses: it has no lower edge (0).
 */
static void
band(const struct plot_metric *m, double *lo, double *hi)
{
	*hi = 1 + m->budget;
	*lo = P->counts ? 0 : 1 / (1 + m->budget);
}

/* A light line where each round begins, and the rounds' numbers under the panel when labels. */
static void
roundlines(FILE *fp, const struct plot_metric *m, double y0, double h, int labels)
{
	size_t i, every = m->nslot > 16 ? (m->nslot + 15) / 16 : 1;
	double x;

	for (i = 0; i < m->nslot; i++) {
		x = xof(i, m->nslot) - PW / (double)m->nslot / 2;
		if (i > 0)
			fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x, x, y0, y0 + h);
		if (labels && m->slotround[i] >= 0 && i % every == 0)
			fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%ld</text>\n",
			    xof(i, m->nslot), y0 + h + 15, m->slotround[i]);
	}
}

/* The evidence: the ratio of each round, the rule's interval after it, the band, the decision. */
static void
evidence(FILE *fp, size_t mi, double y0, double h)
{
	const struct plot_metric *m = &P->metric[mi];
	struct plot_axis a = { 0, 0, y0, h, 1 };
	struct label lab[3];
	double *w = xmalloc((m->npair + 1) * sizeof *w), *lr = xmalloc((m->npair + 1) * sizeof *lr);
	double q1, q3, iqr, vlo = 1, vhi = 1, blo, bhi, x, y1, y2, ty, bw = PW / (double)m->nslot;
	double conf = m->hasconf ? m->confidence : P->confidence;
	size_t i, n = 0, nl = 0, k;
	int hasband = m->hasbudget && m->verdict != NULL, way;
	const char *c;
	char buf[160];

	/* The scale: 1, the band, every ratio but the far outliers, which sit at the edge. */
	for (i = 0; i < m->npair; i++)
		if (m->ratio_k[i] > 0 && isfinite(m->ratio_k[i]))
			lr[n++] = log10(m->ratio_k[i]);
	q1 = plot_quantile(lr, n, 0.25, w);
	q3 = plot_quantile(lr, n, 0.75, w);
	iqr = fmax(q3 - q1, 0.01);
	for (i = 0; i < n; i++)
		if (lr[i] >= q1 - 3 * iqr && lr[i] <= q3 + 3 * iqr) {
			vlo = fmin(vlo, pow(10, lr[i]));
			vhi = fmax(vhi, pow(10, lr[i]));
		}
	band(m, &blo, &bhi);
	if (hasband) {
		vhi = fmax(vhi, bhi);
		if (blo > 0)
			vlo = fmin(vlo, blo);
	}
	if (m->hasinterval && m->lo > 0 && isfinite(m->hi)) {
		vlo = fmin(vlo, m->lo);
		vhi = fmax(vhi, m->hi);
	}
	/* A count's one ratio sits amid its scale, 1 in the middle: no sequence to make room for. */
	if (P->counts) {
		vlo = fmin(vlo, 1 / vhi);
		vhi = fmax(vhi, 1 / vlo);
	}
	plot_axis_fit(&a, vlo, vhi);
	fprintf(fp, "<g class=\"evidence\">\n<rect x=\"%d\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n",
	    LEFT, y0, PW, h);
	if (hasband) {
		y1 = plot_axis_y(&a, bhi);
		y2 = blo > 0 ? plot_axis_y(&a, blo) : y0 + h;
		fprintf(fp, "<rect class=\"band\" x=\"%d\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"#f2f2f2\"/>\n",
		    LEFT, y1, PW, y2 - y1);
	}
	plot_axis_grid(fp, &a, LEFT, WIDTH - RIGHT, 1);
	roundlines(fp, m, y0, h, 0);
	fprintf(fp, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">head / base</text>\n", y0 + h / 2);
	/* The band's edges: beyond the upper a time regressed, below the lower it improved. */
	if (hasband) {
		lab[nl].y = plot_axis_y(&a, bhi);
		lab[nl].colour = m->higher ? OI_GREEN : OI_VERMILION;
		snprintf(lab[nl++].s, sizeof lab[0].s, "+%.4g %%", m->budget * 100);
		if (blo > 0) {
			lab[nl].y = plot_axis_y(&a, blo);
			lab[nl].colour = m->higher ? OI_VERMILION : OI_GREEN;
			snprintf(lab[nl++].s, sizeof lab[0].s, "\xe2\x88\x92%.3g %%", (1 - blo) * 100);
		}
	}
	lab[nl].y = plot_axis_y(&a, 1);
	lab[nl].colour = "#333";
	snprintf(lab[nl++].s, sizeof lab[0].s, "1");
	spread(lab, nl);
	for (i = 0; i < nl; i++) {
		fprintf(fp, "<line class=\"%s\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"%s/>\n",
		    lab[i].s[0] == '1' ? "one" : "budget", LEFT, WIDTH - RIGHT, lab[i].y, lab[i].y, lab[i].colour,
		    lab[i].s[0] == '1' ? "" : " stroke-dasharray=\"6 3\"");
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s</text>\n", WIDTH - RIGHT + 5, lab[i].ly + 4,
		    lab[i].colour, lab[i].s);
	}
	/* The rule's interval after each round: it narrows as the rounds come in. */
	for (i = 0; m->look != NULL && i < m->npair; i++) {
		const struct plot_look *l = &m->look[i];

		int open = !(l->lo > 0) || !isfinite(l->hi);

		/* Neither end yet: the rule knows nothing, and a bar from edge to edge would shout it. */
		if (isnan(l->lo) || isnan(l->hi) || (!(l->lo > 0) && !isfinite(l->hi)) || l->lo > l->hi)
			continue;
		x = xof(m->pairslot[i], m->nslot);
		y1 = plot_axis_y(&a, l->hi);
		y2 = plot_axis_y(&a, l->lo);
		fprintf(fp, "<rect class=\"look\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"" OI_SKY "\""
		    " fill-opacity=\"%s\" stroke=\"" OI_BLUE "\" stroke-width=\"0.8\"%s><title>after round %ld: [%.4g, %.4g] at %.4g %%, %s</title></rect>\n",
		    x - bw * 0.3, y1, bw * 0.6, fmax(y2 - y1, 1), open ? "0.25" : "0.55", open ? " stroke-dasharray=\"3 2\"" : "",
		    m->slotround[m->pairslot[i]], l->lo, l->hi, conf * 100, verdict_name[l->verdict]);
	}
	/* Each round's ratio; one far out sits at the edge, pointing the way it lies. */
	for (i = 0; i < m->npair; i++) {
		x = xof(m->pairslot[i], m->nslot);
		if (isnan(m->ratio_k[i]))
			continue;
		if ((way = plot_axis_off(&a, m->ratio_k[i])) != 0) {
			plot_offmark(fp, OI_BLACK, x, way > 0 ? y0 + 1 : y0 + h - 1, way);
			c = "path";
		} else {
			fprintf(fp, "<circle class=\"ratio\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"" OI_BLACK "\"", x,
			    plot_axis_y(&a, m->ratio_k[i]));
			c = "circle";
		}
		fprintf(fp, "><title>round %ld: head / base %.6g</title></%s>\n", m->slotround[m->pairslot[i]], m->ratio_k[i], c);
	}
	/* The decision's words go at the top of the panel, or at its foot where the ratios crowd the top. */
	for (i = 0, k = 0, n = 0; i < m->npair; i++) {
		y1 = plot_axis_y(&a, m->ratio_k[i]);
		k += y1 < y0 + 26;
		n += y1 > y0 + h - 26;
	}
	ty = k > n ? y0 + h - 8 : y0 + 17;
	/*
	 * The round the metric was decided at, in the verdict's words: weight
	 * 700, since "bold" marks a panel's title alone, which readers count.
	 */
	k = m->decided ? m->decided : P->counts && m->verdict && m->npair ? 1 : 0;
	if (k > 0) {
		const char *v = m->look ? verdict_name[m->look[k - 1].verdict] : m->verdict;

		x = xof(m->pairslot[k - 1], m->nslot);
		c = vcolour(v);
		fprintf(fp, "<line class=\"decided\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\""
		    " stroke-dasharray=\"5 3\"/>\n", x, x, y0, y0 + h, c);
		if (P->counts)
			snprintf(buf, sizeof buf, "%s, counted", v);
		else
			snprintf(buf, sizeof buf, "%s at round %ld", v, m->slotround[m->pairslot[k - 1]]);
		fprintf(fp, "<g fill=\"%s\" font-weight=\"700\" font-size=\"14\">\n", c);
		text(fp, x > LEFT + PW * 0.6 ? x - 5 : x + 5, ty, x > LEFT + PW * 0.6 ? "end" : "start", "class=\"decision\"", buf);
		fputs("</g>\n", fp);
	} else if (m->look != NULL) {
		snprintf(buf, sizeof buf, "undecided after %zu round%s", m->npair, m->npair == 1 ? "" : "s");
		fputs("<g fill=\"" OI_PURPLE "\" font-weight=\"700\" font-size=\"14\">\n", fp);
		text(fp, WIDTH - RIGHT - 5, ty, "end", "class=\"undecided\"", buf);
		fputs("</g>\n", fp);
	}
	fputs("</g>\n", fp);
	free(w);
	free(lr);
}

/* Each side's values, round by round, smaller: no line across, since the gate judges the ratios. */
static void
values(FILE *fp, size_t mi, double y0, double h)
{
	const struct plot_metric *m = &P->metric[mi];
	struct plot_axis a = { 0, 0, y0, h, P->logscale };
	size_t i, k, n = 0, nk = P->first[mi + 1] - P->first[mi], s;
	double *v = xmalloc((nk + 1) * sizeof *v), *w = xmalloc((nk + 1) * sizeof *w);
	double q1, q3, iqr, lo = INFINITY, hi = -INFINITY, x, off;
	const char *c;
	int way;

	EACHPOINT(k, i, mi)
		if (P->point[i].slot != (size_t)-1 && !isnan(P->point[i].v))
			v[n++] = P->logscale ? log10(P->point[i].v) : P->point[i].v;
	q1 = plot_quantile(v, n, 0.25, w);
	q3 = plot_quantile(v, n, 0.75, w);
	iqr = fmax(q3 - q1, P->logscale ? 0.01 : fabs(q3) * 0.01);
	for (i = 0; i < n; i++)
		if (v[i] >= q1 - 3 * iqr && v[i] <= q3 + 3 * iqr) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	free(v);
	free(w);
	fprintf(fp, "<g class=\"values\">\n<rect x=\"%d\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n",
	    LEFT, y0, PW, h);
	if (n == 0) {
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no values</text>\n</g>\n", LEFT + PW / 2, y0 + h / 2);
		return;
	}
	plot_axis_fit(&a, P->logscale ? pow(10, lo) : lo, P->logscale ? pow(10, hi) : hi);
	plot_axis_grid(fp, &a, LEFT, WIDTH - RIGHT, 0);
	roundlines(fp, m, y0, h, 1);
	fprintf(fp, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">", y0 + h / 2);
	plot_xml(fp, unit(m->name));
	fputs(P->logscale ? ", log scale</text>\n" : "</text>\n", fp);
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", LEFT + PW / 2, y0 + h + 28,
	    P->counts ? "each side, counted once" : "round, in run order");
	/* Every run's value, the sides of a round side by side, with its exact figure as a tooltip. */
	off = fmin(6, PW / (double)(m->nslot ? m->nslot : 1) / (double)(P->nside + 1));
	EACHPOINT(k, i, mi) {
		if (P->point[i].slot == (size_t)-1)
			continue;
		s = P->run[P->point[i].run].side;
		x = xof(P->point[i].slot, m->nslot) + ((double)s - ((double)P->nside - 1) / 2) * off;
		if ((way = plot_axis_off(&a, P->point[i].v)) != 0) {
			plot_offmark(fp, plot_colour(s), x, way > 0 ? y0 + 1 : y0 + h - 1, way);
			c = "path";
		} else {
			c = plot_marker(fp, s, x, plot_axis_y(&a, P->point[i].v));
		}
		fputs("><title>", fp);
		plot_xml(fp, P->side[s]);
		if (P->run[P->point[i].run].round >= 0)
			fprintf(fp, ", round %ld", P->run[P->point[i].run].round);
		fprintf(fp, ": %s</title></%s>\n", P->point[i].raw, c);
	}
	fputs("</g>\n", fp);
}

/* How tall metric m's panels are: the evidence where there is a pairing, and the values. */
static double
height(const struct plot_metric *m)
{
	if (P->counts && m->npair > 0)
		return TITLEH + COUNTH + GAP + 10;
	return TITLEH + EVH + RAWGAP + RAWH + AXISH + GAP;
}

static void
panels(FILE *fp, size_t mi, double top)
{
	const struct plot_metric *m = &P->metric[mi];
	double y0 = top + TITLEH;

	title(fp, mi, top);
	if (m->npair == 0) {
		/* Nothing to pair (the sides of a comparison's row): the values alone, full size. */
		values(fp, mi, y0, EVH + RAWGAP + RAWH);
		return;
	}
	if (P->counts) {
		/* A count has one value a side, in the title: the ratio is the evidence. */
		evidence(fp, mi, y0, COUNTH);
		return;
	}
	evidence(fp, mi, y0, EVH);
	values(fp, mi, y0 + EVH + RAWGAP, RAWH);
}

/* One legend item: a mark drawn by the caller at x, then its words; returns where the next begins. */
static double
item(FILE *fp, double x, double y, const char *words)
{
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", x + 14, y + 4);
	plot_xml(fp, words);
	fputs("</text>\n", fp);
	return x + 14 + 6.8 * (double)strlen(words) + 16;
}

/*
 * The gate's verdict first, large, for a thumbnail: "regressed:
 * rmsnorm_ns; 3 ok", the metrics that are not ok named (the first three).
 */
static void
headline(FILE *fp)
{
	size_t m, named = 0, ok = 0, other = 0, cut;
	const char *v = P->verdict;
	struct buf b = { 0 };

	fprintf(fp, "<text class=\"headline\" x=\"%d\" y=\"22\" font-size=\"18\" fill=\"%s\" font-weight=\"700\">", LEFT,
	    vcolour(v));
	plot_xml(fp, v ? v : "no verdict");
	for (m = 0; m < P->nmetric; m++) {
		const char *mv = P->metric[m].verdict;

		if (mv == NULL)
			continue;
		if (strcmp(mv, "ok") == 0) {
			ok++;
			continue;
		}
		if (named == 3) {
			other++;
			continue;
		}
		fputs(named++ ? ", " : ": ", fp);
		plot_xml(fp, P->metric[m].name);
		fputs(" ", fp);
		plot_xml(fp, mv);
	}
	if (other)
		fprintf(fp, ", %zu more", other);
	if (ok)
		fprintf(fp, "%s%zu ok", named ? "; " : ": ", ok);
	fputs("</text>\n", fp);
	/* Why it stopped there: the rounds and the machine, or why it could not decide. */
	b.n = 0;
	if (P->rounds >= 0)
		buf_printf(&b, "%ld round%s", P->rounds, P->rounds == 1 ? "" : "s");
	if (P->why != NULL)
		buf_printf(&b, "%s%s", b.n ? ": " : "", P->why);
	else if (P->machine != NULL)
		buf_printf(&b, "%smachine %s", b.n ? ", " : "", P->machine);
	if (b.n == 0)
		return;
	buf_add(&b, "", 1);
	/* One line of a thumbnail's width: the rest is in verdict.jsonl. */
	if (strlen(b.p) > 80) {
		for (cut = 77; cut > 0 && ((unsigned char)b.p[cut] & 0xC0) == 0x80; cut--)
			;	/* never half a UTF-8 character */
		strcpy(b.p + cut, "\xe2\x80\xa6");
	}
	fprintf(fp, "<text class=\"why\" x=\"%d\" y=\"40\" fill=\"#333\">", LEFT);
	plot_xml(fp, b.p);
	fputs("</text>\n", fp);
	free(b.p);
}

static void
legend(FILE *fp)
{
	double x = LEFT, y = 18 + HD, conf = P->confidence;
	size_t s, m;
	char buf[80];
	const char *c;
	int ruled = 0, paired = 0, banded = 0;

	for (m = 0; m < P->nmetric; m++) {
		paired |= P->metric[m].npair > 0;
		ruled |= P->metric[m].look != NULL;
		banded |= P->metric[m].npair > 0 && P->metric[m].hasbudget && P->metric[m].verdict != NULL;
		if (P->metric[m].look != NULL && P->metric[m].hasconf)
			conf = P->metric[m].confidence;
	}
	if (paired) {
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"" OI_BLACK "\"/>\n", x + 5, y);
		x = item(fp, x, y, P->counts ? "head / base" : "head / base of a round");
	}
	if (ruled) {
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"14\" fill=\"" OI_SKY "\" fill-opacity=\"0.55\""
		    " stroke=\"" OI_BLUE "\" stroke-width=\"0.8\"/>\n", x + 1, y - 7);
		snprintf(buf, sizeof buf, "the rule's interval after it (%.4g %%)", conf * 100);
		x = item(fp, x, y, buf);
	}
	if (banded) {
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"12\" fill=\"#f2f2f2\" stroke=\"#bbb\"/>\n", x, y - 6);
		item(fp, x, y, "within the budget");
	}
	x = LEFT;
	y = 40 + HD;
	for (s = 0; s < P->nside && !P->counts; s++) {
		c = plot_marker(fp, s, x + 5, y);
		fprintf(fp, "></%s>\n", c);
		x = item(fp, x, y, P->side[s]);
	}
}

void
plot_svg(FILE *fp, const struct plot *p)
{
	size_t m;
	double h, top;

	P = p;
	HD = P->verdict != NULL ? HEADH : 0;
	h = LEGENDH + HD + 10;
	for (m = 0; m < P->nmetric; m++)
		h += height(&P->metric[m]);
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\""
	    " font-family=\"sans-serif\" font-size=\"13\">\n"
	    "<title>perfgate: the evidence of every metric, round by round</title>\n"
	    "<desc>drawn by plotrounds %s</desc>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", WIDTH, h, WIDTH, h, perfgate_version());
	if (P->verdict != NULL)
		headline(fp);
	legend(fp);
	for (m = 0, top = LEGENDH + HD; m < P->nmetric; m++) {
		panels(fp, m, top);
		top += height(&P->metric[m]);
	}
	fputs("</svg>\n", fp);
}
