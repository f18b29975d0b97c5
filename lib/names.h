/*
 * names: a table from names (any bytes, as written) to the indexes 0, 1,
 * 2, ... in the order they were added: minjson's fields and groups.
 */
#ifndef PERFGATE_NAMES_H
#define PERFGATE_NAMES_H

#include <stddef.h>

struct names {
	struct name {
		char *s;	/* a NUL-terminated copy */
		size_t len;
	} *name;		/* by index */
	size_t n, namecap;
	long *slot;		/* open addressing: an index, -1 when empty */
	size_t cap;
};

/* The index of s[0..len), or -1. A zeroed table is empty. */
long names_find(const struct names *t, const char *s, size_t len);

/* Add s[0..len), which names_find did not find; returns its index. */
long names_add(struct names *t, const char *s, size_t len);

void names_free(struct names *t);

#endif
