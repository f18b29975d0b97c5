/*
 * harness_gbench: Google Benchmark's JSON (--benchmark_format=json or a
 * --benchmark_out file) into a metric set (harness.h). One time metric a
 * benchmark, in ns, and one metric a user counter; the repetitions'
 * aggregates (_mean, _median, _stddev, _cv, BigO) are left out, since
 * perfgate keeps the best of the repetitions themselves.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jsonl.h"
#include "msg.h"
#include "perfjson.h"
#include "util.h"

/* The members of a run that are not user counters. */
static const char *const notcounter[] = {
	"family_index", "per_family_instance_index", "repetitions", "repetition_index",
	"threads", "iterations", "real_time", "cpu_time",
};

static int
is_counter(const struct jfield *f)
{
	size_t i;

	if (f->type != J_NUMBER)
		return 0;
	for (i = 0; i < sizeof notcounter / sizeof notcounter[0]; i++)
		if (jfield_is(f, notcounter[i]))
			return 0;
	return 1;
}

static int
is_str(const struct jfield *f, const char *s)
{
	return f != NULL && f->type == J_STRING && memeq_str(f->raw, f->rawlen, s);
}

/* ns in one time_unit, as a power of ten; -1 for a unit this reader does not know. */
static int
unit_ns(const struct jfield *f)
{
	if (f == NULL || is_str(f, "ns"))
		return 0;
	if (is_str(f, "us"))
		return 3;
	if (is_str(f, "ms"))
		return 6;
	if (is_str(f, "s"))
		return 9;
	return -1;
}

/* One run (an element of "benchmarks") into s. */
static char *
one_run(struct hset *s, const struct jrecord *r, unsigned long line, int *runs)
{
	const struct jfield *f, *name, *t;
	char *bname, *who, *err = NULL, *cname, *unit, *pb, *pc;
	int scale;
	size_t i, n;

	name = jget(r, "run_name", 8);
	if (name == NULL || name->type != J_STRING)
		name = jget(r, "name", 4);
	if (name == NULL || name->type != J_STRING)
		return msgf("%s:%lu: a benchmark without a name", s->file, line);
	if (is_str(jget(r, "run_type", 8), "aggregate"))
		return NULL;
	bname = json_unescape(name->raw, name->rawlen);
	if (!hset_wants(s, bname, strlen(bname))) {
		free(bname);
		return NULL;
	}
	pb = harness_printable(bname, strlen(bname));
	who = msgf("\"%s\"", pb);
	if ((f = jget(r, "error_occurred", 14)) != NULL && f->type == J_TRUE) {
		f = jget(r, "error_message", 13);
		cname = f != NULL && f->type == J_STRING ? json_unescape(f->raw, f->rawlen) : NULL;
		pc = cname != NULL ? harness_printable(cname, strlen(cname)) : NULL;
		err = msgf("%s:%lu: benchmark %s reported an error%s%s", s->file, line, who,
		    pc != NULL ? ": " : "", pc != NULL ? pc : "");
		free(pc);
		free(cname);
		goto out;
	}
	/* Google Benchmark 1.8's SkipWithMessage: no measurement, and no error. */
	if ((f = jget(r, "skipped", 7)) != NULL && f->type == J_TRUE)
		goto out;
	t = jget(r, s->cpu ? "cpu_time" : "real_time", s->cpu ? 8 : 9);
	if (t == NULL || t->type != J_NUMBER) {
		err = msgf("%s:%lu: benchmark %s has no number \"%s\"", s->file, line, who,
		    s->cpu ? "cpu_time" : "real_time");
		goto out;
	}
	if ((scale = unit_ns(f = jget(r, "time_unit", 9))) < 0) {
		err = msgf("%s:%lu: benchmark %s: unknown time_unit \"%.*s\"", s->file, line, who,
		    (int)f->rawlen, f->raw);
		goto out;
	}
	/* The number as written, its point moved to ns. */
	if ((err = hset_add_scaled(s, bname, strlen(bname), "ns", who, t->raw, t->rawlen, scale,
	    line)) != NULL)
		goto out;
	(*runs)++;
	for (i = 0; i < r->n && err == NULL; i++) {
		f = &r->field[i];
		if (!is_counter(f))
			continue;
		cname = json_unescape(f->key, f->keylen);
		unit = harness_stem(cname, strlen(cname));
		/* items_per_second, bytes_per_second and kin: a rate, *_per_s. */
		n = unit != NULL ? strlen(unit) : 0;
		if (n > 11 && strcmp(unit + n - 11, "_per_second") == 0)
			strcpy(unit + n - 11, "_per_s");
		free(who);
		pc = harness_printable(cname, strlen(cname));
		who = msgf("\"%s\" counter \"%s\"", pb, pc);
		free(pc);
		err = unit == NULL ? msgf("%s:%lu: %s: the counter's name has no letter or digit",
		    s->file, line, who) : hset_add(s, bname, strlen(bname), unit, who, f->raw, f->rawlen,
		    f->num, line);
		free(unit);
		free(cname);
	}
out:
	free(who);
	free(pb);
	free(bname);
	return err;
}

char *
harness_gbench(struct hset *s, const char *text, size_t len)
{
	struct jrecord top = { 0 }, r = { 0 };
	const struct jfield *b;
	const char *p, *item, *which;
	char *err;
	size_t ilen;
	int runs = 0;

	if ((err = harness_parse_doc(s->file, text, len, &top)) != NULL)
		goto out;
	b = jget(&top, "benchmarks", 10);
	if ((which = harness_which(&top)) == NULL || strcmp(which, "Google Benchmark") != 0 ||
	    b->type != J_ARRAY) {
		err = harness_notmine(s, &top, "Google Benchmark", "\"context\" and \"benchmarks\"");
		goto out;
	}
	p = b->raw + 1;
	while (err == NULL && json_nextitem(&p, b->raw + b->rawlen, &item, &ilen)) {
		if (jparse(item, ilen, &r) != NULL)
			err = msgf("%s:%lu: a benchmark that is not an object", s->file, harness_line(text, item));
		else
			err = one_run(s, &r, harness_line(text, item), &runs);
	}
	if (err == NULL && runs == 0)
		err = msgf("%s:%lu: no benchmark runs%s", s->file, harness_line(text, b->raw),
		    b->rawlen > 2 && memchr(b->raw, '{', b->rawlen) != NULL ?
		    " (only aggregates: --benchmark_report_aggregates_only?)" : "");
out:
	jrecord_free(&r);
	jrecord_free(&top);
	return err;
}
