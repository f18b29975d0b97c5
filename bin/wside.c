/*
 * wside: a reference side as a long-lived worker, on the reference-benchmark
 * contract's rbw1 protocol (bench/worker.h), or its JSON-line form (-j), as
 * a Python worker speaks it. -s starts the worker once, on two FIFOs in its
 * directory, and refuses it unless V shows one thread (threads=1, every
 * *_threads at 1, threads_source omp, proc or assumed, recorded in
 * worker.json); it writes every argument, a case's inputs as bench.c's
 * BENCH_INPUT gives them (float32, or float64), as a float64 little-endian
 * column-major matrix of the shape given, loads it (L key file cols rows)
 * and refuses a digest that is not perfgate's own, naming both; it leaves
 * the worker running. Without -s or -q, wside is the side's command in a
 * round: it times the case BENCH_CASES names by T replies, bench.h's rule
 * (a batch grown to BENCH_MIN_S, then BENCH_REPS batches within BENCH_MAX_S,
 * the best), and prints one metrics line, {"sum_ns":812.5} and with
 * BENCH_SHA256=1 "sum_input_sha256", the digest of the inputs as given;
 * with BENCH_EVAL=path it has the worker evaluate the case once (E), its
 * float64 results written there as BENCH_RESULT says (f32, the default, or
 * i32), as bench.c's BENCH_EVAL writes them. The worker's start-up is in no
 * round. -q stops the worker.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jsonwrite.h"
#include "outfile.h"
#include "pin.h"
#include "sha256.h"
#include "util.h"
#include "version.h"
#include "wproto.h"

/* An argument's bound, as the contract's: cols x rows x 8 bytes. */
#define ARG_MAX (256ULL << 20)

static const char *dir;
static double timeout_s = 60;
static int fin = -1, fout = -1, json;
static pid_t worker = -1;

/* One request, as rbw1 writes it or as JSON. */
struct req {
	char op;
	const char *key, *fn, *path;
	unsigned long long cols, rows, iters;
};

static char *
path(const char *name)
{
	char *p = xmalloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* Stop the worker started here, then die: a refused worker never stays. */
static _Noreturn void
refuse(const char *fmt, const char *a, const char *b)
{
	char msg[WPROTO_LINE_MAX * 2 + 256];

	snprintf(msg, sizeof msg, fmt, a, b);
	if (worker > 0) {
		kill(-worker, SIGKILL);
		waitpid(worker, NULL, 0);
	}
	die("%s", msg);
}

/* The request's line, without its newline, into line: rbw1's, or a JSON object. */
static void
format(const struct req *q, char *line, size_t size)
{
	struct jwriter w;
	char *text = NULL;
	size_t n = 0;
	FILE *fp;

	if (!json) {
		if (q->op == 'V')
			snprintf(line, size, "V");
		else if (q->op == 'L')
			snprintf(line, size, "L %s %s %llu %llu", q->key, q->path, q->cols, q->rows);
		else if (q->op == 'W')
			snprintf(line, size, "W %s %s", q->key, q->fn);
		else if (q->op == 'T')
			snprintf(line, size, "T %s %s %llu", q->key, q->fn, q->iters);
		else
			snprintf(line, size, "E %s %s %s", q->key, q->fn, q->path);
		return;
	}
	if ((fp = open_memstream(&text, &n)) == NULL)
		die("open_memstream:");
	jw_begin(&w, fp);
	jw_strn(&w, "op", &q->op, 1);
	if (q->op != 'V')
		jw_str(&w, "key", q->key);
	if (q->op == 'L') {
		jw_str(&w, "path", q->path);
		jw_long(&w, "cols", (long long)q->cols);
		jw_long(&w, "rows", (long long)q->rows);
	} else if (q->op != 'V') {
		jw_str(&w, "fn", q->fn);
	}
	if (q->op == 'T')
		jw_long(&w, "iters", (long long)q->iters);
	if (q->op == 'E')
		jw_str(&w, "path", q->path);
	jw_end(&w);
	fclose(fp);
	if (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	snprintf(line, size, "%s", text);
	free(text);
}

/* One request line out, one reply line in (within timeout_s), parsed. */
static void
ask(const struct req *q, struct wreply *r)
{
	static char line[WPROTO_LINE_MAX + 1];
	char req[WPROTO_LINE_MAX];
	struct pollfd p = { .fd = fout, .events = POLLIN };
	const char *why;
	size_t len = 0, n;
	char c;

	format(q, req, sizeof req);
	n = strlen(req);
	if (write(fin, req, n) != (ssize_t)n || write(fin, "\n", 1) != 1)
		refuse("%s: the worker does not read its requests%s", dir, "");
	for (;;) {
		if (poll(&p, 1, (int)(timeout_s * 1000)) <= 0)
			refuse("%s: no reply to '%.60s' within the timeout", dir, req);
		if (read(fout, &c, 1) != 1)
			refuse("%s: the worker ended before replying to '%.60s'", dir, req);
		if (c == '\n')
			break;
		/* A line past the limit is refused, not kept. */
		if (len + 1 >= WPROTO_LINE_MAX)
			refuse("%s: a reply to '%.60s' longer than 4096 bytes: refused", dir, req);
		line[len++] = c;
	}
	line[len] = '\0';
	why = json ? wreply_parse_json(q->op, line, len, r) : wreply_parse(q->op, line, len, r);
	if (why != NULL)
		refuse("%s: %s", req, why);
}

static void
openfifos(int start)
{
	char *in = path("in"), *out = path("out");

	if (start) {
		unlink(in);
		unlink(out);
		if (mkfifo(in, 0600) != 0 || mkfifo(out, 0600) != 0)
			die("%s:", in);
	}
	/* The worker holds both ends read-write, so these opens do not wait. */
	if (!start && ((fin = open(in, O_WRONLY | O_NONBLOCK)) < 0 ||
	    (fout = open(out, O_RDONLY | O_NONBLOCK)) < 0))
		die("%s: no worker runs there (wside -s starts one):", dir);
	if (fin >= 0)
		fcntl(fin, F_SETFL, 0);
	if (fout >= 0)
		fcntl(fout, F_SETFL, 0);
	free(in);
	free(out);
}

/* A whole file's bytes, or NULL. */
static unsigned char *
slurp(const char *file, size_t *len)
{
	unsigned char *b = NULL;
	struct stat st;
	FILE *fp;

	if ((fp = fopen(file, "rb")) == NULL || fstat(fileno(fp), &st) != 0 || st.st_size < 0 ||
	    (unsigned long long)st.st_size > 2 * ARG_MAX) {
		if (fp != NULL)
			fclose(fp);
		return NULL;
	}
	b = xmalloc((size_t)st.st_size + 1);
	*len = fread(b, 1, (size_t)st.st_size, fp);
	if (ferror(fp) || *len != (size_t)st.st_size) {
		free(b);
		b = NULL;
	}
	fclose(fp);
	return b;
}

static void
hexdigest(const void *p, size_t n, char hex[65])
{
	struct sha256 h;

	sha256_init(&h);
	sha256_update(&h, p, n);
	sha256_hex(&h, hex);
}

/*
 * -a key=COLSxROWS:file: the case's inputs (float32 or float64 in this
 * machine's order, told by the size) written as float64 little-endian to
 * dir/key.f64, loaded and verified; the key and the digest of the inputs
 * as given recorded in kf.
 */
static void
load(char *arg, FILE *kf)
{
	char *eq = strchr(arg, '='), *x, *colon, *f64 = NULL, *given = NULL, hex[65], ghex[65];
	char name[WPROTO_LINE_MAX], msg[3 * WPROTO_LINE_MAX];
	unsigned long long cols, rows, n;
	unsigned char *in, *out;
	struct wreply r;
	size_t len;
	FILE *fp;

	if (eq == NULL || eq == arg)
		refuse("-a %s: expected key=COLSxROWS:file%s", arg, "");
	*eq = '\0';
	/* A key is a name in rbw1's sense, and names dir/key.f64. */
	if (eq - arg > 64 || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
	    (size_t)(eq - arg) || arg[0] == '.')
		refuse("-a %s: the key is not a name: letters, digits, _ . -, at most 64%s", arg, "");
	errno = 0;
	cols = strtoull(eq + 1, &x, 10);
	rows = *x == 'x' ? strtoull(x + 1, &colon, 10) : 0;
	if (errno != 0 || *x != 'x' || *colon != ':' || colon[1] == '\0' || cols == 0 || rows == 0 ||
	    eq[1] < '1' || eq[1] > '9' || x[1] < '1' || x[1] > '9')
		refuse("-a %s: expected key=COLSxROWS:file, COLS and ROWS from 1", arg, "");
	if (cols > ARG_MAX / 8 / rows)
		refuse("-a %s: %s values are more than 256 MiB as float64", arg, eq + 1);
	n = cols * rows;
	given = path(colon + 1);
	if ((in = slurp(given, &len)) == NULL)
		refuse("%s: cannot be read%s", given, "");
	if (len != n * 4 && len != n * 8) {
		snprintf(msg, sizeof msg, "key %s: %s holds %zu bytes, not %llu values of float32 or float64",
		    arg, colon + 1, len, n);
		refuse("%s%s", msg, "");
	}
	hexdigest(in, len, ghex);
	out = xmalloc((size_t)n * 8);
	warg_f64(in, len, (size_t)n, out);
	hexdigest(out, (size_t)n * 8, hex);
	snprintf(name, sizeof name, "%s.f64", arg);
	f64 = path(name);
	if ((fp = fopen(f64, "wb")) == NULL || fwrite(out, 8, (size_t)n, fp) != n || fclose(fp) != 0)
		refuse("%s: cannot be written%s", f64, "");
	ask(&(struct req){ .op = 'L', .key = arg, .path = name, .cols = cols, .rows = rows }, &r);
	if (r.err) {
		snprintf(msg, sizeof msg, "key %s: L %s %llu %llu: the worker refused it: %s", arg, name,
		    cols, rows, r.text);
		refuse("%s%s", msg, "");
	}
	if (strcmp(r.sha256, hex) != 0) {
		snprintf(msg, sizeof msg, "key %s: %s has sha256 %s, the worker read %s: refused",
		    arg, name, hex, r.sha256);
		refuse("%s%s", msg, "");
	}
	fprintf(kf, "%s %s\n", arg, ghex);
	free(in);
	free(out);
	free(f64);
	free(given);
}

/* dir/worker.json: what V said, and where the thread count came from. */
static void
record(const char *vtext)
{
	char *file = path("worker.json"), source[64];
	struct jwriter w;
	FILE *fp;

	if ((fp = fopen(file, "w")) == NULL)
		refuse("%s: cannot be written%s", file, "");
	wreply_vget(vtext, "threads_source", source, sizeof source);
	jw_begin(&w, fp);
	jw_str(&w, "worker", vtext);
	jw_str(&w, "protocol", json ? "rbw1-json" : "rbw1");
	jw_str(&w, "threads_source", source);
	/* assumed: the harness starts no thread, a library it links might: unverified. */
	jw_bool(&w, "threads_verified", strcmp(source, "assumed") != 0);
	if (jw_end(&w) != 0 || fclose(fp) != 0)
		refuse("%s: cannot be written%s", file, "");
	free(file);
}

/* -s: start the worker, check its threads, write, load and verify every argument. */
static int
start(char **argv, char **args, int nargs)
{
	char *in = path("in"), *out = path("out"), *keys = path("keys"), *pidf = path("pid");
	char why[256], msg[2 * WPROTO_LINE_MAX], absdir[PATH_MAX], cmd[PATH_MAX];
	struct wreply r;
	FILE *fp, *kf;
	int i;

	mkdir(dir, 0777);
	openfifos(1);
	if (realpath(dir, absdir) == NULL)
		die("%s:", dir);
	/* A command named by a relative path, found before the worker moves. */
	if (strchr(argv[0], '/') != NULL && realpath(argv[0], cmd) != NULL)
		argv[0] = cmd;
	if ((worker = fork()) < 0)
		die("fork:");
	if (worker == 0) {
		int a, b;

		/*
		 * In the run directory, so that a path relative to it, as rbw1's
		 * requests give them, is one to a worker that knows no more than
		 * the contract; WORKER_DIR names it for the workers that check.
		 */
		setpgid(0, 0);
		if ((a = open(in, O_RDWR)) < 0 || (b = open(out, O_RDWR)) < 0 ||
		    dup2(a, 0) < 0 || dup2(b, 1) < 0 || chdir(absdir) != 0)
			_exit(127);
		setenv("WORKER_DIR", absdir, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "wside: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(worker, worker);
	if ((fin = open(in, O_WRONLY)) < 0 || (fout = open(out, O_RDONLY)) < 0)
		refuse("%s: cannot open the worker's FIFOs%s", dir, "");
	ask(&(struct req){ .op = 'V' }, &r);
	if (r.err)
		refuse("V: %s%s", r.text, "");
	if (wreply_one_thread(r.text, why, sizeof why) != NULL) {
		snprintf(msg, sizeof msg, "%s: the worker %s: refused (V: %s)", dir, why, r.text);
		refuse("%s%s", msg, "");
	}
	record(r.text);
	if ((kf = fopen(keys, "w")) == NULL)
		refuse("%s: cannot be written%s", keys, "");
	fprintf(kf, "proto %s\nv %s\n", json ? "json" : "rbw1", r.text);
	for (i = 0; i < nargs; i++)
		load(args[i], kf);
	if (fclose(kf) != 0 || (fp = fopen(pidf, "w")) == NULL)
		refuse("%s: cannot be written%s", pidf, "");
	fprintf(fp, "%ld\n", (long)worker);
	if (fclose(fp) != 0)
		refuse("%s: cannot be written%s", pidf, "");
	free(in);
	free(out);
	free(keys);
	free(pidf);
	return 0;
}

/* -q: stop the worker of dir. */
static int
quit(void)
{
	char *pidf = path("pid"), *in = path("in"), *out = path("out");
	long pid = 0;
	FILE *fp;

	if ((fp = fopen(pidf, "r")) == NULL || fscanf(fp, "%ld", &pid) != 1 || pid <= 1)
		die("%s: no worker's pid", pidf);
	fclose(fp);
	kill(-(pid_t)pid, SIGTERM);
	unlink(pidf);
	unlink(in);
	unlink(out);
	free(pidf);
	free(in);
	free(out);
	return 0;
}

static double
envnum(const char *var, double def)
{
	const char *s = getenv(var);
	double v;

	if (s == NULL)
		return def;
	if (parse_double(s, 1e-9, 1e9, &v) != NULL)
		die("%s=%s: not a number in range", var, s);
	return v;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * E's results, n float64 little-endian values in dir/eval.f64, as
 * BENCH_EVAL's type (BENCH_RESULT: f32, or i32) into ev, whole (outfile).
 * A kernel that raised on every point is broken, refused.
 */
static void
evaluate(const char *key, const char *ev)
{
	const char *type = getenv("BENCH_RESULT") ? getenv("BENCH_RESULT") : "f32";
	char *f64 = path("eval.f64"), msg[128], *err;
	const char *why;
	unsigned char *b;
	long nonfinite = 0;
	struct outfile o;
	struct wreply r;
	size_t len;

	if (strcmp(type, "f32") != 0 && strcmp(type, "i32") != 0)
		die("BENCH_RESULT=%s: not f32 or i32", type);
	ask(&(struct req){ .op = 'E', .key = key, .fn = key, .path = "eval.f64" }, &r);
	if (r.err)
		die("E %s %s eval.f64: %s", key, key, r.text);
	if ((b = slurp(f64, &len)) == NULL || len % 8 != 0)
		die("%s: the worker's results are not whole float64 values", f64);
	if (r.raised > 0 && (size_t)r.raised >= len / 8)
		die("E %s %s: the kernel raised on every point (%ld): a broken kernel, refused", key, key, r.raised);
	/* Whole, through outfile: a device or a FIFO is written in place, never renamed over. */
	if ((err = outfile_open(&o, ev, "wb")) != NULL)
		die("%s", err);
	if ((why = wresult_write(b, len / 8, type, o.fp, &nonfinite, msg, sizeof msg)) != NULL) {
		outfile_abort(&o);
		die("%s: %s", f64, why);
	}
	if (nonfinite != r.count) {
		outfile_abort(&o);
		die("E %s %s: the worker counted %ld non-finite results, its file holds %ld", key, key,
		    r.count, nonfinite);
	}
	if ((err = outfile_commit(&o)) != NULL)
		die("%s", err);
	free(b);
	free(f64);
}

/* A round: time (or evaluate) the case BENCH_CASES names. */
static int
round_(void)
{
	char *keys = path("keys"), line[WPROTO_LINE_MAX + 16], sha[65] = "", key[128];
	const char *c = getenv("BENCH_CASES"), *ev = getenv("BENCH_EVAL"), *s;
	double reps = envnum("BENCH_REPS", 8), min_s = envnum("BENCH_MIN_S", 0.0005);
	double max_s = envnum("BENCH_MAX_S", 4 * reps * min_s), best, t0 = now_s();
	unsigned long long iters = 1;
	struct wreply r;
	struct req q;
	size_t kl;
	FILE *fp;
	int b;

	if (c == NULL || *c == '\0' || strchr(c, ',') != NULL)
		die("BENCH_CASES must name one case");
	kl = strlen(c) > 3 && strcmp(c + strlen(c) - 3, "_ns") == 0 ? strlen(c) - 3 : strlen(c);
	if (kl >= sizeof key)
		die("BENCH_CASES=%s: too long", c);
	memcpy(key, c, kl);
	key[kl] = '\0';
	/* Only a key whose load was verified is timed. */
	if ((fp = fopen(keys, "r")) == NULL)
		die("%s: no worker was started here:", keys);
	while (fgets(line, sizeof line, fp) != NULL) {
		if (strcmp(line, "proto json\n") == 0)
			json = 1;
		else if (strncmp(line, key, kl) == 0 && line[kl] == ' ')
			snprintf(sha, sizeof sha, "%.64s", line + kl + 1);
	}
	fclose(fp);
	if (strlen(sha) != 64)
		die("%s: key %s was not loaded and verified", dir, key);
	/* alternate -c pins wside to its gate's CPU: the worker, started before, computes there too. */
	if ((s = pin_follow(path("pid"))) != NULL)
		die("%s: %s", dir, s);
	openfifos(0);
	if (ev != NULL) {
		evaluate(key, ev);
		free(keys);
		return 0;
	}
	q = (struct req){ .op = 'W', .key = key, .fn = key };
	ask(&q, &r);
	if (r.err)
		die("W %s %s: %s", key, key, r.text);
	/* bench.h's rule, by T replies: grow a batch to min_s, then the best of reps. */
	q.op = 'T';
	for (;;) {
		q.iters = iters;
		ask(&q, &r);
		if (r.err)
			die("T %s %s %llu: %s", key, key, iters, r.text);
		if (r.ns * (double)iters >= min_s * 1e9 || now_s() - t0 >= max_s || iters >= 1000000000ULL)
			break;
		iters = r.ns > 0 ? (unsigned long long)(1.1 * min_s * 1e9 / r.ns) + 1 : iters * 10;
		if (iters > 1000000000ULL)
			iters = 1000000000ULL;
	}
	best = r.ns;
	for (b = 1; b < (int)reps && now_s() - t0 < max_s; b++) {
		ask(&q, &r);
		if (r.err)
			die("T %s %s %llu: %s", key, key, iters, r.text);
		if (r.ns < best)
			best = r.ns;
	}
	fmt_double(line, best);
	printf("{\"%s_ns\":%s", key, line);
	s = getenv("BENCH_SHA256");
	if (s != NULL && strcmp(s, "1") == 0)
		printf(",\"%s_input_sha256\":\"%s\"", key, sha);
	puts("}");
	free(keys);
	return fshut(stdout, "<stdout>");
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s -s dir [-j] [-a key=COLSxROWS:file ...] [-t timeout] -- command [arg ...]\n"
	    "       %s [-t timeout] dir\n"
	    "       %s -q dir\n"
	    "       %s -V\n", argv0, argv0, argv0, argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	char **args;
	int c, nargs = 0, mode = 0;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	args = xmalloc((size_t)argc * sizeof *args);
	opterr = 0;
	while ((c = getopt(argc, argv, "+:a:jqs:t:")) != -1) {
		switch (c) {
		case 'a':
			args[nargs++] = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'q':
			mode = c;
			break;
		case 's':
			dir = optarg;
			mode = c;
			break;
		case 't':
			if (parse_double(optarg, 0.001, 86400, &timeout_s) != NULL)
				die("-t %s: not a number of seconds from 0.001 to 86400", optarg);
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	signal(SIGPIPE, SIG_IGN);
	if (mode == 's') {
		if (argc < 1)
			usage();
		c = start(argv, args, nargs);
	} else {
		if (argc != 1 || nargs > 0 || json)
			usage();
		dir = argv[0];
		c = mode == 'q' ? quit() : round_();
	}
	free(args);
	return c;
}
