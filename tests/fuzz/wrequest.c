/*
 * Fuzz target: the worker protocol's request parser (bench/worker.h's
 * worker_parse), which every worker runs on what the pipe brings. The
 * input is one line. A request accepted has a known op, a key and fn of
 * name characters only, a relative printable path with no ".." component,
 * numbers in range (L: cols and rows from 1, at most 256 MiB of float64); written back in its canonical form it is the same
 * line and parses to the same request. A line longer than the limit is
 * refused.
 */
#define WORKER_PARSE_ONLY
#include "fuzz.h"
#include "worker.h"

static int
names_ok(const char *s)
{
	if (*s == '\0' || strlen(s) > WORKER_NAME_MAX)
		return 0;
	for (; *s != '\0'; s++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *s) == NULL)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char canon[2 * WORKER_LINE_MAX];
	struct worker_req r, again;
	const char *why, *line = (const char *)data;
	int n = 0;

	why = worker_parse(line, size, &r);
	if (size + 1 > WORKER_LINE_MAX)
		FUZZ_CHECK(why != NULL, "a %zu-byte line accepted", size);
	if (why != NULL)
		return 0;
	FUZZ_CHECK(strchr("LWTEV", r.op) != NULL && r.op != '\0', "op %d", r.op);
	switch (r.op) {
	case 'V':
		n = snprintf(canon, sizeof canon, "V");
		break;
	case 'L':
		FUZZ_CHECK(names_ok(r.key), "key %s", r.key);
		FUZZ_CHECK(r.cols >= 1 && r.rows >= 1 && r.cols * r.rows <= WORKER_ARG_MAX / 8,
		    "shape %llu x %llu", r.cols, r.rows);
		n = snprintf(canon, sizeof canon, "L %s %s %llu %llu", r.key, r.path, r.cols, r.rows);
		break;
	case 'W':
		n = snprintf(canon, sizeof canon, "W %s %s", r.key, r.fn);
		break;
	case 'T':
		FUZZ_CHECK(r.num >= 1 && r.num <= WORKER_ITERS_MAX, "iters %llu", r.num);
		n = snprintf(canon, sizeof canon, "T %s %s %llu", r.key, r.fn, r.num);
		break;
	case 'E':
		n = snprintf(canon, sizeof canon, "E %s %s %s", r.key, r.fn, r.path);
		break;
	}
	if (r.op != 'V' && r.op != 'L')
		FUZZ_CHECK(names_ok(r.key) && names_ok(r.fn), "key %s fn %s", r.key, r.fn);
	if (r.op == 'L' || r.op == 'E') {
		const char *p = r.path;

		FUZZ_CHECK(*p != '/' && *p != '\0', "path %s", r.path);
		for (; *p != '\0'; p++)
			FUZZ_CHECK(*p > 0x20 && *p < 0x7f, "path byte %d", *p);
		for (p = r.path; (p = strstr(p, "..")) != NULL; p++)
			FUZZ_CHECK(!((p == r.path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/')),
			    "path %s has a .. component", r.path);
	}
	FUZZ_CHECK((size_t)n == size && memcmp(canon, line, size) == 0,
	    "accepted '%.*s', canonical '%s'", (int)size, line, canon);
	FUZZ_CHECK(worker_parse(canon, (size_t)n, &again) == NULL && memcmp(&r, &again, sizeof r) == 0,
	    "'%s' parses differently again", canon);
	return 0;
}
