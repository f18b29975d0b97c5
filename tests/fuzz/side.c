/*
 * Fuzz target: alternate's sides, "name=command", and their members, "-a
 * name:key=value" (side_add and side_member of lib/sides.c, as
 * bin/alternate.c calls them with its own keys; alternate.c is included
 * here whole for those, with runround's own keys, its main renamed; their exit(2) is
 * caught by linking with -Wl,--wrap=exit). Each line of the input is one
 * argument, "-a " first for a member. Checked: an argument is taken
 * exactly when the rule computed here apart takes it (a name of letters,
 * digits and ._+-, not given twice, a command; a member of a side that
 * exists, a key not empty, not alternate's own, not written alike twice); a
 * refusal is one line naming the argument; and every side's record head,
 * {"side":"name" and its members, is valid JSON whose members decode to
 * the keys and values given (bytes that are not UTF-8 as U+FFFD).
 *
 * LDFLAGS: -Wl,--wrap=exit
 * LEAKS: side_add's name is lost when a refusal jumps out of it
 */
#include <setjmp.h>

#include "fuzz.h"
#include "refjson.h"

#define main alternate_main
#include "../../bin/alternate.c"
#undef main
#include "jsonl.h"

/* alternate's sides, now in main's frame: the target's own, with runround's keys. */
static struct runside *sides;
static size_t nsides;
#define ownkeys runround_ownkeys

static jmp_buf fuzz_died;
static int fuzz_armed, fuzz_code;

void __real_exit(int code);

/* die() ends in exit(2): back to the target instead, while it is armed. */
void
__wrap_exit(int code)
{
	if (fuzz_armed) {
		fuzz_armed = 0;
		fuzz_code = code;
		longjmp(fuzz_died, 1);
	}
	__real_exit(code);
}

#define MAXARGS 32

/* Call side_add or side_member on arg; 1 if it was taken, with stderr in msg. */
static int
take(const char *arg, int member, char *msg, size_t size)
{
	FILE *saved = stderr, *fp = fmemopen(msg, size, "w");
	volatile int taken = 0;
	size_t len;

	FUZZ_CHECK(fp != NULL, "fmemopen");
	stderr = fp;
	fuzz_code = -1;
	if (setjmp(fuzz_died) == 0) {
		fuzz_armed = 1;
		if (member)
			side_member(sides, nsides, arg, ownkeys, runround_nownkeys);
		else
			side_add(sides, &nsides, arg);
		fuzz_armed = 0;
		taken = 1;
	}
	stderr = saved;
	len = (size_t)ftell(fp);
	fclose(fp);
	msg[len < size ? len : size - 1] = '\0';
	return taken;
}

static int
plainname(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("._+-", s[i]) != NULL))
			return 0;
	return 1;
}

/* The length of the UTF-8 sequence at p, decoded and range-checked; 0 if there is none. */
static size_t
seqlen(const unsigned char *p, const unsigned char *end)
{
	unsigned long cp, min;
	size_t n, i;

	if (*p < 0x80)
		return 1;
	if ((*p & 0xE0) == 0xC0) {
		n = 2;
		cp = *p & 0x1F;
		min = 0x80;
	} else if ((*p & 0xF0) == 0xE0) {
		n = 3;
		cp = *p & 0x0F;
		min = 0x800;
	} else if ((*p & 0xF8) == 0xF0) {
		n = 4;
		cp = *p & 0x07;
		min = 0x10000;
	} else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* What buf_esc should make of s: the bytes, each one that is not UTF-8 as U+FFFD. */
static size_t
expect_text(const char *s, size_t n, char *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t len, k = 0;

	while (p < end) {
		if ((len = seqlen(p, end)) == 0) {
			memcpy(out + k, "\xEF\xBF\xBD", 3);
			k += 3;
			p++;
		} else {
			memcpy(out + k, p, len);
			k += len;
			p += len;
		}
	}
	return k;
}

/*
 * Are keys a and b written alike (buf_esc's output, which the records and
 * the metrics' keys, compared as written, see)? Two keys written alike
 * would be one key twice in every record.
 */
static int
samewritten(const char *a, size_t alen, const char *b, size_t blen)
{
	struct buf x = { 0 }, y = { 0 };
	int same;

	buf_esc(&x, a, alen);
	buf_esc(&y, b, blen);
	same = x.n == y.n && (x.n == 0 || memcmp(x.p, y.p, x.n) == 0);
	free(x.p);
	free(y.p);
	return same;
}

/* The side's record head as alternate writes it, read back. */
static void
check_record(const struct runside *s, char **keys, char **vals, size_t nkv)
{
	static struct jrecord rec;
	char *line, *want, *got;
	size_t len = strlen(s->name) + s->extra.n + 16, i, n, m;
	const char *err;

	line = malloc(len);
	FUZZ_CHECK(line != NULL, "malloc");
	n = (size_t)snprintf(line, len, "{\"side\":\"%s\"", s->name);
	if (s->extra.n > 0)
		memcpy(line + n, s->extra.p, s->extra.n);
	n += s->extra.n;
	line[n++] = '}';
	err = jparse(line, n, &rec);
	FUZZ_CHECK(err == NULL, "side %s: the record head %.*s is %s", s->name, (int)n, line, err);
	FUZZ_CHECK(rec.n == nkv + 1, "side %s: %zu members, want %zu", s->name, rec.n, nkv + 1);
	for (i = 0; i < nkv; i++) {
		const struct jfield *f = &rec.field[i + 1];
		size_t cap = 3 * (strlen(keys[i]) + strlen(vals[i])) + f->keylen + f->rawlen + 1;

		want = malloc(cap);
		got = malloc(cap);
		FUZZ_CHECK(want != NULL && got != NULL && f->type == J_STRING, "member %zu", i);
		n = expect_text(keys[i], strlen(keys[i]), want);
		m = ref_decode(f->key, f->keylen, got);
		FUZZ_CHECK(n == m && memcmp(want, got, n) == 0, "side %s: key %s reads back as %.*s",
		    s->name, keys[i], (int)f->keylen, f->key);
		n = expect_text(vals[i], strlen(vals[i]), want);
		m = ref_decode(f->raw, f->rawlen, got);
		FUZZ_CHECK(n == m && memcmp(want, got, n) == 0, "side %s: value %s reads back as %.*s",
		    s->name, vals[i], (int)f->rawlen, f->raw);
		free(want);
		free(got);
	}
	free(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *p, *nl, *arg[MAXARGS], msg[4096];
	char *keys[MAXARGS][MAXARGS], *vals[MAXARGS][MAXARGS];
	size_t nkv[MAXARGS] = { 0 }, i, j, k, narg = 0;
	int taken, want, member;

	setargv0("alternate");
	if ((text = malloc(size + 1)) == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	for (p = text; *p != '\0' && narg < MAXARGS; p = nl + 1) {
		arg[narg++] = p;
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
	}
	sides = xmalloc(MAXARGS * sizeof *sides);
	nsides = 0;
	for (i = 0; i < narg; i++) {
		const char *a = arg[i], *eq, *colon = NULL;
		struct runside *s = NULL;

		member = strncmp(a, "-a ", 3) == 0;
		if (member) {
			a += 3;
			colon = strchr(a, ':');
			eq = colon != NULL ? strchr(colon, '=') : NULL;
			for (j = 0; colon != NULL && j < nsides; j++)
				if (strlen(sides[j].name) == (size_t)(colon - a) &&
				    memcmp(sides[j].name, a, (size_t)(colon - a)) == 0)
					s = &sides[j];
			want = eq != NULL && s != NULL && eq > colon + 1;
			for (k = 0; want && k < runround_nownkeys; k++)
				if (strlen(ownkeys[k]) == (size_t)(eq - colon - 1) &&
				    memcmp(ownkeys[k], colon + 1, (size_t)(eq - colon - 1)) == 0)
					want = 0;
			for (k = 0; want && k < nkv[s - sides]; k++)
				if (samewritten(keys[s - sides][k], strlen(keys[s - sides][k]), colon + 1,
				    (size_t)(eq - colon - 1)))
					want = 0;
		} else {
			eq = strchr(a, '=');
			want = eq != NULL && eq > a && eq[1] != '\0' && plainname(a, (size_t)(eq - a));
			for (j = 0; want && j < nsides; j++)
				if (strlen(sides[j].name) == (size_t)(eq - a) &&
				    memcmp(sides[j].name, a, (size_t)(eq - a)) == 0)
					want = 0;
		}
		taken = take(a, member, msg, sizeof msg);
		FUZZ_CHECK(taken == want, "%s%s: taken %d, want %d (%s)", member ? "-a " : "", a, taken, want, msg);
		if (!taken) {
			FUZZ_CHECK(fuzz_code == 2 && strncmp(msg, "alternate: ", 11) == 0 &&
			    strchr(msg, '\n') == msg + strlen(msg) - 1, "refused with %d: %s", fuzz_code, msg);
			continue;
		}
		FUZZ_CHECK(msg[0] == '\0', "taken, yet said %s", msg);
		if (member) {
			size_t si = (size_t)(s - sides), kl = (size_t)(eq - colon - 1);

			keys[si][nkv[si]] = xmalloc(kl + 1);
			memcpy(keys[si][nkv[si]], colon + 1, kl);
			keys[si][nkv[si]][kl] = '\0';
			vals[si][nkv[si]++] = xstrdup(eq + 1);
		} else {
			FUZZ_CHECK(strlen(sides[nsides - 1].name) == (size_t)(eq - a) &&
			    memcmp(sides[nsides - 1].name, a, (size_t)(eq - a)) == 0, "name %s", sides[nsides - 1].name);
			FUZZ_CHECK(strncmp(sides[nsides - 1].script, "exec ", 5) == 0 &&
			    strcmp(sides[nsides - 1].script + 5, eq + 1) == 0, "script %s", sides[nsides - 1].script);
		}
	}
	for (i = 0; i < nsides; i++) {
		check_record(&sides[i], keys[i], vals[i], nkv[i]);
		for (k = 0; k < nkv[i]; k++) {
			free(keys[i][k]);
			free(vals[i][k]);
			free(sides[i].keys[k]);
		}
		free(sides[i].keys);
		free(sides[i].extra.p);
		free(sides[i].name);
		free(sides[i].script);
	}
	free(sides);
	sides = NULL;
	nsides = 0;
	free(text);
	return 0;
}
