/*
 * plotrounds: a picture of a gate's rounds. Reads alternate's run records,
 * one a run in run order, and with -v cmpbudget's verdict records; writes
 * an SVG with one panel a metric: every run's value by side in run order,
 * each side's minimum as a line, and the budget's bound (base's figure
 * times 1 + budget), so that a reader sees a slow spell, a trend within
 * the run, or a clean separation at a glance. plot.c draws it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "names.h"
#include "outfile.h"
#include "plot.h"
#include "recordkeys.h"
#include "util.h"
#include "version.h"

static struct plot pic;
static size_t capmetrics, capsides, capruns, cappoints;
static struct names metricidx;	/* each metric's index in pic.metric */
static int fixedmetrics;	/* -v named the metrics: keep to them */

/* Keys of a run record that are not metrics (-x). */
static char **excluded;
static size_t nexcluded;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-lV] [-o svg] [-v verdict] [-x keys] [file ...]\n", argv0);
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
	}
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

/* One verdict record: a metric's panel and its bound. The summary has no "metric". */
static const char *
verdict_record(const struct jrecord *rec, const char *file, unsigned long line)
{
	const struct jfield *f = jget(rec, "metric", 6);
	struct plot_metric *m;
	char *dir;
	size_t i;

	if (f == NULL)
		return NULL;
	if (f->type != J_STRING)
		return located(file, line, "\"metric\" is not a string");
	i = metric_index(f->raw, f->rawlen, 1);
	m = &pic.metric[i];
	free(m->verdict);
	m->verdict = getstr(rec, "verdict");
	m->hasbase = getnum(rec, "base", &m->base);
	m->hasbudget = getnum(rec, "budget", &m->budget);
	m->hasdelta = getnum(rec, "delta", &m->delta);
	dir = getstr(rec, "better");
	m->higher = dir != NULL && strcmp(dir, "higher") == 0;
	free(dir);
	m->hasbound = m->hasbase && m->hasbudget;
	if (m->hasbound)
		m->bound = m->base * (m->higher ? 1 - m->budget : 1 + m->budget);
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
writesvg(const char *path)
{
	struct outfile o;
	char *msg;

	if ((msg = outfile_open(&o, path, "w")) == NULL) {
		plot_svg(o.fp, &pic);
		msg = outfile_commit(&o);
	}
	if (msg == NULL)
		return 0;
	warnmsg("%s", msg);
	free(msg);
	return 2;
}

int
main(int argc, char *argv[])
{
	const char *out = NULL, *verdict = NULL, *err;
	int c, i;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opterr = 0;
	while ((c = getopt(argc, argv, ":lo:v:x:")) != -1) {
		switch (c) {
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
	if (verdict != NULL && (err = readfile(verdict, verdict_record)) != NULL)
		die("%s", err);
	if (argc == 0 && (err = readfile("-", run_record)) != NULL)
		die("%s", err);
	for (i = 0; i < argc; i++)
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
	if (out != NULL)
		return writesvg(out);
	plot_svg(stdout, &pic);
	return fshut(stdout, "stdout");
}
