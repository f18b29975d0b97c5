/*
 * benchargv: the one parser of a bench command (GATE_BENCH). It splits
 * the command into the words a program is run with, as sh(1) would for
 * the forms perfgate(7) lists (quotes, leading NAME=value words, env,
 * cd DIR &&), and refuses in one message every other form (a pipe, a
 * redirection, a $ expansion, a glob), so that what the gate keys is what
 * alternate, countof and the explanation run: no shell reads it again.
 */
#ifndef PERFGATE_BENCHARGV_H
#define PERFGATE_BENCHARGV_H

#include <stddef.h>

struct benchcmd {
	char *dir;		/* cd DIR && (joined when several), or NULL */
	char **env;		/* NAME=value words, nenv of them */
	size_t nenv;
	char **argv;		/* the program and its arguments, NULL-terminated */
	size_t argc;		/* at least 1 */
};

/*
 * Parse cmd. Returns the command, or NULL with *err a message for
 * "GATE_BENCH: ..." (free it) when cmd is a form perfgate does not run.
 */
struct benchcmd *benchcmd_parse(const char *cmd, char **err);

void benchcmd_free(struct benchcmd *bc);

/*
 * The argv that runs cmd with execvp: its words, or, when it sets a
 * directory or variables, env(1) -C DIR -- NAME=value ... before them.
 * NULL and *err as benchcmd_parse. One allocation: free() it.
 */
char **benchargv(const char *cmd, char **err);

/*
 * The value of variable name as the command sets it (its last NAME=value
 * word), or NULL.
 */
const char *benchcmd_getenv(const struct benchcmd *bc, const char *name);

#endif
