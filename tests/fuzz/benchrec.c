/*
 * Fuzz target: benchrec's readers (lib/harness*.c). The first byte picks
 * what reads the rest: Google Benchmark's, go test's, hyperfine's or
 * pytest-benchmark's reader, with or without BENCH_CASES, or
 * harness_scale10 on a number. A reader either refuses the input with one
 * line, "FILE:" and the rest, naming a line that exists, or the metrics
 * line it writes is one JSON object of numbers (jmetrics), under keys of
 * ASCII letters, digits and '_' only, none twice. harness_scale10 gives a
 * JSON number that reads back as the input times 10^k, to the last bit or
 * two, or NULL for what is not a JSON number. harness_hyperfine_select,
 * given the rest cut at NULs as a command line, keeps it whole (NULL) or
 * gives back a shorter one that keeps argv[0] and takes words out, never
 * adds or reorders them.
 */
#include <math.h>

#include "fuzz.h"
#include "harness.h"
#include "jsonl.h"
#include "jsonnum.h"

static char *(*const reader[])(struct hset *, const char *, size_t) = {
	harness_gbench, harness_gotest, harness_hyperfine, harness_pytest,
};

static void
check_scale(const char *s, size_t len, int k)
{
	const char *q = s;
	char *t;
	double x, y, want;

	t = harness_scale10(s, len, k);
	if (jnum_parse(&q, s + len, &x) != NULL || q != s + len) {
		FUZZ_CHECK(t == NULL, "%.*s is no JSON number, yet scaled to %s", (int)len, s, t);
		return;
	}
	FUZZ_CHECK(t != NULL, "%.*s not scaled", (int)len, s);
	q = t;
	FUZZ_CHECK(jnum_parse(&q, t + strlen(t), &y) == NULL && *q == '\0', "%.*s scaled to %s, not JSON",
	    (int)len, s, t);
	want = x * pow(10, k);
	if (k == 0)
		FUZZ_CHECK(strlen(t) == len && memcmp(t, s, len) == 0, "%.*s became %s", (int)len, s, t);
	else if (isfinite(want) && fabs(want) > 1e-290 && fabs(want) < 1e290)
		FUZZ_CHECK(fabs(y - want) <= 1e-14 * fabs(want), "%.*s x 1e%d = %s (%.17g, want %.17g)",
		    (int)len, s, k, t, y, want);
	free(t);
}

static void
check_select(const char *text, size_t len)
{
	struct hset s = { 0 };
	char *buf, **argv, **v;
	size_t n = 1, i, j;

	if ((buf = malloc(len + 2)) == NULL)
		abort();
	memcpy(buf, "h", 1);
	buf[1] = '\0';
	memcpy(buf + 2, text, len);	/* argv[0] "h", then the words */
	/* A word is what ends in a NUL: what follows the last NUL is left out. */
	for (i = 0; i < len; i++)
		n += text[i] == '\0';
	if ((argv = calloc(n + 1, sizeof *argv)) == NULL)
		abort();
	argv[0] = buf;
	for (i = 0, j = 1; j < n; j++) {
		argv[j] = buf + 2 + i;
		while (text[i] != '\0')
			i++;
		i++;
	}
	s.cases = "sum_ns,max,sleep_0_001_ns";
	v = harness_hyperfine_select(&s, argv);
	if (v != NULL) {
		FUZZ_CHECK(v[0] == argv[0], "argv[0] not kept");
		for (i = j = 0; v[i] != NULL; i++) {
			while (j < n && argv[j] != v[i])
				j++;
			FUZZ_CHECK(j < n, "word %zu is not argv's, in order", i);
			j++;
		}
		FUZZ_CHECK(i < n, "nothing taken out");
		free(v);
	}
	free(argv);
	free(buf);
}

static void
check_line(const char *out, size_t len)
{
	static struct jrecord rec;
	const char *err;
	size_t i, j;

	FUZZ_CHECK(len > 0 && out[len - 1] == '\n' && memchr(out, '\n', len) == out + len - 1,
	    "not one line: %.*s", (int)len, out);
	err = jmetrics(out, len, &rec);
	FUZZ_CHECK(err == NULL, "%s: %.*s", err, (int)len, out);
	for (i = 0; i < rec.n; i++) {
		const struct jfield *f = &rec.field[i];

		FUZZ_CHECK(f->keylen > 0, "an empty key");
		for (j = 0; j < f->keylen; j++)
			FUZZ_CHECK(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
			    f->key[j]) != NULL && f->key[j] != '\0', "key %.*s", (int)f->keylen, f->key);
		FUZZ_CHECK(f->key[0] != '_' && f->key[f->keylen - 1] != '_', "key %.*s", (int)f->keylen, f->key);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hset s = { 0 };
	const char *text = (const char *)data + 1, *colon;
	size_t len = size - 1, n, lines;
	char *err, *out = NULL;
	unsigned long at;
	FILE *fp;
	int pick;

	if (size == 0)
		return 0;
	pick = data[0] % 10;
	if (pick == 9) {
		check_select(text, len);
		return 0;
	}
	if (pick == 8) {
		check_scale(text, len, (int)(data[0] / 10 % 25) - 12);
		return 0;
	}
	s.file = "in";
	s.cpu = data[0] & 0x80;
	s.cases = pick >= 4 ? "BM_Sort_1024_ns,x_ns,test,BenchmarkX_2" : NULL;
	err = reader[pick % 4](&s, text, len);
	if (err == NULL) {
		FUZZ_CHECK((fp = open_memstream(&out, &n)) != NULL, "open_memstream");
		err = hset_write(&s, fp);
		fclose(fp);
		if (err == NULL)
			check_line(out, n);
		else
			FUZZ_CHECK(n == 0, "refused (%s), yet wrote %.*s", err, (int)n, out);
		free(out);
	}
	if (err != NULL) {
		FUZZ_CHECK(strncmp(err, "in:", 3) == 0 && strchr(err, '\n') == NULL, "refused with: %s", err);
		/* A line, when named, is one the input has (or the one after a last '\n'). */
		if (err[3] >= '0' && err[3] <= '9') {
			at = strtoul(err + 3, NULL, 10);
			for (lines = 1, n = 0; n < len; n++)
				lines += text[n] == '\n';
			colon = strchr(err + 3, ':');
			FUZZ_CHECK(at >= 1 && at <= lines && colon != NULL, "line %lu of %zu: %s", at, lines, err);
		}
		free(err);
	}
	hset_free(&s);
	return 0;
}
