/*
 * Fuzz target: jmetrics (lib/jsonl.c), which reads a benchmark's metrics
 * from the last non-empty line of its stdout. The input is that stdout.
 * Checked against the rule as DESIGN.md states it, computed here apart:
 * blank (space, tab, CR, LF) only is "no output on stdout"; else the last
 * line after trailing blanks is parsed by jparse, and its error is named
 * as "last stdout line is not a JSON object: ..."; else the first member
 * that is not a number is named; else the record is jparse's, member for
 * member, every one a number.
 */
#include "fuzz.h"
#include "jsonl.h"

static int
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jrecord got, want;
	const char *buf = (const char *)data, *err, *line, *werr;
	char msg[512], *copy;
	size_t end = size, start, i;

	err = jmetrics(buf, size, &got);
	snprintf(msg, sizeof msg, "%s", err ? err : "");
	while (end > 0 && blank(buf[end - 1]))
		end--;
	if (end == 0) {
		FUZZ_CHECK(err != NULL && strcmp(msg, "no output on stdout") == 0, "blank input: %s",
		    err ? msg : "valid");
		return 0;
	}
	start = end;
	while (start > 0 && buf[start - 1] != '\n')
		start--;
	line = buf + start;
	/* A copy of exactly the line, so a read past it is caught. */
	if ((copy = malloc(end - start)) == NULL)
		abort();
	memcpy(copy, line, end - start);
	werr = jparse(copy, end - start, &want);
	if (werr != NULL) {
		char expect[512];

		snprintf(expect, sizeof expect, "last stdout line is not a JSON object: %s", werr);
		FUZZ_CHECK(err != NULL && strcmp(msg, expect) == 0, "jmetrics says %s, want %s",
		    err ? msg : "valid", expect);
		free(copy);
		return 0;
	}
	for (i = 0; i < want.n; i++)
		if (want.field[i].type != J_NUMBER)
			break;
	if (i < want.n) {
		FUZZ_CHECK(err != NULL && strncmp(msg, "value of \"", 10) == 0 &&
		    strstr(msg, "\" is not a number") != NULL, "member %zu is no number, jmetrics says %s",
		    i, err ? msg : "valid");
		FUZZ_CHECK(want.field[i].keylen > 64 ||
		    (strncmp(msg + 10, want.field[i].key, want.field[i].keylen) == 0 &&
		    strcmp(msg + 10 + want.field[i].keylen, "\" is not a number") == 0),
		    "jmetrics names another member: %s", msg);
		free(copy);
		return 0;
	}
	FUZZ_CHECK(err == NULL, "jmetrics says %s of a valid metrics line", msg);
	FUZZ_CHECK(got.n == want.n, "%zu members, jparse %zu", got.n, want.n);
	for (i = 0; i < got.n; i++) {
		const struct jfield *f = &got.field[i], *g = &want.field[i];

		FUZZ_CHECK(f->type == J_NUMBER, "member %zu is no number", i);
		FUZZ_CHECK(f->key - line == g->key - copy && f->keylen == g->keylen, "member %zu: key", i);
		FUZZ_CHECK(f->raw - line == g->raw - copy && f->rawlen == g->rawlen, "member %zu: raw", i);
		FUZZ_CHECK(fuzz_samebits(f->num, g->num), "member %zu: %a, jparse %a", i, f->num, g->num);
	}
	free(copy);
	return 0;
}
