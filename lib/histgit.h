#ifndef PERFGATE_HISTGIT_H
#define PERFGATE_HISTGIT_H

#include <stddef.h>

#include "histchain.h"

/*
 * The history's git: what it asks git, and the one note it writes. Each
 * returns NULL or why it cannot, a message to free.
 */

/* Run argv; its standard output in *out (NUL-terminated) when out is not NULL. -1: not started. */
int hg_run(char *const argv[], char **out, size_t *len, int quiet);
/* A revision's commit, or NULL when it names none (or starts with '-'). */
char *hg_commit(const char *rev);
/* git's first line of output, or NULL when git fails. */
char *hg_line(const char *a, const char *b, const char *c, const char *d);
/* A git work tree with the whole history: not a shallow clone. */
char *hg_whole(void);
/*
 * The first-parent path of range into h (a..b; b alone: at most limit
 * commits up to b, 0 for all), oldest first, with its notes. A range
 * whose start is not on its end's first-parent path is refused.
 */
char *hg_path(struct hist *h, const char *range, int limit, const char *machine,
    void (*warn)(const struct hcommit *c, unsigned long line, const char *why));
/*
 * Write commit's note: line in place of machine's older record of it
 * (its time in *replaced, else NULL), every other line kept as it was.
 */
char *hg_putnote(const char *commit, const char *machine, const char *line, size_t linelen, char **replaced);
/* Each directory above path, as mkdir -p makes them. */
char *hg_mkparents(const char *path);

#endif
