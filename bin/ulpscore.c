/*
 * ulpscore: score each side's results of one case against an oracle of
 * higher precision, and join the scores to the case's row.
 *
 * Scoring (-o) reads the oracle's results, raw float64, and each side's,
 * raw float32 or int32 (-t) in the machine's byte order, as bench.c and
 * kata/numpy_worker.py write them under BENCH_EVAL, and writes one record:
 * the case, the result type, the points, the case's budget in ulp (-b's
 * [accuracy] section; null when none), and for each side max_ulp,
 * max_ulp_finite, disagree and coverage (accuracy.h). Joining (-j) writes
 * refjudge(1)'s row record with the scores as its "accuracy" member, each
 * reference labelled (ahead, faster-less-accurate, tie, tie-less-accurate,
 * behind, tradeoff) on max_ulp_finite.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accbudget.h"
#include "accuracy.h"
#include "buf.h"
#include "jsonl.h"
#include "perfjson.h"
#include "util.h"
#include "version.h"

/* A number for a record: "inf" (a string) where JSON has no number. */
static void
putnum(struct buf *b, double v)
{
	char num[32];

	if (isinf(v)) {
		buf_puts(b, "\"inf\"");
		return;
	}
	fmt_double(num, v);
	buf_puts(b, num);
}

/* -o: the scores record. */
static int
score(const char *casename, const char *type, const char *budgetfile, const char *oracle,
    char **sides, int nsides)
{
	struct accbudget ab = { 0 };
	struct buf b = { 0 };
	char err[512], *text, *eq, *name;
	double *want, budget = -1;
	size_t len, n, k, i;
	int f32 = strcmp(type, "f32") == 0, s;

	if (!f32 && strcmp(type, "i32") != 0)
		die("-t %s: not f32 or i32", type);
	if (budgetfile != NULL) {
		if (accbudget_read(budgetfile, &ab, err, sizeof err) != NULL)
			die("%s", err);
		budget = accbudget_get(&ab, casename);
		accbudget_free(&ab);
	}
	text = read_all(oracle, &len);
	if (len == 0 || len % sizeof(double) != 0)
		die("%s: the oracle wrote %zu bytes, not a whole number of float64 values", oracle, len);
	n = len / sizeof(double);
	want = xmalloc(len);
	memcpy(want, text, len);
	free(text);
	buf_puts(&b, "{\"case\":");
	buf_str(&b, casename);
	buf_printf(&b, ",\"result\":\"%s\",\"n\":%zu,\"budget_ulp\":", type, n);
	if (budget < 0)
		buf_puts(&b, "null");
	else
		putnum(&b, budget);
	buf_puts(&b, ",\"sides\":[");
	for (s = 0; s < nsides; s++) {
		struct acc_score sc = { 0 };

		if ((eq = strchr(sides[s], '=')) == NULL || eq == sides[s])
			die("%s: expected side=file", sides[s]);
		name = xmemdup(sides[s], (size_t)(eq - sides[s]));
		text = read_all(eq + 1, &len);
		if (len % 4 != 0 || len / 4 > n)
			die("%s: side %s wrote %zu bytes: the oracle has %zu values of 4 bytes",
			    eq + 1, name, len, n);
		k = len / 4;
		for (i = 0; i < k; i++) {
			if (f32) {
				float v;

				memcpy(&v, text + 4 * i, 4);
				acc_add_f32(&sc, v, want[i]);
			} else {
				int32_t v;

				memcpy(&v, text + 4 * i, 4);
				acc_add_i32(&sc, v, want[i]);
			}
		}
		acc_missing(&sc, n - k);
		buf_printf(&b, "%s{\"side\":", s ? "," : "");
		buf_str(&b, name);
		buf_puts(&b, ",\"max_ulp\":");
		putnum(&b, acc_max_ulp(&sc));
		buf_puts(&b, ",\"max_ulp_finite\":");
		putnum(&b, sc.max_ulp_finite);
		buf_printf(&b, ",\"disagree\":%zu,\"coverage\":", sc.disagree);
		putnum(&b, acc_coverage(&sc));
		buf_puts(&b, "}");
		free(name);
		free(text);
	}
	buf_puts(&b, "]}\n");
	fwrite(b.p, 1, b.n, stdout);
	free(b.p);
	free(want);
	return fshut(stdout, "<stdout>");
}

/* A side's max_ulp_finite in the scores; or exit 2. */
static double
side_ulp(const char *scores, const char *side, const char *where)
{
	struct jrecord top = { 0 };
	struct items it = { 0 };
	double v = -1;
	char *s;

	jparse(scores, strlen(scores), &top);
	for (doc_items_open(&it, &top, "sides", where); doc_items_next(&it, where); ) {
		s = doc_str(&it.r, "side", where);
		if (strcmp(s, side) == 0)
			v = doc_num(&it.r, "max_ulp_finite", where);
		free(s);
	}
	jrecord_free(&it.r);
	jrecord_free(&top);
	if (v < 0)
		die("%s: no side %s", where, side);
	return v;
}

/* -j: the row with its accuracy and labels. */
static int
join(const char *accpath, const char *rowpath)
{
	struct jrecord acc = { 0 }, row = { 0 };
	struct items it = { 0 };
	struct buf b = { 0 };
	const struct jfield *f;
	const char *err, *label;
	char *atext, *rtext, *impl, *ref, *verdict;
	size_t alen, rlen;
	double budget, iu;
	int n = 0;

	atext = read_all(accpath, &alen);
	while (alen > 0 && atext[alen - 1] == '\n')
		atext[--alen] = '\0';
	rtext = read_all(rowpath, &rlen);
	while (rlen > 0 && rtext[rlen - 1] == '\n')
		rtext[--rlen] = '\0';
	if ((err = jparse(atext, alen, &acc)) != NULL)
		die("%s: %s", accpath, err);
	if ((err = jparse(rtext, rlen, &row)) != NULL)
		die("%s: %s", rowpath, err);
	if (jget(&row, "accuracy", 8) != NULL)
		die("%s: the row has its accuracy already", rowpath);
	f = jget(&acc, "budget_ulp", 10);
	if (f == NULL || (f->type != J_NUMBER && f->type != J_NULL))
		die("%s: no number or null \"budget_ulp\"", accpath);
	budget = f->type == J_NUMBER ? f->num : 0;
	/* The implementation is the first side scored. */
	doc_items_open(&it, &acc, "sides", accpath);
	if (!doc_items_next(&it, accpath))
		die("%s: no side", accpath);
	impl = doc_str(&it.r, "side", accpath);
	iu = doc_num(&it.r, "max_ulp_finite", accpath);
	buf_add(&b, rtext, rlen - 1);
	buf_puts(&b, ",\"accuracy\":");
	buf_add(&b, atext, alen - 1);
	buf_puts(&b, ",\"labels\":[");
	if (jget(&row, "references", 10) != NULL)
		for (doc_items_open(&it, &row, "references", rowpath); doc_items_next(&it, rowpath); ) {
			ref = doc_str(&it.r, "reference", rowpath);
			verdict = doc_str(&it.r, "verdict", rowpath);
			if ((label = acc_label(verdict, iu, side_ulp(atext, ref, accpath), budget)) == NULL)
				die("%s: verdict %s of %s: not slower, faster or tie", rowpath, verdict, ref);
			buf_printf(&b, "%s{\"reference\":", n++ ? "," : "");
			buf_str(&b, ref);
			buf_printf(&b, ",\"label\":\"%s\"}", label);
			free(ref);
			free(verdict);
		}
	buf_puts(&b, "]}}\n");
	fwrite(b.p, 1, b.n, stdout);
	free(b.p);
	free(impl);
	free(atext);
	free(rtext);
	jrecord_free(&it.r);
	jrecord_free(&acc);
	jrecord_free(&row);
	return fshut(stdout, "<stdout>");
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s -c case -t f32|i32 [-b budget.toml] -o oracle side=file ...\n"
	    "       %s -j scores.json row.json\n"
	    "       %s -V\n", argv0, argv0, argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	const char *casename = NULL, *type = "f32", *budget = NULL, *oracle = NULL, *acc = NULL;
	int c;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opterr = 0;
	while ((c = getopt(argc, argv, ":b:c:j:o:t:")) != -1) {
		switch (c) {
		case 'b': budget = optarg; break;
		case 'c': casename = optarg; break;
		case 'j': acc = optarg; break;
		case 'o': oracle = optarg; break;
		case 't': type = optarg; break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (acc != NULL) {
		if (argc != 1 || oracle != NULL)
			usage();
		return join(acc, argv[0]);
	}
	if (oracle == NULL || casename == NULL || argc < 1)
		usage();
	return score(casename, type, budget, oracle, argv, argc);
}
