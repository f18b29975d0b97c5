/*
 * budgetdiff: what one budget file changes from another (budgetdiff.h).
 * Both files are read by budget.c, so a file it refuses is refused here
 * with the same reason, and a key it gives a meaning is a key compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budgetdiff.h"
#include "jsonwrite.h"
#include "md.h"
#include "outfile.h"
#include "util.h"

static const char *const kindname[] = { "looser", "tighter", "moved", "removed", "added" };

static struct budget_change *
newchange(struct budget_diff *d, const char *key)
{
	struct budget_change *c;

	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->c = xrealloc(d->c, d->cap * sizeof *d->c);
	}
	c = &d->c[d->n++];
	memset(c, 0, sizeof *c);
	c->key = key;
	c->basesec = c->headsec = BD_ABSENT;
	c->dflt = -1;
	return c;
}

/*
 * A key present in both, its value from old to new: a change when they
 * differ, looser when new lets more through (a larger budget when
 * larger_looser, else a smaller value: runs).
 */
static void
valuechange(struct budget_diff *d, const char *key, int sec, double old, double new,
    unsigned long oldline, unsigned long newline, int larger_looser)
{
	struct budget_change *c;

	if (old == new)
		return;
	c = newchange(d, key);
	c->basesec = c->headsec = sec;
	c->base = old;
	c->head = new;
	c->baseline = oldline;
	c->headline = newline;
	c->loosens = (new > old) == larger_looser;
	c->kind = c->loosens ? BC_LOOSER : BC_TIGHTER;
}

/*
 * A key in one file only. What its absence means is dflt (-1: nothing is
 * judged, so a removal always loosens and an addition never does); a key
 * at that value changes nothing.
 */
static void
onesided(struct budget_diff *d, const char *key, int sec, double v, unsigned long line, int added,
    double dflt, int larger_looser)
{
	struct budget_change *c;

	if (dflt >= 0 && v == dflt)
		return;
	c = newchange(d, key);

	c->dflt = dflt;
	if (added) {
		c->headsec = sec;
		c->head = v;
		c->headline = line;
		c->kind = BC_ADDED;
		c->loosens = dflt >= 0 && v != dflt && (v > dflt) == larger_looser;
	} else {
		c->basesec = sec;
		c->base = v;
		c->baseline = line;
		c->kind = BC_REMOVED;
		c->loosens = dflt < 0 || (v != dflt && (dflt > v) == larger_looser);
	}
}

/* A top-level key: runs or allow_loose, each with what its absence means. */
static void
toplevel(struct budget_diff *d, const char *key, double old, unsigned long oldline, double new,
    unsigned long newline, double dflt, int larger_looser)
{
	if (oldline && newline)
		valuechange(d, key, BD_TOP, old, new, oldline, newline, larger_looser);
	else if (newline)
		onesided(d, key, BD_TOP, new, newline, 1, dflt, larger_looser);
	else if (oldline)
		onesided(d, key, BD_TOP, old, oldline, 0, dflt, larger_looser);
}

/* What a metric's absence means: a count's default, else nothing judged. */
static double
absent(const struct budget_entry *e)
{
	return e->section == BS_COUNTS ? budget_count_default(e->name, strlen(e->name)) : -1;
}

static const struct budget_entry *
findcase(const struct budget *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nacc; i++)
		if (strcmp(b->acc[i].name, name) == 0)
			return &b->acc[i];
	return NULL;
}

/* The entry of b named as e is, in e's kind of list (metrics or cases). */
static const struct budget_entry *
counterpart(const struct budget *b, const struct budget_entry *e)
{
	return e->section == BS_ACCURACY ? findcase(b, e->name) : budget_find(b, e->name, strlen(e->name));
}

/* Every entry of list: compared with its counterpart in other, or one-sided. */
static void
entries(struct budget_diff *d, const struct budget_entry *list, size_t n, const struct budget *other, int ishead)
{
	const struct budget_entry *e, *o;
	struct budget_change *c;
	size_t i;

	for (i = 0; i < n; i++) {
		e = &list[i];
		o = counterpart(other, e);
		if (o == NULL) {
			onesided(d, e->name, (int)e->section, e->budget, e->line, ishead, absent(e), 1);
		} else if (!ishead) {
			continue;	/* compared from head's side */
		} else if (o->section == e->section) {
			valuechange(d, e->name, (int)e->section, o->budget, e->budget, o->line, e->line, 1);
		} else {
			/* A direction reversed, or a time become a count: what was caught may pass. */
			c = newchange(d, e->name);
			c->basesec = (int)o->section;
			c->headsec = (int)e->section;
			c->base = o->budget;
			c->head = e->budget;
			c->baseline = o->line;
			c->headline = e->line;
			c->kind = BC_MOVED;
			c->loosens = 1;
		}
	}
}

void
budget_diff(struct budget_diff *d, const struct budget *base, const struct budget *head)
{
	memset(d, 0, sizeof *d);
	toplevel(d, "runs", (double)base->runs, base->runsline, (double)head->runs, head->runsline,
	    BUDGET_RUNS, 0);
	toplevel(d, "allow_loose", base->allow_loose, base->looseline, head->allow_loose, head->looseline, 0, 1);
	entries(d, head->entry, head->n, base, 1);
	entries(d, head->count, head->ncount, base, 1);
	entries(d, head->acc, head->nacc, base, 1);
	entries(d, base->entry, base->n, head, 0);
	entries(d, base->count, base->ncount, head, 0);
	entries(d, base->acc, base->nacc, head, 0);
}

void
budget_diff_free(struct budget_diff *d)
{
	free(d->c);
	memset(d, 0, sizeof *d);
}

/* The output. */

/* A value as the file would spell it: allow_loose's as true or false. */
static void
value(char *buf, const struct budget_change *c, double v)
{
	if (strcmp(c->key, "allow_loose") == 0 && (c->basesec == BD_TOP || c->headsec == BD_TOP))
		snprintf(buf, 32, "%s", v != 0 ? "true" : "false");
	else
		fmt_double(buf, v);
}

static const char *
secname(int sec)
{
	return sec >= 0 ? budget_section_name((enum budget_section)sec) : "";
}

/* How a sentence's parts are shown: plain on a terminal, as code in Markdown. */
struct style {
	void (*name)(FILE *fp, const char *s);	/* a key or a [section] */
	void (*text)(FILE *fp, const char *s);
};

static void
plain(FILE *fp, const char *s)
{
	fputs(s, fp);
}

static void
section(FILE *fp, const struct style *st, int sec)
{
	char buf[32];

	snprintf(buf, sizeof buf, "[%s]", secname(sec));
	st->name(fp, buf);
}

/*
 * One change as a sentence: "[counts] x_instr: 0.02 to 99, looser",
 * "x_ops: moved from [budget] to [higher], 0.1 to 0.1, looser",
 * "[budget] a_ns: removed (was 0.1), looser",
 * "runs: added (2; 3 by default), looser".
 */
static void
sentence(FILE *fp, const struct budget_change *c, const struct style *st)
{
	char old[32], new[32], dflt[32], buf[128];
	int sec = c->headsec != BD_ABSENT ? c->headsec : c->basesec;

	value(old, c, c->base);
	value(new, c, c->head);
	value(dflt, c, c->dflt);
	if (c->kind != BC_MOVED && sec != BD_TOP) {
		section(fp, st, sec);
		fputc(' ', fp);
	}
	st->name(fp, c->key);
	fputs(": ", fp);
	switch (c->kind) {
	case BC_MOVED:
		fputs("moved from ", fp);
		section(fp, st, c->basesec);
		fputs(" to ", fp);
		section(fp, st, c->headsec);
		fputs(", ", fp);
		/* FALLTHROUGH */
	case BC_LOOSER:
	case BC_TIGHTER:
		snprintf(buf, sizeof buf, "%s to %s", old, new);
		break;
	case BC_REMOVED:
	case BC_ADDED:
		if (c->dflt >= 0)
			snprintf(buf, sizeof buf, "%s (%s %s; %s by default)", kindname[c->kind],
			    c->kind == BC_ADDED ? "now" : "was", c->kind == BC_ADDED ? new : old, dflt);
		else
			snprintf(buf, sizeof buf, "%s (%s %s)", kindname[c->kind],
			    c->kind == BC_ADDED ? "now" : "was", c->kind == BC_ADDED ? new : old);
		break;
	}
	st->text(fp, buf);
	if (c->kind == BC_TIGHTER)
		st->text(fp, ", tighter");
	else if (c->loosens)
		st->text(fp, ", looser");
}

static void
jw_value(struct jwriter *w, const char *key, const struct budget_change *c, int present, double v)
{
	if (!present)
		jw_null(w, key);
	else if (strcmp(c->key, "allow_loose") == 0 && (c->basesec == BD_TOP || c->headsec == BD_TOP))
		jw_bool(w, key, v != 0);
	else
		jw_num(w, key, v);
}

static void
jw_section(struct jwriter *w, const char *key, int sec)
{
	if (sec == BD_ABSENT)
		jw_null(w, key);
	else
		jw_str(w, key, secname(sec));
}

static void
jw_line(struct jwriter *w, const char *key, unsigned long line)
{
	if (line == 0)
		jw_null(w, key);
	else
		jw_long(w, key, (long long)line);
}

static void
record(const struct budget_change *c)
{
	struct jwriter w;

	jw_begin(&w, stdout);
	jw_str(&w, "key", c->key);
	jw_section(&w, "base_section", c->basesec);
	jw_section(&w, "head_section", c->headsec);
	jw_value(&w, "base", c, c->basesec != BD_ABSENT, c->base);
	jw_value(&w, "head", c, c->headsec != BD_ABSENT, c->head);
	jw_value(&w, "default", c, c->dflt >= 0, c->dflt);
	jw_str(&w, "change", kindname[c->kind]);
	jw_bool(&w, "loosens", c->loosens);
	jw_line(&w, "base_line", c->baseline);
	jw_line(&w, "head_line", c->headline);
	jw_end(&w);
}

/* The summary, last: how many changes, the keys that loosen, both files. */
static void
summary(const struct budget_diff *d, const char *error, const char *basepath, const struct budget *base,
    const char *headpath, const struct budget *head)
{
	struct jwriter w;
	size_t i;

	jw_begin(&w, stdout);
	jw_long(&w, "changes", (long long)d->n);
	jw_open(&w, "loosened", '[');
	for (i = 0; i < d->n; i++)
		if (d->c[i].loosens)
			jw_str(&w, NULL, d->c[i].key);
	jw_close(&w);
	if (error != NULL)
		jw_str(&w, "error", error);
	jw_str(&w, "base", basepath);
	if (base->sha256[0])
		jw_str(&w, "base_sha256", base->sha256);
	jw_str(&w, "head", headpath);
	if (head->sha256[0])
		jw_str(&w, "head_sha256", head->sha256);
	jw_end(&w);
}

/* What the Markdown list shows: the changes, or why there are none to show. */
struct mdlist {
	const struct budget_diff *d;
	const char *error;
};

static void
writemd(FILE *fp, const void *arg)
{
	static const struct style st = { md_code, md_text };
	const struct mdlist *m = arg;
	size_t i;

	if (m->error != NULL) {
		fputs("- **cmpbudget: error**: ", fp);
		md_text(fp, m->error);
		fputc('\n', fp);
		return;
	}
	for (i = 0; i < m->d->n; i++) {
		fputs("- ", fp);
		sentence(fp, &m->d->c[i], &st);
		fputc('\n', fp);
	}
}

int
budget_compare(const char *basepath, const char *headpath, const char *mdpath)
{
	static const struct style st = { plain, plain };
	struct budget base = { 0 }, head = { 0 };
	struct budget_diff d = { 0 };
	struct mdlist m;
	char *baseerr, *headerr, *msg = NULL;
	const char *error;
	size_t i;
	int status = 0;

	/* Both read, each refusal said; the head's first, as the change to fix. */
	baseerr = budget_load(&base, basepath);
	headerr = budget_load(&head, headpath);
	error = headerr != NULL ? headerr : baseerr;
	if (error == NULL)
		budget_diff(&d, &base, &head);
	for (i = 0; i < d.n; i++) {
		record(&d.c[i]);
		sentence(stderr, &d.c[i], &st);
		fputc('\n', stderr);
		if (d.c[i].loosens)
			status = 1;
	}
	summary(&d, error, basepath, &base, headpath, &head);
	m.d = &d;
	m.error = error;
	if (mdpath != NULL) {
		struct outfile o;

		if ((msg = outfile_open(&o, mdpath, "w")) == NULL) {
			writemd(o.fp, &m);
			msg = outfile_commit(&o);
		}
		if (msg != NULL)
			warnmsg("%s", msg);
	}
	if (headerr != NULL)
		warnmsg("%s", headerr);
	if (baseerr != NULL)
		warnmsg("%s", baseerr);
	if (error != NULL || msg != NULL || fshut(stdout, "stdout") != 0)
		status = 2;
	free(headerr);
	free(baseerr);
	free(msg);
	budget_diff_free(&d);
	budget_free(&base);
	budget_free(&head);
	return status;
}
