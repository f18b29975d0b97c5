/*
 * accbudget: the [accuracy] section of a budget file (budget.toml): the
 * largest error each case may have, in ulp, `rmsnorm = 4`. Read apart from
 * budget.c, which reads the gate's sections and leaves this one alone.
 */
#ifndef PERFGATE_ACCBUDGET_H
#define PERFGATE_ACCBUDGET_H

#include <stddef.h>

struct accbudget {
	char **name;
	double *ulp;
	size_t n;
};

/*
 * Read path's [accuracy] section into b. Returns NULL, or why not as
 * "path:line: what" in err (of errlen bytes).
 */
const char *accbudget_read(const char *path, struct accbudget *b, char *err, size_t errlen);

/* The budget of name, or -1 when the section has none. */
double accbudget_get(const struct accbudget *b, const char *name);

void accbudget_free(struct accbudget *b);

#endif
