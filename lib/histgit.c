/*
 * histgit: what perfgate's history asks of git. git is the store and the
 * transport: the records are notes under refs/notes/perfgate, so any
 * number of runners record at once and push and merge them as they push
 * commits, with no server.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "histgit.h"
#include "histnote.h"
#include "msg.h"
#include "proc.h"
#include "util.h"

/* One line a commit: hash, parents, subject, then its note's lines. */
#define LOGFMT "--format=%H%n%P%n%s%n%N"

int
hg_run(char *const argv[], char **out, size_t *len, int quiet)
{
	struct proc_opts o = { 0 };
	struct proc_result r = { 0 };
	const char *why;
	int fd = -1, saved = -1, st;

	o.argv = argv;
	o.capture_stdout = out != NULL;
	if (quiet) {
		/* git's own chatter ("Overwriting existing notes") says nothing ours does not. */
		fflush(stderr);
		saved = dup(2);
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 2);
	}
	why = proc_run(&o, &r);
	if (quiet) {
		if (saved >= 0) {
			dup2(saved, 2);
			close(saved);
		}
		if (fd >= 0)
			close(fd);
	}
	if (why != NULL || !r.started) {
		proc_result_free(&r);
		return -1;
	}
	if (out != NULL) {
		*out = r.out;
		*len = r.outlen;
		r.out = NULL;
	}
	st = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : WIFSIGNALED(r.status) ? 128 + WTERMSIG(r.status) : 2;
	proc_result_free(&r);
	return st;
}

char *
hg_line(const char *a, const char *b, const char *c, const char *d)
{
	char *argv[] = { "git", (char *)a, (char *)b, (char *)c, (char *)d, NULL };
	char *out = NULL;
	size_t len = 0;

	if (hg_run(argv, &out, &len, 1) != 0) {
		free(out);
		return NULL;
	}
	out[strcspn(out, "\n")] = '\0';
	return out;
}

char *
hg_commit(const char *rev)
{
	char *spec, *h;

	if (rev[0] == '-')
		return NULL;
	spec = msgf("%s^{commit}", rev);
	h = hg_line("rev-parse", "--verify", "--quiet", spec);
	free(spec);
	return h;
}

char *
hg_whole(void)
{
	char *s = hg_line("rev-parse", "--is-shallow-repository", NULL, NULL);
	int shallow;

	if (s == NULL)
		return msgf("not in a git repository");
	shallow = strcmp(s, "true") == 0;
	free(s);
	return shallow ? msgf("a shallow clone: the history's commits are not all here (git fetch --unshallow)") : NULL;
}

char *
hg_path(struct hist *h, const char *range, int limit, const char *machine,
    void (*warn)(const struct hcommit *c, unsigned long line, const char *why))
{
	char *argv[12], *out = NULL, *a, *b, *dots, *ha = NULL, *hb = NULL, *not = NULL, nbuf[32], *why = NULL;
	const char *an, *bn;
	size_t len = 0;
	int n = 0;

	memset(h, 0, sizeof *h);
	a = xstrdup(range);
	dots = strstr(a, "..");
	b = dots != NULL ? dots + 2 : a;
	if (dots != NULL)
		*dots = '\0';
	an = *a ? a : "HEAD";
	bn = *b ? b : "HEAD";
	if (dots != NULL && (strstr(b, "..") != NULL || b[0] == '.')) {
		why = msgf("%s: a range is a..b", range);
		goto done;
	}
	if ((hb = hg_commit(bn)) == NULL || (dots != NULL && (ha = hg_commit(an)) == NULL)) {
		why = msgf("%s: not a commit", hb == NULL ? bn : an);
		goto done;
	}
	argv[n++] = "git";
	argv[n++] = "log";
	argv[n++] = "--first-parent";
	argv[n++] = "--reverse";
	argv[n++] = "-z";
	argv[n++] = "--notes=perfgate";
	argv[n++] = LOGFMT;
	if (limit > 0) {
		snprintf(nbuf, sizeof nbuf, "--max-count=%d", limit);
		argv[n++] = nbuf;
	}
	argv[n++] = hb;
	if (ha != NULL)
		argv[n++] = not = msgf("^%s", ha);
	argv[n++] = "--";
	argv[n] = NULL;
	/* Quiet: git warns of a notes ref that is not there yet, which is no error here. */
	if (hg_run(argv, &out, &len, 1) != 0) {
		why = msgf("%s: git log cannot read it", range);
		goto done;
	}
	hist_load(h, out, len, machine, warn);
	if (ha != NULL && h->n == 0)
		why = msgf("%s: no commits (is %s after %s?)", range, an, bn);
	else if (ha != NULL && strcmp(h->c[0].parent, ha) != 0)
		why = msgf("%s: %s is not on the first-parent path of %s", range, an, bn);
done:
	free(not);
	free(out);
	free(ha);
	free(hb);
	free(a);
	return why;
}

char *
hg_putnote(const char *commit, const char *machine, const char *line, size_t linelen, char **replaced)
{
	char *argv[] = { "git", "log", "-1", "--notes=perfgate", "--format=%N", (char *)commit, "--", NULL };
	char *add[] = { "git", "notes", "--ref=perfgate", "add", "-f", "-F", NULL, (char *)commit, NULL };
	char *old = NULL, *p, *end, *nl, *path, *why = NULL;
	const char *dir = getenv("TMPDIR");
	struct hrec r;
	size_t len = 0;
	FILE *fp = NULL;
	int fd;

	*replaced = NULL;
	if (hg_run(argv, &old, &len, 1) != 0) {
		free(old);
		return msgf("%s: cannot read its note", commit);
	}
	path = msgf("%s/histnote.XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0 || (fp = fdopen(fd, "w")) == NULL) {
		why = msgf("%s: %s", path, strerror(errno));
		goto done;
	}
	for (p = old, end = old + len; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (nl == p)
			continue;
		if (hrec_parse(p, (size_t)(nl - p), &r) == NULL) {
			int same = strcmp(r.machine, machine) == 0 && strcmp(r.commit, commit) == 0;

			if (same && *replaced == NULL)
				*replaced = xstrdup(r.recorded);
			hrec_free(&r);
			if (same)
				continue;
		}
		fwrite(p, 1, (size_t)(nl - p), fp);
		fputc('\n', fp);
	}
	fwrite(line, 1, linelen, fp);
	if (fclose(fp) != 0) {
		why = msgf("%s: %s", path, strerror(errno));
		unlink(path);
		goto done;
	}
	add[6] = path;
	if (hg_run(add, NULL, NULL, 1) != 0)
		why = msgf("%s: git notes add failed: no note written", commit);
	unlink(path);
done:
	free(path);
	free(old);
	return why;
}

char *
hg_mkparents(const char *path)
{
	char *p = xstrdup(path), *s, *why = NULL;

	for (s = p + 1; why == NULL && (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			why = msgf("%s: %s", p, strerror(errno));
		*s = '/';
	}
	free(p);
	return why;
}
