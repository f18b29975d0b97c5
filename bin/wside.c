/*
 * wside: a reference side as a long-lived worker (bench/worker.h's
 * protocol). -s starts the worker once, on two FIFOs in its directory,
 * refuses it unless it shows one thread (V) and loads every argument file,
 * refusing a digest that is not perfgate's own; it leaves the worker
 * running. Without -s or -q, wside is the side's command in a round: it
 * times the case BENCH_CASES names by T replies, bench.h's rule (a batch
 * grown to BENCH_MIN_S, then BENCH_REPS batches within BENCH_MAX_S, the
 * best), and prints one metrics line, {"sum_ns":812.5} and with
 * BENCH_SHA256=1 "sum_input_sha256", the digest the load verified; with
 * BENCH_EVAL=path it has the worker evaluate the case once (E) instead.
 * The worker's start-up is in no round. -q stops the worker.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "outfile.h"
#include "sha256.h"
#include "util.h"
#include "version.h"
#include "wproto.h"

static const char *dir;
static double timeout_s = 60;
static int fin = -1, fout = -1;
static pid_t worker = -1;

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

/* One request line out, one reply line in (within timeout_s), parsed. */
static void
ask(const char *req, struct wreply *r)
{
	static char line[WPROTO_LINE_MAX + 1];
	struct pollfd p = { .fd = fout, .events = POLLIN };
	const char *why;
	size_t len = 0, n = strlen(req);
	char c;
	ssize_t k;

	if (write(fin, req, n) != (ssize_t)n || write(fin, "\n", 1) != 1)
		refuse("%s: the worker does not read its requests%s", dir, "");
	for (;;) {
		if (poll(&p, 1, (int)(timeout_s * 1000)) <= 0)
			refuse("%s: no reply to '%.40s' within the timeout", dir, req);
		if ((k = read(fout, &c, 1)) != 1)
			refuse("%s: the worker ended before replying to '%.40s'", dir, req);
		if (c == '\n')
			break;
		/* A line past the limit is refused, not kept. */
		if (len + 1 >= WPROTO_LINE_MAX)
			refuse("%s: a reply to '%.40s' longer than 4096 bytes: refused", dir, req);
		line[len++] = c;
	}
	line[len] = '\0';
	if ((why = wreply_parse(req[0], line, len, r)) != NULL)
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

/* -s: start the worker, check its threads, load and verify every argument. */
static int
start(char **argv, char **args, int nargs)
{
	char *in = path("in"), *out = path("out"), *keys = path("keys"), *pidf = path("pid");
	char threads[64], from[256], buf[WPROTO_LINE_MAX], msg[2 * WPROTO_LINE_MAX], hex[65], *eq, *file;
	struct wreply r;
	struct sha256 h;
	struct stat st;
	FILE *fp, *kf;
	size_t n;
	int i;

	mkdir(dir, 0777);
	openfifos(1);
	if ((worker = fork()) < 0)
		die("fork:");
	if (worker == 0) {
		int a, b;

		setpgid(0, 0);
		if ((a = open(in, O_RDWR)) < 0 || (b = open(out, O_RDWR)) < 0 ||
		    dup2(a, 0) < 0 || dup2(b, 1) < 0)
			_exit(127);
		setenv("WORKER_DIR", dir, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "wside: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(worker, worker);
	if ((fin = open(in, O_WRONLY)) < 0 || (fout = open(out, O_RDONLY)) < 0)
		refuse("%s: cannot open the worker's FIFOs%s", dir, "");
	ask("V", &r);
	if (r.err)
		refuse("V: %s%s", r.text, "");
	if (!wreply_vget(r.text, "threads", threads, sizeof threads))
		refuse("%s: the worker reports no threads: %s", dir, r.text);
	if (!wreply_vget(r.text, "threads_from", from, sizeof from))
		snprintf(from, sizeof from, "nowhere");
	if (strcmp(threads, "1") != 0) {
		snprintf(msg, sizeof msg, "%s: the worker reports threads=%s (from %s), not one: refused",
		    dir, threads, from);
		refuse("%s%s", msg, "");
	}
	if ((kf = fopen(keys, "w")) == NULL)
		refuse("%s: cannot be written%s", keys, "");
	fprintf(kf, "v %s\n", r.text);
	for (i = 0; i < nargs; i++) {
		if ((eq = strchr(args[i], '=')) == NULL || eq == args[i])
			refuse("-a %s: expected key=file%s", args[i], "");
		*eq = '\0';
		file = path(eq + 1);
		/* perfgate's own digest of the argument file, to hold the worker to. */
		if ((fp = fopen(file, "rb")) == NULL || fstat(fileno(fp), &st) != 0)
			refuse("%s: cannot be read%s", file, "");
		sha256_init(&h);
		while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
			sha256_update(&h, buf, n);
		fclose(fp);
		sha256_hex(&h, hex);
		snprintf(buf, sizeof buf, "L %s %s %lld", args[i], eq + 1, (long long)st.st_size);
		ask(buf, &r);
		if (r.err) {
			snprintf(msg, sizeof msg, "key %s: L %s: the worker refused it: %s", args[i], eq + 1, r.text);
			refuse("%s%s", msg, "");
		}
		if (strcmp(r.sha256, hex) != 0) {
			snprintf(msg, sizeof msg, "key %s: %s has sha256 %s, the worker read %s: refused",
			    args[i], eq + 1, hex, r.sha256);
			refuse("%s%s", msg, "");
		}
		fprintf(kf, "%s %s\n", args[i], hex);
		free(file);
	}
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
 * The worker's E file, tmp, to the path BENCH_EVAL names, whole through
 * outfile (a device or a FIFO written in place, never renamed over), and
 * tmp removed. NULL, or a message.
 */
static char *
copyout(const char *tmp, const char *dst)
{
	struct outfile o;
	char buf[65536], *msg;
	size_t n;
	FILE *in;

	if ((in = fopen(tmp, "rb")) == NULL)
		return msgf("%s: %s", tmp, strerror(errno));
	if ((msg = outfile_open(&o, dst, "wb")) == NULL) {
		while ((n = fread(buf, 1, sizeof buf, in)) > 0 && fwrite(buf, 1, n, o.fp) == n)
			;
		if (ferror(in)) {
			msg = msgf("read %s: %s", tmp, strerror(errno));
			outfile_abort(&o);
		} else {
			msg = outfile_commit(&o);
		}
	}
	fclose(in);
	unlink(tmp);
	return msg;
}

/* A round: time (or evaluate) the case BENCH_CASES names. */
static int
round_(void)
{
	char *keys = path("keys"), line[512], sha[65] = "", key[128], req[WPROTO_LINE_MAX];
	const char *c = getenv("BENCH_CASES"), *ev = getenv("BENCH_EVAL"), *s;
	char *err;
	double reps = envnum("BENCH_REPS", 8), min_s = envnum("BENCH_MIN_S", 0.0005);
	double max_s = envnum("BENCH_MAX_S", 4 * reps * min_s), best, t0 = now_s();
	unsigned long long iters = 1;
	struct wreply r;
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
	while (fgets(line, sizeof line, fp) != NULL)
		if (strncmp(line, key, kl) == 0 && line[kl] == ' ')
			snprintf(sha, sizeof sha, "%.64s", line + kl + 1);
	fclose(fp);
	if (strlen(sha) != 64)
		die("%s: key %s was not loaded and verified", dir, key);
	openfifos(0);
	if (ev != NULL) {
		char *tmp = path("eval.bin");

		snprintf(req, sizeof req, "E %s %s eval.bin", key, key);
		ask(req, &r);
		if (r.err)
			die("%s: %s", req, r.text);
		if ((err = copyout(tmp, ev)) != NULL)
			die("%s", err);
		free(tmp);
		free(keys);
		return 0;
	}
	snprintf(req, sizeof req, "W %s %s", key, key);
	ask(req, &r);
	if (r.err)
		die("%s: %s", req, r.text);
	/* bench.h's rule, by T replies: grow a batch to min_s, then the best of reps. */
	for (;;) {
		snprintf(req, sizeof req, "T %s %s %llu", key, key, iters);
		ask(req, &r);
		if (r.err)
			die("%s: %s", req, r.text);
		if (r.ns * (double)iters >= min_s * 1e9 || now_s() - t0 >= max_s || iters >= 1000000000ULL)
			break;
		iters = r.ns > 0 ? (unsigned long long)(1.1 * min_s * 1e9 / r.ns) + 1 : iters * 10;
	}
	best = r.ns;
	for (b = 1; b < (int)reps && now_s() - t0 < max_s; b++) {
		ask(req, &r);
		if (r.err)
			die("%s: %s", req, r.text);
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
	fprintf(stderr, "usage: %s -s dir [-a key=file ...] [-t timeout] -- command [arg ...]\n"
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
	while ((c = getopt(argc, argv, "+:a:qs:t:")) != -1) {
		switch (c) {
		case 'a':
			args[nargs++] = optarg;
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
		if (argc != 1 || nargs > 0)
			usage();
		dir = argv[0];
		c = mode == 'q' ? quit() : round_();
	}
	free(args);
	return c;
}
