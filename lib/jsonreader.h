/*
 * jsonreader: the line reader of record files, and the one place of the
 * rule every reader of records keeps (perfgate(7), "Records"): a line
 * ends at LF, a CR before it is not its text, a UTF-8 byte order mark at
 * the start of the file is not the first line's text, a line that is
 * empty or only blanks is not a record, and a last line without LF is a
 * line. What is left is the grammar's (json.h): a NUL, or any other byte
 * out of place, is a malformed record.
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
};

/*
 * Open path ("-" for stdin, then named "<stdin>"). Returns 0, or -1 with
 * errno set. jreader_close does not close standard input.
 */
int jreader_open(struct jreader *r, const char *path);

/*
 * The next record's line, without its CR LF or LF (and without the file's
 * byte order mark), in *line and *len. Returns 1, 0 at end of file, or -1
 * on a read error (errno set). A last line without LF is returned like
 * any other. Lines that are empty or only blanks (jblank) are passed
 * over; lineno still counts them, so messages name the right line.
 */
int jreader_next(struct jreader *r, const char **line, size_t *len);

void jreader_close(struct jreader *r);

#endif
