/*
 * plotrounds: a picture of the evidence a gate decided on. Reads
 * alternate's run records (or countof's, one a side), one a run in run
 * order, and with -v the verdict records of cmpbudget, mergeshards or
 * countof -j; writes an SVG with, per metric, the paired ratio head / base
 * of each round, the rule's interval after each round, the budget's band
 * and the round the metric was decided at, and below it each side's
 * values. With -C, make compare's document: one panel a row, each
 * reference's ratio with its quartile band. plot.c and plotcmp.c draw.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "msg.h"
#include "names.h"
#include "outfile.h"
#include "perfjson.h"
#include "plot.h"
#include "recordkeys.h"
#include "util.h"
#include "version.h"

static struct plot pic;
static size_t capmetrics, capsides, capruns, cappoints;
static size_t nfile;		/* the run files read so far */
static size_t *sideseq;	/* per side: its runs without a round so far */
static struct names metricidx;	/* each metric's index in pic.metric */
static int fixedmetrics;	/* -v named the metrics: keep to them */

/* Keys of a run record that are not metrics (-x). */
static char **excluded;
static size_t nexcluded;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-lV] [-C document] [-o svg] [-v verdict] [-x keys] [file ...]\n", argv0);
	exit(2);
}

static size_t
metric_index(const char *key, size_t len, int add)
{
	long k;

	/* An index by name: thousands of metrics are looked up in a run each. */
	if ((k = names_find(&metricidx, key, len)) >= 0)
		return (size_t)k;
	if (!add)
		return (size_t)-1;
	if (pic.nmetric == capmetrics) {
		capmetrics = capmetrics ? 2 * capmetrics : 8;
		pic.metric = xrealloc(pic.metric, capmetrics * sizeof *pic.metric);
	}
	memset(&pic.metric[pic.nmetric], 0, sizeof pic.metric[pic.nmetric]);
	pic.metric[pic.nmetric].name = xmalloc(len + 1);
	memcpy(pic.metric[pic.nmetric].name, key, len);
	pic.metric[pic.nmetric].name[len] = '\0';
	names_add(&metricidx, key, len);
	return pic.nmetric++;
}

static size_t
side_index(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < pic.nside; i++)
		if (strlen(pic.side[i]) == len && memcmp(pic.side[i], name, len) == 0)
			return i;
	if (pic.nside == capsides) {
		capsides = capsides ? 2 * capsides : 4;
		pic.side = xrealloc(pic.side, capsides * sizeof *pic.side);
		sideseq = xrealloc(sideseq, capsides * sizeof *sideseq);
	}
	sideseq[pic.nside] = 0;
	pic.side[pic.nside] = xmalloc(len + 1);
	memcpy(pic.side[pic.nside], name, len);
	pic.side[pic.nside][len] = '\0';
	return pic.nside++;
}

static int xgiven;	/* -x replaces the bookkeeping keys (recordkeys.h) */

static int
isexcluded(const char *key, size_t len)
{
	size_t i;

	if (!xgiven && is_bookkeeping(key, len))
		return 1;
	for (i = 0; i < nexcluded; i++)
		if (strlen(excluded[i]) == len && memcmp(excluded[i], key, len) == 0)
			return 1;
	return 0;
}

static void
parsexlist(const char *list)
{
	static char *copy;
	char *tok, *save = NULL;

	free(copy);
	copy = xstrdup(list);
	nexcluded = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		excluded = xrealloc(excluded, (nexcluded + 1) * sizeof *excluded);
		excluded[nexcluded++] = tok;
	}
}

/* A message for "file:line: what", kept until the next one. */
static char errbuf[512];

static const char *
located(const char *file, unsigned long line, const char *what)
{
	snprintf(errbuf, sizeof errbuf, "%s:%lu: %s", file, line, what);
	return errbuf;
}

/* The string value of key in rec, copied, or NULL. */
static char *
getstr(const struct jrecord *rec, const char *key)
{
	const struct jfield *f = jget(rec, key, strlen(key));
	char *s;

	if (f == NULL || f->type != J_STRING)
		return NULL;
	s = xmalloc(f->rawlen + 1);
	memcpy(s, f->raw, f->rawlen);
	s[f->rawlen] = '\0';
	return s;
}

static int
getnum(const struct jrecord *rec, const char *key, double *v)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	if (f == NULL || f->type != J_NUMBER)
		return 0;
	*v = f->num;
	return 1;
}

/* A string member of r, unescaped, or NULL. */
static char *
optstr(const struct jrecord *r, const char *key)
{
	const struct jfield *f = jget(r, key, strlen(key));

	return f != NULL && f->type == J_STRING ? json_unescape(f->raw, f->rawlen) : NULL;
}

/*
 * One verdict record: a metric's panel, its budget and what the rule
 * concluded. The summary has no "metric": it says the confidence, and
 * whether the gate counted (countof -j's "mode").
 */
static const char *
verdict_record(const struct jrecord *rec, const char *file, unsigned long line)
{
	const struct jfield *f = jget(rec, "metric", 6);
	struct plot_metric *m;
	char *s;
	size_t i;
	double rounds;

	if (f == NULL) {
		if ((s = getstr(rec, "mode")) != NULL && strcmp(s, "counts") == 0)
			pic.counts = 1;
		free(s);
		free(pic.verdict);
		pic.verdict = getstr(rec, "verdict");
		/* Sentences for a person, unescaped: plot_xml makes them XML. */
		free(pic.why);
		if ((pic.why = optstr(rec, "reason")) == NULL)
			pic.why = optstr(rec, "error");
		free(pic.machine);
		pic.machine = optstr(rec, "machine");
		pic.rounds = getnum(rec, "rounds", &rounds) ? (long)rounds : -1;
		if (!getnum(rec, "confidence", &pic.confidence))
			pic.confidence = 0;
		return NULL;
	}
	if (f->type != J_STRING)
		return located(file, line, "\"metric\" is not a string");
	i = metric_index(f->raw, f->rawlen, 1);
	m = &pic.metric[i];
	free(m->verdict);
	m->verdict = getstr(rec, "verdict");
	m->hasbase = getnum(rec, "base", &m->base);
	m->hasbudget = getnum(rec, "budget", &m->budget);
	m->hasdelta = getnum(rec, "delta", &m->delta);
	m->hasconf = getnum(rec, "confidence", &m->confidence);
	m->hasratio = getnum(rec, "ratio", &m->ratio);
	m->hasinterval = getnum(rec, "ratio_lo", &m->lo) && getnum(rec, "ratio_hi", &m->hi);
	m->rounds = getnum(rec, "rounds", &rounds) ? (long)rounds : -1;
	if (m->hasconf && !(m->confidence > 0 && m->confidence < 1))
		return located(file, line, "\"confidence\" is not above 0 and below 1");
	if (m->hasbudget && !(m->budget >= 0) )
		return located(file, line, "\"budget\" is below 0");
	s = getstr(rec, "better");
	m->higher = s != NULL && strcmp(s, "higher") == 0;
	free(s);
	fixedmetrics = 1;
	return NULL;
}

/* One run record: a run of its side, with a value for each metric it has. */
static const char *
run_record(const struct jrecord *rec, const char *file, unsigned long line)
{
	const struct jfield *side = jget(rec, "side", 4);
	double round;
	size_t i, m;

	/* A failure or a deferral is alternate's record of a run that did not end well. */
	if (jget(rec, "error", 5) != NULL)
		return NULL;
	if (side == NULL || side->type != J_STRING)
		return located(file, line, "no \"side\" string");
	if (pic.nrun == capruns) {
		capruns = capruns ? 2 * capruns : 64;
		pic.run = xrealloc(pic.run, capruns * sizeof *pic.run);
	}
	pic.run[pic.nrun].side = side_index(side->raw, side->rawlen);
	pic.run[pic.nrun].round = getnum(rec, "round", &round) ? (long)round : -1;
	pic.run[pic.nrun].file = nfile;
	pic.run[pic.nrun].seq = pic.run[pic.nrun].round < 0 ? sideseq[pic.run[pic.nrun].side]++ : 0;
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];

		if (f->type != J_NUMBER || isexcluded(f->key, f->keylen))
			continue;
		m = metric_index(f->key, f->keylen, !fixedmetrics);
		if (m == (size_t)-1)
			continue;
		if (pic.npoint == cappoints) {
			cappoints = cappoints ? 2 * cappoints : 256;
			pic.point = xrealloc(pic.point, cappoints * sizeof *pic.point);
		}
		pic.point[pic.npoint].run = pic.nrun;
		pic.point[pic.npoint].metric = m;
		pic.point[pic.npoint].v = f->num;
		snprintf(pic.point[pic.npoint].raw, sizeof pic.point[pic.npoint].raw, "%.*s",
		    (int)(f->rawlen < 47 ? f->rawlen : 47), f->raw);
		pic.npoint++;
	}
	pic.nrun++;
	return NULL;
}

/* Read every record of path through fn. */
static const char *
readfile(const char *path, const char *(*fn)(const struct jrecord *, const char *, unsigned long))
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const char *line, *err = NULL;
	size_t len;
	int got;

	if (jreader_open(&r, path) != 0) {
		snprintf(errbuf, sizeof errbuf, "%s: %s", path, strerror(errno));
		return errbuf;
	}
	while (err == NULL && (got = jreader_next(&r, &line, &len)) == 1) {
		if (len == 0)
			continue;
		if ((err = jparse(line, len, &rec)) != NULL)
			err = located(r.name, r.lineno, err);
		else
			err = fn(&rec, r.name, r.lineno);
	}
	if (err == NULL && got == -1) {
		snprintf(errbuf, sizeof errbuf, "%s: %s", r.name, strerror(errno));
		err = errbuf;
	}
	jrecord_free(&rec);
	jreader_close(&r);
	return err;
}

/*
 * Write the picture whole through outfile: a regular file by a rename, so
 * that a reader never sees half of it; a device (/dev/null) or a FIFO in
 * place, never replaced.
 */
static int
writesvg(const char *path, void (*draw)(FILE *))
{
	struct outfile o;
	char *msg;

	if ((msg = outfile_open(&o, path, "w")) == NULL) {
		draw(o.fp);
		msg = outfile_commit(&o);
	}
	if (msg == NULL)
		return 0;
	warnmsg("%s", msg);
	free(msg);
	return 2;
}

static struct plot_compare cmp;

static void
drawgate(FILE *fp)
{
	plot_svg(fp, &pic);
}

static void
drawcompare(FILE *fp)
{
	plot_compare_svg(fp, &cmp);
}

/*
 * -C: make compare's document (perfdoc(1)), each row's references with the
 * implementation's median over each's and the quartile band around it, the
 * implementation's q1 over the reference's q3 to its q3 over their q1:
 * refjudge says slower or faster exactly when the band leaves 1.
 */
static void
readdoc(const char *path)
{
	struct doc d;
	struct items it;
	struct jrecord run = { 0 };
	const struct jfield *f;
	struct plot_row *row;
	struct plot_ref *ref;
	char where[256], **name = NULL, *sn;
	double *q1 = NULL, *q3 = NULL, iq1 = NAN, iq3 = NAN;
	size_t i, k, ns;

	doc_read(&d, path);
	cmp.implementation = doc_str(&d.top, "implementation", path);
	if ((f = jget(&d.top, "run", 3)) != NULL && f->type == J_OBJECT && jparse(f->raw, f->rawlen, &run) == NULL) {
		cmp.commit = optstr(&run, "commit");
		cmp.date = optstr(&run, "date");
	}
	jrecord_free(&run);
	cmp.row = xmalloc((d.nrows ? d.nrows : 1) * sizeof *cmp.row);
	for (i = 0; i < d.nrows; i++) {
		snprintf(where, sizeof where, "%s: row %zu", path, i + 1);
		row = &cmp.row[cmp.nrow++];
		memset(row, 0, sizeof *row);
		row->name = doc_str(&d.rows[i], "case", where);
		row->metric = optstr(&d.rows[i], "metric");
		if (!doc_valid(&d.rows[i])) {
			sn = optstr(&d.rows[i], "deferred");
			row->note = msgf("deferred%s%s: not measured", sn ? " " : "", sn ? sn : "");
			free(sn);
			continue;
		}
		ns = 0;
		for (doc_items_open(&it, &d.rows[i], "sides", where); doc_items_next(&it, where); ns++) {
			name = xrealloc(name, (ns + 1) * sizeof *name);
			q1 = xrealloc(q1, (ns + 1) * sizeof *q1);
			q3 = xrealloc(q3, (ns + 1) * sizeof *q3);
			name[ns] = doc_str(&it.r, "side", where);
			q1[ns] = doc_num(&it.r, "q1", where);
			q3[ns] = doc_num(&it.r, "q3", where);
			if (strcmp(name[ns], cmp.implementation) == 0) {
				iq1 = q1[ns];
				iq3 = q3[ns];
			}
		}
		jrecord_free(&it.r);
		for (doc_items_open(&it, &d.rows[i], "references", where); doc_items_next(&it, where);) {
			row->ref = xrealloc(row->ref, (row->nref + 1) * sizeof *row->ref);
			ref = &row->ref[row->nref++];
			memset(ref, 0, sizeof *ref);
			ref->name = doc_str(&it.r, "reference", where);
			ref->ratio = doc_num(&it.r, "ratio", where);
			ref->verdict = optstr(&it.r, "verdict");
			for (k = 0; k < ns && strcmp(name[k], ref->name) != 0; k++)
				;
			if (k < ns && q1[k] > 0 && q3[k] > 0 && iq1 >= 0 && iq3 >= 0) {
				ref->lo = iq1 / q3[k];
				ref->hi = iq3 / q1[k];
				ref->hasband = 1;
			}
		}
		jrecord_free(&it.r);
		for (k = 0; k < ns; k++)
			free(name[k]);
	}
	free(name);
	free(q1);
	free(q3);
	doc_free(&d);
}

int
main(int argc, char *argv[])
{
	const char *out = NULL, *verdict = NULL, *doc = NULL, *err;
	int c, i, rounds = 0;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opterr = 0;
	while ((c = getopt(argc, argv, ":C:lo:v:x:")) != -1) {
		switch (c) {
		case 'C':
			doc = optarg;
			break;
		case 'l':
			pic.logscale = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'v':
			verdict = optarg;
			break;
		case 'x':
			xgiven = 1;
			parsexlist(optarg);
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (doc != NULL) {
		if (argc > 0 || verdict != NULL || pic.logscale || xgiven)
			die("-C draws the document alone: no -l, -v, -x or files");
		readdoc(doc);
		if (out != NULL)
			return writesvg(out, drawcompare);
		drawcompare(stdout);
		return fshut(stdout, "stdout");
	}
	if (verdict != NULL && (err = readfile(verdict, verdict_record)) != NULL)
		die("%s", err);
	if (argc == 0 && (err = readfile("-", run_record)) != NULL)
		die("%s", err);
	for (i = 0; i < argc; i++, nfile++)
		if ((err = readfile(argv[i], run_record)) != NULL)
			die("%s", err);
	if (pic.nrun == 0)
		die("no run records");
	if (pic.nmetric == 0)
		die("no metrics in the run records");
	for (i = 0; pic.logscale && (size_t)i < pic.npoint; i++)
		if (!(pic.point[i].v > 0))
			die("-l: %s of side %s, round %ld, is not above 0", pic.metric[pic.point[i].metric].name,
			    pic.side[pic.run[pic.point[i].run].side], pic.run[pic.point[i].run].round);
	/* countof's records have no round: judged, they are a counts gate's, even without its summary. */
	for (i = 0; (size_t)i < pic.nrun; i++)
		rounds |= pic.run[i].round >= 0;
	if (verdict != NULL && !rounds)
		pic.counts = 1;
	plot_prepare(&pic);
	if (out != NULL)
		return writesvg(out, drawgate);
	drawgate(stdout);
	return fshut(stdout, "stdout");
}
