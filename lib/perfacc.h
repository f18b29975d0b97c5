/*
 * perfacc: the accuracy part of the reference benchmarks' document (schema
 * 2): a row's "accuracy" member, as ulpscore(1) joins it, rendered as the
 * table's accuracy section and as a draft's lines.
 */
#ifndef PERFGATE_PERFACC_H
#define PERFGATE_PERFACC_H

#include "buf.h"
#include "jsonl.h"
#include "perfjson.h"

/* Whether any row of d has an accuracy member. */
int acc_doc_has(const struct doc *d);

/* The table's accuracy section, after the timing table; nothing without accuracy. */
void acc_table(struct buf *b, const struct doc *d);

/*
 * The draft-worthy accuracy label of row, worst first (faster-less-accurate,
 * tie-less-accurate), with its reference, as new strings; 0 when none.
 */
int acc_row_flagged(const struct jrecord *row, const char *where, char **ref, char **label);

/* A draft's accuracy lines for row: each side's scores and each label. */
void acc_draft(struct buf *b, const struct jrecord *row, const char *where);

#endif
