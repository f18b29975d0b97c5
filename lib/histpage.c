/*
 * histpage: the history as a person reads it, a static page. Per metric
 * the chained ratio along the first-parent path (each commit's ratio
 * times all before it, on a log scale), each commit's interval around its
 * step, its verdict's colour, the creeps check reported shaded, a machine
 * change and a gap marked. Every point names its commit and subject.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histpage.h"
#include "json.h"
#include "jsonreader.h"
#include "msg.h"
#include "outfile.h"
#include "util.h"

enum { W_MIN = 640, H = 280, LEFT = 64, RIGHT = 16, TOPM = 24, BOTTOM = 40 };

/* Text in XML, where a name is data: every character that means something escaped. */
static void
xml(FILE *fp, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default:
			if ((unsigned char)*s >= ' ' || *s == '\t')
				fputc(*s, fp);
		}
}

static void
commiturl(FILE *fp, const char *url, const char *hash)
{
	const char *p;

	for (p = url; *p; p++) {
		if (p[0] == '%' && p[1] == 'H') {
			fputs(hash, fp);
			p++;
		} else {
			char c[2] = { *p, 0 };
			xml(fp, c);
		}
	}
}

static const char *
colour(const char *verdict)
{
	if (strcmp(verdict, "regressed") == 0)
		return "#c0392b";
	if (strcmp(verdict, "improved") == 0)
		return "#1e8449";
	if (strcmp(verdict, "ok") == 0)
		return "#2e4a7d";
	return "#d68910";
}

static void
svg(FILE *fp, const struct hist *h, const char *metric, const char *url, const struct hmark *mark, size_t nmark)
{
	double *chain = xmalloc((h->n + 1) * sizeof *chain), ymin = 0, ymax = 0, c = 0, x, y, y0, y1, step;
	const struct hmetric *m;
	size_t i, k;
	int w = (int)(h->n * 10 + LEFT + RIGHT), open = 0, t;

	if (w < W_MIN)
		w = W_MIN;
	/* chain[i]: the log of the product of ratios up to commit i; a gap adds nothing. */
	for (i = 0; i < h->n; i++) {
		if ((m = hist_at(h, i, metric)) != NULL) {
			if (m->have_interval) {
				ymin = fmin(ymin, c + log(m->lo));
				ymax = fmax(ymax, c + log(m->hi));
			}
			c += log(m->ratio);
		}
		chain[i] = c;
		ymin = fmin(ymin, c);
		ymax = fmax(ymax, c);
	}
	if (ymax - ymin < 0.02) {
		ymax += 0.01;
		ymin -= 0.01;
	}
	step = h->n > 1 ? (double)(w - LEFT - RIGHT) / (double)(h->n - 1) : 0;
#define X(i) (LEFT + step * (double)(i))
#define Y(v) (TOPM + (ymax - (v)) / (ymax - ymin) * (H - TOPM - BOTTOM))
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
	    " font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n<title>", w, H, w, H);
	xml(fp, metric);
	fputs(": the chained ratio along the history</title>\n", fp);
	for (k = 0; k < nmark; k++) {
		if (strcmp(mark[k].metric, metric) != 0)
			continue;
		fprintf(fp, "<rect class=\"creep %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\""
		    " fill-opacity=\"0.15\"><title>", mark[k].status, X(mark[k].from) - step / 2, TOPM,
		    step * (double)(mark[k].to - mark[k].from + 1), H - TOPM - BOTTOM,
		    strcmp(mark[k].status, "confirmed") == 0 ? "#c0392b" : "#7f8c8d");
		fprintf(fp, "a creep %s: %zu commits</title></rect>\n", mark[k].status, mark[k].to - mark[k].from + 1);
	}
	/* The axis: ratios to the first commit, a line at 1. */
	for (t = -4; t <= 4; t++) {
		double v = log1p(0.05 * t);
		if (v < ymin || v > ymax)
			continue;
		fprintf(fp, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%+d %%</text>\n", LEFT, w - RIGHT, Y(v), Y(v),
		    LEFT - 4, Y(v) + 4, 5 * t);
	}
	fputs("<path fill=\"none\" stroke=\"#2e4a7d\" stroke-width=\"1.5\" d=\"", fp);
	for (i = 0; i < h->n; i++) {
		if (hist_at(h, i, metric) == NULL) {
			open = 0;
			continue;
		}
		fprintf(fp, "%c%.1f %.1f ", open ? 'L' : 'M', X(i), Y(chain[i]));
		open = 1;
	}
	fputs("\"/>\n", fp);
	for (i = 0; i < h->n; i++) {
		const struct hcommit *cm = &h->c[i];

		x = X(i);
		if (cm->machine_changed)
			fprintf(fp, "<line class=\"machine\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#8e44ad\""
			    " stroke-dasharray=\"4 3\"><title>another machine from here: %s</title></line>\n", x - step / 2,
			    x - step / 2, TOPM, H - BOTTOM, cm->rec[cm->use].machine);
		if ((m = hist_at(h, i, metric)) == NULL) {
			if (cm->parent[0] != '\0')
				fprintf(fp, "<text class=\"gap\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#999\">?"
				    "<title>%.12s: no record (a gap)</title></text>\n", x, H - BOTTOM + 14, cm->hash);
			continue;
		}
		y = Y(chain[i]);
		if (m->have_interval) {
			y0 = Y(chain[i] - log(m->ratio) + log(m->lo));
			y1 = Y(chain[i] - log(m->ratio) + log(m->hi));
			fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"0.5\"/>\n",
			    x, x, y0, y1, colour(m->verdict));
		}
		if (url != NULL) {
			fputs("<a href=\"", fp);
			commiturl(fp, url, cm->hash);
			fputs("\">", fp);
		}
		fprintf(fp, "<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>%.12s ", m->verdict,
		    x, y, strcmp(m->verdict, "ok") == 0 ? 3 : 5, colour(m->verdict), cm->hash);
		xml(fp, cm->subject);
		fprintf(fp, "\n%s: ratio %.4g", m->verdict, m->ratio);
		if (m->have_interval)
			fprintf(fp, " [%.4g, %.4g]", m->lo, m->hi);
		fprintf(fp, ", chained %+.1f %%</title></circle>%s\n", 100 * (exp(chain[i]) - 1), url != NULL ? "</a>" : "");
	}
	fprintf(fp, "<text x=\"%d\" y=\"%d\">oldest</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">newest</text>\n",
	    LEFT, H - 8, w - RIGHT, H - 8);
	fputs("</svg>\n", fp);
#undef X
#undef Y
	free(chain);
}

char *
hist_page(const struct hist *h, const char *dir, const char *url, const struct hmark *mark, size_t nmark)
{
	char *page = NULL, *one = NULL, *path, *why;
	size_t plen = 0, olen = 0, i, k, gaps = 0;
	FILE *fp = open_memstream(&page, &plen), *s;

	if (fp == NULL)
		return msgf("open_memstream failed");
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfgate history</title>\n"
	    "<style>body{font-family:sans-serif;margin:2em;max-width:80em}h2{font-family:monospace}"
	    "svg{border:1px solid #eee}</style></head>\n<body>\n<h1>perfgate history</h1>\n", fp);
	for (i = 0; i < h->n; i++)
		gaps += h->c[i].use < 0 && h->c[i].parent[0] != '\0';
	fprintf(fp, "<p>%zu commits of the first-parent path, oldest first; %zu without a record (gaps, marked ?)."
	    " A point is a commit: its gate against its parent, chained (multiplied) with every one before it;"
	    " its bar is that gate's interval. Red regressed, green improved, blue ok, orange undecided;"
	    " a shaded stretch is a creep history check reported; a dashed line, another machine.</p>\n", h->n, gaps);
	for (k = 0; k < h->nmetric; k++) {
		if ((s = open_memstream(&one, &olen)) == NULL)
			return msgf("open_memstream failed");
		svg(s, h, h->metric[k], url, mark, nmark);
		fclose(s);
		fputs("<h2>", fp);
		xml(fp, h->metric[k]);
		fputs("</h2>\n", fp);
		fwrite(one, 1, olen, fp);
		fputs("<p><a href=\"", fp);
		xml(fp, h->metric[k]);
		fputs(".svg\">the SVG alone</a></p>\n", fp);
		path = msgf("%s/%s.svg", dir, h->metric[k]);
		why = outfile_put(path, one, olen);
		free(path);
		free(one);
		one = NULL;
		if (why != NULL) {
			fclose(fp);
			free(page);
			return why;
		}
	}
	fputs("</body></html>\n", fp);
	fclose(fp);
	path = msgf("%s/index.html", dir);
	why = outfile_put(path, page, plen);
	free(path);
	free(page);
	return why;
}

char *
hist_marks(const char *path, const struct hist *h, struct hmark **out, size_t *nout)
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const struct jfield *f;
	const char *line, *why;
	char *bad = NULL;
	size_t len, n = 0, i;
	char *from, *to, *metric, *status;
	long a, b;
	int st;

	*out = NULL;
	if (jreader_open(&r, path) != 0)
		return msgf("%s: %s", path, strerror(errno));
	while ((st = jreader_next(&r, &line, &len)) > 0) {
		if (jblank(line, len))
			continue;
		if ((why = jparse(line, len, &rec)) != NULL) {
			bad = msgf("%s:%lu: %s", path, r.lineno, why);
			break;
		}
		f = jget(&rec, "history", 7);
		if (f == NULL || f->type != J_STRING || !memeq_str(f->raw, f->rawlen, "creep"))
			continue;
#define S(k) ((f = jget(&rec, k, strlen(k))) != NULL && f->type == J_STRING ? xmemdup(f->raw, f->rawlen) : xstrdup(""))
		from = S("from");
		to = S("to");
		metric = S("metric");
		status = S("status");
#undef S
		a = b = -1;
		for (i = 0; i < h->n; i++) {
			if (a < 0 && strcmp(h->c[i].parent, from) == 0)
				a = (long)i;
			if (strcmp(h->c[i].hash, to) == 0)
				b = (long)i;
		}
		free(from);
		free(to);
		if (a < 0 || b < a) {
			warnmsg("%s:%lu: a creep outside the page's commits; not marked", path, r.lineno);
			free(metric);
			free(status);
			continue;
		}
		*out = xrealloc(*out, (n + 1) * sizeof **out);
		(*out)[n].metric = metric;
		(*out)[n].status = status;
		(*out)[n].from = (size_t)a;
		(*out)[n].to = (size_t)b;
		n++;
	}
	if (st < 0 && bad == NULL)
		bad = msgf("%s: %s", path, strerror(errno));
	jrecord_free(&rec);
	jreader_close(&r);
	*nout = n;
	return bad;
}

