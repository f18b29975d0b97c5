/*
 * cgdump: one reader of callgrind's dump files (callgrind's "format
 * specification": header lines "key: value", then ob=/fl=/fi=/fe=/fn=
 * position lines, cost lines "position count ...", calls=N followed by the
 * call's inclusive cost, names compressed as "(id) name" the first time and
 * "(id)" after), summed per function: self and inclusive costs, how often
 * each was called, and the self instructions of each source line.
 */
#ifndef PERFGATE_CGDUMP_H
#define PERFGATE_CGDUMP_H

#include <stddef.h>

#include "names.h"

/* The sums kept: instructions, first-level misses, last-level misses. */
enum { CG_IR, CG_L1, CG_LL, CG_NSUM };

struct cg_fn {
	const char *name;	/* as the dump names it */
	const char *file;	/* the basename of the file it is defined in */
	const char *object;	/* the basename of its object */
	unsigned long long self[CG_NSUM], incl[CG_NSUM];
	unsigned long long calls;	/* calls to it */
};

/* The self instructions of one line of one function. */
struct cg_line {
	size_t fn;
	const char *file;	/* basename */
	unsigned long line;
	unsigned long long ir;
};

struct cg_dump {
	char *cmd;		/* the cmd: line, trimmed; NULL when none */
	char *trigger;		/* the "desc: Trigger: " text; NULL when none */
	size_t cmdline, triggerline;	/* the lines they are on */
	int cache;		/* whether it counts cache misses */
	int lines;		/* whether it has line numbers (debug information) */
	unsigned long long total[CG_NSUM];
	struct cg_fn *fn;
	size_t nfn, capfn;
	struct cg_line *line;	/* open addressing, nline used of capline */
	size_t nline, capline;
	/* Internal: interned strings, function keys, compressed ids. */
	struct names str, key;
	long *id[3];
	size_t nid[3];
};

/*
 * Read the dump buf[0..len) into d (zeroed). Returns NULL, or what is
 * wrong, with *lineno the line it is on (1-based).
 */
const char *cg_parse(const char *buf, size_t len, struct cg_dump *d, size_t *lineno);

/* The index of the function called name in file (a basename), or -1. */
long cg_find(const struct cg_dump *d, const char *name, const char *file);

void cg_free(struct cg_dump *d);

/* How bench.h's trigger of a metric's dump begins: "perfgate KEY CALLS". */
#define CG_TRIGGER "Client Request: perfgate "

/* The bytes of the file path, in *len, as a new buffer to free(); NULL with errno set. */
char *cg_slurp(const char *path, size_t *len);

/* Whether buf[0..len) holds in its header the trigger of key's dump, as bench.h writes it. */
int cg_has_trigger(const char *buf, size_t len, const char *key);

#endif
