/*
 * Fuzz target: the budget file (budget_load in lib/budget.c). The input is
 * the file. Checked: the message, if any, is one line that starts with
 * the path, and a line it names is a line of the file; a file read is
 * hashed to the SHA-256 of its bytes; every budget is a bare name on the
 * line it names, budgeted once, in its section's range (a time above 0
 * and below 1 unless allow_loose, a throughput below 1 always, a count
 * or a case 0 or more, each finite), runs is from 2 to 1000000; the
 * budget written again (fmt_double for the fractions) and read again is
 * the same budget, bit for bit; and compared with itself (budgetdiff.h)
 * it changes nothing, while with its first budget raised it loosens.
 */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "budget.h"
#include "budgetdiff.h"
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

/* Each entry of one list of b: named, on its line, once, in its section's range. */
static void
check_list(const struct budget *b, const struct budget_entry *list, size_t n, const char *data, size_t size)
{
	size_t i, j, len;
	const char *line;

	for (i = 0; i < n; i++) {
		const struct budget_entry *e = &list[i];

		FUZZ_CHECK(isbarename(e->name), "name %s", e->name);
		FUZZ_CHECK(isfinite(e->budget), "%s: budget %a", e->name, e->budget);
		switch (e->section) {
		case BS_BUDGET:
			FUZZ_CHECK(e->budget > 0 && (e->budget < 1 || b->allow_loose) && e->better == BETTER_LOWER &&
			    !e->count, "%s: [budget] %a", e->name, e->budget);
			break;
		case BS_HIGHER:
			FUZZ_CHECK(e->budget > 0 && e->budget < 1 && e->better == BETTER_HIGHER && !e->count,
			    "%s: [higher] %a", e->name, e->budget);
			break;
		case BS_COUNTS:
			FUZZ_CHECK(e->budget >= 0 && e->count && list == b->count, "%s: [counts] %a", e->name, e->budget);
			break;
		case BS_ACCURACY:
			FUZZ_CHECK(e->budget >= 0 && list == b->acc, "%s: [accuracy] %a", e->name, e->budget);
			break;
		default:
			FUZZ_CHECK(0, "%s: section %d", e->name, (int)e->section);
		}
		line = nthline(data, size, e->line, &len);
		FUZZ_CHECK(line != NULL && memmem(line, len, e->name, strlen(e->name)) != NULL,
		    "%s: not on line %lu", e->name, e->line);
		if (e->section != BS_ACCURACY)
			FUZZ_CHECK(budget_find(b, e->name, strlen(e->name)) == e, "budget_find %s", e->name);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(list[j].name, e->name) != 0, "%s budgeted twice", e->name);
	}
}

static void
check_budget(const struct budget *b, const char *data, size_t size)
{
	struct sha256 h;
	char hex[65];

	sha256_init(&h);
	sha256_update(&h, data, size);
	sha256_hex(&h, hex);
	FUZZ_CHECK(strcmp(hex, b->sha256) == 0, "sha256 %s, want %s", b->sha256, hex);
	FUZZ_CHECK(b->n >= 1, "no budget read, and no message");
	FUZZ_CHECK(b->runs >= 2 && b->runs <= 1000000, "runs %ld", b->runs);
	FUZZ_CHECK(b->allow_loose == 0 || b->allow_loose == 1, "allow_loose %d", b->allow_loose);
	check_list(b, b->entry, b->n, data, size);
	check_list(b, b->count, b->ncount, data, size);
	check_list(b, b->acc, b->nacc, data, size);
}

/* One section's entries of list, as "name = budget" lines under its header. */
static void
writesection(FILE *fp, const struct budget_entry *list, size_t n, enum budget_section sec)
{
	char num[32];
	size_t i;
	int any = 0;

	for (i = 0; i < n; i++) {
		if (list[i].section != sec)
			continue;
		if (!any++)
			fprintf(fp, "[%s]\n", budget_section_name(sec));
		fmt_double(num, list[i].budget);
		fprintf(fp, "%s = %s\n", list[i].name, num);
	}
}

/*
 * The budget as a file of its own: runs and allow_loose, then each
 * section, the time metrics' in the order met; raise, when set, raises
 * the first time metric's budget (and allows it), or returns NULL when
 * the budget cannot be raised and stay in its range.
 */
static char *
rewrite(const struct budget *b, size_t *len, int raise)
{
	char *text = NULL;
	size_t size = 0;
	enum budget_section first = b->entry[0].section;
	struct budget_entry *entry = xmalloc(b->n * sizeof *entry);
	FILE *fp = open_memstream(&text, &size);

	FUZZ_CHECK(fp != NULL, "open_memstream");
	memcpy(entry, b->entry, b->n * sizeof *entry);
	if (raise)
		entry[0].budget = entry[0].section == BS_HIGHER ? entry[0].budget / 2 + 0.5 : entry[0].budget + 1;
	if (raise && (entry[0].budget == b->entry[0].budget || !isfinite(entry[0].budget) ||
	    (entry[0].section == BS_HIGHER && entry[0].budget >= 1))) {
		fclose(fp);
		free(text);
		free(entry);
		return NULL;
	}
	fprintf(fp, "runs = %ld\nallow_loose = %s\n", b->runs, b->allow_loose || raise ? "true" : "false");
	writesection(fp, entry, b->n, first);
	writesection(fp, entry, b->n, first == BS_BUDGET ? BS_HIGHER : BS_BUDGET);
	writesection(fp, b->count, b->ncount, BS_COUNTS);
	writesection(fp, b->acc, b->nacc, BS_ACCURACY);
	FUZZ_CHECK(fclose(fp) == 0, "fclose");
	free(entry);
	*len = size;
	return text;
}

static int
samelist(const struct budget_entry *a, const struct budget_entry *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].name, b[i].name) != 0 || a[i].section != b[i].section ||
		    !fuzz_samebits(a[i].budget, b[i].budget))
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct budget b = { 0 }, again = { 0 };
	struct budget_diff d;
	char *msg, *text;
	size_t len, i, loose;

	setfile(data, size);
	if ((msg = budget_load(&b, path)) != NULL) {
		check_message(msg, (const char *)data, size);
		free(msg);
		budget_free(&b);
		return 0;
	}
	check_budget(&b, (const char *)data, size);
	text = rewrite(&b, &len, 0);
	setfile(text, len);
	msg = budget_load(&again, path);
	FUZZ_CHECK(msg == NULL, "the budget written again reads as %s:\n%s", msg, text);
	FUZZ_CHECK(again.n == b.n && again.ncount == b.ncount && again.nacc == b.nacc && again.runs == b.runs &&
	    again.allow_loose == b.allow_loose, "%zu budgets and runs %ld, then %zu and %ld", b.n, b.runs, again.n,
	    again.runs);
	FUZZ_CHECK(samelist(b.entry, again.entry, b.n) && samelist(b.count, again.count, b.ncount) &&
	    samelist(b.acc, again.acc, b.nacc), "the budgets read again differ:\n%s", text);
	budget_diff(&d, &b, &again);
	FUZZ_CHECK(d.n == 0, "written again, %s changes: %zu changes", d.c[0].key, d.n);
	budget_diff_free(&d);
	free(text);
	/* The first time metric raised: one change, the only one, a loosening. */
	if ((text = rewrite(&b, &len, 1)) == NULL) {
		budget_free(&b);
		budget_free(&again);
		return 0;
	}
	setfile(text, len);
	budget_free(&again);
	memset(&again, 0, sizeof again);
	msg = budget_load(&again, path);
	if (msg == NULL) {
		budget_diff(&d, &b, &again);
		/* The metric's change, not a top-level key of the same name (a
		 * metric may be called allow_loose, which raise sets too). */
		for (i = 0, loose = 0; i < d.n; i++)
			loose += d.c[i].loosens && d.c[i].headsec != BD_TOP && strcmp(d.c[i].key, b.entry[0].name) == 0;
		FUZZ_CHECK(loose == 1, "%s raised does not loosen", b.entry[0].name);
		budget_diff_free(&d);
	} else {
		/* Only a raised budget out of range may be refused. */
		FUZZ_CHECK(strstr(msg, "out of range") != NULL, "the budget raised reads as %s:\n%s", msg, text);
		free(msg);
	}
	free(text);
	budget_free(&b);
	budget_free(&again);
	return 0;
}
