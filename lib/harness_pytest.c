/*
 * harness_pytest: pytest-benchmark's --benchmark-json document into a
 * metric set (harness.h): each test's fastest round, in ns.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jsonl.h"
#include "msg.h"
#include "perfjson.h"
#include "util.h"

static char *
one_test(struct hset *s, const struct jrecord *b, unsigned long line)
{
	struct jrecord st = { 0 };
	const struct jfield *name, *stats, *min;
	char *test, *who, *err = NULL, *pt;

	name = jget(b, "name", 4);
	stats = jget(b, "stats", 5);
	if (name == NULL || name->type != J_STRING)
		return msgf("%s:%lu: a benchmark without a \"name\"", s->file, line);
	test = json_unescape(name->raw, name->rawlen);
	if (!hset_wants(s, test, strlen(test))) {
		free(test);
		return NULL;
	}
	pt = harness_printable(test, strlen(test));
	who = msgf("test \"%s\"", pt);
	free(pt);
	if (stats == NULL || stats->type != J_OBJECT || jparse(stats->raw, stats->rawlen, &st) != NULL)
		err = msgf("%s:%lu: %s has no \"stats\"", s->file, line, who);
	else if ((min = jget(&st, "min", 3)) == NULL || min->type != J_NUMBER)
		err = msgf("%s:%lu: %s has no runs (no number \"min\" in its stats)", s->file, line, who);
	else
		err = hset_add_scaled(s, test, strlen(test), "ns", who, min->raw, min->rawlen, 9, line);
	jrecord_free(&st);
	free(who);
	free(test);
	return err;
}

/*
 * pytest selects its tests inside its own process, so BENCH_CASES reaches
 * it as a plugin: the naming rule of harness.h again, in Python (what
 * hset_wants asks of a name), deselecting every test no case wants, and
 * none when no test would be left (the metrics line then names the case).
 */
const char harness_pytest_plugin[] =
    "# benchrec(1): BENCH_CASES as pytest's selection (harness.h's rule).\n"
    "import os\n"
    "import re\n"
    "\n"
    "\n"
    "def _stem(name):\n"
    "    return '_'.join(re.findall(r'[A-Za-z0-9]+', name))\n"
    "\n"
    "\n"
    "def _wants(cases, name):\n"
    "    st = _stem(name)\n"
    "    return st == '' or any(c == st or c.startswith(st + '_') for c in cases)\n"
    "\n"
    "\n"
    "def pytest_collection_modifyitems(config, items):\n"
    "    cases = [c for c in os.environ.get('BENCH_CASES', '').split(',') if c]\n"
    "    if not cases:\n"
    "        return\n"
    "    keep = [i for i in items if _wants(cases, i.name)]\n"
    "    drop = [i for i in items if not _wants(cases, i.name)]\n"
    "    if keep and drop:\n"
    "        config.hook.pytest_deselected(items=drop)\n"
    "        items[:] = keep\n";

char *
harness_pytest(struct hset *s, const char *text, size_t len)
{
	struct jrecord top = { 0 }, r = { 0 };
	const struct jfield *bs;
	const char *p, *item, *which;
	char *err;
	size_t ilen, n = 0;

	if ((err = harness_parse_doc(s->file, text, len, &top)) != NULL)
		goto out;
	bs = jget(&top, "benchmarks", 10);
	which = harness_which(&top);
	if (bs == NULL || bs->type != J_ARRAY || which == NULL || strcmp(which, "pytest-benchmark") != 0) {
		err = harness_notmine(s, &top, "pytest-benchmark", "\"machine_info\" and \"benchmarks\"");
		goto out;
	}
	p = bs->raw + 1;
	while (err == NULL && json_nextitem(&p, bs->raw + bs->rawlen, &item, &ilen)) {
		n++;
		if (jparse(item, ilen, &r) != NULL)
			err = msgf("%s:%lu: a benchmark that is not an object", s->file, harness_line(text, item));
		else
			err = one_test(s, &r, harness_line(text, item));
	}
	if (err == NULL && n == 0)
		err = msgf("%s:%lu: no benchmarks (did pytest select any?)", s->file, harness_line(text, bs->raw));
out:
	jrecord_free(&r);
	jrecord_free(&top);
	return err;
}
