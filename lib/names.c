/*
 * names: a table from names to indexes in the order added (names.h), by
 * open addressing on an FNV-1a hash, kept at most half full.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "util.h"

static uint64_t
hashname(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

long
names_find(const struct names *t, const char *s, size_t len)
{
	size_t i;
	long k;

	if (t->cap == 0)
		return -1;
	for (i = hashname(s, len) & (t->cap - 1); (k = t->slot[i]) >= 0; i = (i + 1) & (t->cap - 1))
		if (t->name[k].len == len && memcmp(t->name[k].s, s, len) == 0)
			return k;
	return -1;
}

/* Put index k in the first free slot of its chain. */
static void
place(struct names *t, long k)
{
	size_t i;

	for (i = hashname(t->name[k].s, t->name[k].len) & (t->cap - 1); t->slot[i] >= 0;
	    i = (i + 1) & (t->cap - 1))
		;
	t->slot[i] = k;
}

long
names_add(struct names *t, const char *s, size_t len)
{
	size_t i;
	long k;

	if (t->n == t->namecap) {
		t->namecap = t->namecap ? t->namecap * 2 : 16;
		t->name = xrealloc(t->name, t->namecap * sizeof *t->name);
	}
	k = (long)t->n++;
	t->name[k].s = xmemdup(s, len);
	t->name[k].len = len;
	if (t->n * 2 >= t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		free(t->slot);
		t->slot = xmalloc(t->cap * sizeof *t->slot);
		for (i = 0; i < t->cap; i++)
			t->slot[i] = -1;
		for (k = 0; k < (long)t->n; k++)
			place(t, k);
		return (long)t->n - 1;
	}
	place(t, k);
	return k;
}

void
names_free(struct names *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->name[i].s);
	free(t->name);
	free(t->slot);
	memset(t, 0, sizeof *t);
}
