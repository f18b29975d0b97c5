/*
 * gaterun: the gate's measuring loop and its rule, in one program. Runs
 * base and head in interleaved rounds (runround.h, as alternate does),
 * hands each round's records to the rule (decide.h) as soon as the round
 * is whole, and stops the round every metric is decided, or at the
 * deadline: both the rounds (-N) and the seconds (-D) have passed. A
 * metric decided is no longer measured: the benchmark is told the cases
 * still open in BENCH_CASES. Writes the stored gate's files (gatedir.h):
 * dir/runs.jsonl after every round, then dir/verdict.txt, verdict.md and
 * verdict.jsonl; its exit status is the verdict's (0 ok, 1 regressed, 2
 * undecided or in error).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchargv.h"
#include "budget.h"
#include "buf.h"
#include "decide.h"
#include "gatedir.h"
#include "jsonvalue.h"
#include "jsonwrite.h"
#include "msg.h"
#include "pin.h"
#include "progress.h"
#include "report.h"
#include "rounds.h"
#include "runround.h"
#include "sides.h"
#include "util.h"
#include "version.h"

static const char *sidename[NSIDE] = { "base", "head" };

static const char *dir, *bfile = "budget.toml";
static struct budget budget, othershare;
static double conf = 0.95, deadline = 20;
static long maxrounds = -1;	/* -N; -1: the budget's runs */
static int focus = 1, strict;

/* What one look at the rounds found. */
static struct rounds rs;
static struct decision d;
static int loaded, decided;
static char **errs;
static size_t nerrs;
static char **unbudgeted;
static size_t nunbudgeted;

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-dfjpsuvwx] [-a name:key=value] [-b budget] [-C confidence] [-c cpu|auto]"
	    " [-D deadline] [-e reasonfile] [-L wait] [-l maxload] [-M metrics] [-N rounds] [-R retries]"
	    " [-T maxthreads] [-t timeout] [-W reruns] dir [base=command head=command]\n"
	    "       %s -F step [-e reasonfile] dir side message [name [source]]\n"
	    "       %s -k side dir\n", argv0, argv0, argv0);
	exit(2);
}

static void
failmsg(char *msg)
{
	errs = xrealloc(errs, (nerrs + 1) * sizeof *errs);
	errs[nerrs++] = msg;
}

/* Forget the last look. */
static void
unlook(void)
{
	size_t i;

	if (decided)
		decide_free(&d);
	if (loaded)
		rounds_free(&rs, &budget);
	for (i = 0; i < nerrs; i++)
		free(errs[i]);
	for (i = 0; i < nunbudgeted; i++)
		free(unbudgeted[i]);
	nerrs = nunbudgeted = 0;
	loaded = decided = 0;
}

/* Look at the rounds of dir/runs.jsonl: each metric judged by the rule. */
static void
look(void)
{
	struct rule ru;
	char *path = msgf("%s/runs.jsonl", dir), *msg;
	size_t i;

	unlook();
	memset(&rs, 0, sizeof rs);
	if ((msg = rounds_load(&rs, path, "side", sidename, &budget)) != NULL)
		failmsg(msg);
	else
		loaded = 1;
	free(path);
	for (i = 0; loaded && i < rs.nnum; i++)
		if (budget_find(&budget, rs.num[i], strlen(rs.num[i])) == NULL &&
		    budget_find(&othershare, rs.num[i], strlen(rs.num[i])) == NULL) {
			unbudgeted = xrealloc(unbudgeted, (nunbudgeted + 1) * sizeof *unbudgeted);
			unbudgeted[nunbudgeted++] = json_unescape(rs.num[i], strlen(rs.num[i]));	/* a name, escaped once when written */
			if (strict)
				failmsg(msgf("%s: not in the budget file (-u)", rs.num[i]));
		}
	ru.confidence = conf;
	ru.first = 1;
	memset(&d, 0, sizeof d);
	if (loaded) {
		decide(&d, &budget, &rs, &ru, &errs, &nerrs);
		decided = 1;
		if (rs.nrounds == 0)
			failmsg(msgf("%s/runs.jsonl: no round of both sides", dir));
	}
}

/* The metrics the rule has not decided, as a comma list (allocated); their count in *n. */
static char *
open_metrics(size_t *n)
{
	struct buf b = { 0 };
	size_t i;

	*n = 0;
	for (i = 0; decided && i < d.n; i++)
		if (d.res[i].verdict != V_ERROR && d.res[i].want > 0) {
			buf_printf(&b, "%s%s", b.n ? "," : "", d.res[i].e->name);
			++*n;
		}
	buf_add(&b, "", 1);
	return b.p;
}

/* Say which metrics the last look decided, now no longer measured while others are. */
static void
said_decided(struct progress *prog, size_t rounds)
{
	static unsigned char *told;
	size_t i;

	if (told == NULL) {
		told = xmalloc(d.n ? d.n : 1);
		memset(told, 0, d.n ? d.n : 1);
	}
	for (i = 0; i < d.n; i++)
		if (!told[i] && d.res[i].want == 0 && d.res[i].verdict != V_ERROR) {
			told[i] = 1;
			progress_erase(prog);
			warnmsg("round %zu: %s decided, %s: no longer measured", rounds, d.res[i].e->name,
			    verdict_name[d.res[i].verdict]);
		}
}

/*
 * The verdict of the last look: dir/verdict.txt (what a person reads),
 * verdict.md, then verdict.jsonl, each whole or not at all. Returns the
 * status.
 */
static int
verdict(void)
{
	struct report rp;
	enum verdict v;
	char *machine, *reason = NULL, *text = NULL, *recs = NULL, *path, *err = NULL;
	size_t tn = 0, rn = 0, i;
	FILE *tf, *rf;
	int status;

	v = nerrs ? V_ERROR : decide_verdict(&d, 0);
	rp.res = d.res;
	rp.n = decided ? d.n : 0;
	rp.confidence = conf;
	rp.error = nerrs ? errs[0] : NULL;
	machine = msgf("machine: %s", d.m.line);
	gatedir_hold(1);
	path = msgf("%s/verdict.md", dir);
	if ((err = report_markdown_note(path, &rp, loaded ? machine : NULL)) != NULL) {
		failmsg(err);
		v = V_ERROR;
		rp.error = errs[0];
	}
	free(path);
	if ((tf = open_memstream(&text, &tn)) == NULL || (rf = open_memstream(&recs, &rn)) == NULL)
		die("open_memstream:");
	decide_records(rf, &d, &budget, rp.error, unbudgeted, nunbudgeted, &rs, budget.sha256[0] ? bfile : NULL);
	if (rp.n > 0)
		report_table(tf, &rp);
	if (loaded)
		fprintf(tf, "%s\n", machine);
	if (nunbudgeted > 0 && !strict) {
		fprintf(tf, "%s: not in the budget, not judged:", argv0);
		for (i = 0; i < nunbudgeted; i++)
			fputs(i ? ", " : " ", tf), jescape(tf, unbudgeted[i], strlen(unbudgeted[i]));
		fputc('\n', tf);
	}
	if (v == V_UNDECIDED) {
		reason = decide_reason(&d);
		fprintf(tf, "%s: undecided: %s\n", argv0, reason);
		free(reason);
	}
	for (i = 0; i < nerrs; i++)
		fprintf(tf, "%s: %s\n", argv0, errs[i]);
	if (fclose(tf) != 0 || fclose(rf) != 0)
		die("open_memstream:");
	status = v == V_REGRESSED ? 1 : v == V_OK ? 0 : 2;
	if ((err = gatedir_put(dir, "verdict.txt", text, tn)) != NULL ||
	    (err = gatedir_put(dir, "verdict.jsonl", recs, rn)) != NULL)
		die("%s", err);
	/* Undecided or in error: never trusted by make, so that the next gate measures on. */
	if (status == 2)
		gatedir_age(dir, "verdict.jsonl");
	gatedir_hold(0);
	free(text);
	free(recs);
	free(machine);
	return status;
}

/* Lines in p[0..n). */
static size_t
lines(const char *p, size_t n)
{
	size_t c = 0;

	while (n > 0) {
		const char *e = memchr(p, '\n', n);

		if (e == NULL)
			break;
		c++;
		n -= (size_t)(e + 1 - p);
		p = e + 1;
	}
	return c;
}

/* The rounds stored in dir/runs.jsonl, whole, onto out; how many records. */
static size_t
preload(FILE *out)
{
	char *path = msgf("%s/runs.jsonl", dir), chunk[8192];
	struct buf b = { 0 };
	FILE *fp;
	size_t got, n;

	if ((fp = fopen(path, "r")) == NULL) {
		free(path);
		return 0;
	}
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, got);
	fclose(fp);
	free(path);
	/* Only whole records go on. */
	while (b.n > 0 && b.p[b.n - 1] != '\n')
		b.n--;
	n = lines(b.p, b.n);
	if (b.n > 0 && fwrite(b.p, 1, b.n, out) != b.n)
		die("open_memstream:");
	free(b.p);
	return n;
}

/* The last record of p[0..n) as a JSON object, allocated, or NULL. */
static char *
lastrecord(const char *p, size_t n)
{
	const char *e = p + n, *s;

	while (e > p && e[-1] == '\n')
		e--;
	for (s = e; s > p && s[-1] != '\n'; s--)
		;
	if (e - s < 2 || *s != '{' || e[-1] != '}')
		return NULL;
	return xmemdup(s, (size_t)(e - s));
}

/* -a's members until the sides take them: static, so that a die() on a
 * later option leaves them reachable, not leaked. */
static char **members;

/*
 * -F: the error verdict of a gate that stopped before its rounds (the
 * settings, a side's identity or build: gate.sh's steps), written by the
 * code that writes every other verdict, then said as -v says one: the
 * record on stdout, the reason to reasonfile. It speaks as the gate.
 */
static int
failrecord(const char *step, const char *reasonfile, int argc, char **argv)
{
	const char *p;

	if (argc < 3 || argc > 5)
		usage();
	if (strcmp(argv[1], "base") != 0 && strcmp(argv[1], "head") != 0 && strcmp(argv[1], "both") != 0)
		die("%s: not a side: base, head or both", argv[1]);
	for (p = step; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '-'))
			break;
	if (*step == '\0' || *p != '\0')
		die("-F %s: not a step: a word of lowercase letters", step);
	dir = argv[0];
	/* Its parents too: a gate can stop before it made any. */
	gatedir_make(dir);
	setargv0("gate");
	gatedir_fail(dir, argv[1], step, argv[2], argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL, NULL);
	gatedir_say(dir, reasonfile, 0);
	return 2;
}

/*
 * -k: the stored rounds make would trust must be this side's. When they
 * are not whole or not of this side (copied from another gate, cut
 * short), they are moved aside, to runs.rejected.jsonl, and the status is
 * 1: the gate's shell then makes the side's key new to make.
 */
static int
keyrounds(const char *side, int argc, char **argv)
{
	if (argc != 1)
		usage();
	setargv0("gate");
	return gatedir_reject(argv[0], side);
}

int
main(int argc, char *argv[])
{
	static struct runround rr;
	const char *metrics = NULL, *reasonfile = NULL, *pinarg = NULL, *failstep = NULL, *keyside = NULL, *err;
	char *msg, *all = NULL, *cases, *perr;
	size_t nmembers = 0, nall = 0, nsides = 0, i, records, open = 0;
	struct runside *sides;
	long cpu = -1, round;
	int c, say = 0, judgeonly = 0, fresh = 0, pinned = 0, status, said;
	double start;
	FILE *out;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	rr.maxwait = 60;
	rr.timeout = 300;
	rr.retries = 10;
	members = xmalloc((size_t)argc * sizeof *members);
	opterr = 0;
	while ((c = getopt(argc, argv, "+:a:b:C:c:dD:e:F:fjk:L:l:M:N:pR:sT:t:uvwW:x")) != -1) {
		switch (c) {
		case 'a':
			members[nmembers++] = optarg;
			break;
		case 'b':
			bfile = optarg;
			break;
		case 'C':
			if ((err = parse_double(optarg, 0, 1, &conf)) != NULL || !(conf > 0 && conf < 1))
				die("-C %s: not a fraction above 0 and below 1", optarg);
			break;
		case 'c':
			if ((err = pin_parse(optarg, &cpu)) != NULL)
				die("-c %s: %s", optarg, err);
			pinned = 1;
			pinarg = optarg;
			break;
		case 'd':
			rr.notediscards = 1;
			break;
		case 'D':
			if ((err = parse_double(optarg, 0, 1e9, &deadline)) != NULL || !(deadline > 0))
				die("-D %s: not a number of seconds above 0", optarg);
			break;
		case 'e':
			reasonfile = optarg;
			break;
		case 'F':
			failstep = optarg;
			break;
		case 'f':
			focus = 0;
			break;
		case 'j':
			judgeonly = 1;
			break;
		case 'k':
			keyside = optarg;
			break;
		case 'L':
			if ((err = parse_double(optarg, 0, 1e9, &rr.maxwait)) != NULL)
				die("-L %s: %s", optarg, err);
			break;
		case 'l':
			if ((err = parse_double(optarg, 0, 1e9, &rr.maxload)) != NULL || rr.maxload <= 0)
				die("-l %s: %s", optarg, err ? err : "out of range");
			break;
		case 'M':
			metrics = optarg;
			break;
		case 'N':
			if ((err = parse_long(optarg, BUDGET_RUNS_MIN, BUDGET_RUNS_MAX, &maxrounds)) != NULL)
				die("-N %s: not a whole number of rounds from %d to %d", optarg, BUDGET_RUNS_MIN, BUDGET_RUNS_MAX);
			break;
		case 'p':
			rr.pressure = 1;
			break;
		case 'R':
			if ((err = parse_long(optarg, 0, 1000000000, &rr.retries)) != NULL)
				die("-R %s: %s", optarg, err);
			break;
		case 's':
			rr.strings = 1;
			break;
		case 'T':
			if ((err = parse_long(optarg, 1, 1000000, &rr.maxthreads)) != NULL)
				die("-T %s: %s", optarg, err);
			break;
		case 't':
			if ((err = parse_double(optarg, 0, 1e9, &rr.timeout)) != NULL || !(rr.timeout > 0))
				die("-t %s: not a number of seconds above 0", optarg);
			break;
		case 'u':
			strict = 1;
			break;
		case 'v':
			say = 1;
			break;
		case 'w':
			rr.watch = 1;
			break;
		case 'W':
			if ((err = parse_long(optarg, 0, 1000000, &rr.maxreruns)) != NULL)
				die("-W %s: %s", optarg, err);
			break;
		case 'x':
			fresh = 1;
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (failstep != NULL)
		return failrecord(failstep, reasonfile, argc, argv);
	if (keyside != NULL)
		return keyrounds(keyside, argc, argv);
	if (argc < 1)
		usage();
	dir = argv[0];
	argc--;
	argv++;
	if (say) {
		if (argc > 0 || judgeonly || fresh)
			die("-v says the stored verdict: no sides, -j or -x");
		free(members);
		return gatedir_say(dir, reasonfile, 1);
	}
	if (judgeonly ? argc != 0 : argc != 2)
		usage();
	if (rr.maxreruns > 0 && !rr.watch)
		die("-W %ld: needs -w, which tells a disturbed run", rr.maxreruns);
	sides = xmalloc(2 * sizeof *sides);
	for (i = 0; i < (size_t)argc; i++) {
		side_add(sides, &nsides, argv[i]);
		if (strcmp(sides[i].name, sidename[i]) != 0)
			die("%s: the sides are base=command and head=command, in that order", argv[i]);
		/* Run as the gate's one parser splits it (benchcmd(1)): no shell reads it again. */
		if ((sides[i].argv = benchargv(strchr(argv[i], '=') + 1, &perr)) == NULL)
			die("side %s: GATE_BENCH: %s", sidename[i], perr);
	}
	for (i = 0; i < nmembers; i++)
		side_member(sides, nsides, members[i], runround_ownkeys, runround_nownkeys);
	free(members);

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		die("%s:", dir);
	/* What is being replaced: no verdict stands while its rounds change. */
	msg = msgf("%s/verdict.jsonl", dir);
	if (unlink(msg) != 0 && access(msg, F_OK) == 0)
		die("%s:", msg);
	free(msg);
	if ((msg = budget_load(&budget, bfile)) != NULL ||
	    (metrics != NULL && (msg = budget_only(&budget, &othershare, metrics)) != NULL)) {
		status = gatedir_error(dir, "both", "budget", msg, NULL);
		free(msg);
		goto done;
	}
	if (maxrounds < 0)
		maxrounds = budget.runs;
	if (judgeonly) {
		look();
		status = verdict();
		goto done;
	}

	rr.sides = sides;
	rr.nsides = nsides;
	if ((err = runround_open(&rr)) != NULL)
		die("%s", err);
	/* Children inherit the mask, so every side lands on this CPU, held against other gates. */
	if (pinned && (perr = pin_take(cpu, &rr.pin)) != NULL)
		die("-c %s: %s", pinarg, perr);
	rr.pinned = pinned;
	/* Every round so far, in memory: runs.jsonl is rewritten whole after each. */
	if ((out = open_memstream(&all, &nall)) == NULL)
		die("open_memstream:");
	rr.out = out;
	rr.outname = "the rounds";
	if (fresh) {
		msg = msgf("%s/runs.jsonl", dir);
		unlink(msg);
		free(msg);
	}
	records = preload(out);
	fflush(out);
	round = (long)(records / nsides) + 1;
	start = progress_now();
	cases = NULL;
	said = records == 0;
	if (records == 0)
		warnmsg("measuring base and head, a round at a time until the rule decides (the deadline: %ld rounds and %g s)",
		    maxrounds, deadline);
	for (;;) {
		if (records > 0) {
			look();
			if (nerrs > 0)
				break;
			free(cases);
			cases = open_metrics(&open);
			if (open == 0)
				break;
			if (!said) {
				warnmsg("measuring on from round %ld: the rule has not decided %s", round, cases);
				said = 1;
			} else if (open < d.n)
				said_decided(&rr.prog, rs.nrounds);
			if (rs.nrounds >= (size_t)maxrounds && progress_now() - start >= deadline) {
				progress_erase(&rr.prog);
				warnmsg("the deadline has passed after %zu rounds and %.1f s (at least %ld rounds and %g s): undecided: %s",
				    rs.nrounds, progress_now() - start, maxrounds, deadline, cases);
				break;
			}
			/* A metric decided is no longer measured, where the benchmark selects cases. */
			if (focus && open < d.n && setenv("BENCH_CASES", cases, 1) != 0)
				die("setenv BENCH_CASES:");
		}
		if (runround_run(&rr, round, round, round > maxrounds ? round : maxrounds) != 0) {
			char *rec, *extra;

			/* What was measured is kept, apart from what make trusts. */
			fflush(out);
			gatedir_hold(1);
			gatedir_put(dir, "runs.partial.jsonl", all, nall);
			gatedir_hold(0);
			rec = lastrecord(all, nall);
			extra = rr.failside[0] && rec != NULL ? msgf(",\"run\":%s", rec) : NULL;
			status = gatedir_error(dir, rr.failside[0] ? rr.failside : "both", "run", rr.failmsg, extra);
			free(rec);
			free(extra);
			goto closed;
		}
		fflush(out);
		gatedir_hold(1);
		msg = gatedir_put(dir, "runs.jsonl", all, nall);
		gatedir_hold(0);
		if (msg != NULL) {
			progress_erase(&rr.prog);
			status = gatedir_error(dir, "both", "run", msg, NULL);
			free(msg);
			goto closed;
		}
		records = lines(all, nall);
		round++;
	}
	progress_erase(&rr.prog);
	status = verdict();
closed:
	free(cases);
	runround_close(&rr);
	fclose(out);
	free(all);
done:
	unlook();
	side_free(sides, nsides);
	budget_free(&budget);
	budget_free(&othershare);
	return status;
}
