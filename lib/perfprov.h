/*
 * perfprov: where a side of make compare comes from: the SHA-256 of every
 * file its build read, and its licence, an SPDX expression checked.
 * perfdoc(1) describes the members they make.
 */
#ifndef PERFGATE_PERFPROV_H
#define PERFGATE_PERFPROV_H

#include "buf.h"
#include "perfjson.h"

/* The SHA-256 of a file's bytes into hex; -1 when it cannot be read. */
int prov_file_sha256(const char *path, char hex[65]);

/*
 * From a compiler's dependency rules (cc -M: "x.o: a.c b.h \" ...), the
 * members "files" (an object of each relative path and its SHA-256) and,
 * when any path is absolute, "system_files" (how many) and
 * "system_sha256" (one digest over their paths and contents), into b as
 * ,"key":value... Returns NULL, or what is wrong (a file that cannot be
 * read, no rule at all).
 */
const char *prov_files(struct buf *b, const char *deps);

/*
 * Check expr, an SPDX licence expression (identifiers, LicenseRef-...,
 * AND, OR, WITH an exception, parentheses; or NOASSERTION or NONE).
 * Returns NULL or what is wrong; *gpl says whether every way to take it
 * is under the GPL or the AGPL (a link with it would be).
 */
const char *prov_license(const char *expr, int *gpl);

/* This machine as a JSON object: CPU model, cores, kernel. */
void prov_machine(struct buf *b);

/*
 * Exit 2 when a reference (a side but the first) has a compiler ("cc") or
 * flags ("cflags") other than the document old gives it: a reference is
 * fixed by its name. sidemeta holds each side's members, as perfdoc -o.
 */
void prov_fixed(const char *old, char **sidename, const struct buf *sidemeta, size_t nside);

/*
 * Exit 2, "resume refused" naming the field and both values, unless the
 * earlier document od describes the same machine, the same run (but its
 * date) and the same sides as mach, run and sides, the new run's objects.
 */
void prov_resume(const struct doc *od, const struct buf *mach, const struct buf *run,
    const struct buf *sides);

#endif
