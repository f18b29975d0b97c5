/*
 * wproto: the perfgate side of the worker protocol (bench/worker.h has the
 * worker's): a reply line parsed against the request it answers.
 */
#ifndef PERFGATE_WPROTO_H
#define PERFGATE_WPROTO_H

#include <stddef.h>

#define WPROTO_LINE_MAX 4096	/* bytes of a line, its newline included */

struct wreply {
	int err;		/* "err <why>": why is in text */
	char text[WPROTO_LINE_MAX];
	char sha256[65];	/* L's digest */
	double ns;		/* T's time of one call */
	long count;		/* E's non-finite results */
};

/*
 * Parse the reply line (its newline taken off) to a request of op (L W T
 * E V). Returns NULL, or why the line is not a reply to op.
 */
const char *wreply_parse(char op, const char *line, size_t len, struct wreply *r);

/* The value of key in a V reply's text ("k=v k=v"), into out; 0 if absent. */
int wreply_vget(const char *text, const char *key, char *out, size_t size);

#endif
