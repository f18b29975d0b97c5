/*
 * jsonreader: the line reader of record files.
 */
#ifndef PERFGATE_JREADER_H
#define PERFGATE_JREADER_H

#include <stddef.h>

/*
 * A line reader over a file: large buffered reads, lines of any length,
 * the line number kept for messages.
 */
struct jreader {
	int fd;
	const char *name;	/* "-" or "<stdin>" for standard input */
	unsigned long lineno;
	char *buf;
	size_t cap, start, end;
	int eof;
	size_t scan;		/* buf[start..scan) holds no '\n': never searched twice */
	int skipblank;		/* set by the caller: pass over blank lines */
};

/*
 * Open path ("-" for stdin, then named "<stdin>"). Returns 0, or -1 with
 * errno set. jreader_close does not close standard input.
 */
int jreader_open(struct jreader *r, const char *path);

/*
 * The next line, without its '\n', in *line and *len. Returns 1, 0 at end
 * of file, or -1 on a read error (errno set). A last line without '\n' is
 * returned like any other. With skipblank set (after jreader_open), lines
 * that are empty or only blanks (jblank) are passed over; lineno still
 * counts them, so messages name the right line.
 */
int jreader_next(struct jreader *r, const char **line, size_t *len);

void jreader_close(struct jreader *r);

#endif
