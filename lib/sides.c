/*
 * sides: alternate's sides and their members (sides.h).
 */
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "sides.h"
#include "util.h"

int
side_taken(const struct runside *s, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < s->nkeys; i++)
		if (len == strlen(s->keys[i]) && memcmp(key, s->keys[i], len) == 0)
			return 1;
	return 0;
}

void
side_member(struct runside *sides, size_t nsides, const char *arg, const char *const *ownkeys, size_t nown)
{
	const char *colon = strchr(arg, ':'), *eq;
	struct runside *s = NULL;
	struct buf key = { 0 };
	size_t i;

	if (colon == NULL || (eq = strchr(colon, '=')) == NULL)
		die("-a %s: expected name:key=value", arg);
	for (i = 0; i < nsides; i++)
		if (strlen(sides[i].name) == (size_t)(colon - arg) &&
		    memcmp(sides[i].name, arg, (size_t)(colon - arg)) == 0)
			s = &sides[i];
	if (s == NULL)
		die("-a %s: no side named %.*s", arg, (int)(colon - arg), arg);
	if (eq == colon + 1)
		die("-a %s: empty key", arg);
	/*
	 * Kept and compared as written, escaped, as metrics' keys are: two keys
	 * that escape alike would be one key twice in every record.
	 */
	buf_esc(&key, colon + 1, (size_t)(eq - colon - 1));
	for (i = 0; i < nown; i++)
		if (key.n == strlen(ownkeys[i]) && memcmp(key.p, ownkeys[i], key.n) == 0)
			die("-a %s: %s is a key of alternate's own", arg, ownkeys[i]);
	if (side_taken(s, key.p, key.n))
		die("-a %s: side %s has a member %s already", arg, s->name, key.p);
	s->keys = xrealloc(s->keys, (s->nkeys + 1) * sizeof *s->keys);
	s->keys[s->nkeys++] = key.p;
	buf_add(&s->extra, ",\"", 2);
	buf_add(&s->extra, key.p, key.n);
	buf_add(&s->extra, "\":\"", 3);
	buf_esc(&s->extra, eq + 1, strlen(eq + 1));
	buf_add(&s->extra, "\"", 1);
}

void
side_add(struct runside *sides, size_t *n, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *p;
	size_t i, namelen;
	char *name;

	if (eq == NULL)
		die("%s: a side is name=command", arg);
	if (eq == arg)
		die("%s: empty side name", arg);
	if (eq[1] == '\0')
		die("%s: empty command", arg);
	/* Names go into records unescaped, and into shell commands: keep them plain. */
	for (p = arg; p < eq; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("._+-", *p))
			die("%s: a side name holds only letters, digits and ._+-", arg);
	namelen = (size_t)(eq - arg);
	name = xmalloc(namelen + 1);
	memcpy(name, arg, namelen);
	name[namelen] = '\0';
	for (i = 0; i < *n; i++)
		if (strcmp(sides[i].name, name) == 0)
			die("duplicate side name %s", name);
	memset(&sides[*n], 0, sizeof sides[*n]);
	sides[*n].name = name;
	sides[*n].script = xmalloc(strlen(eq + 1) + sizeof "exec ");
	strcpy(sides[*n].script, "exec ");
	strcat(sides[*n].script, eq + 1);
	(*n)++;
}

void
side_free(struct runside *sides, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(sides[i].name);
		free(sides[i].script);
		free(sides[i].argv);
		free(sides[i].extra.p);
		while (sides[i].nkeys > 0)
			free(sides[i].keys[--sides[i].nkeys]);
		free(sides[i].keys);
	}
	free(sides);
}
