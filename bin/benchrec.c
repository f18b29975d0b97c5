/*
 * benchrec: another harness's benchmark as a perfgate side.
 * Runs a Google Benchmark binary, go test -bench, hyperfine or
 * pytest-benchmark (or reads what one wrote) and writes perfgate's metrics
 * line: one JSON object of numbers, each benchmark's best in ns and its
 * other figures, named by harness.h's rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "harness.h"
#include "jsonl.h"
#include "msg.h"
#include "perfjson.h"
#include "proc.h"
#include "util.h"
#include "version.h"

enum kind { GBENCH, GOTEST, HYPERFINE, PYTEST };

static const struct {
	const char *name;
	char *(*parse)(struct hset *, const char *, size_t);
} harness[] = {
	[GBENCH] = { "gbench", harness_gbench },
	[GOTEST] = { "gotest", harness_gotest },
	[HYPERFINE] = { "hyperfine", harness_hyperfine },
	[PYTEST] = { "pytest", harness_pytest },
};

static int verbose;

/*
 * What main reads and runs, kept where LeakSanitizer sees it still held
 * when die() exits (a local in a register may already be gone).
 */
static struct {
	char *text, *label, *cmd, *err, **argv;
	struct proc_result res;
} run;

/* pytest: the directory of the BENCH_CASES plugin, put on PYTHONPATH; "" when none. */
static char plugindir[4096];
static char pluginpath[4200];

/* Write the plugin into a directory of its own under tmp, first on PYTHONPATH. */
static void
pytest_plugin(const char *tmp)
{
	const char *old = getenv("PYTHONPATH");
	char *path;
	FILE *fp;

	snprintf(plugindir, sizeof plugindir, "%s/benchrec.XXXXXX", tmp);
	if (mkdtemp(plugindir) == NULL)
		die("%s:", plugindir);
	snprintf(pluginpath, sizeof pluginpath, "%s/benchrec_cases.py", plugindir);
	if ((fp = fopen(pluginpath, "w")) == NULL || fputs(harness_pytest_plugin, fp) == EOF ||
	    fclose(fp) != 0)
		die("%s:", pluginpath);
	path = old != NULL && *old != '\0' ? msgf("%s:%s", plugindir, old) : xstrdup(plugindir);
	/* No __pycache__ is left in the directory, so that it can be removed. */
	if (setenv("PYTHONPATH", path, 1) != 0 || setenv("PYTHONDONTWRITEBYTECODE", "1", 1) != 0)
		die("setenv:");
	free(path);
}

static void
pytest_plugin_remove(void)
{
	if (*plugindir == '\0')
		return;
	unlink(pluginpath);
	rmdir(plugindir);
	*plugindir = '\0';
}

/* What the command line as it runs owns: freed at the end, for the leak checker. */
static char *owned[6];
static size_t nowned;

static char *
own(char *s)
{
	if (nowned < sizeof owned / sizeof owned[0])
		owned[nowned++] = s;
	return s;
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-cv] [-f file] harness "
	    "[--] [command [arg ...]]\n", argv0);
	exit(2);
}

/* The command line, for messages: its words joined by blanks, cut at 200 bytes. */
static char *
cmdline(char *const *argv)
{
	struct buf b = { 0 };

	buf_puts(&b, "");
	for (; *argv != NULL && b.n < 200; argv++)
		buf_printf(&b, "%s%s", b.n ? " " : "", *argv);
	if (b.n > 200) {
		b.p[197] = '\0';
		strcat(b.p, "...");
	}
	return b.p;
}

/* go test's -bench value, replaced by re (or added when the command has none). */
static char **
gotest_argv(char *const *argv, const char *re)
{
	size_t n, i, j = 0;
	char **v;
	int done = 0;

	for (n = 0; argv[n] != NULL; n++)
		;
	v = xmalloc((n + 2) * sizeof *v);
	for (i = 0; i < n; i++) {
		const char *a = argv[i];

		if (a[0] == '-' && a[1] == '-')
			a++;
		if ((strcmp(a, "-bench") == 0 || strcmp(a, "-test.bench") == 0) && i + 1 < n) {
			v[j++] = argv[i];
			v[j++] = (char *)re;
			i++;
			done = 1;
		} else if (strncmp(a, "-bench=", 7) == 0 || strncmp(a, "-test.bench=", 12) == 0) {
			/* The option as written (-test.bench for a test binary), its value replaced. */
			v[j++] = own(msgf("%.*s%s", (int)(strchr(argv[i], '=') + 1 - argv[i]), argv[i], re));
			done = 1;
		} else
			v[j++] = argv[i];
	}
	if (!done)
		v[j++] = own(msgf("-bench=%s", re));
	v[j] = NULL;
	return v;
}

/* What benchrec gives Google Benchmark when the command sets no minimum time. */
#define GBENCH_MIN_TIME "--benchmark_min_time=0.1"

/* Whether a word of argv starts with prefix. */
static int
has_prefix(char *const *argv, const char *prefix)
{
	size_t len = strlen(prefix);

	for (; *argv != NULL; argv++)
		if (strncmp(*argv, prefix, len) == 0)
			return 1;
	return 0;
}

/* The command as it runs: what the harness needs added to write its document to out. */
static char **
run_argv(enum kind k, char *const *argv, const char *out, const struct hset *s)
{
	const char *cases = s->cases;
	char **v, **sel = NULL;
	size_t n;

	if (k == GOTEST)
		return cases != NULL ? gotest_argv(argv, own(harness_cases_regex(cases))) : (char **)argv;
	/* hyperfine: only the commands selected (their array freed with the rest). */
	if (k == HYPERFINE && (sel = harness_hyperfine_select(s, argv)) != NULL) {
		own((char *)sel);
		argv = sel;
	}
	for (n = 0; argv[n] != NULL; n++)
		;
	v = xmalloc((n + 6) * sizeof *v);
	memcpy(v, argv, n * sizeof *v);
	switch (k) {
	case GBENCH:
		/*
		 * The gate repeats runs itself, round after round: a run needs
		 * no half second of its own (Google Benchmark's default) unless
		 * the command asks for one.
		 */
		if (!has_prefix(argv, "--benchmark_min_time"))
			v[n++] = GBENCH_MIN_TIME;
		v[n++] = own(msgf("--benchmark_out=%s", out));
		v[n++] = "--benchmark_out_format=json";
		/* The console table goes to stdout, the context to stderr: JSON has both on stdout. */
		v[n++] = "--benchmark_format=json";
		if (cases != NULL)
			v[n++] = own(msgf("--benchmark_filter=%s", own(harness_cases_regex(cases))));
		break;
	case HYPERFINE:
		v[n++] = "--export-json";
		v[n++] = (char *)out;
		break;
	default:
		v[n++] = own(msgf("--benchmark-json=%s", out));
		if (cases != NULL && *plugindir != '\0') {
			v[n++] = "-p";
			v[n++] = "benchrec_cases";
		}
		break;
	}
	v[n] = NULL;
	return v;
}

int
main(int argc, char *argv[])
{
	struct hset s = { 0 };
	struct proc_opts opts = { 0 };
	char outpath[4096] = "", why[512];
	const char *file = NULL, *fail, *tmp;
	size_t len, k;
	int c, fd, rc, pass;
	enum kind kind = GBENCH;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opterr = 0;
	/* Options before the harness's name and after it; '+': the command's are its own. */
	for (pass = 0; pass < 2; pass++) {
		while ((c = getopt(argc, argv, "+:cf:v")) != -1) {
			switch (c) {
			case 'c':
				s.cpu = 1;
				break;
			case 'f':
				file = optarg;
				break;
			case 'v':
				verbose = 1;
				break;
			default:
				optionerror(c);
				usage();
			}
		}
		if (pass == 1)
			break;
		if (optind >= argc)
			usage();
		for (k = 0; k < sizeof harness / sizeof harness[0]; k++)
			if (strcmp(argv[optind], harness[k].name) == 0)
				break;
		if (k == sizeof harness / sizeof harness[0]) {
			warnmsg("unknown harness \"%s\" (gbench, gotest, hyperfine, pytest)", argv[optind]);
			usage();
		}
		kind = (enum kind)k;
		/* getopt goes on after the name, from its next word. */
		argv += optind;
		argc -= optind;
		optind = 1;
	}
	if ((s.cases = getenv("BENCH_CASES")) != NULL && *s.cases == '\0')
		s.cases = NULL;
	if (file != NULL && optind < argc)
		die("-f %s and a command: give one of them", file);
	if (file == NULL && optind >= argc)
		die("%s: no command to run and no -f file to read", harness[kind].name);

	if (file != NULL) {
		s.file = strcmp(file, "-") == 0 ? "<stdin>" : file;
		run.text = read_all(strcmp(file, "-") == 0 ? "/dev/stdin" : file, &len);
	} else {
		run.cmd = cmdline(argv + optind);
		if (kind != GOTEST) {
			if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
				tmp = "/tmp";
			snprintf(outpath, sizeof outpath, "%s/benchrec.XXXXXX", tmp);
			if ((fd = mkstemp(outpath)) < 0)
				die("%s:", outpath);
			close(fd);
			if (kind == PYTEST && s.cases != NULL)
				pytest_plugin(tmp);
		}
		run.argv = run_argv(kind, argv + optind, outpath, &s);
		opts.argv = run.argv;
		opts.capture_stdout = 1;
		proc_forward_signals();
		fail = proc_run(&opts, &run.res);
		pytest_plugin_remove();
		if (fail != NULL) {
			if (*outpath != '\0')
				unlink(outpath);
			die("%s", fail);
		}
		if (verbose || proc_failure(&opts, &run.res, why, sizeof why) != NULL)
			fwrite(run.res.out, 1, run.res.outlen, stderr);
		if (kind == GOTEST) {
			run.text = run.res.out;
			len = run.res.outlen;
			run.res.out = NULL;
		} else {
			run.text = read_all(outpath, &len);
			unlink(outpath);
		}
		run.label = msgf("%s output", argv[optind]);
		s.file = run.label;
		if ((fail = proc_failure(&opts, &run.res, why, sizeof why)) != NULL) {
			if (!run.res.started)
				die("%s", fail);
			/* go test says which benchmark failed; the others only how. */
			if (kind == GOTEST && (run.err = harness_gotest_failure(s.file, run.text, len)) != NULL)
				die("%s (%s)", run.err, fail);
			die("%s: %s", run.cmd, fail);
		}
		proc_result_free(&run.res);
		free(run.cmd);
		if (run.argv != argv + optind)
			free(run.argv);
		while (nowned > 0)
			free(owned[--nowned]);
	}
	if ((run.err = harness[kind].parse(&s, run.text, len)) != NULL || (run.err = hset_write(&s, stdout)) != NULL)
		die("%s", run.err);
	rc = fshut(stdout, "stdout");
	hset_free(&s);
	free(run.text);
	free(run.label);
	return rc;
}
