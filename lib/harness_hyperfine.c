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

/* hyperfine's options (1.15) that take values, and how many. */
static const struct {
	char s;			/* the short option, or 0 */
	const char *l;		/* the long one */
	int nval;
} valopt[] = {
	{ 'w', "warmup", 1 }, { 'm', "min-runs", 1 }, { 'M', "max-runs", 1 }, { 'r', "runs", 1 },
	{ 's', "setup", 1 }, { 'p', "prepare", 1 }, { 'c', "cleanup", 1 },
	{ 'P', "parameter-scan", 3 }, { 'D', "parameter-step-size", 1 }, { 'L', "parameter-list", 2 },
	{ 0, "style", 1 }, { 'S', "shell", 1 }, { 'u', "time-unit", 1 }, { 0, "export-asciidoc", 1 },
	{ 0, "export-csv", 1 }, { 0, "export-json", 1 }, { 0, "export-markdown", 1 },
	{ 0, "export-orgmode", 1 }, { 0, "output", 1 }, { 'n', "command-name", 1 },
};

/* The options that take none. */
static const char *const flagopt[] = { "-N", "-i", "--ignore-failure", "--show-output" };

/*
 * The value option arg is (its index in valopt), with *attached set when
 * its value is in arg itself ("-r5", "--runs=5"); -1 when arg is no value
 * option.
 */
static int
value_option(const char *arg, int *attached)
{
	size_t i, n;

	for (i = 0; i < sizeof valopt / sizeof valopt[0]; i++) {
		n = strlen(valopt[i].l);
		if (arg[0] == '-' && arg[1] == '-' && strncmp(arg + 2, valopt[i].l, n) == 0 &&
		    (arg[2 + n] == '\0' || arg[2 + n] == '=')) {
			*attached = arg[2 + n] == '=';
			return (int)i;
		}
		if (valopt[i].s != 0 && arg[0] == '-' && arg[1] == valopt[i].s) {
			*attached = arg[2] != '\0';
			return (int)i;
		}
	}
	return -1;
}

char **
harness_hyperfine_select(const struct hset *s, char *const *argv)
{
	size_t n, i, j, k, ncmd = 0, nname = 0, keep = 0;
	size_t *cmd, *name, *namelen;
	char **v = NULL;
	const char *cname;
	int o, att, ended = 0, *drop;

	if (s->cases == NULL)
		return NULL;
	for (n = 0; argv[n] != NULL; n++)
		;
	cmd = xmalloc((n + 1) * sizeof *cmd);
	name = xmalloc((n + 1) * sizeof *name);
	namelen = xmalloc((n + 1) * sizeof *namelen);
	drop = calloc(n + 1, sizeof *drop);
	if (drop == NULL)
		goto out;
	/* Where the commands and their names are; anything not understood leaves all as is. */
	for (i = 1, k = 0; i < n; i++) {
		if (ended || argv[i][0] != '-' || argv[i][1] == '\0') {
			cmd[ncmd++] = i;
			continue;
		}
		if (strcmp(argv[i], "--") == 0) {
			ended = 1;
			continue;
		}
		for (j = 0; j < sizeof flagopt / sizeof flagopt[0]; j++)
			if (strcmp(argv[i], flagopt[j]) == 0)
				break;
		if (j < sizeof flagopt / sizeof flagopt[0])
			continue;
		if ((o = value_option(argv[i], &att)) < 0 || valopt[o].s == 'P' || valopt[o].s == 'L')
			goto out;	/* unknown, or commands made from a template */
		if (valopt[o].s == 'p' && k++ > 0)
			goto out;	/* a --prepare a command */
		if (valopt[o].s == 'n') {
			name[nname] = i;
			namelen[nname++] = att ? 1 : 2;
		}
		if (!att && (i += (size_t)valopt[o].nval) >= n)
			goto out;
	}
	if (nname > ncmd)
		goto out;
	for (i = 0; i < ncmd; i++) {
		if (i < nname) {
			cname = argv[name[i] + namelen[i] - 1];
			/* Attached: "--command-name=x", or "-nx" (where an '=' is the name's). */
			if (namelen[i] == 1)
				cname = cname[1] == '-' ? strchr(cname, '=') + 1 : cname + 2;
		} else
			cname = argv[cmd[i]];
		if (hset_wants(s, cname, strlen(cname))) {
			keep++;
			continue;
		}
		drop[cmd[i]] = 1;
		if (i < nname)
			for (j = 0; j < namelen[i]; j++)
				drop[name[i] + j] = 1;
	}
	/* Every command, or none: nothing to take out (the metrics line says which case is missing). */
	if (keep == ncmd || keep == 0)
		goto out;
	v = xmalloc((n + 1) * sizeof *v);
	for (i = j = 0; i < n; i++)
		if (!drop[i])
			v[j++] = argv[i];
	v[j] = NULL;
out:
	free(drop);
	free(namelen);
	free(name);
	free(cmd);
	return v;
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
