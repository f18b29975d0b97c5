#ifndef PERFGATE_HISTNOTE_H
#define PERFGATE_HISTNOTE_H

#include <stddef.h>
#include <stdio.h>

/*
 * A history record: one line of a commit's note under refs/notes/perfgate,
 * the gate of the commit against its first parent on one machine
 * (perfgate(1), "history"). The numbers are the gate's verdict records',
 * byte for byte.
 */
struct hmetric {
	char *name;
	double ratio, lo, hi;	/* the paired ratio head/base and its interval */
	int have_ratio, have_interval;
	double base, head;	/* each side's number as the gate gave it */
	int have_abs;
	long rounds;		/* -1 when the gate says none */
	char verdict[16];	/* ok, regressed, improved, undecided, error */
	int higher;		/* better is higher: a slowdown is a ratio below 1 */
	double budget;
};

struct hrec {
	char *commit, *parent, *machine, *recorded, *verdict;
	char *budget;		/* the budget file's path the gate named, or NULL */
	struct hmetric *m;
	size_t nm;
};

/*
 * Write the record of a gate of commit against parent to fp, from out, the
 * gate's standard output (its verdict records, the summary last). Returns
 * NULL, or why no record can be made (the gate gave no summary, or an
 * error).
 */
const char *hnote_write(FILE *fp, const char *out, size_t len, const char *commit, const char *parent,
    const char *machine, const char *desc, const char *when);
/* Read one line of a note: NULL, or why it is not a record of perfgate's. */
const char *hrec_parse(const char *line, size_t len, struct hrec *r);
void hrec_free(struct hrec *r);
/* One metric's object of a record, or a gate's verdict record of it. */
const char *hmetric_parse(const char *raw, size_t len, struct hmetric *m);
const struct hmetric *hrec_metric(const struct hrec *r, const char *name);

#endif
