/*
 * Fuzz target: the budget file (budget_load in lib/budget.c). The input is
 * the file. Checked: the message, if any, is one line that starts with
 * the path, and a line it names is a line of the file; a file read is
 * hashed to the SHA-256 of its bytes; every budget is a bare name on the
 * line it names, budgeted once, above 0 (below 1 in [higher]), runs is
 * from 1 to 1000000; and the budget written again (fmt_double for the
 * fractions) and read again is the same budget, bit for bit.
 */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "budget.h"
#include "sha256.h"
#include "util.h"

static char path[64];
static int fd = -1;

/* Make the file hold data[0..size). */
static void
setfile(const void *data, size_t size)
{
	if (fd < 0) {
		FUZZ_CHECK((fd = memfd_create("budget", 0)) >= 0, "memfd_create");
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate");
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size, "pwrite");
}

static int
isbarename(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* The text of line n (1-based) of data, in *len bytes. */
static const char *
nthline(const char *data, size_t size, unsigned long n, size_t *len)
{
	const char *p = data, *end = data + size, *nl;

	for (;;) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (--n == 0) {
			*len = (size_t)(nl - p);
			return p;
		}
		if (nl == end)
			return NULL;
		p = nl + 1;
	}
}

static void
check_message(const char *msg, const char *data, size_t size)
{
	size_t plen = strlen(path), len;
	unsigned long n;
	char *end;

	FUZZ_CHECK(strncmp(msg, path, plen) == 0 && msg[plen] == ':', "message without the path: %s", msg);
	FUZZ_CHECK(strchr(msg, '\n') == NULL, "message of more than one line: %s", msg);
	if (msg[plen + 1] >= '0' && msg[plen + 1] <= '9') {
		n = strtoul(msg + plen + 1, &end, 10);
		FUZZ_CHECK(*end == ':' && n >= 1 && nthline(data, size, n, &len) != NULL,
		    "the message names no line of the file: %s", msg);
	}
}

static void
check_budget(const struct budget *b, const char *data, size_t size)
{
	struct sha256 h;
	char hex[65];
	size_t i, j, len;
	const char *line;

	sha256_init(&h);
	sha256_update(&h, data, size);
	sha256_hex(&h, hex);
	FUZZ_CHECK(strcmp(hex, b->sha256) == 0, "sha256 %s, want %s", b->sha256, hex);
	FUZZ_CHECK(b->n >= 1, "no budget read, and no message");
	FUZZ_CHECK(b->runs >= 1 && b->runs <= 1000000, "runs %ld", b->runs);
	for (i = 0; i < b->n; i++) {
		const struct budget_entry *e = &b->entry[i];

		FUZZ_CHECK(isbarename(e->name), "name %s", e->name);
		FUZZ_CHECK(isfinite(e->budget) && e->budget > 0, "%s: budget %a", e->name, e->budget);
		FUZZ_CHECK(e->better == BETTER_LOWER || (e->better == BETTER_HIGHER && e->budget < 1),
		    "%s: better %d, budget %a", e->name, (int)e->better, e->budget);
		line = nthline(data, size, e->line, &len);
		FUZZ_CHECK(line != NULL && memmem(line, len, e->name, strlen(e->name)) != NULL,
		    "%s: not on line %lu", e->name, e->line);
		FUZZ_CHECK(budget_find(b, e->name, strlen(e->name)) == e, "budget_find %s", e->name);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(b->entry[j].name, e->name) != 0, "%s budgeted twice", e->name);
	}
}

/* The budget as a file of its own: runs, then each section in the order met. */
static char *
rewrite(const struct budget *b, size_t *len)
{
	char *text = NULL, num[32];
	size_t i, size = 0;
	int pass, first = b->entry[0].better;
	FILE *fp = open_memstream(&text, &size);

	FUZZ_CHECK(fp != NULL, "open_memstream");
	fprintf(fp, "runs = %ld\n", b->runs);
	for (pass = 0; pass < 2; pass++) {
		int better = pass == 0 ? first : !first, any = 0;

		for (i = 0; i < b->n; i++) {
			if ((int)b->entry[i].better != better)
				continue;
			if (!any++)
				fprintf(fp, "[%s]\n", better == BETTER_LOWER ? "budget" : "higher");
			fmt_double(num, b->entry[i].budget);
			fprintf(fp, "%s = %s\n", b->entry[i].name, num);
		}
	}
	FUZZ_CHECK(fclose(fp) == 0, "fclose");
	*len = size;
	return text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct budget b = { 0 }, again = { 0 };
	char *msg, *text;
	size_t len, i;

	setfile(data, size);
	if ((msg = budget_load(&b, path)) != NULL) {
		check_message(msg, (const char *)data, size);
		free(msg);
		budget_free(&b);
		return 0;
	}
	check_budget(&b, (const char *)data, size);
	text = rewrite(&b, &len);
	setfile(text, len);
	msg = budget_load(&again, path);
	FUZZ_CHECK(msg == NULL, "the budget written again reads as %s:\n%s", msg, text);
	FUZZ_CHECK(again.n == b.n && again.runs == b.runs, "%zu budgets and runs %ld, then %zu and %ld",
	    b.n, b.runs, again.n, again.runs);
	for (i = 0; i < b.n; i++)
		FUZZ_CHECK(strcmp(b.entry[i].name, again.entry[i].name) == 0 &&
		    b.entry[i].better == again.entry[i].better &&
		    fuzz_samebits(b.entry[i].budget, again.entry[i].budget),
		    "budget %zu: %s %a, then %s %a", i, b.entry[i].name, b.entry[i].budget,
		    again.entry[i].name, again.entry[i].budget);
	free(text);
	budget_free(&b);
	budget_free(&again);
	return 0;
}
