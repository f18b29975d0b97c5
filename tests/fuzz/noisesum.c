/*
 * Fuzz target: noisesum's sum of an A/A study (readfile, addmetric,
 * addsummary, propose, putrecord, putline: static in bin/noisesum.c, so
 * the file is included here whole, its main renamed). The input is one
 * file of verdict records, read through a memfd as noisesum reads a file.
 * Checked: a refusal is one line naming the file (and a line of it, when
 * a line is to blame); an accepted file's gates, false alarms, metrics in
 * order, worst drifts and counts are what a plain pass over its lines
 * computes apart; each proposed budget is the smallest whole percent, 1 %
 * at least, not below the margin times the drift (less a trillionth); the
 * record is one valid JSON line whose members are these, numbers selected
 * byte for byte; the line on stderr is one line.
 */
#include <sys/mman.h>

#include "fuzz.h"

#define main noisesum_main
#include "../../bin/noisesum.c"
#undef main

/* Every static of noisesum back to its start, its memory freed. */
static void
reset(void)
{
	size_t i;

	for (i = 0; i < names.n; i++) {
		free(metric[i].worst);
		free(metric[i].budget);
		free(metric[i].where);
		free(metric[i].worstwhere);
	}
	names_free(&names);
	free(metric);
	metric = NULL;
	capmetric = 0;
	gates = alarms = inrecs = 0;
	free(budget);
	free(budget_sha256);
	free(budgetwhere);
	free(pending);
	budget = budget_sha256 = budgetwhere = pending = NULL;
}

/* The reference: per metric, its name, worst drift as written, gates. */
struct ref {
	const char *name, *worst;
	size_t namelen, worstlen;
	double drift;
	long gates;
};

/* A plain pass over an accepted file's lines: jparse each, sum apart. */
static size_t
sumapart(const char *p, const char *end, struct ref *ref, long *ngates, long *nalarms)
{
	struct jrecord rec = { 0 };
	const struct jfield *f, *d, *b;
	const char *nl;
	size_t n = 0, i, len;
	double drift;
	char *line;

	*ngates = *nalarms = 0;
	/* Lines as every reader of records takes them (lib/jsonreader.c):
	 * a byte order mark before the first is not part of it, nor a
	 * carriage return before a newline. */
	if (end - p >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (jblank(p, len))
			continue;
		line = xmemdup(p, len);
		FUZZ_CHECK(jparse(line, len, &rec) == NULL, "an accepted line does not parse: %s", line);
		if ((f = jget(&rec, "metric", 6)) == NULL) {
			f = jget(&rec, "verdict", 7);
			(*ngates)++;
			*nalarms += f->rawlen == 9 && memcmp(f->raw, "regressed", 9) == 0;
			free(line);
			continue;
		}
		d = jget(&rec, "delta", 5);
		b = jget(&rec, "better", 6);
		drift = b && b->rawlen == 6 && memcmp(b->raw, "higher", 6) == 0 ? -d->num : d->num;
		/* Pointers into the input, not into line, so that they outlive it. */
		for (i = 0; i < n; i++)
			if (ref[i].namelen == f->rawlen && memcmp(ref[i].name, f->raw, f->rawlen) == 0)
				break;
		if (i == n) {
			ref[n].name = p + (f->raw - line);
			ref[n].namelen = f->rawlen;
			ref[n].gates = 0;
			ref[n].worst = NULL;
			n++;
		}
		if (ref[i].worst == NULL || drift > ref[i].drift) {
			ref[i].worst = p + (d->raw - line);
			ref[i].worstlen = d->rawlen;
			ref[i].drift = drift;
		}
		ref[i].gates++;
		free(line);
	}
	jrecord_free(&rec);
	return n;
}

/* The members of the record's object member key, checked against the reference. */
static void
checkmap(const struct jrecord *out, const char *key, const struct ref *ref, size_t n, int what)
{
	const struct jfield *f = jget(out, key, strlen(key));
	struct jrecord map = { 0 };
	char num[32];
	size_t i;

	FUZZ_CHECK(f != NULL && f->type == J_OBJECT, "no object %s", key);
	FUZZ_CHECK(jparse(f->raw, f->rawlen, &map) == NULL, "%s does not parse", key);
	FUZZ_CHECK(map.n == n, "%s has %zu members, %zu metrics", key, map.n, n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(map.field[i].keylen == ref[i].namelen && memcmp(map.field[i].key, ref[i].name, ref[i].namelen) == 0,
		    "%s: member %zu is not the metric read %zu-th", key, i, i);
		if (what == 'w')
			FUZZ_CHECK(map.field[i].rawlen == ref[i].worstlen && memcmp(map.field[i].raw, ref[i].worst, ref[i].worstlen) == 0,
			    "%s: %.*s is not the worst delta as written, %.*s", key, (int)map.field[i].rawlen,
			    map.field[i].raw, (int)ref[i].worstlen, ref[i].worst);
		else if (what == 'j')
			FUZZ_CHECK(map.field[i].num == (double)ref[i].gates, "%s: %ld gates", key, ref[i].gates);
		else if (what == 's') {
			fmt_double(num, metric[i].proposed);
			FUZZ_CHECK(memeq_str(map.field[i].raw, map.field[i].rawlen, num), "%s: not fmt_double's", key);
		}
	}
	jrecord_free(&map);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct jrecord out = { 0 };
	struct ref *ref;
	char path[64], *msg, *rec = NULL, *line = NULL;
	size_t n, i, reclen = 0, linelen = 0;
	long ngates, nalarms;
	double margin = 1.5, x, pct;
	FILE *saved, *fp;
	int fd;

	fd = memfd_create("noisesum", 0);
	FUZZ_CHECK(fd >= 0, "memfd_create");
	FUZZ_CHECK(size == 0 || write(fd, data, size) == (ssize_t)size, "write");
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	msg = readfile(path);
	for (i = 0; msg == NULL && i < names.n; i++)
		msg = propose(&metric[i], margin);
	close(fd);
	if (msg != NULL) {
		FUZZ_CHECK(strncmp(msg, path, strlen(path)) == 0 && msg[strlen(path)] == ':',
		    "a refusal that does not name the file: %s", msg);
		FUZZ_CHECK(strchr(msg, '\n') == NULL, "a refusal of more than one line: %s", msg);
		free(msg);
		reset();
		return 0;
	}
	ref = xmalloc((size / 2 + 1) * sizeof *ref);
	n = sumapart(p, p + size, ref, &ngates, &nalarms);
	FUZZ_CHECK(ngates == gates && nalarms == alarms, "%ld gates, %ld false alarms; apart %ld, %ld",
	    gates, alarms, ngates, nalarms);
	FUZZ_CHECK(n == names.n, "%zu metrics; apart %zu", names.n, n);
	for (i = 0; i < n; i++) {
		pct = metric[i].proposed * 100;
		x = metric[i].drift * margin * 100;
		FUZZ_CHECK(pct >= 1 && floor(pct + 0.5) / 100 == metric[i].proposed, "not a whole percent: %.17g", metric[i].proposed);
		pct = floor(pct + 0.5);
		FUZZ_CHECK(pct >= x - fabs(x) * 1e-12, "%.17g %% does not hold %.17g %%", pct, x);
		FUZZ_CHECK(pct == 1 || pct - 1 < x - fabs(x) * 1e-12, "%.17g %% is not the smallest for %.17g %%", pct, x);
	}
	/* The record and the line, written where they can be read back. */
	saved = stdout;
	fp = open_memstream(&rec, &reclen);
	FUZZ_CHECK(fp != NULL, "open_memstream");
	stdout = fp;
	putrecord(margin);
	stdout = saved;
	fclose(fp);
	saved = stderr;
	fp = open_memstream(&line, &linelen);
	FUZZ_CHECK(fp != NULL, "open_memstream");
	stderr = fp;
	putline();
	stderr = saved;
	fclose(fp);
	FUZZ_CHECK(reclen > 0 && rec[reclen - 1] == '\n' && memchr(rec, '\n', reclen - 1) == NULL, "not one line: %s", rec);
	FUZZ_CHECK(jparse(rec, reclen - 1, &out) == NULL, "the record does not parse: %s", rec);
	FUZZ_CHECK(jget(&out, "gates", 5)->num == (double)gates, "gates");
	FUZZ_CHECK(jget(&out, "false_alarms", 12)->num == (double)alarms, "false_alarms");
	FUZZ_CHECK(jget(&out, "margin", 6)->num == margin, "margin");
	checkmap(&out, "worst_drift", ref, n, 'w');
	checkmap(&out, "budgets", ref, n, 'b');
	checkmap(&out, "smallest_budget", ref, n, 's');
	checkmap(&out, "judged", ref, n, 'j');
	FUZZ_CHECK(linelen > 7 && strncmp(line, "noise: ", 7) == 0 && line[linelen - 1] == '\n', "the line: %s", line);
	jrecord_free(&out);
	free(rec);
	free(line);
	free(ref);
	reset();
	return 0;
}
