/*
 * cgsuspect: what differs between two sides' identities other than their
 * code, read from the gate's key files (GATEDIR/SIDE.key: one "name value"
 * a line): the compiler, the flags, the build command, the shared
 * libraries; the suspects cgdiff(1) names before any function.
 */
#ifndef PERFGATE_CGSUSPECT_H
#define PERFGATE_CGSUSPECT_H

#include <stddef.h>

/*
 * The suspects between the key files base and head, appended to
 * (*out)[*n...] as new strings. Returns NULL, or a message for
 * "tool: message" (to free).
 */
char *cg_suspects(const char *base, const char *head, char ***out, size_t *n);

#endif
