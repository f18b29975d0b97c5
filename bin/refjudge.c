/*
 * refjudge: judge one row of a reference benchmark. Reads the alternate(1)
 * records of one case, run over the implementation and its references, and
 * their minjson(1) quartiles, checks that every side timed the same input
 * bytes and ran with the threads it was allowed, and writes one row record:
 * each side's median and quartiles, each reference's ratio and verdict,
 * the fastest side, the load of every round. A row that the load gate
 * deferred is written as such.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "stats.h"
#include "util.h"
#include "version.h"

#define MAXSIDES 32

struct rside {
	const char *name;
	char *digest;		/* the first input digest seen */
	long threads;		/* the most seen; -1: not watched */
	int seen;
	char *q[3];		/* q1, median, q3, raw */
	double qv[3];
	long n;
};

struct round {
	long round;
	char *gauge;		/* the highest gauge read in the round, raw */
	double gv;
	char *before;		/* what the gate read before the round, raw */
	long discarded;
	unsigned long long had;	/* the sides with a record of this round, by index */
};

static const char *casename;
static char metric[256], digestkey[256];
static struct rside sides[MAXSIDES];
static size_t nsides;
static struct round *rounds;
static size_t nrounds;
static const char *gaugekey = "load";
static long gateretries = -1;	/* a deferral's retries used; -1: none said */

static char *
dupraw(const struct jfield *f)
{
	return xmemdup(f->raw, f->rawlen);
}

static const struct jfield *
get(const struct jrecord *r, const char *key)
{
	return jget(r, key, strlen(key));
}

static struct rside *
findside(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nsides; i++)
		if (strlen(sides[i].name) == len && memcmp(sides[i].name, name, len) == 0)
			return &sides[i];
	return NULL;
}

/* The round's entry, made when new. */
static struct round *
findround(long r)
{
	size_t i;

	for (i = 0; i < nrounds; i++)
		if (rounds[i].round == r)
			return &rounds[i];
	rounds = xrealloc(rounds, (nrounds + 1) * sizeof *rounds);
	memset(&rounds[nrounds], 0, sizeof rounds[nrounds]);
	rounds[nrounds].round = r;
	rounds[nrounds].gv = -1;
	return &rounds[nrounds++];
}

/*
 * One run record: its side, digest, threads and the round's gauge. Returns
 * NULL or what is wrong; an error record sets *deferred or *failure.
 */
static const char *
takerun(const struct jrecord *r, char **deferred, char **error)
{
	static char msg[512];
	const struct jfield *f, *g;
	struct rside *s;
	struct round *rd;

	if ((f = get(r, "error")) != NULL && f->type == J_STRING) {
		*error = dupraw(f);
		if ((g = get(r, "gate")) != NULL && g->type == J_STRING)
			*deferred = dupraw(g);
		if ((g = get(r, "retries")) != NULL && g->type == J_NUMBER)
			gateretries = (long)g->num;
		return NULL;
	}
	if ((f = get(r, "side")) == NULL || f->type != J_STRING)
		return "a record without a side";
	if ((s = findside(f->raw, f->rawlen)) == NULL) {
		snprintf(msg, sizeof msg, "side %.*s is not one of -s", (int)f->rawlen, f->raw);
		return msg;
	}
	s->seen = 1;
	if ((f = get(r, digestkey)) == NULL || f->type != J_STRING) {
		snprintf(msg, sizeof msg, "side %s reported no %s", s->name, digestkey);
		return msg;
	}
	if (s->digest == NULL)
		s->digest = dupraw(f);
	else if (strlen(s->digest) != f->rawlen || memcmp(s->digest, f->raw, f->rawlen) != 0) {
		snprintf(msg, sizeof msg, "side %s's inputs changed between rounds: sha256 %s, then %.*s",
		    s->name, s->digest, (int)f->rawlen, f->raw);
		return msg;
	}
	if ((f = get(r, "threads")) != NULL && f->type == J_NUMBER && (long)f->num > s->threads)
		s->threads = (long)f->num;
	if ((f = get(r, "round")) == NULL || f->type != J_NUMBER)
		return "a record without a round";
	rd = findround((long)f->num);
	/* Two records of one side for a round are two runs in one file. */
	if (rd->had & 1ULL << (s - sides)) {
		snprintf(msg, sizeof msg, "second record for side %s, round %ld", s->name, rd->round);
		return msg;
	}
	rd->had |= 1ULL << (s - sides);
	if ((g = get(r, "pressure")) != NULL && g->type == J_NUMBER)
		gaugekey = "pressure";
	else
		g = get(r, "load");
	if (g != NULL && g->type == J_NUMBER && g->num > rd->gv) {
		free(rd->gauge);
		rd->gauge = dupraw(g);
		rd->gv = g->num;
	}
	if ((f = get(r, "discarded")) != NULL && f->type == J_NUMBER && (long)f->num > rd->discarded)
		rd->discarded = (long)f->num;
	if (((f = get(r, "pressure_before")) != NULL || (f = get(r, "load_before")) != NULL) &&
	    f->type == J_NUMBER && rd->before == NULL)
		rd->before = dupraw(f);
	return NULL;
}

/* One minjson record: a side's q1, median or q3 of the metric. */
static const char *
takestat(const struct jrecord *r)
{
	static const char *names[] = { "q1", "median", "q3" };
	const struct jfield *f, *st, *m, *n;
	struct rside *s;
	int i;

	if ((f = get(r, "side")) == NULL || (s = findside(f->raw, f->rawlen)) == NULL ||
	    (st = get(r, "stat")) == NULL)
		return NULL;
	for (i = 0; i < 3; i++)
		if (st->rawlen == strlen(names[i]) && memcmp(st->raw, names[i], st->rawlen) == 0)
			break;
	if (i == 3)
		return NULL;
	if ((m = get(r, metric)) == NULL || m->type != J_NUMBER)
		return "a statistic without the metric";
	free(s->q[i]);
	s->q[i] = dupraw(m);
	s->qv[i] = m->num;
	if ((n = get(r, "n")) != NULL && n->type == J_NUMBER)
		s->n = (long)n->num;
	return NULL;
}

/* Read a file of records, giving each to take; or exit 2. */
static void
readfile(const char *path, int stats, char **deferred, char **error)
{
	struct jreader rd;
	struct jrecord rec = { 0 };
	const char *line, *err;
	size_t len;
	int rc;

	if (jreader_open(&rd, path) < 0)
		die("%s:", path);
	while ((rc = jreader_next(&rd, &line, &len)) == 1) {
		if (len == 0)
			continue;
		if ((err = jparse(line, len, &rec)) != NULL)
			die("%s:%lu: %s", rd.name, rd.lineno, err);
		err = stats ? takestat(&rec) : takerun(&rec, deferred, error);
		if (err != NULL)
			die("%s:%lu: row %s: %s", rd.name, rd.lineno, casename, err);
	}
	if (rc < 0)
		die("%s:", path);
	jrecord_free(&rec);
	jreader_close(&rd);
}

static void
addsides(char *list)
{
	char *p;
	size_t i;

	for (p = strtok(list, ","); p != NULL; p = strtok(NULL, ",")) {
		if (nsides == MAXSIDES)
			die("-s: more than %d sides", MAXSIDES);
		for (i = 0; i < nsides; i++)
			if (strcmp(sides[i].name, p) == 0)
				die("-s: side %s twice", p);
		sides[nsides].name = p;
		sides[nsides].threads = -1;
		nsides++;
	}
	if (nsides < 2)
		die("-s: an implementation and at least one reference");
}

/* The retries the row used: the rounds' discards, or all a deferral says. */
static long
retries_used(void)
{
	long n = 0;
	size_t i;

	for (i = 0; i < nrounds; i++)
		n += rounds[i].discarded;
	return gateretries > n ? gateretries : n;
}

/* ,"gauge":[after each round],"gauge_before":[before each round], when read. */
static void
gauges_out(void)
{
	size_t i;

	printf(",\"%s\":[", gaugekey);
	for (i = 0; i < nrounds; i++)
		printf("%s%s", i ? "," : "", rounds[i].gauge ? rounds[i].gauge : "null");
	putchar(']');
	for (i = 0; i < nrounds && rounds[i].before == NULL; i++)
		;
	if (i == nrounds)
		return;
	printf(",\"%s_before\":[", gaugekey);
	for (i = 0; i < nrounds; i++)
		printf("%s%s", i ? "," : "", rounds[i].before ? rounds[i].before : "null");
	putchar(']');
}

/* The row of a valid case. */
static void
writerow(void)
{
	struct rside *impl = &sides[0], *fast = &sides[0];
	size_t i;

	for (i = 0; i < nsides; i++) {
		if (!sides[i].seen)
			die("row %s: side %s has no runs", casename, sides[i].name);
		if (sides[i].q[0] == NULL || sides[i].q[1] == NULL || sides[i].q[2] == NULL)
			die("row %s: side %s lacks q1, median or q3 of %s", casename, sides[i].name, metric);
		if (strcmp(sides[i].digest, impl->digest) != 0)
			die("row %s: the inputs differ: side %s timed sha256 %s, side %s sha256 %s",
			    casename, impl->name, impl->digest, sides[i].name, sides[i].digest);
		if (sides[i].qv[1] < fast->qv[1])
			fast = &sides[i];
	}
	printf("{\"case\":\"%s\",\"metric\":\"%s\",\"valid\":true,\"input_sha256\":\"%s\","
	    "\"rounds\":%zu,\"retries\":%ld,\"gauge\":\"%s\"",
	    casename, metric, impl->digest, nrounds, retries_used(), gaugekey);
	gauges_out();
	fputs(",\"sides\":[", stdout);
	for (i = 0; i < nsides; i++) {
		printf("%s{\"side\":\"%s\",\"n\":%ld,\"q1\":%s,\"median\":%s,\"q3\":%s",
		    i ? "," : "", sides[i].name, sides[i].n, sides[i].q[0], sides[i].q[1], sides[i].q[2]);
		if (sides[i].threads >= 0)
			printf(",\"threads\":%ld", sides[i].threads);
		putchar('}');
	}
	fputs("],\"references\":[", stdout);
	for (i = 1; i < nsides; i++) {
		printf("%s{\"reference\":\"%s\",\"ratio\":", i > 1 ? "," : "", sides[i].name);
		jput_double(stdout, 1, impl->qv[1] / sides[i].qv[1]);
		printf(",\"verdict\":\"%s\"}", quartile_opinion(sides[i].qv[0], sides[i].qv[2],
		    impl->qv[0], impl->qv[2]));
	}
	printf("],\"fastest\":\"%s\",\"headline_ratio\":", fast->name);
	jput_double(stdout, 1, impl->qv[1] / fast->qv[1]);
	fputs("}\n", stdout);
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s -c case -s impl,ref,... runs.jsonl [stats.jsonl]\n"
	    "       %s -V\n", argv0, argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	char *list = NULL, *deferred = NULL, *error = NULL;
	int c;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opterr = 0;
	while ((c = getopt(argc, argv, ":c:s:")) != -1) {
		switch (c) {
		case 'c':
			casename = optarg;
			break;
		case 's':
			list = optarg;
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (casename == NULL || list == NULL || argc < 1 || argc > 2)
		usage();
	if (*casename == '\0' || strlen(casename) > 200 || strpbrk(casename, "\"\\") != NULL)
		die("-c %s: a case name is plain text", casename);
	snprintf(metric, sizeof metric, "%s_ns", casename);
	snprintf(digestkey, sizeof digestkey, "%s_input_sha256", casename);
	addsides(list);
	readfile(argv[0], 0, &deferred, &error);
	if (error != NULL && deferred == NULL)
		die("row %s: %s", casename, error);
	if (deferred != NULL) {
		warnmsg("row %s deferred: %s", casename, error);
		printf("{\"case\":\"%s\",\"metric\":\"%s\",\"valid\":false,\"deferred\":\"%s\","
		    "\"error\":\"%s\",\"rounds\":%zu,\"retries\":%ld}\n", casename, metric, deferred, error,
		    nrounds, retries_used());
		/*
		 * 3 for "wait" (the gate did not open: the rows after need not
		 * try), 1 for any other deferral; "deferred" says which.
		 */
		c = fshut(stdout, "<stdout>") != 0 ? 2 : strcmp(deferred, "wait") == 0 ? 3 : 1;
		free(deferred);
		free(error);
		return c;
	}
	if (argc < 2)
		die("row %s: no statistics file", casename);
	readfile(argv[1], 1, NULL, NULL);
	writerow();
	return fshut(stdout, "<stdout>");
}
