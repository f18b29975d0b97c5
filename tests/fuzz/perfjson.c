/*
 * Fuzz target: the perf.json reader (doc_read, json_nextitem and
 * json_unescape in lib/jsonvalue.c). The input is the document. doc_read
 * either refuses it with one line, "perfdoc: PATH: what", and exit 2 (its
 * exit is caught by linking with -Wl,--wrap=exit), or returns a document
 * whose rows are exactly the elements of its "rows" array as the
 * reference parser (refjson.h) cuts them, each parsed as jparse parses it
 * alone; and every string of every row unescapes as the reference
 * decodes it.
 * A refusal jumps out of doc_read; what it had read is then freed here,
 * as the real program frees it by exiting.
 *
 * LDFLAGS: -Wl,--wrap=exit
 */
#include <setjmp.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "refjson.h"
#include "perfjson.h"
#include "util.h"

static jmp_buf fuzz_died;
static int fuzz_armed, fuzz_code;

void __real_exit(int code);

void
__wrap_exit(int code)
{
	if (fuzz_armed) {
		fuzz_armed = 0;
		fuzz_code = code;
		longjmp(fuzz_died, 1);
	}
	__real_exit(code);
}

/* The elements of a JSON array's raw text, by the reference parser: their count, or -1. */
static long
ref_elements(const char *raw, size_t len, const char **start, size_t *elen, long max)
{
	struct refparse r = { 0 };
	long n = 0;
	int kind;

	r.line = raw;
	r.p = raw + 1;
	r.end = raw + len;
	ref_ws(&r);
	if (r.p < r.end && *r.p == ']')
		return 0;
	for (;;) {
		const char *s = r.p;

		if (ref_value(&r, 2, &kind) < 0)
			return -1;
		if (n < max) {
			start[n] = s;
			elen[n] = (size_t)(r.p - s);
		}
		n++;
		ref_ws(&r);
		if (r.p == r.end)
			return -1;
		if (*r.p == ']')
			return n;
		if (*r.p != ',')
			return -1;
		r.p++;
		ref_ws(&r);
	}
}

static void
check_doc(const struct doc *d)
{
	static struct jrecord alone;
	const struct jfield *rows = jget(&d->top, "rows", 4);
	const char *start[64];
	size_t elen[64], i, j, n;
	long want;
	char *u, *dec;

	FUZZ_CHECK(rows != NULL && rows->type == J_ARRAY, "no rows array, yet read");
	want = ref_elements(rows->raw, rows->rawlen, start, elen, 64);
	FUZZ_CHECK(want >= 0 && (size_t)want == d->nrows, "%zu rows, the reference cuts %ld", d->nrows, want);
	for (i = 0; i < d->nrows && i < 64; i++) {
		FUZZ_CHECK(d->rowraw[i] == start[i] && d->rowlen[i] == elen[i], "row %zu: %.*s, want %.*s",
		    i + 1, (int)d->rowlen[i], d->rowraw[i], (int)elen[i], start[i]);
		FUZZ_CHECK(jparse(d->rowraw[i], d->rowlen[i], &alone) == NULL && alone.n == d->rows[i].n,
		    "row %zu parses otherwise alone", i + 1);
		for (j = 0; j < d->rows[i].n; j++) {
			const struct jfield *f = &d->rows[i].field[j];

			if (f->type != J_STRING)
				continue;
			if ((dec = malloc(f->rawlen + 1)) == NULL)
				abort();
			n = ref_decode(f->raw, f->rawlen, dec);
			u = json_unescape(f->raw, f->rawlen);
			/* A C string ends at a \u0000: compare up to it. */
			if (memchr(dec, '\0', n) != NULL)
				n = strlen(dec);
			FUZZ_CHECK(strlen(u) == n && memcmp(u, dec, n) == 0, "row %zu: \"%.*s\" unescapes as %s",
			    i + 1, (int)f->rawlen, f->raw, u);
			free(u);
			free(dec);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64], msg[4096];
	static int fd = -1;
	static struct doc d;	/* static: doc_read changes it, then may jump out */
	FILE *saved, *fp;
	size_t len, plen;
	volatile int read = 0;

	setargv0("perfdoc");
	if (fd < 0) {
		FUZZ_CHECK((fd = memfd_create("perfjson", 0)) >= 0, "memfd_create");
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	FUZZ_CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size, "write memfd");
	saved = stderr;
	FUZZ_CHECK((fp = fmemopen(msg, sizeof msg, "w")) != NULL, "fmemopen");
	stderr = fp;
	fuzz_code = -1;
	if (setjmp(fuzz_died) == 0) {
		fuzz_armed = 1;
		doc_read(&d, path);
		fuzz_armed = 0;
		read = 1;
	}
	stderr = saved;
	len = (size_t)ftell(fp);
	fclose(fp);
	msg[len < sizeof msg ? len : sizeof msg - 1] = '\0';
	if (!read) {
		plen = strlen("perfdoc: ") + strlen(path);
		FUZZ_CHECK(fuzz_code == 2, "exit %d", fuzz_code);
		FUZZ_CHECK(strncmp(msg, "perfdoc: ", 9) == 0 && strncmp(msg + 9, path, strlen(path)) == 0 &&
		    msg[plen] == ':' && strchr(msg, '\n') == msg + len - 1, "refused with: %s", msg);
		/* A refusal in the rows leaves the row it was parsing outside nrows. */
		if (d.rows != NULL)
			jrecord_free(&d.rows[d.nrows]);
		doc_free(&d);
		return 0;
	}
	FUZZ_CHECK(msg[0] == '\0', "read, yet said %s", msg);
	check_doc(&d);
	doc_free(&d);
	return 0;
}
