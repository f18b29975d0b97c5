#ifndef PERFGATE_HISTPAGE_H
#define PERFGATE_HISTPAGE_H

#include <stddef.h>

#include "histchain.h"

/* A creep that history check reported, to be marked: commits from .. to of the path. */
struct hmark {
	char *metric, *status;
	size_t from, to;
};

/*
 * The history's page in dir: index.html, and one SVG a metric (METRIC.svg)
 * that index.html also holds inline, so that no script is needed to read
 * it. url, when not NULL, is a commit's address with %H for its hash.
 * Returns NULL, or why a file cannot be written.
 */
char *hist_page(const struct hist *h, const char *dir, const char *url, const struct hmark *mark, size_t nmark);

/*
 * The creeps of history check's records in path, marked on h's commits
 * (one outside them is named on stderr and left out). NULL, or why not.
 */
char *hist_marks(const char *path, const struct hist *h, struct hmark **out, size_t *n);

#endif
