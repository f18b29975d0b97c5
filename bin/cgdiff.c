/*
 * cgdiff: compare two callgrind dumps of one benchmark metric, BASE's and
 * HEAD's, function by function: which functions do more work, on which
 * lines, with how many allocations; or that the work did not change.
 * Functions are matched by name and the basename of their source file,
 * since the two builds live in different directories. Writes records on
 * standard output, a summary first and then, largest change first, one
 * for each function's self and one for its inclusive counts, then the
 * lines of the top function; the table on standard error.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchargv.h"
#include "cgdump.h"
#include "cgexplain.h"
#include "cgsuspect.h"
#include "json.h"
#include "msg.h"
#include "tool.h"
#include "util.h"

#define DUMP_PREFIX "callgrind.out."
#define MAX_SUSPECTS 64

/* One side: its dump, the file it came from, the calls it counted. */
struct side {
	const char *name;
	char path[4096];
	struct cg_dump d;
	double calls;
};

/* One function across both sides; -1 where a side lacks it. */
struct row {
	const char *name, *file, *object;
	long b, h;
	double delta, work;	/* self instructions: head's less base's, the larger */
};

/* One source line of the top function across both sides. */
struct lrow {
	const char *file;
	unsigned long line;
	double b, h;
};

static const char *metric, *key;
static char **suspect;	/* -a's, then -K's */
static size_t nsuspect;

static void
free_suspects(void)
{
	while (nsuspect > 0)
		free(suspect[--nsuspect]);
	free(suspect);
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-I] [-a suspect] [-K key-file] [-e eps] [-k key] [-l lines] [-M metric] [-n functions] "
	    "[-B command] [-H command] base head [base-counts head-counts]\n"
	    "       %s -U reason [-M metric]\n       %s -q verdict\n       %s -V\n", argv0, argv0, argv0, argv0);
	exit(2);
}

/* Is a dump's cmd: line a run of prog? A bare name may be its PATH's path. */
static int
of_program(const char *cmd, const char *prog)
{
	size_t pl = strlen(prog), wl;

	if (cmd == NULL)
		return 0;
	wl = strcspn(cmd, " ");
	if (wl == pl && memcmp(cmd, prog, pl) == 0)
		return 1;
	return strchr(prog, '/') == NULL && wl > pl && cmd[wl - pl - 1] == '/' && memcmp(cmd + wl - pl, prog, pl) == 0;
}

/* -B's or -H's program in *prog: a path, or a bench command's (benchcmd(1)), held to exit. */
static char *
program_of(int c, const char **prog)
{
	static char *held[2];
	const char *arg = *prog;
	struct benchcmd *bc;
	struct stat sb;
	char *err, *why;

	if (stat(arg, &sb) == 0 && S_ISREG(sb.st_mode))
		return NULL;
	if ((bc = benchcmd_parse(arg, &err)) == NULL) {
		why = msgf("-%c %s: %s", c, arg, err);
		free(err);
		return why;
	}
	*prog = held[c == 'H'] = xstrdup(bc->argv[0]);
	benchcmd_free(bc);
	return NULL;
}

/*
 * Find and read one side's dump: the file named, or in a directory the
 * one whose trigger is key's. Returns NULL, or what is wrong (to free).
 */
static char *
load(struct side *s, const char *arg, const char *expect)
{
	struct stat sb;
	DIR *dp;
	struct dirent *de;
	char *buf = NULL;
	const char *why, *t;
	size_t len = 0, line;
	int found = 0;

	if (stat(arg, &sb) != 0)
		return msgf("%s: %s", arg, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		if (key == NULL)
			return msgf("%s: a directory of dumps needs -k key", arg);
		if ((dp = opendir(arg)) == NULL)
			return msgf("%s: %s", arg, strerror(errno));
		while (!found && (de = readdir(dp)) != NULL) {
			if (strncmp(de->d_name, DUMP_PREFIX, strlen(DUMP_PREFIX)) != 0)
				continue;
			snprintf(s->path, sizeof s->path, "%s/%s", arg, de->d_name);
			free(buf);
			if ((buf = cg_slurp(s->path, &len)) == NULL) {
				closedir(dp);
				return msgf("%s: %s", s->path, strerror(errno));
			}
			found = cg_has_trigger(buf, len, key);
		}
		closedir(dp);
		if (!found) {
			free(buf);
			return msgf("%s: no dump of %s (no trigger \"perfgate %s\")", arg, key, key);
		}
	} else {
		snprintf(s->path, sizeof s->path, "%s", arg);
		if ((buf = cg_slurp(arg, &len)) == NULL)
			return msgf("%s: %s", arg, strerror(errno));
	}
	why = cg_parse(buf, len, &s->d, &line);
	free(buf);
	if (why != NULL)
		return msgf("%s:%zu: %s", s->path, line, why);
	/* The dump of another program, or of another metric, explains nothing. */
	if (expect != NULL && !of_program(s->d.cmd, expect))
		return msgf("%s:%zu: a dump of %s, not of %s", s->path, s->d.cmd ? s->d.cmdline : 1,
		    s->d.cmd ? s->d.cmd : "(no cmd: line)", expect);
	s->calls = 1;
	t = s->d.trigger;
	if (t != NULL && strncmp(t, CG_TRIGGER, strlen(CG_TRIGGER)) == 0) {
		const char *k = t + strlen(CG_TRIGGER), *sp = strchr(k, ' ');
		long n;

		if (sp != NULL && parse_long(sp + 1, 1, 1000000000L, &n) == NULL)
			s->calls = (double)n;
		if (key != NULL && (sp == NULL || (size_t)(sp - k) != strlen(key) || strncmp(k, key, strlen(key)) != 0))
			return msgf("%s:%zu: the dump of %.*s, not of %s", s->path, s->d.triggerline,
			    sp ? (int)(sp - k) : (int)strlen(k), k, key);
	} else if (key != NULL)
		return msgf("%s:%zu: not a dump of perfgate %s (its trigger is %s)", s->path, t ? s->d.triggerline : 1, key,
		    t ? t : "none");
	return NULL;
}

static double
per(const struct side *s, unsigned long long v)
{
	return (double)v / s->calls;
}

static double
self_of(const struct side *s, long i, int sum)
{
	return i < 0 ? 0 : per(s, s->d.fn[i].self[sum]);
}

static double
incl_of(const struct side *s, long i)
{
	return i < 0 ? 0 : per(s, s->d.fn[i].incl[CG_IR]);
}

/*
 * A function that each side has under another file only (a side's source
 * copied under another name: kernels.c and s04.c) is one function when
 * its name is found once among each side's unmatched ones. Returns the
 * rows left.
 */
static size_t
match_by_name(struct row *r, size_t nr)
{
	size_t i, j, k, n;
	long hb, hh;

	for (i = 0; i < nr; i++) {
		if (r[i].h >= 0 || r[i].b < 0)
			continue;
		hb = hh = -1;
		for (j = 0, n = 0; j < nr; j++)
			if (j != i && strcmp(r[j].name, r[i].name) == 0) {
				if (r[j].b < 0 && r[j].h >= 0)
					hh = (long)j, n++;
				else if (r[j].h < 0)
					hb = (long)j;
			}
		if (n != 1 || hb >= 0)
			continue;
		r[i].h = r[hh].h;
		r[i].file = r[hh].file;
		for (k = (size_t)hh; k + 1 < nr; k++)
			r[k] = r[k + 1];
		nr--;
		if ((size_t)hh < i)
			i--;
	}
	return nr;
}

static int
cmprow(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) < fabs(y->delta) ? 1 : -1;
	/* Unchanged, the functions that do the most come first. */
	if (x->work != y->work)
		return x->work < y->work ? 1 : -1;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return strcmp(x->file, y->file);
}

static int
cmplrow(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;
	double dx = fabs(x->h - x->b), dy = fabs(y->h - y->b);
	int c;

	if (dx != dy)
		return dx < dy ? 1 : -1;
	if ((c = strcmp(x->file, y->file)) != 0)
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

static void
put_num(const char *k, double v)
{
	printf(",\"%s\":", k);
	jput_double(stdout, 1, v);
}

/* The start of a record: its metric and kind. */
static void
put_head(const char *kind)
{
	fputs("{\"metric\":", stdout);
	jput_str(stdout, metric);
	printf(",\"kind\":\"%s\"", kind);
}

static void
put_fn(const struct side *b, const struct side *h, const struct row *r, int self, int rank)
{
	double bv = self ? self_of(b, r->b, CG_IR) : incl_of(b, r->b);
	double hv = self ? self_of(h, r->h, CG_IR) : incl_of(h, r->h);
	int s;

	put_head("function");
	fputs(",\"function\":", stdout);
	jput_str(stdout, r->name);
	fputs(",\"file\":", stdout);
	jput_str(stdout, r->file);
	fputs(",\"object\":", stdout);
	jput_str(stdout, r->object);
	put_num("base_instr", bv);
	put_num("head_instr", hv);
	put_num("delta_instr", hv - bv);
	printf(",\"self\":%s,\"rank\":%d", self ? "true" : "false", rank);
	put_num("base_calls", r->b < 0 ? 0 : per(b, b->d.fn[r->b].calls));
	put_num("head_calls", r->h < 0 ? 0 : per(h, h->d.fn[r->h].calls));
	for (s = CG_L1; s <= CG_LL; s++) {
		const char *name = s == CG_L1 ? "l1_misses" : "ll_misses";
		char k[32];

		if (!b->d.cache || !h->d.cache)
			break;
		snprintf(k, sizeof k, "base_%s", name);
		put_num(k, self ? self_of(b, r->b, s) : (r->b < 0 ? 0 : per(b, b->d.fn[r->b].incl[s])));
		snprintf(k, sizeof k, "head_%s", name);
		put_num(k, self ? self_of(h, r->h, s) : (r->h < 0 ? 0 : per(h, h->d.fn[r->h].incl[s])));
	}
	puts("}");
}

/* The lines of the top function, both sides, by basename and number. */
static struct lrow *
top_lines(const struct side *b, const struct side *h, const struct row *top, size_t *n)
{
	struct lrow *l = NULL;
	size_t nl = 0, cap = 0, i, j;
	const struct side *s;
	int k;

	for (k = 0; k < 2; k++) {
		long want = k == 0 ? top->b : top->h;

		s = k == 0 ? b : h;
		if (want < 0)
			continue;
		for (i = 0; i < s->d.capline; i++) {
			const struct cg_line *cl = &s->d.line[i];

			if (cl->file == NULL || cl->fn != (size_t)want)
				continue;
			for (j = 0; j < nl; j++)
				if (l[j].line == cl->line && strcmp(l[j].file, cl->file) == 0)
					break;
			if (j == nl) {
				if (nl == cap) {
					cap = cap ? 2 * cap : 64;
					l = xrealloc(l, cap * sizeof *l);
				}
				l[nl].file = cl->file;
				l[nl].line = cl->line;
				l[nl].b = l[nl].h = 0;
				nl++;
			}
			*(k == 0 ? &l[j].b : &l[j].h) += per(s, cl->ir);
		}
	}
	if (nl > 1)
		qsort(l, nl, sizeof *l, cmplrow);
	*n = nl;
	return l;
}

static void
table(const struct side *b, const struct side *h, const struct row *r, size_t nr, const struct lrow *l,
    size_t nl, int moved, double eps, int nfn, int nlines)
{
	double bt = per(b, b->d.total[CG_IR]), ht = per(h, h->d.total[CG_IR]);
	int cache = b->d.cache && h->d.cache, i;
	size_t k;

	fprintf(stderr, "explain %s:\n", metric);
	for (i = 0; i < (int)nsuspect; i++)
		fprintf(stderr, "  suspect: %s\n", suspect[i]);
	if (!moved)
		fprintf(stderr, "  instructions did not move: %.1f -> %.1f a call (within %g): not more work;%s\n",
		    bt, ht, eps, cache ? " the cache misses below, else code layout or the machine" :
		    " memory access (GATE_COUNTS_FLAGS=-c for cache misses), code layout or the machine");
	else
		fprintf(stderr, "  instructions a call: %.1f -> %.1f (%+.1f %%)\n", bt, ht,
		    bt > 0 ? 100 * (ht - bt) / bt : 0.0);
	fprintf(stderr, "  %-28s %-16s %12s %12s %12s %12s", "function", "file", "self base", "self head",
	    "Δ self", "Δ incl");
	if (cache)
		fprintf(stderr, " %10s %10s %10s %10s", "L1 base", "L1 head", "LL base", "LL head");
	fputc('\n', stderr);
	for (k = 0; k < nr && (int)k < nfn; k++) {
		fprintf(stderr, "  %-28.28s %-16.16s %12.1f %12.1f %+12.1f %+12.1f", r[k].name, r[k].file,
		    self_of(b, r[k].b, CG_IR), self_of(h, r[k].h, CG_IR), r[k].delta,
		    incl_of(h, r[k].h) - incl_of(b, r[k].b));
		if (cache)
			fprintf(stderr, " %10.1f %10.1f %10.1f %10.1f", self_of(b, r[k].b, CG_L1),
			    self_of(h, r[k].h, CG_L1), self_of(b, r[k].b, CG_LL), self_of(h, r[k].h, CG_LL));
		fputc('\n', stderr);
	}
	if (nr == 0)
		return;
	if (l == NULL) {
		fprintf(stderr, "  lines of %s: none (a build without debug information: -g)\n", r[0].name);
		return;
	}
	fprintf(stderr, "  lines of %s:", r[0].name);
	for (k = 0; k < nl && (int)k < nlines && l[k].h != l[k].b; k++)
		fprintf(stderr, "%s %s:%lu %+.1f", k ? ";" : "", l[k].file, l[k].line, l[k].h - l[k].b);
	fprintf(stderr, "%s\n", k == 0 ? " none changed" : "");
}

int
main(int argc, char *argv[])
{
	struct side b = { .name = "base" }, h = { .name = "head" };
	const char *bexe = NULL, *hexe = NULL, *reason = NULL, *verdict = NULL, *keys[2] = { NULL, NULL };
	struct cgx_allocs allocs = { 0 };
	char *why;
	double eps = 0.01, bt, ht, bd;
	struct row *r;
	struct lrow *l = NULL;
	size_t nr = 0, nl = 0, i;
	long n, nfn = 10, nlines = 5, j;
	int c, moved, lines = 0, ask = 0, named;

	tool_begin(argc, argv);
	while ((c = getopt(argc, argv, ":a:B:H:IK:e:k:l:M:m:n:q:s:U:")) != -1) {
		switch (c) {
		case 'I':
			ask = 1;
			break;
		case 'q':
			verdict = optarg;
			break;
		case 'U':
			reason = optarg;
			break;
		case 'B':
			bexe = optarg;
			break;
		case 'H':
			hexe = optarg;
			break;
		case 'e':
			eps = opt_double('e', 0, 1e6, "0 or more");
			break;
		case 'k':
			key = optarg;
			break;
		case 'l':
			nlines = opt_long('l', 0, 1000000, "0 to 1000000");
			break;
		case 'M':
			metric = optarg;
			break;
		case 'm':
			opt_moved('m', 'M', "the metric named");
		case 'n':
			nfn = opt_long('n', 0, 1000000, "0 to 1000000");
			break;
		case 's':
			opt_moved('s', 'a', "a suspect added");
		case 'a':
			if (nsuspect == MAX_SUSPECTS)
				die("-a: more than %d suspects", MAX_SUSPECTS);
			suspect = xrealloc(suspect, (nsuspect + 1) * sizeof *suspect);
			suspect[nsuspect++] = xstrdup(optarg);
			break;
		case 'K':
			if (keys[1] != NULL)
				die("-K: more than two key files");
			keys[keys[0] != NULL] = optarg;
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	named = metric != NULL;
	if (metric == NULL)
		metric = key != NULL ? key : "instr";
	if (verdict != NULL || reason != NULL) {
		if (argc != 0 || (verdict != NULL && (reason != NULL || named)))
			usage();
		if (reason != NULL)
			return cgx_unexplained(metric, reason);
		if ((why = cgx_names(verdict, stdout)) != NULL)
			die("%s", why);
		return fshut(stdout, "stdout");
	}
	if ((argc != 2 && argc != 4) || (keys[0] != NULL && keys[1] == NULL))
		usage();
	why = bexe != NULL ? program_of('B', &bexe) : NULL;
	if (why == NULL && hexe != NULL)
		why = program_of('H', &hexe);
	if (why == NULL && argc == 4)
		why = cgx_allocs_read(&allocs, key, argv[2], argv[3]);
	if (why == NULL && keys[1] != NULL)
		why = cg_suspects(keys[0], keys[1], &suspect, &nsuspect);
	if (why != NULL || (why = load(&b, argv[0], bexe)) != NULL || (why = load(&h, argv[1], hexe)) != NULL) {
		/* Under -M the metric is said unexplained, in its record and its line of the table. */
		if (named)
			cgx_unexplained(metric, why);
		else
			warnmsg("%s", why);
		free(why);
		cgx_allocs_free(&allocs);
		cg_free(&b.d);
		cg_free(&h.d);
		free_suspects();
		return 2;
	}
	r = xmalloc((b.d.nfn + h.d.nfn + 1) * sizeof *r);
	for (i = 0; i < b.d.nfn; i++) {
		r[nr].name = b.d.fn[i].name;
		r[nr].file = b.d.fn[i].file;
		r[nr].object = b.d.fn[i].object;
		r[nr].b = (long)i;
		r[nr].h = cg_find(&h.d, b.d.fn[i].name, b.d.fn[i].file);
		nr++;
	}
	for (i = 0; i < h.d.nfn; i++)
		if (cg_find(&b.d, h.d.fn[i].name, h.d.fn[i].file) < 0) {
			r[nr].name = h.d.fn[i].name;
			r[nr].file = h.d.fn[i].file;
			r[nr].object = h.d.fn[i].object;
			r[nr].b = -1;
			r[nr].h = (long)i;
			nr++;
		}
	nr = match_by_name(r, nr);
	/* Functions that did nothing on either side (called, not counted) go. */
	for (i = 0, n = 0; i < nr; i++) {
		r[i].delta = self_of(&h, r[i].h, CG_IR) - self_of(&b, r[i].b, CG_IR);
		r[i].work = fmax(self_of(&h, r[i].h, CG_IR), self_of(&b, r[i].b, CG_IR));
		if (self_of(&b, r[i].b, CG_IR) != 0 || self_of(&h, r[i].h, CG_IR) != 0 ||
		    incl_of(&b, r[i].b) != 0 || incl_of(&h, r[i].h) != 0)
			r[n++] = r[i];
	}
	nr = (size_t)n;
	qsort(r, nr, sizeof *r, cmprow);
	if (nr > 0)
		l = top_lines(&b, &h, &r[0], &nl);
	/* Lines are known where debug information gave the top function some. */
	for (i = 0; i < nl && !lines; i++)
		lines = l[i].line != 0;
	bt = per(&b, b.d.total[CG_IR]);
	ht = per(&h, h.d.total[CG_IR]);
	bd = bt > 0 ? (ht - bt) / bt : (ht > 0 ? INFINITY : 0);
	moved = !(fabs(bd) <= eps);

	put_head("summary");
	put_num("base_instr", bt);
	put_num("head_instr", ht);
	put_num("delta_instr", ht - bt);
	fputs(",\"delta\":", stdout);
	jput_double(stdout, isfinite(bd), bd);
	printf(",\"moved\":%s", moved ? "true" : "false");
	put_num("eps", eps);
	fputs(",\"suspects\":[", stdout);
	for (j = 0; j < (long)nsuspect; j++) {
		if (j)
			putchar(',');
		jput_str(stdout, suspect[j]);
	}
	fputs("],\"top\":", stdout);
	jput_str(stdout, nr > 0 ? r[0].name : NULL);
	fputs(",\"top_file\":", stdout);
	jput_str(stdout, nr > 0 ? r[0].file : NULL);
	put_num("base_calls", b.calls);
	put_num("head_calls", h.calls);
	printf(",\"lines\":%s,\"cache\":%s}\n", lines ? "true" : "false",
	    b.d.cache && h.d.cache ? "true" : "false");
	for (i = 0; i < nr; i++) {
		put_fn(&b, &h, &r[i], 1, (int)i + 1);
		put_fn(&b, &h, &r[i], 0, (int)i + 1);
	}
	for (i = 0; lines && i < nl; i++) {
		put_head("line");
		fputs(",\"function\":", stdout);
		jput_str(stdout, r[0].name);
		fputs(",\"file\":", stdout);
		jput_str(stdout, l[i].file);
		printf(",\"line\":%lu", l[i].line);
		put_num("base_instr", l[i].b);
		put_num("head_instr", l[i].h);
		put_num("delta_instr", l[i].h - l[i].b);
		fputs(",\"self\":true}\n", stdout);
	}
	table(&b, &h, r, nr, lines ? l : NULL, lines ? nl : 0, moved, eps, (int)nfn, (int)nlines);
	if (argc == 4)
		cgx_allocs_put(&allocs, metric);
	cgx_allocs_free(&allocs);
	/* -I: instructions that did not move, and no cache misses to say more. */
	ask = ask && !moved && !(b.d.cache && h.d.cache);
	free(l);
	free(r);
	cg_free(&b.d);
	cg_free(&h.d);
	free_suspects();
	if ((c = fshut(stdout, "stdout")) != 0)
		return c;
	return ask;
}
