/*
 * histnote: perfgate's history (perfgate history record|check|report).
 * record gates a commit against its first parent with the project's own
 * gate and keeps the verdict as one line of the commit's note under
 * refs/notes/perfgate, one line a machine; check chains those ratios
 * along the first-parent path, proposes a creep where a stretch's product
 * passes the metric's creep budget and confirms it with one gate of the
 * stretch's two ends; report draws the chain as a static page. Writes
 * records on standard output (the note's line, or check's findings), a
 * person's account on standard error.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "histchain.h"
#include "histgit.h"
#include "histnote.h"
#include "histpage.h"
#include "json.h"
#include "jsonreader.h"
#include "jsonwrite.h"
#include "machineid.h"
#include "msg.h"
#include "outfile.h"
#include "tool.h"
#include "util.h"

#define RECORD_DIR "build/history/record"	/* the history's gates, below the project's top */
#define CONFIRM_DIR "build/history/confirm"

static char machine[MACHINE_ID_MAX + 1], machdesc[MACHINE_DESC_MAX];
static const char *self;	/* argv[0] as given, to find perfgate beside it */
static const char *makefile;
static char **vars;	/* NAME=value operands, nvars of them, for every gate */
static int nvars;
static const char *budgetvar;	/* BUDGET=, when the user gave it */
static const char *gatedir;	/* GATEDIR=, when the user gave it */

static void
usage(void)
{
	fputs("usage: histnote record [-C dir] [-f makefile] [rev | a..b] [variable=value ...]\n"
	    "       histnote check [-C dir] [-f makefile] [a..b] [variable=value ...]\n"
	    "       histnote report [-C dir] [-c checkfile] [-o dir] [-u url] [a..b]\n"
	    "       histnote machine\n", stderr);
	exit(2);
}

static void
warnline(const struct hcommit *c, unsigned long line, const char *why)
{
	warnmsg("note of %s: line %lu: %s; skipped", c->hash, line, why);
}

static void
loadrange(struct hist *h, const char *range, int limit)
{
	char *why = hg_path(h, range, limit, machine, warnline);

	if (why != NULL)
		die("%s", why);
}

static void
mkparents(const char *path)
{
	char *why = hg_mkparents(path);

	if (why != NULL)
		die("%s", why);
}

/* perfgate beside this tool, as perfgate runs it; else the one on PATH. */
static char *
perfgate(void)
{
	const char *slash = strrchr(self, '/');

	return slash != NULL ? msgf("%.*s/perfgate", (int)(slash - self), self) : xstrdup("perfgate");
}

/* One gate of base against head in dir, with budget when not NULL; its records in *out. */
static int
gate(const char *dir, const char *base, const char *head, const char *budget, char **out, size_t *len)
{
	char **argv = xmalloc(((size_t)nvars + 10) * sizeof *argv);
	int n = 0, i, st, firstmine;

	argv[n++] = perfgate();
	if (makefile != NULL) {
		argv[n++] = "-f";
		argv[n++] = (char *)makefile;
	}
	/* GATE_EXPLAIN=off first, so that the user's own setting wins. */
	argv[n++] = "GATE_EXPLAIN=off";
	for (i = 0; i < nvars; i++)
		if (strncmp(vars[i], "GATEDIR=", 8) != 0 && (budget == NULL || strncmp(vars[i], "BUDGET=", 7) != 0))
			argv[n++] = vars[i];
	firstmine = n;
	argv[n++] = msgf("GATEDIR=%s", dir);
	argv[n++] = msgf("BASE=%s", base);
	argv[n++] = msgf("HEAD=%s", head);
	if (budget != NULL)
		argv[n++] = msgf("BUDGET=%s", budget);
	argv[n] = NULL;
	st = hg_run(argv, out, len, 0);
	if (st < 0)
		warnmsg("%s: cannot run it", argv[0]);
	for (i = firstmine; i < n; i++)
		free(argv[i]);
	free(argv[0]);
	free(argv);
	return st;
}

static char *
gatepath(const char *sub)
{
	return gatedir != NULL ? msgf("%s/history-%s", gatedir, sub) : msgf("build/history/%s", sub);
}

static void
now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int
recordone(const struct hcommit *c, const char *dir)
{
	char *out = NULL, *line = NULL, when[32], *whynot, *replaced = NULL;
	size_t len = 0, linelen = 0;
	const char *why;
	FILE *m;
	int st;

	if (c->parent[0] == '\0') {
		warnmsg("%s: a root commit: there is no parent to gate it against", c->hash);
		return 2;
	}
	fprintf(stderr, "histnote: record: %s against its parent %s\n", c->hash, c->parent);
	st = gate(dir, c->parent, c->hash, NULL, &out, &len);
	if (st < 0)
		return 2;
	/* Interrupted: nothing is recorded, and nothing more is tried. */
	if (st >= 128) {
		free(out);
		exit(st);
	}
	now(when, sizeof when);
	if ((m = open_memstream(&line, &linelen)) == NULL)
		die("open_memstream: %s", strerror(errno));
	why = hnote_write(m, out, len, c->hash, c->parent, machine, machdesc, when);
	fclose(m);
	free(out);
	if (why != NULL) {
		warnmsg("%s: %s; no note written", c->hash, why);
		free(line);
		return 2;
	}
	if ((whynot = hg_putnote(c->hash, machine, line, linelen, &replaced)) != NULL) {
		warnmsg("%s", whynot);
		free(whynot);
		free(line);
		return 2;
	}
	if (replaced != NULL)
		warnmsg("%s: this record replaces this machine's of %s", c->hash, replaced);
	free(replaced);
	fwrite(line, 1, linelen, stdout);
	fflush(stdout);
	free(line);
	return st == 0 || st == 1 ? st : 2;
}

static int
mine(const struct hcommit *c)
{
	size_t i;

	for (i = 0; i < c->nrec; i++)
		if (strcmp(c->rec[i].machine, machine) == 0)
			return 1;
	return 0;
}

static int
record(const char *rev)
{
	struct hist h;
	char *dir = gatepath("record");
	size_t i, todo = 0;
	int st, worst = 0;

	if (strstr(rev, "..") != NULL) {
		loadrange(&h, rev, 0);
		for (i = 0; i < h.n; i++)
			todo += !mine(&h.c[i]);
		fprintf(stderr, "histnote: record: %zu of the %zu commits of %s are not recorded on this machine (%s)\n",
		    todo, h.n, rev, machine);
		for (i = 0; i < h.n; i++)
			if (!mine(&h.c[i]) && (st = recordone(&h.c[i], dir)) > worst)
				worst = st;
	} else {
		char *c = hg_commit(rev);

		if (c == NULL)
			die("%s: not a commit", rev);
		/* The path of one commit: c alone, with its notes. */
		loadrange(&h, c, 1);
		free(c);
		if (h.n != 1)
			die("%s: cannot read the commit", rev);
		worst = recordone(&h.c[0], dir);
	}
	hist_free(&h);
	free(dir);
	return worst;
}

/* A creep proposed, and what its confirming gate said. */
struct creep {
	const char *metric;
	double budget;
	struct hstretch s;
	const char *status;	/* confirmed, rejected, undecided */
	struct hmetric confirm;
	int have_confirm;
};

/* The budget file: BUDGET=, else the one the newest record's gate named. */
static const char *
budgetpath(const struct hist *h)
{
	size_t i;

	if (budgetvar != NULL)
		return budgetvar;
	for (i = h->n; i-- > 0;)
		if (h->c[i].use >= 0 && h->c[i].rec[h->c[i].use].budget != NULL)
			return h->c[i].rec[h->c[i].use].budget;
	return "budget.toml";
}

static void
interval3(struct jwriter *w, const char *key, double l, double lo, double hi, int higher)
{
	/* Back from the slower-ward log to the ratio head / base. */
	double s = higher ? -1 : 1;

	jw_num(w, key, exp(s * l));
	if (higher) {
		double t = lo;
		lo = hi;
		hi = t;
	}
	jw_open(w, "interval", '[');
	jw_num(w, NULL, exp(s * lo));
	jw_num(w, NULL, exp(s * hi));
	jw_close(w);
}

/* The confirming gate of one stretch, for every creep proposed over it. */
static void
confirm(const struct hist *h, struct creep *cr, size_t ncr, size_t k, const char *budget)
{
	char *dir = gatepath("confirm"), *out = NULL, *line;
	const char *p, *end;
	size_t len = 0, n, j;
	struct jrecord rec = { 0 };
	const struct jfield *f;
	const struct hcommit *a = &h->c[cr[k].s.from], *b = &h->c[cr[k].s.to];
	int st;

	fprintf(stderr, "histnote: check: confirming with one gate of %s (before %s) against %s\n",
	    a->parent, a->hash, b->hash);
	st = gate(dir, a->parent, b->hash, budget, &out, &len);
	if (st >= 128)
		exit(st);
	for (p = out, end = out + (out != NULL ? len : 0); p < end; p += n + 1) {
		line = memchr(p, '\n', (size_t)(end - p));
		n = line != NULL ? (size_t)(line - p) : (size_t)(end - p);
		if (jparse(p, n, &rec) != NULL || (f = jget(&rec, "metric", 6)) == NULL || f->type != J_STRING)
			continue;
		for (j = k; j < ncr; j++) {
			if (cr[j].s.from != cr[k].s.from || cr[j].s.to != cr[k].s.to || cr[j].have_confirm ||
			    !memeq_str(f->raw, f->rawlen, cr[j].metric))
				continue;
			if (hmetric_parse(p, n, &cr[j].confirm) == NULL)
				cr[j].have_confirm = 1;
		}
	}
	for (j = k; j < ncr; j++) {
		if (cr[j].s.from != cr[k].s.from || cr[j].s.to != cr[k].s.to || cr[j].status != NULL)
			continue;
		if (!cr[j].have_confirm)
			cr[j].status = "undecided";
		else if (strcmp(cr[j].confirm.verdict, "regressed") == 0)
			cr[j].status = "confirmed";
		else if (strcmp(cr[j].confirm.verdict, "ok") == 0 || strcmp(cr[j].confirm.verdict, "improved") == 0)
			cr[j].status = "rejected";
		else
			cr[j].status = "undecided";
	}
	jrecord_free(&rec);
	free(out);
	free(dir);
}

static int
check(const char *range, int deflt)
{
	struct hist h;
	struct budget b = { 0 };
	struct creep *cr = NULL;
	struct hstretch *st;
	struct jwriter w;
	const struct hmetric *m;
	const char *bpath;
	char *why, *cpath = NULL;
	size_t ncr = 0, ns, i, j, k, gaps = 0, regressions = 0, confirmed = 0, rejected = 0, undecided = 0;
	size_t idx[HIST_TOP], nt, recorded = 0;
	double creep, l, lo, hi;

	loadrange(&h, range, deflt ? 50 : 0);
	bpath = budgetpath(&h);
	if ((why = budget_load(&b, bpath)) != NULL)
		die("%s", why);
	/* A gap: a commit with a parent and no record to trust. */
	for (i = 0; i < h.n; i++) {
		if (h.c[i].use >= 0) {
			recorded++;
			continue;
		}
		if (h.c[i].parent[0] == '\0')
			continue;
		gaps++;
		jw_begin(&w, stdout);
		jw_str(&w, "history", "gap");
		jw_str(&w, "commit", h.c[i].hash);
		jw_str(&w, "subject", h.c[i].subject);
		jw_end(&w);
		fprintf(stderr, "histnote: check: %s has no record (a gap: perfgate history record %.12s fills it)\n",
		    h.c[i].hash, h.c[i].hash);
	}
	for (k = 0; k < h.nmetric; k++) {
		for (i = 0; i < h.n; i++) {
			if ((m = hist_at(&h, i, h.metric[k])) == NULL || strcmp(m->verdict, "regressed") != 0)
				continue;
			regressions++;
			jw_begin(&w, stdout);
			jw_str(&w, "history", "regression");
			jw_str(&w, "metric", h.metric[k]);
			jw_str(&w, "commit", h.c[i].hash);
			jw_str(&w, "subject", h.c[i].subject);
			jw_num(&w, "ratio", m->ratio);
			jw_open(&w, "interval", '[');
			jw_num(&w, NULL, m->lo);
			jw_num(&w, NULL, m->hi);
			jw_close(&w);
			jw_str(&w, "machine", h.c[i].rec[h.c[i].use].machine);
			jw_end(&w);
			fprintf(stderr, "histnote: check: %s regressed at %s %s (ratio %.4g)\n", h.metric[k],
			    h.c[i].hash, h.c[i].subject, m->ratio);
		}
		creep = budget_creep(&b, h.metric[k], strlen(h.metric[k]));
		if (creep < 0)
			continue;
		st = hist_creeps(&h, h.metric[k], creep, &ns);
		for (j = 0; j < ns; j++) {
			cr = xrealloc(cr, (ncr + 1) * sizeof *cr);
			memset(&cr[ncr], 0, sizeof *cr);
			cr[ncr].metric = h.metric[k];
			cr[ncr].budget = creep;
			cr[ncr].s = st[j];
			ncr++;
		}
		free(st);
	}
	if (ncr > 0) {
		cpath = gatepath("confirm.toml");
		mkparents(cpath);
		if ((why = hist_creepbudget(&b, bpath, cpath)) != NULL)
			die("%s", why);
	}
	for (k = 0; k < ncr; k++)
		if (cr[k].status == NULL)
			confirm(&h, cr, ncr, k, cpath);
	for (k = 0; k < ncr; k++) {
		struct creep *c = &cr[k];
		int higher = 0;

		m = hist_at(&h, c->s.to, c->metric);
		higher = m != NULL && m->higher;
		confirmed += strcmp(c->status, "confirmed") == 0;
		rejected += strcmp(c->status, "rejected") == 0;
		undecided += strcmp(c->status, "undecided") == 0;
		jw_begin(&w, stdout);
		jw_str(&w, "history", "creep");
		jw_str(&w, "metric", c->metric);
		jw_str(&w, "status", c->status);
		jw_str(&w, "from", h.c[c->s.from].parent);
		jw_str(&w, "to", h.c[c->s.to].hash);
		jw_long(&w, "commits", (long long)(c->s.to - c->s.from + 1));
		jw_num(&w, "creep_budget", c->budget);
		interval3(&w, "chained", c->s.logsum, c->s.loglo, c->s.loghi, higher);
		jw_open(&w, "confirm", '{');
		if (c->have_confirm) {
			jw_str(&w, "verdict", c->confirm.verdict);
			jw_num(&w, "ratio", c->confirm.ratio);
			if (c->confirm.have_interval) {
				jw_open(&w, "interval", '[');
				jw_num(&w, NULL, c->confirm.lo);
				jw_num(&w, NULL, c->confirm.hi);
				jw_close(&w);
			}
			jw_long(&w, "rounds", c->confirm.rounds);
		} else {
			jw_str(&w, "verdict", "error");
		}
		jw_close(&w);
		nt = hist_top(&h, c->metric, &c->s, idx);
		jw_open(&w, "top", '[');
		for (i = 0; i < nt; i++) {
			jw_open(&w, NULL, '{');
			jw_str(&w, "commit", h.c[idx[i]].hash);
			jw_str(&w, "subject", h.c[idx[i]].subject);
			jw_num(&w, "ratio", hist_at(&h, idx[i], c->metric)->ratio);
			jw_close(&w);
		}
		jw_close(&w);
		jw_end(&w);
		fprintf(stderr, "histnote: check: %s: a creep %s: %zu commits from %.12s to %.12s, chained %+.1f %%"
		    " (creep budget %.0f %%); the gate of the two ends: %s, ratio %.4g\n",
		    c->metric, c->status, c->s.to - c->s.from + 1, h.c[c->s.from].parent, h.c[c->s.to].hash,
		    100 * (exp(higher ? -c->s.logsum : c->s.logsum) - 1), 100 * c->budget,
		    c->have_confirm ? c->confirm.verdict : "error", c->have_confirm ? c->confirm.ratio : NAN);
		for (i = 0; i < nt; i++) {
			hist_log(hist_at(&h, idx[i], c->metric), &l, &lo, &hi);
			fprintf(stderr, "    %.12s %+.1f %%  %s\n", h.c[idx[i]].hash, 100 * (exp(higher ? -l : l) - 1),
			    h.c[idx[i]].subject);
		}
	}
	jw_begin(&w, stdout);
	jw_str(&w, "history", "summary");
	jw_str(&w, "verdict", confirmed || regressions ? "regressed" : gaps || undecided ? "undecided" : "ok");
	jw_str(&w, "range", range);
	jw_long(&w, "commits", (long long)h.n);
	jw_long(&w, "recorded", (long long)recorded);
	jw_long(&w, "gaps", (long long)gaps);
	jw_long(&w, "regressions", (long long)regressions);
	jw_long(&w, "confirmed", (long long)confirmed);
	jw_long(&w, "rejected", (long long)rejected);
	jw_long(&w, "undecided", (long long)undecided);
	jw_str(&w, "budget", bpath);
	jw_str(&w, "machine", machine);
	if (jw_end(&w) != 0 || fflush(stdout) != 0)
		die("stdout: %s", strerror(errno));
	fprintf(stderr, "histnote: check: %zu commits, %zu recorded, %zu gaps; %zu regressions, %zu creeps confirmed,"
	    " %zu rejected, %zu undecided\n", h.n, recorded, gaps, regressions, confirmed, rejected, undecided);
	for (i = 0; i < ncr; i++)
		free(cr[i].confirm.name);
	free(cr);
	free(cpath);
	budget_free(&b);
	hist_free(&h);
	return confirmed || regressions ? 1 : gaps || undecided ? 2 : 0;
}

static int
report(const char *range, const char *dir, const char *url, const char *checkfile)
{
	struct hist h;
	struct hmark *mark = NULL;
	size_t nmark = 0, i;
	char *why, *probe;

	loadrange(&h, range, 0);
	if (checkfile != NULL)
		if ((why = hist_marks(checkfile, &h, &mark, &nmark)) != NULL)
			die("%s", why);
	probe = msgf("%s/x", dir);
	mkparents(probe);
	free(probe);
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	if ((why = hist_page(&h, dir, url, mark, nmark)) != NULL)
		die("%s", why);
	fprintf(stderr, "histnote: report: %s/index.html: %zu commits, %zu metrics\n", dir, h.n, h.nmetric);
	for (i = 0; i < nmark; i++) {
		free(mark[i].metric);
		free(mark[i].status);
	}
	free(mark);
	hist_free(&h);
	return 0;
}

int
main(int argc, char *argv[])
{
	const char *verb, *dir = NULL, *range = NULL, *out = "build/history/report", *url = NULL, *checkfile = NULL, *why;
	char *tag = NULL, *swhy;
	int c, i, st;

	tool_begin(argc, argv);
	self = argv[0];
	if (argc < 2)
		usage();
	verb = argv[1];
	if (strcmp(verb, "machine") == 0) {
		if (argc != 2)
			usage();
		if ((why = machine_id(machine, machdesc)) != NULL)
			die("%s", why);
		printf("%s\t%s\n", machine, machdesc);
		return fflush(stdout) != 0 ? 2 : 0;
	}
	if (strcmp(verb, "record") != 0 && strcmp(verb, "check") != 0 && strcmp(verb, "report") != 0) {
		warnmsg("%s: not record, check, report or machine", verb);
		usage();
	}
	argc--;
	argv++;
	optind = 1;
	while ((c = getopt(argc, argv, strcmp(verb, "report") == 0 ? ":C:c:o:u:" : ":C:f:")) != -1) {
		switch (c) {
		case 'C': dir = optarg; break;
		case 'c': checkfile = optarg; break;
		case 'f': makefile = optarg; break;
		case 'o': out = optarg; break;
		case 'u': url = optarg; break;
		default: optionerror(c); usage();
		}
	}
	for (i = optind; i < argc; i++) {
		if (strchr(argv[i], '=') != NULL && argv[i][0] != '=') {
			if (strcmp(verb, "report") == 0)
				die("report takes no variable: %s", argv[i]);
			if (strncmp(argv[i], "BASE=", 5) == 0 || strncmp(argv[i], "HEAD=", 5) == 0)
				die("%.4s is the history's own: it gates each commit against its first parent", argv[i]);
			if (strncmp(argv[i], "BUDGET=", 7) == 0)
				budgetvar = argv[i] + 7;
			if (strncmp(argv[i], "GATEDIR=", 8) == 0)
				gatedir = argv[i] + 8;
			vars = xrealloc(vars, ((size_t)nvars + 1) * sizeof *vars);
			vars[nvars++] = argv[i];
		} else if (range == NULL && nvars == 0) {
			range = argv[i];
		} else {
			warnmsg("%s: one revision or range, before the variables", argv[i]);
			usage();
		}
	}
	if (dir != NULL && chdir(dir) != 0)
		die("%s: %s", dir, strerror(errno));
	if ((why = machine_id(machine, machdesc)) != NULL)
		die("%s", why);
	if ((swhy = hg_whole()) != NULL)
		die("%s", swhy);
	if (strcmp(verb, "record") == 0)
		st = record(range != NULL ? range : "HEAD");
	else if (strcmp(verb, "check") == 0) {
		char *th = NULL, *hh = NULL;

		/* Since the last tag; when HEAD is that tag, the last 50 commits. */
		if (range == NULL && (tag = hg_line("describe", "--tags", "--abbrev=0", "--first-parent")) != NULL &&
		    ((th = hg_commit(tag)) == NULL || (hh = hg_commit("HEAD")) == NULL || strcmp(th, hh) == 0)) {
			free(tag);
			tag = NULL;
		}
		free(th);
		free(hh);
		if (tag != NULL) {
			char *r = msgf("%s..HEAD", tag);
			st = check(r, 0);
			free(r);
		} else {
			st = check(range != NULL ? range : "HEAD", range == NULL);
		}
	} else {
		st = report(range != NULL ? range : "HEAD", out, url, checkfile);
	}
	free(tag);
	free(vars);
	if (fflush(stdout) != 0)
		die("stdout: %s", strerror(errno));
	return st;
}
