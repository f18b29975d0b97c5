/*
 * report: cmpbudget's results for a person: the aligned table on a
 * terminal and the same table in GitHub Markdown for a pull request.
 */
#ifndef PERFGATE_REPORT_H
#define PERFGATE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "judge.h"

/* What a report shows: the rows, the confidence of their intervals, the first reason to stop. */
struct report {
	const struct result *res;
	size_t n;
	double confidence;
	const char *error;	/* NULL when cmpbudget could decide */
};

/* The aligned table, numbers right-aligned, no trailing blanks. */
void report_table(FILE *fp, const struct report *rp);

/*
 * The table in Markdown under a one-line verdict, written to path.tmp and
 * renamed (a device or a pipe is written in place). Returns NULL, or an
 * allocated message.
 */
char *report_markdown(const char *path, const struct report *rp);

/* The same, with a line under the table, such as the machine's account. */
char *report_markdown_note(const char *path, const struct report *rp, const char *note);

#endif
