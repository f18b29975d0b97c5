/*
 * plotcmp: the picture of make compare's document, one panel a row: each
 * reference's ratio, the implementation's median time over the
 * reference's, on a log scale with 1 marked, and its quartile band, the
 * implementation's q1 over the reference's q3 to its q3 over their q1, so
 * that a band clear of 1 is refjudge's "slower" or "faster".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"
#include "plotsvg.h"
#include "version.h"

enum { WIDTH = 640, LEFT = 58, RIGHT = 30, HEADH = 62, TITLEH = 28, ROWH = 120, NAMEH = 40, GAP = 12 };
#define PW ((double)(WIDTH - LEFT - RIGHT))

static const char *
wcolour(const char *v)
{
	if (v == NULL)
		return OI_BLACK;
	return strcmp(v, "slower") == 0 ? OI_VERMILION : strcmp(v, "faster") == 0 ? OI_GREEN : OI_BLACK;
}

/* Three significant digits, never an exponent: 1.35, 21.9, 1347. */
static int
digits(double v)
{
	return v >= 100 ? 0 : v >= 10 ? 1 : 2;
}

static void
row(FILE *fp, const struct plot_compare *c, const struct plot_row *r, double top)
{
	struct plot_axis a = { 0, 0, top + TITLEH, ROWH, 1 };
	double lo = 1, hi = 1, x, y, y1, y2, w;
	size_t k;
	char buf[96];

	fprintf(fp, "<text x=\"%d\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">", LEFT, top + 19);
	plot_xml(fp, r->name);
	if (r->metric) {
		fputs(" (", fp);
		plot_xml(fp, r->metric);
		fputs(")", fp);
	}
	fputs("</text>\n", fp);
	fprintf(fp, "<g class=\"row\">\n<rect x=\"%d\" y=\"%.1f\" width=\"%.0f\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	    LEFT, a.top, PW, ROWH);
	if (r->note != NULL || r->nref == 0) {
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", LEFT + PW / 2, a.top + ROWH / 2.0);
		plot_xml(fp, r->note ? r->note : "no references");
		fputs("</text>\n</g>\n", fp);
		return;
	}
	for (k = 0; k < r->nref; k++) {
		if (r->ref[k].ratio > 0 && isfinite(r->ref[k].ratio)) {
			lo = fmin(lo, r->ref[k].ratio);
			hi = fmax(hi, r->ref[k].ratio);
		}
		if (r->ref[k].hasband && r->ref[k].lo > 0 && isfinite(r->ref[k].hi)) {
			lo = fmin(lo, r->ref[k].lo);
			hi = fmax(hi, r->ref[k].hi);
		}
	}
	plot_axis_fit(&a, lo, hi);
	plot_axis_grid(fp, &a, LEFT, WIDTH - RIGHT, 1);
	y = plot_axis_y(&a, 1);
	fprintf(fp, "<line class=\"one\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"1.5\"/>\n",
	    LEFT, WIDTH - RIGHT, y, y);
	fprintf(fp, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">", a.top + ROWH / 2.0);
	plot_xml(fp, c->implementation);
	fputs(" / reference</text>\n", fp);
	w = fmin(28, PW / (double)r->nref / 3);
	for (k = 0; k < r->nref; k++) {
		const struct plot_ref *f = &r->ref[k];
		const char *col = plot_colour(k + 1);

		x = LEFT + ((double)k + 0.5) * PW / (double)r->nref;
		if (f->hasband) {
			y1 = plot_axis_y(&a, f->hi);
			y2 = plot_axis_y(&a, f->lo);
			fprintf(fp, "<rect class=\"quartiles\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\""
			    " fill-opacity=\"0.35\" stroke=\"%s\"><title>quartiles: %.4g to %.4g</title></rect>\n",
			    x - w / 2, y1, w, fmax(y2 - y1, 1), col, col, f->lo, f->hi);
		}
		if (f->ratio > 0 && isfinite(f->ratio)) {
			fprintf(fp, "<circle class=\"ratio\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" stroke=\"" OI_BLACK "\">"
			    "<title>median ratio %.6g</title></circle>\n", x, plot_axis_y(&a, f->ratio), col, f->ratio);
		}
		/* The name in black beside a swatch of its colour: sky blue text is faint on white. */
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"%s\"/>\n", x - 6.5 * (double)strlen(f->name) / 2 - 13,
		    a.top + ROWH + 7, col);
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\">", x, a.top + ROWH + 16);
		plot_xml(fp, f->name);
		fputs("</text>\n", fp);
		/* The words of refjudge's verdict, with how many times. */
		if (f->verdict && strcmp(f->verdict, "faster") == 0 && f->ratio > 0)
			snprintf(buf, sizeof buf, "%.*f\xc3\x97 faster", digits(1 / f->ratio), 1 / f->ratio);
		else if (f->verdict && strcmp(f->verdict, "slower") == 0)
			snprintf(buf, sizeof buf, "%.*f\xc3\x97 slower", digits(f->ratio), f->ratio);
		else
			snprintf(buf, sizeof buf, "%s, %.3g", f->verdict ? f->verdict : "no verdict", f->ratio);
		fprintf(fp, "<text class=\"verdict\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">", x,
		    a.top + ROWH + 32, wcolour(f->verdict));
		plot_xml(fp, buf);
		fputs("</text>\n", fp);
	}
	fputs("</g>\n", fp);
}

void
plot_compare_svg(FILE *fp, const struct plot_compare *c)
{
	double h = HEADH + (double)c->nrow * (TITLEH + ROWH + NAMEH + GAP) + 6;
	size_t i;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\""
	    " font-family=\"sans-serif\" font-size=\"13\">\n"
	    "<title>perfgate: make compare, each case against its references</title>\n"
	    "<desc>drawn by plotrounds %s</desc>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", WIDTH, h, WIDTH, h, perfgate_version());
	fprintf(fp, "<text x=\"%d\" y=\"22\" font-size=\"16\" font-weight=\"bold\">", LEFT);
	plot_xml(fp, c->implementation);
	fputs(" against its references</text>\n", fp);
	fprintf(fp, "<text x=\"%d\" y=\"40\" fill=\"#333\">median time over each reference's, log scale; the bar: the quartiles</text>\n", LEFT);
	if (c->commit || c->date) {
		fprintf(fp, "<text x=\"%d\" y=\"56\" fill=\"#555\">", LEFT);
		if (c->commit) {
			fputs("commit ", fp);
			plot_xml(fp, c->commit);
		}
		if (c->date) {
			fputs(c->commit ? ", " : "", fp);
			plot_xml(fp, c->date);
		}
		fputs("</text>\n", fp);
	}
	for (i = 0; i < c->nrow; i++)
		row(fp, c, &c->row[i], HEADH + (double)i * (TITLEH + ROWH + NAMEH + GAP));
	fputs("</svg>\n", fp);
}
