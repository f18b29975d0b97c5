/*
 * perftable: the reference benchmarks' table, its check, the issue drafts,
 * all made from the document (perfjson.h). perfdoc(1) describes them.
 */
#ifndef PERFGATE_PERFTABLE_H
#define PERFGATE_PERFTABLE_H

#include "perfjson.h"

/* The Markdown table of d, into b. */
void table_render(struct buf *b, const struct doc *d);

/*
 * 0 when the file at path is d's table; else 1, after a message naming
 * the first line that differs, with the line expected and the line found.
 */
int table_check(const char *path, const struct doc *d);

/* One draft per valid row slower than a reference, into dir; or exit 2. */
void table_drafts(const char *dir, const struct doc *d);

#endif
