/*
 * Fuzz target: the name table (lib/names.c), which maps minjson's fields
 * and groups to indexes by open addressing. The input is a list of names,
 * one a line (any bytes, NUL included); each is looked up and added when
 * absent, as minjson does. Checked against a plain list searched in
 * order: names_find finds exactly the names added, at the index of their
 * first addition; names_add gives 0, 1, 2, ... in order; every name added
 * is found again at the end, its bytes kept.
 */
#include "fuzz.h"
#include "names.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct names t = { 0 };
	const char *p = (const char *)data, *end = p + size, *nl;
	const char **name = malloc((size + 1) * sizeof *name);
	size_t *len = malloc((size + 1) * sizeof *len);
	size_t n = 0, i, l;
	long want, got;

	FUZZ_CHECK(name != NULL && len != NULL, "malloc");
	while (p <= end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		l = (size_t)(nl - p);
		for (want = -1, i = 0; i < n && want < 0; i++)
			if (len[i] == l && memcmp(name[i], p, l) == 0)
				want = (long)i;
		got = names_find(&t, p, l);
		FUZZ_CHECK(got == want, "%.*s: found at %ld, want %ld", (int)l, p, got, want);
		if (want < 0) {
			got = names_add(&t, p, l);
			FUZZ_CHECK(got == (long)n, "%.*s added as %ld, want %zu", (int)l, p, got, n);
			name[n] = p;
			len[n++] = l;
		}
		p = nl + 1;
	}
	FUZZ_CHECK(t.n == n, "%zu names, want %zu", t.n, n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(names_find(&t, name[i], len[i]) == (long)i, "name %zu lost", i);
		FUZZ_CHECK(t.name[i].len == len[i] && memcmp(t.name[i].s, name[i], len[i]) == 0 &&
		    t.name[i].s[len[i]] == '\0', "name %zu: bytes", i);
	}
	names_free(&t);
	free(name);
	free(len);
	return 0;
}
