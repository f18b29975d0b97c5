/*
 * harness_hyperfine: hyperfine's --export-json document into a metric set
 * (harness.h): each command's fastest run, and the user and system time
 * hyperfine exports for it (the means over its runs: hyperfine 1.15 keeps
 * no per-run user or system time).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jsonl.h"
#include "msg.h"
#include "perfjson.h"
#include "util.h"

/* The first non-zero exit code of a result's "exit_codes", or 0. */
static long
failed_code(const struct jfield *codes)
{
	const char *p, *item;
	size_t len;
	long c;

	if (codes == NULL || codes->type != J_ARRAY)
		return 0;
	p = codes->raw + 1;
	while (json_nextitem(&p, codes->raw + codes->rawlen, &item, &len))
		if ((c = strtol(item, NULL, 10)) != 0)
			return c;
	return 0;
}

static char *
one_result(struct hset *s, const struct jrecord *r, unsigned long line)
{
	static const struct { const char *member, *unit; } fig[] = {
		{ "min", "ns" }, { "user", "user_ns" }, { "system", "sys_ns" },
	};
	const struct jfield *c, *f;
	char *cmd, *who, *err = NULL, *pc;
	size_t i;
	long code;

	c = jget(r, "command", 7);
	if (c == NULL || c->type != J_STRING)
		return msgf("%s:%lu: a result without a \"command\"", s->file, line);
	cmd = json_unescape(c->raw, c->rawlen);
	if (!hset_wants(s, cmd, strlen(cmd))) {
		free(cmd);
		return NULL;
	}
	pc = harness_printable(cmd, strlen(cmd));
	who = msgf("command \"%s\"", pc);
	free(pc);
	if ((code = failed_code(jget(r, "exit_codes", 10))) != 0)
		err = msgf("%s:%lu: %s exited with status %ld", s->file, line, who, code);
	for (i = 0; i < sizeof fig / sizeof fig[0] && err == NULL; i++) {
		f = jget(r, fig[i].member, strlen(fig[i].member));
		if (f == NULL || f->type != J_NUMBER)
			err = msgf("%s:%lu: %s has no number \"%s\"", s->file, line, who, fig[i].member);
		else
			err = hset_add_scaled(s, cmd, strlen(cmd), fig[i].unit, who, f->raw, f->rawlen, 9, line);
	}
	free(who);
	free(cmd);
	return err;
}

char *
harness_hyperfine(struct hset *s, const char *text, size_t len)
{
	struct jrecord top = { 0 }, r = { 0 };
	const struct jfield *res;
	const char *p, *item, *which;
	char *err;
	size_t ilen, n = 0;

	if ((err = harness_parse_doc(s->file, text, len, &top)) != NULL)
		goto out;
	res = jget(&top, "results", 7);
	which = harness_which(&top);
	if (res == NULL || res->type != J_ARRAY || (which != NULL && strcmp(which, "hyperfine") != 0)) {
		err = harness_notmine(s, &top, "hyperfine", "\"results\"");
		goto out;
	}
	p = res->raw + 1;
	while (err == NULL && json_nextitem(&p, res->raw + res->rawlen, &item, &ilen)) {
		n++;
		if (jparse(item, ilen, &r) != NULL)
			err = msgf("%s:%lu: a result that is not an object", s->file, harness_line(text, item));
		else
			err = one_result(s, &r, harness_line(text, item));
	}
	if (err == NULL && n == 0)
		err = msgf("%s:%lu: no results", s->file, harness_line(text, res->raw));
out:
	jrecord_free(&r);
	jrecord_free(&top);
	return err;
}
