/*
 * perfdoc: the reference benchmarks' document, docs/perf.json, and what is
 * made from it. Writes the document from refjudge(1)'s row records and the
 * run's description (merging with an earlier document to resume its
 * deferred rows); renders its Markdown table, checks that a table is what
 * the document renders, drafts one issue per row where the implementation
 * is slower than a reference (perftable.c); lists the deferred rows;
 * checks every side's licence and every row's entries (perfci.c); writes
 * and checks the lock of the references' environment (perflock.c). The
 * document's schema is in perfdoc(1); it is read back by perfjson.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "outfile.h"
#include "perfci.h"
#include "perfjson.h"
#include "perflock.h"
#include "perfprov.h"
#include "perftable.h"
#include "util.h"
#include "version.h"

/* The description a new document is written from (-m, -n, -A, -J, -s). */
static struct buf runmeta;
static char **sidename;
static struct buf *sidemeta;
static size_t nside;
/* Per side: its licence needs the GPL (-l), it is a black box (-b), built here (-F). */
static char *sidegpl, *sideblack, *sidebuilt;
/* -S: why the cases of -C without a row were not measured (NULL: not told). */
static const char *stopwhy;
/* -a: the implementation's counts-mode line; -K: keep the old rows, allocations only. */
static const char *countspath;
static int keeprows;

static void addmeta(struct buf *b, const char *key, size_t keylen, const char *raw, size_t rawlen,
    int isstr);

static size_t
sideindex(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nside; i++)
		if (strlen(sidename[i]) == len && memcmp(sidename[i], name, len) == 0)
			return i;
	die("no side %.*s in -s", (int)len, name);
}

static struct buf *
sidebuf(const char *name, size_t len)
{
	return &sidemeta[sideindex(name, len)];
}

/*
 * -F side=deps, -l side=licence, -b side: where a side comes from. A
 * reference whose licence needs the GPL is refused unless a black box,
 * and a black box is never built (linked) here.
 */
static void
provenance(int c, const char *arg)
{
	const char *eq = strchr(arg, '='), *err;
	size_t i, len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	char *text;
	int gpl;

	if (c != 'b' && (eq == NULL || eq == arg))
		die("-%c %s: expected side=value", c, arg);
	i = sideindex(arg, len);
	if (c == 'F') {
		text = read_all(eq + 1, &len);
		if ((err = prov_files(&sidemeta[i], text)) != NULL)
			die("%s: %s", eq + 1, err);
		if (sidemeta[i].p[0] == ',')
			memmove(sidemeta[i].p, sidemeta[i].p + 1, sidemeta[i].n--);
		sidebuilt[i] = 1;
		free(text);
	} else if (c == 'l') {
		if ((err = prov_license(eq + 1, &gpl)) != NULL)
			die("side %s: licence \"%s\": %s", sidename[i], eq + 1, err);
		addmeta(&sidemeta[i], "license", 7, eq + 1, strlen(eq + 1), 1);
		sidegpl[i] = (char)gpl;
	} else {
		sideblack[i] = 1;
		addmeta(&sidemeta[i], "blackbox", 8, "true", 4, 0);
	}
}

/* The rule of the licences, once every side is described. */
static void
licence_rule(void)
{
	size_t i;

	for (i = 1; i < nside; i++) {
		if (sidegpl[i] && !sideblack[i])
			die("side %s: its licence needs the GPL: a GPL reference runs only as a black box,"
			    " a separate program never linked (-b; make compare: COMPARE_BLACKBOX_%s = 1)",
			    sidename[i], sidename[i]);
		if (sideblack[i] && sidebuilt[i])
			die("side %s: a black box is never built and linked here (no -F; make compare:"
			    " no COMPARE_SOURCES_%s)", sidename[i], sidename[i]);
	}
}

static void
addmeta(struct buf *b, const char *key, size_t keylen, const char *raw, size_t rawlen, int isstr)
{
	char *k = xmemdup(key, keylen);

	if (b->n > 0)
		buf_puts(b, ",");
	buf_str(b, k);
	buf_puts(b, ":");
	if (isstr) {
		char *v = xmemdup(raw, rawlen);

		buf_str(b, v);
		free(v);
	} else {
		buf_add(b, raw, rawlen);
	}
	free(k);
}

/* -m key=value, -n key=number, -A side:key=value, -J side=file. */
static void
option(int c, const char *arg)
{
	const char *eq = strchr(arg, '='), *colon = strchr(arg, ':');
	struct jrecord r = { 0 };
	const char *err;
	char *text;
	size_t len, i;

	if (eq == NULL || eq == arg)
		die("-%c %s: expected key=value", c, arg);
	if (c == 'm' || c == 'n') {
		if (c == 'n') {
			/* A JSON number, as written: parsed the way a reader will. */
			text = xmalloc(strlen(eq + 1) + 8);
			sprintf(text, "{\"n\":%s}", eq + 1);
			if (jparse(text, strlen(text), &r) != NULL || r.n != 1 || r.field[0].type != J_NUMBER)
				die("-n %s: not a JSON number", arg);
			free(text);
		}
		addmeta(&runmeta, arg, (size_t)(eq - arg), eq + 1, strlen(eq + 1), c == 'm');
	} else if (c == 'A') {
		if (colon == NULL || colon > eq)
			die("-A %s: expected side:key=value", arg);
		addmeta(sidebuf(arg, (size_t)(colon - arg)), colon + 1, (size_t)(eq - colon - 1),
		    eq + 1, strlen(eq + 1), 1);
	} else {
		text = read_all(eq + 1, &len);
		while (len > 0 && strchr(" \t\r\n", text[len - 1]) != NULL)
			len--;
		if ((err = jparse(text, len, &r)) != NULL)
			die("%s: %s", eq + 1, err);
		for (i = 0; i < r.n; i++)
			addmeta(sidebuf(arg, (size_t)(eq - arg)), r.field[i].key, r.field[i].keylen,
			    r.field[i].type == J_STRING ? r.field[i].raw - 1 : r.field[i].raw,
			    r.field[i].rawlen + (r.field[i].type == J_STRING ? 2 : 0), 0);
		free(text);
	}
	jrecord_free(&r);
}

/*
 * The row of a case of -C that no row file holds: deferred, and why only
 * as far as perfdoc was told (-S): it cannot know that a gate closed.
 */
static void
missingrow(struct buf *b, const char *c)
{
	struct buf why = { 0 };

	buf_puts(b, "{\"case\":");
	buf_str(b, c);
	buf_printf(&why, "%s_ns", c);
	buf_puts(b, ",\"metric\":");
	buf_str(b, why.p);
	why.n = 0;
	/* A case new to an allocations-only run (-K) is the contract's deferred row. */
	buf_printf(&why, "not measured: %s", stopwhy != NULL ? stopwhy : keeprows ?
	    "allocations only (make compare-allocs); make compare RESUME=1 times it" :
	    "no row was given for this case");
	buf_printf(b, ",\"valid\":false,\"deferred\":\"%s\",\"error\":", stopwhy != NULL ? "stopped" :
	    keeprows ? "allocs" : "missing");
	buf_str(b, why.p);
	buf_puts(b, ",\"rounds\":0,\"retries\":0}");
	free(why.p);
}

/* -o: write the document from rows (and with -r, an earlier one's rows). */
static int
writedoc(const char *out, const char *old, char *cases, char **rowfiles, int nfiles)
{
	struct buf doc = { 0 }, mach = { 0 }, sides = { 0 }, run = { 0 }, rows = { 0 };
	struct jrecord r = { 0 }, top = { 0 }, counts = { 0 };
	struct doc od = { 0 };
	const struct jfield *f;
	char **rowtext = NULL, **rowcase = NULL, *text, *c, *tmp, *countstext = NULL, *impl = NULL;
	size_t nrows = 0, i, j, len, valid = 0, accuracy = 0;
	int k, rc = 0;

	if (countspath != NULL)
		countstext = ci_read_counts(countspath, &counts);
	prov_machine(&mach);
	buf_puts(&run, "{");
	buf_add(&run, runmeta.p ? runmeta.p : "", runmeta.n);
	buf_puts(&run, "}");
	buf_puts(&sides, "{");
	for (i = 0; i < nside; i++) {
		buf_printf(&sides, "%s", i ? "," : "");
		buf_str(&sides, sidename[i]);
		buf_puts(&sides, ":{");
		buf_add(&sides, sidemeta[i].p ? sidemeta[i].p : "", sidemeta[i].n);
		buf_puts(&sides, "}");
	}
	buf_puts(&sides, "}");
	if (old != NULL)
		doc_read(&od, old);
	if (old != NULL && keeprows) {
		/*
		 * Allocations only (-K): the measurement's machine, run (its date
		 * and commit) and sides are kept as they are, whatever this run.
		 */
		mach.n = run.n = sides.n = 0;
		f = doc_need(&od.top, "machine", J_OBJECT, old);
		buf_add(&mach, f->raw, f->rawlen);
		f = doc_need(&od.top, "run", J_OBJECT, old);
		buf_add(&run, f->raw, f->rawlen);
		f = doc_need(&od.top, "sides", J_OBJECT, old);
		buf_add(&sides, f->raw, f->rawlen);
		free(impl);
		impl = doc_str(&od.top, "implementation", old);
	} else if (old != NULL) {
		prov_resume(&od, &mach, &run, &sides);
	}
	if (old != NULL) {
		for (i = 0; i < od.nrows; i++) {
			rowtext = xrealloc(rowtext, (nrows + 1) * sizeof *rowtext);
			rowcase = xrealloc(rowcase, (nrows + 1) * sizeof *rowcase);
			rowtext[nrows] = xmalloc(od.rowlen[i] + 1);
			memcpy(rowtext[nrows], od.rowraw[i], od.rowlen[i]);
			rowtext[nrows][od.rowlen[i]] = '\0';
			rowcase[nrows++] = doc_str(&od.rows[i], "case", old);
		}
	}
	/* Each case of -C: its new row, or the note that it was not measured. */
	for (c = strtok(cases, ", \t\n"); c != NULL; c = strtok(NULL, ", \t\n")) {
		text = NULL;
		for (k = 0; k < nfiles && text == NULL; k++) {
			if (rowfiles[k] == NULL)
				continue;
			tmp = read_all(rowfiles[k], &len);
			while (len > 0 && tmp[len - 1] == '\n')
				tmp[--len] = '\0';
			if (jparse(tmp, len, &r) != NULL || (f = jget(&r, "case", 4)) == NULL)
				die("%s: not a row record", rowfiles[k]);
			if (f->rawlen == strlen(c) && memcmp(f->raw, c, f->rawlen) == 0) {
				text = tmp;
				rowfiles[k] = NULL;
			} else {
				free(tmp);
			}
		}
		for (j = 0; j < nrows && strcmp(rowcase[j], c) != 0; j++)
			;
		/* -K: the old row stays, timings and all. */
		if (text == NULL && keeprows && j < nrows)
			text = xstrdup(rowtext[j]);
		if (text == NULL) {
			struct buf b = { 0 };

			missingrow(&b, c);
			text = b.p;
		}
		if (counts.n > 0) {
			tmp = ci_row_allocs(text, &counts);
			free(text);
			text = tmp;
		}
		if (j == nrows) {
			rowtext = xrealloc(rowtext, (nrows + 1) * sizeof *rowtext);
			rowcase = xrealloc(rowcase, (nrows + 1) * sizeof *rowcase);
			rowcase[nrows++] = xstrdup(c);
		} else {
			free(rowtext[j]);
		}
		rowtext[j] = text;
	}
	for (k = 0; k < nfiles; k++)
		if (rowfiles[k] != NULL)
			die("%s: its case is not in -C", rowfiles[k]);
	for (i = 0; i < nrows; i++) {
		jparse(rowtext[i], strlen(rowtext[i]), &r);
		valid += doc_valid(&r);
		accuracy += jget(&r, "accuracy", 8) != NULL;
		buf_printf(&rows, "%s%s", i ? ",\n" : "", rowtext[i]);
	}
	/* Allocations only (-K) time nothing: its document may have no valid row. */
	if (valid == 0 && !keeprows) {
		warnmsg("no row was measured: %s not written", out);
		rc = 2;
		goto done;
	}
	/*
	 * Schema 2 only with accuracy: a document without stays schema 1, byte
	 * for byte. No row timed at all (-K): the contract's "deferred".
	 */
	buf_printf(&doc, "{\"schema\":%d,\n\"status\":\"%s\",\n\"rows_valid\":%zu,\n\"rows_total\":%zu,\n"
	    "\"implementation\":", accuracy ? PERFJSON_SCHEMA_ACCURACY : PERFJSON_SCHEMA,
	    valid == nrows ? "complete" : valid == 0 ? "deferred" : "partial", valid, nrows);
	buf_str(&doc, impl != NULL ? impl : nside > 0 ? sidename[0] : "");
	buf_printf(&doc, ",\n\"machine\":%s,\n\"run\":%s,\n\"sides\":%s,\n\"rows\":[\n%s\n]}\n",
	    mach.p, run.p, sides.p, rows.p ? rows.p : "");
	/*
	 * Whole or not at all (outfile: a regular file renamed into place, a
	 * device or a FIFO written in place, never replaced).
	 */
	if ((tmp = outfile_put(out, doc.p, doc.n)) != NULL) {
		warnmsg("%s", tmp);
		free(tmp);
		rc = 2;
	}
done:
	for (i = 0; i < nrows; i++) {
		free(rowtext[i]);
		free(rowcase[i]);
	}
	free(rowtext);
	free(rowcase);
	free(doc.p);
	free(mach.p);
	free(sides.p);
	free(run.p);
	free(rows.p);
	jrecord_free(&r);
	jrecord_free(&top);
	jrecord_free(&counts);
	free(countstext);
	free(impl);
	if (old != NULL)
		doc_free(&od);
	return rc;
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s -o perf.json -s impl,ref,... -C cases [-K] [-a counts.json] [-f old.json]"
	    " [-r old.json] [-S why] [-A side:key=value] [-F side=deps] [-l side=licence] [-b side] [-J side=file] [-m key=value] [-n key=number] [row ...]\n"
	    "       %s -t [-o table.md] | -q | -R | -c table.md | -d dir perf.json\n"
	    "       %s -k counts.json [-C cases] perf.json\n"
	    "       %s -p header.h [-e exempt.md] perf.json\n"
	    "       %s -L refs.lock | -W refs.lock side=lock.json ...\n"
	    "       %s -V\n", argv0, argv0, argv0, argv0, argv0, argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	const char *out = NULL, *old = NULL, *checkpath = NULL, *draftdir = NULL;
	const char *headerpath = NULL, *exemptpath = "docs/perf-exempt.md", *fixedpath = NULL, *lockpath = NULL;
	struct jrecord counts = { 0 };
	char *ctext;
	char *cases = NULL, *p, **opts;
	int c, mode = 0, nopts = 0, i;
	struct buf b = { 0 };
	struct doc d;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opts = xmalloc((size_t)argc * 2 * sizeof *opts);
	opterr = 0;
	while ((c = getopt(argc, argv, ":a:A:b:c:C:d:e:f:F:J:k:Kl:L:m:n:o:p:qRr:s:S:tW:")) != -1) {
		switch (c) {
		case 'A': case 'b': case 'F': case 'J': case 'l': case 'm': case 'n':
			opts[nopts++] = c == 'A' ? "A" : c == 'b' ? "b" : c == 'F' ? "F" : c == 'J' ? "J" :
			    c == 'l' ? "l" : c == 'm' ? "m" : "n";
			opts[nopts++] = optarg;
			break;
		case 'f':
			fixedpath = optarg;
			break;
		case 'c':
			checkpath = optarg;
			mode = c;
			break;
		case 'C':
			cases = optarg;
			break;
		case 'd':
			draftdir = optarg;
			mode = c;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q': case 'R': case 't':
			mode = c;
			break;
		case 'r':
			old = optarg;
			break;
		case 'S':
			stopwhy = optarg;
			break;
		case 'a':
			countspath = optarg;
			break;
		case 'e':
			exemptpath = optarg;
			break;
		case 'k':
			countspath = optarg;
			mode = c;
			break;
		case 'K':
			keeprows = 1;
			break;
		case 'p':
			headerpath = optarg;
			mode = c;
			break;
		case 'L': case 'W':
			lockpath = optarg;
			mode = c;
			break;
		case 's':
			for (p = strtok(optarg, ","); p != NULL; p = strtok(NULL, ",")) {
				sidename = xrealloc(sidename, (nside + 1) * sizeof *sidename);
				sidemeta = xrealloc(sidemeta, (nside + 1) * sizeof *sidemeta);
				sidename[nside] = p;
				sidegpl = xrealloc(sidegpl, nside + 1);
				sideblack = xrealloc(sideblack, nside + 1);
				sidebuilt = xrealloc(sidebuilt, nside + 1);
				sidegpl[nside] = sideblack[nside] = sidebuilt[nside] = 0;
				memset(&sidemeta[nside++], 0, sizeof *sidemeta);
			}
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (out != NULL && mode != 't') {
		if (mode != 0 || cases == NULL || nside < 2)
			usage();
		for (i = 0; i < nopts; i += 2)
			if (strchr("bFl", opts[i][0]) != NULL)
				provenance(opts[i][0], opts[i + 1]);
			else
				option(opts[i][0], opts[i + 1]);
		free(opts);
		licence_rule();
		if (fixedpath != NULL)
			prov_fixed(fixedpath, sidename, sidemeta, nside);
		c = writedoc(out, old, cases, argv, argc);
		for (i = 0; i < (int)nside; i++)
			free(sidemeta[i].p);
		free(sidemeta);
		free(sidename);
		free(runmeta.p);
		return c;
	}
	free(opts);
	if (mode == 'L' || mode == 'W') {
		char **file = xmalloc(((size_t)argc + 1) * sizeof *file), *eq;

		/* side=file: what each reference's COMPARE_LOCK_<side> command printed. */
		for (i = 0; i < argc; i++) {
			if ((eq = strchr(argv[i], '=')) == NULL || eq == argv[i])
				die("%s: expected side=lock.json", argv[i]);
			*eq = '\0';
			file[i] = eq + 1;
		}
		if (mode == 'W')
			lock_write(lockpath, argv, file, argc);
		c = mode == 'L' ? lock_check(lockpath, argv, file, argc) : 0;
		free(file);
		return c;
	}
	if (mode == 0 || argc != 1)
		usage();
	doc_read(&d, argv[0]);
	switch (mode) {
	case 't':
		table_render(&b, &d);
		/* -o: the table whole or not at all, as the document itself. */
		if (out != NULL && (p = outfile_put(out, b.p, b.n)) != NULL)
			die("%s", p);
		if (out == NULL)
			fwrite(b.p, 1, b.n, stdout);
		break;
	case 'q':
		for (i = 0; i < (int)d.nrows; i++)
			if (!doc_valid(&d.rows[i])) {
				p = doc_str(&d.rows[i], "case", d.path);
				puts(p);
				free(p);
			}
		break;
	case 'c':
		if (table_check(checkpath, &d) != 0) {
			doc_free(&d);
			return 1;
		}
		break;
	case 'd':
		table_drafts(draftdir, &d);
		break;
	case 'k':
		ctext = ci_read_counts(countspath, &counts);
		if (cases == NULL) {
			for (i = 0; i < (int)d.nrows; i++) {
				p = doc_str(&d.rows[i], "case", d.path);
				buf_printf(&b, "%s%s", i ? "," : "", p);
				free(p);
			}
			cases = b.p ? b.p : "";
		}
		c = ci_check_allocs(countspath, &counts, cases, &d);
		jrecord_free(&counts);
		free(ctext);
		free(b.p);
		doc_free(&d);
		return c;
	case 'p':
		c = ci_check_public(headerpath, exemptpath, &d);
		doc_free(&d);
		return c;
	case 'R':
		c = ci_check_refs(&d);
		doc_free(&d);
		return c;
	}
	free(b.p);
	doc_free(&d);
	free(sidename);
	free(sidemeta);
	return fshut(stdout, "<stdout>");
}

