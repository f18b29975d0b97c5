/*
 * benchargv: the one parser of a bench command (benchargv.h). Words are
 * split as sh(1) splits them; what sh would expand or run (a $, a glob, a
 * pipe, a redirection, a second command) is refused, since no shell runs
 * the command afterwards: a word means here what it means to the program.
 */
#include <stdlib.h>
#include <string.h>

#include "benchargv.h"
#include "buf.h"
#include "msg.h"
#include "util.h"

struct word {
	char *s;
	int assign;	/* NAME=value, the name unquoted */
	int plain;	/* no quote or backslash in it */
	int op;		/* the && operator, not a word */
};

struct words {
	struct word *w;
	size_t n, cap;
};

static void
add(struct words *ws, struct buf *b, int assign, int plain, int op)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 16;
		ws->w = xrealloc(ws->w, ws->cap * sizeof *ws->w);
	}
	ws->w[ws->n].s = xmemdup(b->p != NULL ? b->p : "", b->n);
	ws->w[ws->n].assign = assign;
	ws->w[ws->n].plain = plain;
	ws->w[ws->n].op = op;
	ws->n++;
	b->n = 0;
}

static void
freewords(struct words *ws)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		free(ws->w[i].s);
	free(ws->w);
}

static int
isname(int c, int first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

/* Why an unquoted c cannot be keyed, or NULL when it is a word's byte. */
static const char *
special(int c)
{
	switch (c) {
	case '|':
		return "a pipe (|) is a shell's: run the pipeline from a script the command names";
	case ';':
		return "a second command (;) is a shell's: run the commands from a script the command names";
	case '&':
		return "& is a shell's (only `cd DIR && command` is accepted)";
	case '<':
	case '>':
		return "a redirection (< or >) is a shell's: the gate reads the benchmark's standard output itself";
	case '(':
	case ')':
		return "a subshell or $(...) is a shell's: write what it would give";
	case '`':
		return "a command substitution (`...`) is a shell's: write what it would give";
	case '$':
		return "a $ expansion is a shell's: write its value (make expands $(VAR) before), or quote it with '...'";
	case '*':
	case '?':
	case '[':
		return "a glob (* ? [) is a shell's: name the files, or quote the word";
	}
	return NULL;
}

/* Split cmd into words; NULL, or why it cannot be keyed. */
static char *
split(const char *cmd, struct words *ws)
{
	struct buf b = { 0 };
	const char *p = cmd, *why;
	int inword, plain, assign, named;

	for (;;) {
		while (*p == ' ' || *p == '\t' || (p[0] == '\\' && p[1] == '\n'))
			p += *p == '\\' ? 2 : 1;
		if (*p == '\n') {
			while (*p == '\n' || *p == ' ' || *p == '\t')
				p++;
			if (*p == '\0')
				break;
			free(b.p);
			return msgf("a second command (a newline) is a shell's: run the commands from a script");
		}
		if (*p == '\0')
			break;
		if (p[0] == '&' && p[1] == '&') {
			add(ws, &b, 0, 1, 1);
			p += 2;
			continue;
		}
		if (*p == '#') {
			free(b.p);
			return msgf("a comment (#) is a shell's: leave it out, or quote the word");
		}
		if (*p == '~') {
			free(b.p);
			return msgf("~ is a shell's: write the path");
		}
		inword = 1, plain = 1, assign = 0, named = 1;
		while (inword && *p != '\0') {
			switch (*p) {
			case ' ':
			case '\t':
			case '\n':
				inword = 0;
				break;
			case '\'': {
				const char *q = strchr(p + 1, '\'');

				if (q == NULL) {
					free(b.p);
					return msgf("a quote (') is not closed");
				}
				buf_add(&b, p + 1, (size_t)(q - p - 1));
				p = q + 1;
				plain = named = 0;
				break;
			}
			case '"':
				for (p++; *p != '"'; p++) {
					if (*p == '\0') {
						free(b.p);
						return msgf("a quote (\") is not closed");
					}
					if (*p == '\\' && p[1] != '\0' && strchr("$`\"\\\n", p[1]) != NULL) {
						p++;
						if (*p != '\n')
							buf_add(&b, p, 1);
						continue;
					}
					if (*p == '$' || *p == '`') {
						free(b.p);
						return msgf("%s", special(*p));
					}
					buf_add(&b, p, 1);
				}
				p++;
				plain = named = 0;
				break;
			case '\\':
				if (p[1] == '\0') {
					free(b.p);
					return msgf("a backslash ends the command");
				}
				if (p[1] != '\n')
					buf_add(&b, p + 1, 1);
				p += 2;
				plain = named = 0;
				break;
			case '=':
				if (named && !assign && b.n > 0)
					assign = 1;
				named = 0;
				buf_add(&b, p++, 1);
				break;
			default:
				if (p[0] == '&' && p[1] == '&') {
					inword = 0;
					break;
				}
				if ((why = special((unsigned char)*p)) != NULL) {
					free(b.p);
					return msgf("%s", why);
				}
				if (named && !isname((unsigned char)*p, b.n == 0))
					named = 0;
				buf_add(&b, p++, 1);
			}
		}
		add(ws, &b, assign, plain, 0);
	}
	free(b.p);
	return NULL;
}

/* dir, then d: d alone when it is absolute or dir is unset. */
static char *
joindir(char *dir, const char *d)
{
	char *r;

	if (dir == NULL || d[0] == '/')
		r = xstrdup(d);
	else
		r = msgf("%s/%s", dir, d);
	free(dir);
	return r;
}

static void
addenv(struct benchcmd *bc, const char *s)
{
	bc->env = xrealloc(bc->env, (bc->nenv + 1) * sizeof *bc->env);
	bc->env[bc->nenv++] = xstrdup(s);
}

static int
is(const struct word *w, const char *s)
{
	return w->plain && !w->op && strcmp(w->s, s) == 0;
}

/* The words a program is run with, after the prefixes; NULL or why not. */
static char *
shape(struct words *ws, struct benchcmd *bc)
{
	static const char *const shellish[] = {
		"cd", "!", "{", "}", "if", "then", "for", "while", "until", "case", "do", "done", "fi",
		"function", "select", "[[", "time", "export", "set", "unset", ".", "source", "eval",
		"exit", "ulimit", "umask", "trap", "alias", "read", "shift", "wait", NULL
	};
	size_t i = 0, j, k;

	while (i < ws->n && is(&ws->w[i], "cd")) {
		if (i + 2 >= ws->n || ws->w[i + 1].op || !ws->w[i + 2].op)
			return msgf("cd is accepted only as `cd DIR && command`");
		bc->dir = joindir(bc->dir, ws->w[i + 1].s);
		i += 3;
	}
	for (; i < ws->n && ws->w[i].assign; i++)
		addenv(bc, ws->w[i].s);
	if (i < ws->n && is(&ws->w[i], "exec"))
		i++;
	if (i < ws->n && is(&ws->w[i], "env")) {
		for (i++; i < ws->n && ws->w[i].s[0] == '-' && !ws->w[i].op; i++) {
			if (strcmp(ws->w[i].s, "--") == 0) {
				i++;
				break;
			}
			if (strcmp(ws->w[i].s, "-C") != 0 || i + 1 >= ws->n || ws->w[i + 1].op)
				return msgf("env %s: not an option perfgate runs (env -C DIR and NAME=value are)", ws->w[i].s);
			bc->dir = joindir(bc->dir, ws->w[++i].s);
		}
		for (; i < ws->n && !ws->w[i].op && strchr(ws->w[i].s, '=') != NULL; i++) {
			for (k = 0; ws->w[i].s[k] != '='; k++)
				if (!isname((unsigned char)ws->w[i].s[k], k == 0))
					return msgf("env %s: not a NAME=value word", ws->w[i].s);
			if (k == 0)
				return msgf("env %s: not a NAME=value word", ws->w[i].s);
			addenv(bc, ws->w[i].s);
		}
	}
	if (i == ws->n)
		return msgf("no program to run");
	for (j = i; j < ws->n; j++)
		if (ws->w[j].op)
			return msgf("&& is accepted only after `cd DIR`");
	for (k = 0; shellish[k] != NULL; k++)
		if (is(&ws->w[i], shellish[k]))
			return msgf("%s is a shell's word: run it from a script the command names", ws->w[i].s);
	if (ws->w[i].s[0] == '\0')
		return msgf("the program's name is empty");
	if ((bc->dir != NULL || bc->nenv > 0) && strchr(ws->w[i].s, '=') != NULL)
		return msgf("%s: a program whose name holds = cannot follow NAME=value words", ws->w[i].s);
	bc->argc = ws->n - i;
	bc->argv = xmalloc((bc->argc + 1) * sizeof *bc->argv);
	for (j = 0; j < bc->argc; j++) {
		bc->argv[j] = ws->w[i + j].s;
		ws->w[i + j].s = NULL;
	}
	bc->argv[j] = NULL;
	return NULL;
}

struct benchcmd *
benchcmd_parse(const char *cmd, char **err)
{
	struct benchcmd *bc = xmalloc(sizeof *bc);
	struct words ws = { 0 };

	memset(bc, 0, sizeof *bc);
	if ((*err = split(cmd, &ws)) == NULL && ws.n == 0)
		*err = msgf("empty: no program to run");
	if (*err == NULL)
		*err = shape(&ws, bc);
	freewords(&ws);
	if (*err != NULL) {
		benchcmd_free(bc);
		return NULL;
	}
	return bc;
}

void
benchcmd_free(struct benchcmd *bc)
{
	size_t i;

	if (bc == NULL)
		return;
	free(bc->dir);
	for (i = 0; i < bc->nenv; i++)
		free(bc->env[i]);
	free(bc->env);
	for (i = 0; i < bc->argc; i++)
		free(bc->argv[i]);
	free(bc->argv);
	free(bc);
}

const char *
benchcmd_getenv(const struct benchcmd *bc, const char *name)
{
	size_t i, n = strlen(name);
	const char *v = NULL;

	for (i = 0; i < bc->nenv; i++)
		if (strncmp(bc->env[i], name, n) == 0 && bc->env[i][n] == '=')
			v = bc->env[i] + n + 1;
	return v;
}

char **
benchargv(const char *cmd, char **err)
{
	struct benchcmd *bc = benchcmd_parse(cmd, err);
	const char *pre[4];
	size_t npre = 0, n, i, size = 0;
	char **av, *s;

	if (bc == NULL)
		return NULL;
	if (bc->dir != NULL || bc->nenv > 0) {
		pre[npre++] = "env";
		if (bc->dir != NULL) {
			pre[npre++] = "-C";
			pre[npre++] = bc->dir;
		}
		pre[npre++] = "--";
	}
	n = npre + bc->nenv + bc->argc;
	for (i = 0; i < npre; i++)
		size += strlen(pre[i]) + 1;
	for (i = 0; i < bc->nenv; i++)
		size += strlen(bc->env[i]) + 1;
	for (i = 0; i < bc->argc; i++)
		size += strlen(bc->argv[i]) + 1;
	av = xmalloc((n + 1) * sizeof *av + size);
	s = (char *)(av + n + 1);
	for (i = 0; i < n; i++) {
		const char *w = i < npre ? pre[i] : i < npre + bc->nenv ? bc->env[i - npre] :
		    bc->argv[i - npre - bc->nenv];

		av[i] = strcpy(s, w);
		s += strlen(w) + 1;
	}
	av[n] = NULL;
	benchcmd_free(bc);
	return av;
}
