/*
 * benchcmd: a bench command (GATE_BENCH) as the gate runs it, for the
 * shell that keys and runs it: its words (lib/benchargv.c, the one
 * parser), as one line of sh words, or what the key digests: each file a
 * word names, after = too, the program looked up in PATH, relative names
 * taken from cd DIR. A form the gate cannot key is refused in one line.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchargv.h"
#include "msg.h"
#include "tool.h"
#include "util.h"

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s [-K | -S] command\n"
	    "       %s -V\n", argv0, argv0);
	exit(2);
}

struct seen {
	char **p;
	size_t n;
};

/* name as a path from dir (its cd DIR), or as it is. */
static char *
from(const char *dir, const char *name)
{
	if (dir == NULL || name[0] == '/')
		return xstrdup(name);
	return msgf("%s/%s", dir, name);
}

static int
isfile(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* A "file PATH" line for path, once; 2 when its name cannot be a line. */
static int
put(struct seen *s, char *path)
{
	size_t i;

	if (path[0] == '\0' || !isfile(path)) {
		free(path);
		return 0;
	}
	for (i = 0; i < s->n; i++)
		if (strcmp(s->p[i], path) == 0) {
			free(path);
			return 0;
		}
	if (strchr(path, '\n') != NULL) {
		warnmsg("%s: a file whose name holds a newline cannot be keyed", path);
		free(path);
		return 2;
	}
	s->p = xrealloc(s->p, (s->n + 1) * sizeof *s->p);
	s->p[s->n++] = path;
	printf("file %s\n", path);
	return 0;
}

/* The word, and what follows its first =: the names it may hold. */
static int
names(struct seen *s, const char *dir, const char *w)
{
	const char *eq = strchr(w, '=');

	if (put(s, from(dir, w)) != 0)
		return 2;
	return eq != NULL ? put(s, from(dir, eq + 1)) : 0;
}

/* The program as execvp finds it: in PATH (the command's own, when it sets one). */
static char *
program(const struct benchcmd *bc)
{
	const char *name = bc->argv[0], *dirs, *p, *colon;
	char *path;
	size_t dlen;

	if (strchr(name, '/') != NULL)
		return from(bc->dir, name);
	if ((dirs = benchcmd_getenv(bc, "PATH")) == NULL && (dirs = getenv("PATH")) == NULL)
		dirs = "/bin:/usr/bin";
	for (p = dirs;; p = colon + 1) {
		colon = strchr(p, ':');
		dlen = colon ? (size_t)(colon - p) : strlen(p);
		/* An empty entry is the current directory, the command's. */
		path = msgf("%.*s/%s", (int)(dlen ? dlen : 1), dlen ? p : ".", name);
		if (path[0] != '/' && bc->dir != NULL) {
			char *q = from(bc->dir, path);

			free(path);
			path = q;
		}
		if (isfile(path) && access(path, X_OK) == 0)
			return path;
		free(path);
		if (colon == NULL)
			return xstrdup("");
	}
}

static int
keyed(const struct benchcmd *bc)
{
	static const char *const loader[] = { "LD_LIBRARY_PATH", "LD_PRELOAD", NULL };
	struct seen s = { 0 };
	const char *v;
	size_t i;
	int rc = put(&s, program(bc));

	for (i = 1; rc == 0 && i < bc->argc; i++)
		rc = names(&s, bc->dir, bc->argv[i]);
	for (i = 0; rc == 0 && i < bc->nenv; i++)
		rc = put(&s, from(bc->dir, strchr(bc->env[i], '=') + 1));
	/* The loader's variables decide which libraries the program loads. */
	for (i = 0; rc == 0 && loader[i] != NULL; i++)
		if ((v = benchcmd_getenv(bc, loader[i])) != NULL) {
			if (strchr(v, '\n') != NULL) {
				warnmsg("%s: a value that holds a newline cannot be keyed", loader[i]);
				rc = 2;
			} else
				printf("env %s %s\n", loader[i], v);
		}
	for (i = 0; i < s.n; i++)
		free(s.p[i]);
	free(s.p);
	return rc;
}

/* w as one sh word: in single quotes, each ' as '\''. */
static void
shword(const char *w)
{
	putchar('\'');
	for (; *w != '\0'; w++)
		if (*w == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*w);
	putchar('\'');
}

int
main(int argc, char *argv[])
{
	struct benchcmd *bc;
	char **av, *err;
	int c, mode = 0, rc = 0;
	size_t i;

	tool_begin(argc, argv);
	while ((c = getopt(argc, argv, ":KS")) != -1) {
		switch (c) {
		case 'K':
		case 'S':
			if (mode != 0 && mode != c)
				usage();
			mode = c;
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();
	if (mode == 'K') {
		if ((bc = benchcmd_parse(argv[0], &err)) == NULL)
			die("%s", err);
		rc = keyed(bc);
		benchcmd_free(bc);
	} else {
		if ((av = benchargv(argv[0], &err)) == NULL)
			die("%s", err);
		for (i = 0; av[i] != NULL; i++) {
			if (mode == 'S') {
				if (i > 0)
					putchar(' ');
				shword(av[i]);
			} else
				puts(av[i]);
		}
		if (mode == 'S')
			putchar('\n');
		free(av);
	}
	if (fshut(stdout, "stdout") != 0)
		return 2;
	return rc;
}
