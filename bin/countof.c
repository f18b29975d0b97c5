/*
 * countof: count what a benchmark does, exactly, under valgrind.
 * Runs a command once under valgrind's callgrind with collection off and
 * BENCH_MODE=counts in its environment, reads the dumps that bench.h's
 * counts mode has callgrind write around each metric's calls, and writes one
 * record: each metric's instructions a call, then the members of the
 * command's own metrics line (its allocations a call) byte for byte.
 * With -j it judges two sides' records against the budget file's [counts]
 * section; with -l it joins a time verdict and a counts verdict and names
 * the time regressions that did not move instructions (countjudge.c).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchargv.h"
#include "buf.h"
#include "countjudge.h"
#include "jsonl.h"
#include "proc.h"
#include "tool.h"
#include "util.h"

#define DEFAULT_TIMEOUT_S 600.0
#define DUMP_PREFIX "callgrind.out."
#define TRIGGER "desc: Trigger: Client Request: perfgate "

/*
 * One metric's dump: its key, and over its calls its instructions and,
 * with callgrind's cache simulation, its first-level and last-level misses
 * (instruction and data, reads and writes).
 */
struct dump {
	long pid, part;
	char key[128];
	unsigned long long instr, l1, ll;
	int cache;
	long calls;
};

/* The events callgrind counts with --cache-sim=yes, as its dumps name them. */
enum { EV_IR, EV_L1, EV_LL, EV_OTHER };

/* Which of the sums an event adds to. */
static int
event_kind(const char *name, size_t len)
{
	static const char *const l1[] = { "I1mr", "D1mr", "D1mw" }, *const ll[] = { "ILmr", "DLmr", "DLmw" };
	size_t i;

	if (len == 2 && memcmp(name, "Ir", 2) == 0)
		return EV_IR;
	for (i = 0; i < 3; i++) {
		if (strlen(l1[i]) == len && memcmp(name, l1[i], len) == 0)
			return EV_L1;
		if (strlen(ll[i]) == len && memcmp(name, ll[i], len) == 0)
			return EV_LL;
	}
	return EV_OTHER;
}

static struct dump *dumps;
static size_t ndumps;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-c] [-d dir] [-o log] [-s side] [-t timeout] [--] command [arg ...]\n"
	    "       %s [-c] [-d dir] [-o log] [-s side] [-t timeout] -f file\n"
	    "       %s -j [-b budget] [file ...]\n"
	    "       %s -l [-e threshold] time-verdict counts-verdict\n"
	    "       %s -V\n", argv0, argv0, argv0, argv0, argv0);
	exit(2);
}

static int
iskey(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/*
 * Read one dump file: its trigger names the key and the number of calls,
 * its summary the instructions. Returns NULL, with d->calls 0 for a dump
 * that is not one of bench.h's (the one at program termination, a user's
 * own); else a message for "file: message".
 */
static const char *
read_dump(const char *path, struct dump *d)
{
	FILE *fp = fopen(path, "r");
	char line[512], *end, *p, *sp;
	const char *why = NULL;
	int kind[32], nev = 0, haveinstr = 0, irfirst = 0, i;
	unsigned long long v;

	d->calls = 0;
	if (fp == NULL)
		return strerror(errno);
	while (why == NULL && fgets(line, sizeof line, fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, TRIGGER, strlen(TRIGGER)) == 0) {
			p = line + strlen(TRIGGER);
			sp = strchr(p, ' ');
			if (sp == NULL || !iskey(p, (size_t)(sp - p)) || (size_t)(sp - p) >= sizeof d->key) {
				why = "a perfgate trigger without a metric key";
				break;
			}
			memcpy(d->key, p, (size_t)(sp - p));
			d->key[sp - p] = '\0';
			if (sp - p <= 6 || strcmp(d->key + (sp - p) - 6, "_instr") != 0) {
				why = "a perfgate trigger whose key does not end in _instr";
				break;
			}
			if (parse_long(sp + 1, 1, 1000000000L, &d->calls) != NULL)
				why = "a perfgate trigger without a number of calls";
		} else if (strncmp(line, "events: ", 8) == 0) {
			/* The events, in the order the summary gives their counts. */
			for (nev = 0, p = line + 8; *p != '\0' && nev < 32; nev++) {
				sp = p + strcspn(p, " ");
				kind[nev] = event_kind(p, (size_t)(sp - p));
				p = sp + strspn(sp, " ");
			}
			irfirst = nev > 0 && kind[0] == EV_IR;
			for (i = 0; i < nev; i++)
				if (kind[i] == EV_L1 || kind[i] == EV_LL)
					d->cache = 1;
		} else if (strncmp(line, "summary: ", 9) == 0) {
			d->instr = d->l1 = d->ll = 0;
			for (i = 0, p = line + 9; i < nev && *p != '\0'; i++) {
				errno = 0;
				v = strtoull(p, &end, 10);
				if (errno != 0 || end == p || (*end != ' ' && *end != '\0')) {
					why = "a summary that is not a count";
					break;
				}
				if (kind[i] == EV_IR)
					d->instr = v;
				else if (kind[i] == EV_L1)
					d->l1 += v;
				else if (kind[i] == EV_LL)
					d->ll += v;
				p = end + strspn(end, " ");
			}
			/* Callgrind leaves out the zeros at the end. */
			haveinstr = why == NULL && i > 0;
		}
	}
	if (why == NULL && ferror(fp))
		why = strerror(errno);
	fclose(fp);
	if (why != NULL || d->calls == 0)
		return why;
	if (!irfirst)
		return "no Ir event first (run with callgrind's default events)";
	if (!haveinstr)
		return "no summary line";
	return NULL;
}

static int
cmpdump(const void *a, const void *b)
{
	const struct dump *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->part > y->part) - (x->part < y->part);
}

/*
 * Read every dump in dir named callgrind.out.PID.PART, in the order they
 * were written. Returns 0, or 2 after a message.
 */
static int
read_dumps(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	struct dump d;
	char path[4096], *end;
	const char *why, *name;
	size_t i, j;

	if (dp == NULL) {
		warnmsg("%s:", dir);
		return 2;
	}
	while ((de = readdir(dp)) != NULL) {
		name = de->d_name;
		if (strncmp(name, DUMP_PREFIX, strlen(DUMP_PREFIX)) != 0)
			continue;
		memset(&d, 0, sizeof d);
		d.pid = strtol(name + strlen(DUMP_PREFIX), &end, 10);
		if (*end != '.')
			continue;
		d.part = strtol(end + 1, &end, 10);
		if (*end != '\0')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, name);
		if ((why = read_dump(path, &d)) != NULL) {
			closedir(dp);
			warnmsg("%s: %s", path, why);
			return 2;
		}
		if (d.calls == 0)
			continue;
		dumps = xrealloc(dumps, (ndumps + 1) * sizeof *dumps);
		dumps[ndumps++] = d;
	}
	closedir(dp);
	if (ndumps > 1)
		qsort(dumps, ndumps, sizeof *dumps, cmpdump);
	for (i = 0; i < ndumps; i++)
		for (j = 0; j < i; j++)
			if (strcmp(dumps[i].key, dumps[j].key) == 0) {
				warnmsg("%s: two metrics named %s", dir, dumps[i].key);
				return 2;
			}
	return 0;
}

/* Remove callgrind's dumps from dir, and dir itself when it is left empty. */
static void
remove_dumps(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (dp != NULL) {
		while ((de = readdir(dp)) != NULL)
			if (strncmp(de->d_name, DUMP_PREFIX, strlen(DUMP_PREFIX)) == 0) {
				snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
				unlink(path);
			}
		closedir(dp);
	}
	rmdir(dir);
}

/*
 * The record: "side" first with -s, each dump's key and instructions a
 * call in the order they ran, then the command's own members as it wrote
 * them.
 */
static int
put_record(const char *side, const struct jrecord *rec)
{
	struct jwriter w;
	char key[160];
	size_t i, j;

	for (i = 0; i < rec->n; i++)
		for (j = 0; j < ndumps; j++) {
			const struct jfield *f = &rec->field[i];
			size_t base = strlen(dumps[j].key) - strlen("_instr");

			if ((f->keylen == strlen(dumps[j].key) && memcmp(f->key, dumps[j].key, f->keylen) == 0) ||
			    (dumps[j].cache && f->keylen > base && memcmp(f->key, dumps[j].key, base) == 0 &&
			    (memeq_str(f->key + base, f->keylen - base, "_l1_misses") ||
			    memeq_str(f->key + base, f->keylen - base, "_ll_misses")))) {
				warnmsg("the command's metrics line has %.*s, a key of countof's own",
				    (int)f->keylen, f->key);
				return 2;
			}
		}
	jw_begin(&w, stdout);
	if (side != NULL)
		jw_str(&w, "side", side);
	for (j = 0; j < ndumps; j++)
		jw_num(&w, dumps[j].key, (double)dumps[j].instr / (double)dumps[j].calls);
	/* With -c, m_l1_misses and m_ll_misses for each m_instr, after them all. */
	for (j = 0; j < ndumps; j++) {
		int base = (int)strlen(dumps[j].key) - (int)strlen("_instr");

		if (!dumps[j].cache)
			continue;
		snprintf(key, sizeof key, "%.*s_l1_misses", base, dumps[j].key);
		jw_num(&w, key, (double)dumps[j].l1 / (double)dumps[j].calls);
		snprintf(key, sizeof key, "%.*s_ll_misses", base, dumps[j].key);
		jw_num(&w, key, (double)dumps[j].ll / (double)dumps[j].calls);
	}
	for (i = 0; i < rec->n; i++)
		jw_field(&w, &rec->field[i]);
	jw_end(&w);
	return fshut(stdout, "stdout");
}

/* Run argv under callgrind, dumps into dir; then read and write. */
static int
count(char **argv, const char *dir, const char *side, double timeout, int cache, const char *log)
{
	int saved = -1, fd;
	struct proc_opts opts;
	struct proc_result res;
	struct jrecord rec;
	char outfile[4200], buf[256];
	const char *why, *fail;
	char **vargv;
	int n = 0, i, rc;

	for (n = 0; argv[n] != NULL; n++)
		;
	vargv = xmalloc(((size_t)n + 9) * sizeof *vargv);
	snprintf(outfile, sizeof outfile, "--callgrind-out-file=%s/" DUMP_PREFIX "%%p", dir);
	vargv[0] = "valgrind";
	vargv[1] = "--tool=callgrind";
	vargv[2] = "--collect-atstart=no";
	vargv[3] = "--instr-atstart=no";
	/* Through env(1) and wrappers (benchrec), to the benchmark itself. */
	vargv[4] = "--trace-children=yes";
	vargv[5] = "-q";
	vargv[6] = outfile;
	n = 7;
	if (cache)
		vargv[n++] = "--cache-sim=yes";
	for (i = 0; argv[i] != NULL; i++)
		vargv[n++] = argv[i];
	vargv[n] = NULL;
	if (setenv("BENCH_MODE", "counts", 1) != 0)
		die("setenv:");
	memset(&opts, 0, sizeof opts);
	memset(&rec, 0, sizeof rec);
	opts.argv = vargv;
	opts.timeout_s = timeout;
	opts.capture_stdout = 1;
	proc_forward_signals();
	/* -o: the command's and valgrind's stderr to log; countof's own message stays on stderr. */
	if (log != NULL) {
		if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
			die("%s:", log);
		if ((saved = dup(2)) < 0 || dup2(fd, 2) < 0)
			die("dup2 %s:", log);
		close(fd);
	}
	why = proc_run(&opts, &res);
	if (saved >= 0 && (dup2(saved, 2) < 0 || close(saved) != 0))
		die("dup2 stderr:");
	if (why != NULL)
		die("%s", why);
	free(vargv);
	if ((fail = proc_failure(&opts, &res, buf, sizeof buf)) != NULL) {
		warnmsg("valgrind %s: %s", argv[0], fail);
		proc_result_free(&res);
		return 2;
	}
	if ((why = jmetrics(res.out, res.outlen, &rec)) != NULL) {
		warnmsg("%s: its last line is no metrics line: %s", argv[0], why);
		proc_result_free(&res);
		return 2;
	}
	rc = read_dumps(dir);
	if (rc == 0 && ndumps == 0) {
		warnmsg("%s: no instruction counts: no callgrind dump named perfgate (is it a bench.h "
		    "benchmark built with valgrind/callgrind.h? tcc needs -DBENCH_CALLGRIND=1)", argv[0]);
		rc = 2;
	}
	if (rc == 0)
		rc = put_record(side, &rec);
	jrecord_free(&rec);
	proc_result_free(&res);
	free(dumps);
	return rc;
}

/*
 * The bench command in file (as the gate writes bench.cmd), split by the
 * gate's one parser (lib/benchargv.c): the words the gate keyed.
 */
static char **
cmdfile(const char *file)
{
	FILE *fp = fopen(file, "rb");
	struct buf b = { 0 };
	char chunk[4096], **av, *err;
	size_t got;

	if (fp == NULL)
		die("%s:", file);
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, got);
	if (ferror(fp))
		die("%s:", file);
	fclose(fp);
	if (b.p != NULL && memchr(b.p, '\0', b.n) != NULL)
		die("%s: the bench command holds a NUL byte", file);
	while (b.n > 0 && b.p[b.n - 1] == '\n')
		b.p[--b.n] = '\0';
	if ((av = benchargv(b.p != NULL ? b.p : "", &err)) == NULL)
		die("%s: the bench command: %s", file, err);
	free(b.p);
	return av;
}

int
main(int argc, char *argv[])
{
	char **words = NULL;	/* -f: the command file's words */
	const char *budget = "budget.toml", *dir = NULL, *side = NULL, *file = NULL, *log = NULL;
	char tmpl[4096];
	double timeout = DEFAULT_TIMEOUT_S, eps = 0.01;
	int c, cache = 0, judge = 0, layout = 0, keep, rc;

	tool_begin(argc, argv);
	/* '+': options end at the command, whose own options are its own. */
	while ((c = getopt(argc, argv, "+:b:cd:e:f:jlo:s:t:")) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'b':
			budget = optarg;
			break;
		case 'c':
			cache = 1;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'e':
			eps = opt_double('e', 0, 1e6, "0 or more");
			break;
		case 'j':
			judge = 1;
			break;
		case 'l':
			layout = 1;
			break;
		case 'o':
			log = optarg;
			break;
		case 's':
			side = optarg;
			break;
		case 't':
			timeout = opt_double('t', 0, 1e7, "0 to 1e7 seconds, 0 for none");
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (judge + layout + (file != NULL) > 1 || (file != NULL && argc > 0) || (log != NULL && judge + layout > 0))
		usage();
	if (judge)
		return counts_judge(budget, argv, argc);
	if (layout) {
		if (argc != 2)
			usage();
		return counts_layout(argv[0], argv[1], eps);
	}
	if (file != NULL)
		argv = words = cmdfile(file);
	else if (argc < 1)
		usage();
	keep = dir != NULL;
	if (keep) {
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			die("%s:", dir);
		/* Dumps of an earlier run would be read as this one's. */
		remove_dumps(dir);
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			die("%s:", dir);
	} else {
		snprintf(tmpl, sizeof tmpl, "%s/countof.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if ((dir = mkdtemp(tmpl)) == NULL)
			die("mkdtemp %s (TMPDIR):", tmpl);
	}
	rc = count(argv, dir, side, timeout, cache, log);
	if (!keep)
		remove_dumps(dir);
	free(words);
	return rc;
}
