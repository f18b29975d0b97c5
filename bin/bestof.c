/*
 * bestof: time a command best-of-N.
 * Runs the command untimed `warmups` times, then `runs` times timed, and
 * writes one record holding each figure's minimum over the runs: wall_ns,
 * user_ns, sys_ns, maxrss_kb, the metrics of the command's last non-empty
 * stdout line, runs. With -a it writes one record per run instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jsonl.h"
#include "proc.h"
#include "util.h"
#include "version.h"

#define NFIG 4
#define DEFAULT_TIMEOUT_S 120.0

static const char *const figname[NFIG] = { "wall_ns", "user_ns", "sys_ns", "maxrss_kb" };

/* bestof's own keys: a metric of the command may not take one of them. */
static const char *const ownkey[] = { "wall_ns", "user_ns", "sys_ns", "maxrss_kb", "runs", "run" };

/*
 * The metrics are named by the first timed run; every later run must print
 * the same names, found by name, so their order may change.
 */
static struct {
	char *key;		/* as written between the quotes */
	size_t keylen;
} *metric;
static size_t nmetric;
static int hasmetrics;		/* the first run printed a metrics line */

/* Per run: the figures, then each metric's text and value. */
static long long (*fig)[NFIG];
static char **raw;		/* raw[run * nmetric + m] */
static double *num;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-a] [-i] [-n runs] [-t timeout] [-w warmups] [--] command [arg ...]\n", argv0);
	exit(2);
}

static long long
tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

/*
 * Whether the last non-empty line of buf looks meant as a metrics line, so
 * that a malformed one is an error rather than silently no metrics.
 */
static int
looks_like_object(const char *buf, size_t len)
{
	const char *end = buf + len, *line;

	while (end > buf && strchr(" \t\r\n", end[-1]) != NULL)
		end--;
	line = end;
	while (line > buf && line[-1] != '\n')
		line--;
	while (line < end && (*line == ' ' || *line == '\t'))
		line++;
	return line < end && *line == '{';
}

static int
is_own(const struct jfield *f)
{
	size_t i;

	for (i = 0; i < sizeof ownkey / sizeof ownkey[0]; i++)
		if (jfield_is(f, ownkey[i]))
			return 1;
	return 0;
}

/* Take run i's metrics (rec, or none when rec is NULL), or die saying why not. */
static void
take_metrics(long i, const struct jrecord *rec)
{
	const struct jfield *f;
	size_t m;

	if (i == 0) {
		hasmetrics = rec != NULL;
		nmetric = rec != NULL ? rec->n : 0;
		metric = xmalloc(nmetric * sizeof metric[0]);
		for (m = 0; m < nmetric; m++) {
			f = &rec->field[m];
			if (is_own(f))
				die("run 1: metric \"%.*s\" clashes with a key of bestof's own",
				    (int)f->keylen, f->key);
			metric[m].keylen = f->keylen;
			metric[m].key = xmemdup(f->key, f->keylen);
		}
	} else if (hasmetrics != (rec != NULL)) {
		die(hasmetrics ? "run %ld: no metrics line, but run 1 had one" :
		    "run %ld: a metrics line, but run 1 had none", i + 1);
	}
	if (rec == NULL)
		return;
	for (m = 0; m < nmetric; m++) {
		f = jget(rec, metric[m].key, metric[m].keylen);
		if (f == NULL)
			die("run %ld: metric \"%.*s\" of run 1 is missing", i + 1,
			    (int)metric[m].keylen, metric[m].key);
		raw[i * nmetric + m] = xmemdup(f->raw, f->rawlen);
		num[i * nmetric + m] = f->num;
	}
	/* Every old name found and no more names than before: the same set. */
	if (rec->n != nmetric)
		die("run %ld: %zu metrics, but run 1 had %zu", i + 1, rec->n, nmetric);
}

/* Metric m's value, key and number byte for byte as read. */
static void
put_metric(struct jwriter *w, size_t m, const char *text)
{
	jw_keyraw(w, metric[m].key, metric[m].keylen);
	fputs(text, w->fp);
}

static void
put_all(long runs)
{
	struct jwriter w;
	long i;
	size_t m;
	int k;

	for (i = 0; i < runs; i++) {
		jw_begin(&w, stdout);
		jw_long(&w, "run", i + 1);
		for (k = 0; k < NFIG; k++)
			jw_long(&w, figname[k], fig[i][k]);
		for (m = 0; m < nmetric; m++)
			put_metric(&w, m, raw[i * nmetric + m]);
		jw_end(&w);
	}
}

/* Each figure's minimum; a selected metric is written as it was read. */
static void
put_best(long runs)
{
	struct jwriter w;
	long i, best;
	size_t m;
	long long lo;
	int k;

	jw_begin(&w, stdout);
	for (k = 0; k < NFIG; k++) {
		lo = fig[0][k];
		for (i = 1; i < runs; i++)
			if (fig[i][k] < lo)
				lo = fig[i][k];
		jw_long(&w, figname[k], lo);
	}
	for (m = 0; m < nmetric; m++) {
		best = 0;
		for (i = 1; i < runs; i++)
			if (num[i * nmetric + m] < num[best * nmetric + m])
				best = i;
		put_metric(&w, m, raw[best * nmetric + m]);
	}
	jw_long(&w, "runs", runs);
	jw_end(&w);
}

int
main(int argc, char *argv[])
{
	struct proc_opts opts = { 0 };
	struct proc_result res;
	struct jrecord rec = { 0 };
	const char *why, *fail;
	char buf[256];
	long runs = 5, warmups = 1, i, n;
	int all = 0, ignore = 0, c, timed, rc;
	size_t m;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opts.timeout_s = DEFAULT_TIMEOUT_S;
	opterr = 0;
	/* '+': options end at the command, whose own options are its own. */
	while ((c = getopt(argc, argv, "+:ain:t:w:")) != -1) {
		switch (c) {
		case 'a':
			all = 1;
			break;
		case 'i':
			ignore = 1;
			break;
		case 'n':
			if ((why = parse_long(optarg, 1, 1000000, &runs)) != NULL)
				die("-n %s: %s (1 to 1000000)", optarg, why);
			break;
		case 't':
			if ((why = parse_double(optarg, 0, 1e7, &opts.timeout_s)) != NULL)
				die("-t %s: %s (0 to 1e7 seconds, 0 for none)", optarg, why);
			break;
		case 'w':
			if ((why = parse_long(optarg, 0, 1000000, &warmups)) != NULL)
				die("-w %s: %s (0 to 1000000)", optarg, why);
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	if (optind >= argc)
		usage();
	opts.argv = argv + optind;
	opts.capture_stdout = 1;

	fig = xmalloc((size_t)runs * sizeof fig[0]);
	proc_forward_signals();
	for (n = 0; n < warmups + runs; n++) {
		timed = n >= warmups;
		i = timed ? n - warmups : n;
		if ((why = proc_run(&opts, &res)) != NULL)
			die("%s", why);
		fail = proc_failure(&opts, &res, buf, sizeof buf);
		/* -i forgives an exit status, not a signal or a timeout. */
		if (ignore && res.started && !res.timed_out && WIFEXITED(res.status))
			fail = NULL;
		if (fail != NULL && !res.started)
			die("%s", fail);
		if (fail != NULL)
			die("%s %ld: %s", timed ? "run" : "warmup", i + 1, fail);
		if (timed) {
			fig[i][0] = res.wall_ns;
			fig[i][1] = tv_ns(res.ru.ru_utime);
			fig[i][2] = tv_ns(res.ru.ru_stime);
			fig[i][3] = res.ru.ru_maxrss;
			why = jmetrics(res.out, res.outlen, &rec);
			if (why != NULL && looks_like_object(res.out, res.outlen))
				die("run %ld: %s", i + 1, why);
			if (i == 0 && why == NULL) {
				raw = xmalloc((size_t)runs * rec.n * sizeof raw[0]);
				num = xmalloc((size_t)runs * rec.n * sizeof num[0]);
			}
			take_metrics(i, why == NULL ? &rec : NULL);
		}
		proc_result_free(&res);
	}
	jrecord_free(&rec);

	if (all)
		put_all(runs);
	else
		put_best(runs);
	rc = fshut(stdout, "stdout");

	for (i = 0; i < runs * (long)nmetric; i++)
		free(raw[i]);
	for (m = 0; m < nmetric; m++)
		free(metric[m].key);
	free(metric);
	free(raw);
	free(num);
	free(fig);
	return rc;
}
