/*
 * gatedir: a stored gate's files (gatedir.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "gatedir.h"
#include "jsonl.h"
#include "jsonvalue.h"
#include "msg.h"
#include "util.h"

void
gatedir_hold(int on)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigprocmask(on ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

char *
gatedir_put(const char *dir, const char *name, const char *p, size_t n)
{
	char *tmp = msgf("%s/%s.tmp", dir, name), *path = msgf("%s/%s", dir, name), *err = NULL;
	FILE *fp;

	if ((fp = fopen(tmp, "w")) == NULL)
		err = msgf("%s: %s", tmp, strerror(errno));
	else {
		int bad = (n > 0 && fwrite(p, 1, n, fp) != n) || fflush(fp) != 0 || ferror(fp);

		if (fclose(fp) != 0 || bad)
			err = msgf("write %s: %s", tmp, strerror(errno ? errno : EIO));
		else if (rename(tmp, path) != 0)
			err = msgf("rename %s: %s", tmp, strerror(errno));
		if (err != NULL)
			unlink(tmp);
	}
	free(tmp);
	free(path);
	return err;
}

void
gatedir_age(const char *dir, const char *name)
{
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	char *path = msgf("%s/%s", dir, name);

	utimensat(AT_FDCWD, path, ts, 0);
	free(path);
}

/* The whole of file dir/name, NUL-ended, or NULL; its length in *n. */
static char *
slurp(const char *dir, const char *name, size_t *n)
{
	char *path = msgf("%s/%s", dir, name);
	struct buf b = { 0 };
	char chunk[4096];
	size_t got;
	FILE *fp;

	fp = fopen(path, "r");
	free(path);
	if (fp == NULL)
		return NULL;
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, got);
	if (ferror(fp)) {
		fclose(fp);
		free(b.p);
		return NULL;
	}
	fclose(fp);
	buf_add(&b, "", 1);
	*n = b.n - 1;
	return b.p;
}

/* The value of "key value" line key in text, allocated, or NULL. */
static char *
keyval(const char *text, const char *key)
{
	size_t k = strlen(key);
	const char *p, *e;

	for (p = text; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, k) == 0 && p[k] == ' ') {
			p += k + 1;
			e = strchr(p, '\n');
			return e ? msgf("%.*s", (int)(e - p), p) : xstrdup(p);
		}
	}
	return NULL;
}

int
gatedir_error(const char *dir, const char *side, const char *step, const char *msg, const char *extra)
{
	char *value = NULL, *key = NULL, *src = NULL;
	size_t n;
	int status;

	if (strcmp(side, "both") != 0) {
		char *name = msgf("%s.value", side);

		if ((value = slurp(dir, name, &n)) != NULL && n > 0 && value[n - 1] == '\n')
			value[n - 1] = '\0';
		free(name);
		name = msgf("%s.key", side);
		if ((key = slurp(dir, name, &n)) != NULL)
			src = keyval(key, "source");
		free(name);
	}
	status = gatedir_fail(dir, side, step, msg, value, src, extra);
	free(value);
	free(key);
	free(src);
	return status;
}

int
gatedir_fail(const char *dir, const char *side, const char *step, const char *msg, const char *value,
    const char *source, const char *extra)
{
	char *commit = NULL, *dirty = NULL, *what = NULL, *full, *err;
	const char *mark;
	struct buf rec = { 0 };
	int isfile = source != NULL && strncmp(source, "sha256:", 7) == 0;

	if (value != NULL && *value == '\0')
		value = NULL;
	/* A commit's source is COMMIT or COMMIT+dirty:DIGEST (gate.sh identify). */
	if (source != NULL && *source && !isfile) {
		mark = strstr(source, "+dirty:");
		commit = mark ? msgf("%.*s", (int)(mark - source), source) : xstrdup(source);
		if (mark && mark[7])
			dirty = xstrdup(mark + 7);
	}
	/* What the side is, as the gate's messages name it (gate.sh describe). */
	if (value != NULL && isfile)
		what = msgf("%s (%s): ", value, source);
	else if (value != NULL && commit != NULL && dirty != NULL)
		what = msgf("%s (commit %s with uncommitted changes %s): ", value, commit, dirty);
	else if (value != NULL && commit != NULL)
		what = msgf("%s (commit %s): ", value, commit);
	else if (value != NULL)
		what = msgf("%s: ", value);
	full = msgf("%s: %s: %s%s", side, step, what ? what : "", msg);
	warnmsg("%s", full);
	buf_puts(&rec, "{\"verdict\":\"error\",\"error\":");
	buf_str(&rec, full);
	buf_puts(&rec, ",\"side\":");
	buf_str(&rec, side);
	buf_puts(&rec, ",\"step\":");
	buf_str(&rec, step);
	if (value != NULL) {
		buf_printf(&rec, ",\"%s\":", isfile ? "file" : "revision");
		buf_str(&rec, value);
	}
	if (commit != NULL) {
		buf_puts(&rec, ",\"commit\":");
		buf_str(&rec, commit);
	}
	if (dirty != NULL) {
		buf_puts(&rec, ",\"dirty\":");
		buf_str(&rec, dirty);
	}
	if (extra != NULL)
		buf_puts(&rec, extra);
	buf_puts(&rec, "}\n");
	gatedir_hold(1);
	{
		char *line = msgf("%s: %s\n", argv0, full);

		err = gatedir_put(dir, "verdict.txt", line, strlen(line));
		free(line);
	}
	if (err == NULL)
		err = gatedir_put(dir, "verdict.jsonl", rec.p, rec.n);
	/* Dated 1970, so that make never trusts it: the next gate tries again. */
	if (err == NULL)
		gatedir_age(dir, "verdict.jsonl");
	gatedir_hold(0);
	if (err != NULL)
		die("%s", err);
	free(rec.p);
	free(full);
	free(what);
	free(commit);
	free(dirty);
	return 2;
}

/* Does record rec carry every "member NAME VALUE" line of key as a string member? */
static int
carries(const struct jrecord *rec, const char *key)
{
	const struct jfield *f;
	const char *p, *name, *sp, *e;
	char *v;
	int same;

	for (p = key; p != NULL && *p; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (strncmp(p, "member ", 7) != 0)
			continue;
		name = p + 7;
		if ((sp = memchr(name, ' ', (size_t)((e ? e : name + strlen(name)) - name))) == NULL)
			return 0;
		if ((f = jget(rec, name, (size_t)(sp - name))) == NULL || f->type != J_STRING)
			return 0;
		v = json_unescape(f->raw, f->rawlen);
		same = strlen(v) == (size_t)((e ? e : sp + strlen(sp)) - sp - 1) && memcmp(v, sp + 1, strlen(v)) == 0;
		free(v);
		if (!same)
			return 0;
	}
	return 1;
}

int
gatedir_match(const char *dir, const char *side)
{
	struct jrecord rec = { 0 };
	const struct jfield *f;
	char *name = msgf("%s.key", side), *key, *runs;
	const char *p, *e;
	size_t n, kn, seen = 0;
	int ok;

	key = slurp(dir, name, &kn);
	free(name);
	if ((runs = slurp(dir, "runs.jsonl", &n)) == NULL) {
		free(key);
		return 1;
	}
	ok = key != NULL && n > 0 && runs[n - 1] == '\n';
	for (p = runs; ok && p < runs + n; p = e + 1) {
		e = memchr(p, '\n', (size_t)(runs + n - p));
		if (jparse(p, (size_t)(e - p), &rec) != NULL)
			ok = 0;
		else if ((f = jget(&rec, "side", 4)) != NULL && f->type == J_STRING && f->rawlen == strlen(side) &&
		    memcmp(f->raw, side, f->rawlen) == 0) {
			seen++;
			ok = carries(&rec, key);
		}
	}
	jrecord_free(&rec);
	free(key);
	free(runs);
	return ok && seen > 0;
}

int
gatedir_reject(const char *dir, const char *side)
{
	char *from, *to;

	if (gatedir_match(dir, side))
		return 0;
	from = msgf("%s/runs.jsonl", dir);
	to = msgf("%s/runs.rejected.jsonl", dir);
	if (rename(from, to) != 0 && errno != ENOENT)
		die("%s:", from);
	warnmsg("%s: the rounds in %s are not whole or not of this %s: measured again", side, from, side);
	free(from);
	free(to);
	return 1;
}

void
gatedir_make(const char *dir)
{
	char *path = xstrdup(dir), *q;

	for (q = path + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		mkdir(path, 0777);
		*q = '/';
	}
	free(path);
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		die("%s:", dir);
}

int
gatedir_say(const char *dir, const char *reasonfile, int text)
{
	struct jrecord rec = { 0 };
	const struct jfield *f;
	char *recs, *p, *last, *why = NULL;
	size_t n, tn;
	int status = 2;

	if (text && (p = slurp(dir, "verdict.txt", &tn)) != NULL) {
		fwrite(p, 1, tn, stderr);
		free(p);
	}
	if ((recs = slurp(dir, "verdict.jsonl", &n)) == NULL || n == 0 || recs[n - 1] != '\n') {
		warnmsg("%s/verdict.jsonl: no verdict, or not a whole one", dir);
		free(recs);
		return 2;
	}
	/* The summary record, last, decides. */
	for (last = recs + n - 1; last > recs && last[-1] != '\n'; last--)
		;
	if (jparse(last, (size_t)(recs + n - 1 - last), &rec) == NULL && (f = jget(&rec, "verdict", 7)) != NULL &&
	    f->type == J_STRING) {
		const struct jfield *r;

		if (f->rawlen == 2 && memcmp(f->raw, "ok", 2) == 0)
			status = 0;
		else if (f->rawlen == 9 && memcmp(f->raw, "regressed", 9) == 0)
			status = 1;
		if ((r = jget(&rec, "error", 5)) != NULL && r->type == J_STRING)
			why = json_unescape(r->raw, r->rawlen);
		else if ((r = jget(&rec, "reason", 6)) != NULL && r->type == J_STRING) {
			char *u = json_unescape(r->raw, r->rawlen);

			why = msgf("%.*s: %s", (int)f->rawlen, f->raw, u);
			free(u);
		}
	}
	jrecord_free(&rec);
	/* Records that cannot be written leave the caller without an answer, whatever the verdict. */
	if (fwrite(recs, 1, n, stdout) != n || fflush(stdout) != 0 || ferror(stdout)) {
		warnmsg("write stdout: %s: the records could not be written to standard output", strerror(errno));
		status = 2;
	}
	free(recs);
	if (status == 2 && reasonfile != NULL && *reasonfile) {
		FILE *fp = fopen(reasonfile, "w");

		if (fp != NULL) {
			fprintf(fp, "gate: %s\n", why ? why : "the verdict could not be read");
			fclose(fp);
		}
	}
	free(why);
	return status;
}
