/*
 * perfprov: a side's files digested, its licence checked (perfprov.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "buf.h"
#include "jsonl.h"
#include "perfjson.h"
#include "perfprov.h"
#include "sha256.h"
#include "util.h"

int
prov_file_sha256(const char *path, char hex[65])
{
	unsigned char chunk[65536];
	struct sha256 h;
	FILE *fp;
	size_t n;

	if ((fp = fopen(path, "rb")) == NULL)
		return -1;
	sha256_init(&h);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		sha256_update(&h, chunk, n);
	n = (size_t)ferror(fp);
	fclose(fp);
	if (n)
		return -1;
	sha256_hex(&h, hex);
	return 0;
}

const char *
prov_files(struct buf *b, const char *deps)
{
	static char msg[600];
	struct buf path = { 0 }, seen = { 0 }, files = { 0 };
	struct sha256 sys;
	const char *p;
	char hex[65];
	size_t nsys = 0, nfiles = 0;
	int after = 0;

	sha256_init(&sys);
	buf_puts(&seen, "\n");
	for (p = deps;; p++) {
		/* A path ends at an unescaped blank; "\" before a newline continues the rule. */
		if (*p == '\\' && p[1] == '\n') {
			p++;
			continue;
		}
		if (*p == '\\' && (p[1] == ' ' || p[1] == '#' || p[1] == '\\')) {
			buf_add(&path, ++p, 1);
			continue;
		}
		if (*p == '$' && p[1] == '$') {
			buf_add(&path, ++p, 1);
			continue;
		}
		if (*p != '\0' && !isspace((unsigned char)*p)) {
			buf_add(&path, p, 1);
			continue;
		}
		if (path.n > 0 && path.p[path.n - 1] == ':' && !after) {
			/* The rule's target: its prerequisites follow. */
			after = 1;
		} else if (path.n > 0 && after) {
			struct buf key = { 0 };

			buf_printf(&key, "\n%s\n", path.p);
			if (strstr(seen.p, key.p) == NULL) {
				buf_add(&seen, key.p + 1, key.n - 1);
				if (prov_file_sha256(path.p, hex) != 0) {
					snprintf(msg, sizeof msg, "%.500s: cannot be read", path.p);
					free(key.p);
					return msg;
				}
				if (path.p[0] == '/') {
					sha256_update(&sys, path.p, path.n + 1);
					sha256_update(&sys, hex, 64);
					nsys++;
				} else {
					buf_puts(&files, nfiles++ ? "," : "");
					buf_str(&files, path.p);
					buf_printf(&files, ":\"%s\"", hex);
				}
			}
			free(key.p);
		}
		path.n = 0;
		if (path.p != NULL)
			path.p[0] = '\0';
		if (*p == '\n')
			after = 0;
		if (*p == '\0')
			break;
	}
	free(path.p);
	free(seen.p);
	if (nfiles == 0 && nsys == 0) {
		free(files.p);
		return "no file in the dependency rules";
	}
	buf_printf(b, ",\"files\":{%s}", files.p ? files.p : "");
	if (nsys > 0) {
		sha256_hex(&sys, hex);
		buf_printf(b, ",\"system_files\":%zu,\"system_sha256\":\"%s\"", nsys, hex);
	}
	free(files.p);
	return NULL;
}

/*
 * SPDX identifiers, the ones a reference benchmark meets (the SPDX list
 * has hundreds; a licence of one's own is LicenseRef-name).
 */
static const char *const licenses[] = {
	"0BSD", "AFL-3.0", "AGPL-3.0-only", "AGPL-3.0-or-later", "Apache-1.1", "Apache-2.0",
	"APSL-2.0", "Artistic-1.0", "Artistic-2.0", "Beerware", "BlueOak-1.0.0", "BSD-1-Clause",
	"BSD-2-Clause", "BSD-2-Clause-Patent", "BSD-3-Clause", "BSD-3-Clause-Clear",
	"BSD-4-Clause", "BSL-1.0", "bzip2-1.0.6", "CC-BY-4.0", "CC-BY-SA-4.0", "CC0-1.0",
	"CDDL-1.0", "CDDL-1.1", "CECILL-2.1", "curl", "ECL-2.0", "EPL-1.0", "EPL-2.0",
	"EUPL-1.2", "FSFAP", "FTL", "GPL-1.0-only", "GPL-1.0-or-later", "GPL-2.0-only",
	"GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later", "HPND", "ICU", "IJG", "ISC",
	"LGPL-2.0-only", "LGPL-2.0-or-later", "LGPL-2.1-only", "LGPL-2.1-or-later",
	"LGPL-3.0-only", "LGPL-3.0-or-later", "Libpng", "libtiff", "LPPL-1.3c", "MirOS", "MIT",
	"MIT-0", "MPL-1.1", "MPL-2.0", "MPL-2.0-no-copyleft-exception", "MS-PL", "MS-RL", "NCSA",
	"OFL-1.1", "OpenSSL", "OSL-3.0", "PHP-3.01", "PostgreSQL", "PSF-2.0", "Python-2.0",
	"Ruby", "SGI-B-2.0", "Sleepycat", "Unicode-3.0", "Unicode-DFS-2016", "Unlicense",
	"UPL-1.0", "Vim", "W3C", "WTFPL", "X11", "Zlib", "zlib-acknowledgement", "ZPL-2.1",
	NULL
};

static const char *const exceptions[] = {
	"Autoconf-exception-3.0", "Bison-exception-2.2", "Classpath-exception-2.0",
	"GCC-exception-3.1", "LLVM-exception", "OpenJDK-assembly-exception-1.0",
	"Qt-LGPL-exception-1.1", "Linux-syscall-note", "Font-exception-2.0", NULL
};

struct lex {
	const char *p;
	char tok[128];
	const char *err;
	char msg[200];
};

/* The next token: "(", ")", or a word of letters, digits, '.', '-', '+', ':'. */
static void
next_tok(struct lex *l)
{
	size_t n = 0;

	while (*l->p == ' ' || *l->p == '\t')
		l->p++;
	if (*l->p == '(' || *l->p == ')') {
		l->tok[n++] = *l->p++;
	} else {
		while (*l->p != '\0' && (isalnum((unsigned char)*l->p) || strchr(".-+:", *l->p) != NULL)) {
			if (n + 1 < sizeof l->tok)
				l->tok[n++] = *l->p;
			l->p++;
		}
		if (n == 0 && *l->p != '\0' && l->err == NULL) {
			snprintf(l->msg, sizeof l->msg, "'%c' has no place in an SPDX expression", *l->p);
			l->err = l->msg;
			l->p += strlen(l->p);
		}
	}
	l->tok[n] = '\0';
}

static int
in_list(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcasecmp(s, *list) == 0)
			return 1;
	return 0;
}

static int expr_or(struct lex *l);

/* A simple expression: (...), an identifier (a trailing + allowed), LicenseRef-. */
static int
expr_simple(struct lex *l)
{
	char id[128];
	size_t n;
	int gpl;

	if (strcmp(l->tok, "(") == 0) {
		next_tok(l);
		gpl = expr_or(l);
		if (strcmp(l->tok, ")") != 0 && l->err == NULL)
			l->err = "a '(' without its ')'";
		next_tok(l);
		return gpl;
	}
	snprintf(id, sizeof id, "%s", l->tok);
	n = strlen(id);
	if (n > 1 && id[n - 1] == '+')
		id[--n] = '\0';
	if (n == 0) {
		if (l->err == NULL)
			l->err = "a licence identifier missing";
		return 0;
	}
	if (strncasecmp(id, "LicenseRef-", 11) != 0 && strncasecmp(id, "DocumentRef-", 12) != 0 &&
	    !in_list(id, licenses) && l->err == NULL) {
		snprintf(l->msg, sizeof l->msg, "%s is not an SPDX licence identifier (LicenseRef-name is one of your own)", id);
		l->err = l->msg;
	}
	gpl = strncasecmp(id, "GPL-", 4) == 0 || strncasecmp(id, "AGPL-", 5) == 0;
	next_tok(l);
	if (strcmp(l->tok, "WITH") == 0) {
		next_tok(l);
		if (!in_list(l->tok, exceptions) && l->err == NULL) {
			snprintf(l->msg, sizeof l->msg, "%s is not an SPDX licence exception", l->tok);
			l->err = l->msg;
		}
		next_tok(l);
	}
	return gpl;
}

/* AND binds tighter than OR: a link is GPL when any AND term is, when every OR term is. */
static int
expr_and(struct lex *l)
{
	int gpl = expr_simple(l);

	while (strcmp(l->tok, "AND") == 0) {
		next_tok(l);
		gpl |= expr_simple(l);
	}
	return gpl;
}

static int
expr_or(struct lex *l)
{
	int gpl = expr_and(l);

	while (strcmp(l->tok, "OR") == 0) {
		next_tok(l);
		gpl &= expr_and(l);
	}
	return gpl;
}

const char *
prov_license(const char *expr, int *gpl)
{
	static struct lex l;

	*gpl = 0;
	if (strcmp(expr, "NOASSERTION") == 0 || strcmp(expr, "NONE") == 0)
		return NULL;
	memset(&l, 0, sizeof l);
	l.p = expr;
	next_tok(&l);
	if (l.tok[0] == '\0' && l.err == NULL)
		return "an empty licence";
	*gpl = expr_or(&l);
	if (l.err == NULL && l.tok[0] != '\0') {
		snprintf(l.msg, sizeof l.msg, "%s where AND, OR, WITH or the end was expected", l.tok);
		l.err = l.msg;
	}
	return l.err;
}

/* This machine: CPU model, cores, kernel. */
void
prov_machine(struct buf *b)
{
	char line[512], *p, *model = NULL;
	struct utsname u;
	FILE *fp;

	if ((fp = fopen("/proc/cpuinfo", "r")) != NULL) {
		while (model == NULL && fgets(line, sizeof line, fp) != NULL)
			if (strncmp(line, "model name", 10) == 0 && (p = strchr(line, ':')) != NULL) {
				p += 1 + strspn(p + 1, " \t");
				p[strcspn(p, "\n")] = '\0';
				model = xstrdup(p);
			}
		fclose(fp);
	}
	buf_puts(b, "{\"cpu\":");
	buf_str(b, model ? model : "unknown");
	buf_printf(b, ",\"cores\":%ld,\"kernel\":", sysconf(_SC_NPROCESSORS_ONLN));
	if (uname(&u) == 0) {
		snprintf(line, sizeof line, "%s %s %s", u.sysname, u.release, u.machine);
		buf_str(b, line);
	} else {
		buf_str(b, "unknown");
	}
	buf_puts(b, "}");
	free(model);
}

/*
 * A reference is fixed by its name: its compiler ("cc") and flags
 * ("cflags") must be those the earlier document old gives it, if it
 * gives it a compiler.
 */
void
prov_fixed(const char *old, char **sidename, const struct buf *sidemeta, size_t nside)
{
	static const char *const keys[] = { "cc", "cflags" };
	struct jrecord os = { 0 }, now = { 0 }, was = { 0 };
	const struct jfield *f, *g, *a, *b;
	struct buf msg = { 0 };
	struct doc od;
	size_t i, k;

	doc_read(&od, old);
	f = doc_need(&od.top, "sides", J_OBJECT, old);
	jparse(f->raw, f->rawlen, &os);
	for (i = 1; i < nside; i++) {
		if ((g = jget(&os, sidename[i], strlen(sidename[i]))) == NULL || g->type != J_OBJECT)
			continue;
		jparse(g->raw, g->rawlen, &was);
		/* A document from before compilers were recorded fixes nothing yet. */
		if (jget(&was, "cc", 2) == NULL)
			continue;
		buf_puts(&msg, "{");
		buf_add(&msg, sidemeta[i].p ? sidemeta[i].p : "", sidemeta[i].n);
		buf_puts(&msg, "}");
		jparse(msg.p, msg.n, &now);
		for (k = 0; k < 2; k++) {
			a = jget(&was, keys[k], strlen(keys[k]));
			b = jget(&now, keys[k], strlen(keys[k]));
			if (a == NULL || (b != NULL && a->rawlen == b->rawlen && memcmp(a->raw, b->raw, a->rawlen) == 0))
				continue;
			msg.n = 0;
			buf_printf(&msg, "reference %s: %s ", sidename[i], keys[k]);
			doc_quoted(&msg, b);
			buf_printf(&msg, ", but %s has ", old);
			doc_quoted(&msg, a);
			die("%s: a reference's compiler and flags are fixed by its name: give this one another",
			    msg.p);
		}
		msg.n = 0;
	}
	free(msg.p);
	jrecord_free(&os);
	jrecord_free(&now);
	jrecord_free(&was);
	doc_free(&od);
}


/* Refuse to resume old when an object member differs from new's. */
static void
samefields(const char *what, const char *oldraw, size_t oldlen, const char *newraw,
    size_t newlen, const char *skip)
{
	struct jrecord o = { 0 }, n = { 0 };
	const struct jfield *f, *g;
	struct buf b = { 0 };
	size_t i;

	if (jparse(oldraw, oldlen, &o) != NULL || jparse(newraw, newlen, &n) != NULL)
		die("resume: %s is not an object", what);
	/* Every old member against the new one, then the new members the old lacks. */
	for (i = 0; i < o.n + n.n; i++) {
		f = i < o.n ? &o.field[i] : &n.field[i - o.n];
		g = jget(i < o.n ? &n : &o, f->key, f->keylen);
		if (skip != NULL && f->keylen == strlen(skip) && memcmp(f->key, skip, f->keylen) == 0)
			continue;
		if (g != NULL && (i >= o.n ||
		    (g->rawlen == f->rawlen && memcmp(g->raw, f->raw, f->rawlen) == 0)))
			continue;
		buf_printf(&b, "%s.%.*s differs: was ", what, (int)f->keylen, f->key);
		doc_quoted(&b, i < o.n ? f : g);
		buf_puts(&b, ", now ");
		doc_quoted(&b, i < o.n ? g : f);
		die("resume refused: %s", b.p);
	}
	jrecord_free(&o);
	jrecord_free(&n);
}

void
prov_resume(const struct doc *od, const struct buf *mach, const struct buf *run, const struct buf *sides)
{
	const struct jfield *f, *g;
	struct jrecord top = { 0 }, os = { 0 };
	char what[300];
	size_t i;

	f = doc_need(&od->top, "machine", J_OBJECT, od->path);
	samefields("machine", f->raw, f->rawlen, mach->p, mach->n, NULL);
	f = doc_need(&od->top, "run", J_OBJECT, od->path);
	samefields("run", f->raw, f->rawlen, run->p, run->n, "date");
	f = doc_need(&od->top, "sides", J_OBJECT, od->path);
	jparse(sides->p, sides->n, &top);
	jparse(f->raw, f->rawlen, &os);
	for (i = 0; i < top.n; i++) {
		g = jget(&os, top.field[i].key, top.field[i].keylen);
		snprintf(what, sizeof what, "sides.%.*s", (int)top.field[i].keylen, top.field[i].key);
		if (g == NULL)
			die("resume refused: side %.*s is new", (int)top.field[i].keylen, top.field[i].key);
		samefields(what, g->raw, g->rawlen, top.field[i].raw, top.field[i].rawlen, NULL);
	}
	jrecord_free(&os);
	jrecord_free(&top);
}
