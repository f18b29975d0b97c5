/*
 * perfci: the checks of make compare-ci, which time nothing: the
 * implementation's allocations a call against those the document records,
 * and every public function of its header against the document's cases
 * and the exemptions file. And the row edits that record allocations.
 * perfdoc(1) describes them. Bad input exits 2 naming file and line.
 */
#ifndef PERFGATE_PERFCI_H
#define PERFGATE_PERFCI_H

#include "perfjson.h"

/*
 * The last non-empty line of path, a metrics line of bench.h's counts mode
 * ({"sum_allocs":0,"sum_alloc_bytes":0,...}), parsed into r; or exit 2.
 * Returns the file's text, which r points into: free it after r.
 */
char *ci_read_counts(const char *path, struct jrecord *r);

/*
 * row (a row record's text) with its "allocs" and "alloc_bytes" taken from
 * counts for its case (replacing any it had); the row as it was when
 * counts has none for the case. A new string.
 */
char *ci_row_allocs(const char *row, const struct jrecord *counts);

/*
 * 0 when counts' allocations a call of every case (cases, or else every
 * row's) equal the document's; else 1, a line for each that differs.
 */
int ci_check_allocs(const char *countspath, const struct jrecord *counts, char *cases,
    const struct doc *d);

/*
 * 0 when every public function of header (a non-static function it
 * declares) has a case in d (the function is named as the case, or ends
 * in _case) or a line "- `name`: reason" in exempt, and every name exempt
 * is a public function; else 1, a line for each. exempt may be missing.
 */
int ci_check_public(const char *header, const char *exempt, const struct doc *d);

/*
 * 0 when every side of d states its licence (an SPDX expression, not
 * NOASSERTION or NONE), no reference's needs the GPL unless it is a
 * black box ("blackbox": true), the side names are unique, and every
 * valid row has its entry for every side and reference
 * (doc_row_entries); else 1, a line for each that is not.
 */
int ci_check_refs(const struct doc *d);

#endif
