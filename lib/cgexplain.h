/*
 * cgexplain: the records of the gate's explanation that are not about
 * functions (cgdiff(1)): which metrics a verdict asks to explain, a metric
 * that could not be explained, and the allocations a call of a case as
 * countof's records of the two sides give them.
 */
#ifndef PERFGATE_CGEXPLAIN_H
#define PERFGATE_CGEXPLAIN_H

#include <stdio.h>

#include "json.h"

/*
 * The names in the last record of the verdict file path, its "regressed"
 * array's and then its "layout_suspect" array's, each once, one a line on
 * out. Returns NULL, or a message for "tool: message" (file and line).
 */
char *cgx_names(const char *path, FILE *out);

/*
 * Metric could not be explained, for why: its summary record on stdout
 * ({"metric":..,"kind":"summary","explained":false,"error":why}) and its
 * line of the table on stderr. Returns 0, or 2 when stdout failed.
 */
int cgx_unexplained(const char *metric, const char *why);

/*
 * The allocations a call of key's case (CASE_allocs, CASE_alloc_bytes,
 * CASE the key without _instr) in the
 * last record of countof's files of the two sides, read by cgx_allocs_read
 * (NULL, or a message for "tool: message"), written by cgx_allocs_put: when
 * a side has them and they differ, an allocs record for metric on stdout,
 * its numbers as they were written, and a line of the table on stderr.
 */
struct cgx_allocs {
	struct jrecord br, hr;
	char *bt, *ht;
	const struct jfield *ba, *ha, *bb, *hb;
};

char *cgx_allocs_read(struct cgx_allocs *a, const char *key, const char *base, const char *head);
void cgx_allocs_put(const struct cgx_allocs *a, const char *metric);
void cgx_allocs_free(struct cgx_allocs *a);

#endif
