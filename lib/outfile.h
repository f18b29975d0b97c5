/*
 * outfile: an output the user named, written whole or not at all where a
 * rename can do it. A regular file, or a path where nothing is yet, is
 * written to PATH.tmp and renamed over PATH when complete, so that no
 * reader (make above all) ever sees half of it. Anything else, a device
 * (/dev/null, /dev/stdout), a FIFO or a symlink, is written in place: a
 * rename would replace it, and as root replacing /dev/null breaks it for
 * every process of the machine.
 */
#ifndef PERFGATE_OUTFILE_H
#define PERFGATE_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *fp;		/* where to write, between open and commit */
	char *path;		/* as the user named it */
	char *tmp;		/* PATH.tmp, or NULL when written in place */
};

/*
 * Open path for writing (fopen's mode "w" or "wb"). Returns NULL, or an
 * error message naming the file that could not be opened (free it).
 */
char *outfile_open(struct outfile *o, const char *path, const char *mode);

/*
 * Flush and close o, then rename PATH.tmp over PATH. Returns NULL, or a
 * message naming the file (free it); on failure no PATH.tmp is left. A
 * file written in place keeps what was written.
 */
char *outfile_commit(struct outfile *o);

/* Close o and remove PATH.tmp: nothing of an unfinished output remains. */
void outfile_abort(struct outfile *o);

/* s[0..n) to path, whole: outfile_open, one write, outfile_commit. */
char *outfile_put(const char *path, const char *s, size_t n);

#endif
