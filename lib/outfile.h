/*
 * outfile: an output file the user names, written whole or not at all.
 */
#ifndef PERFGATE_OUTFILE_H
#define PERFGATE_OUTFILE_H

#include <stdio.h>

/*
 * Write path with write(fp, arg): to path.tmp, renamed when whole, so that
 * no reader sees it half written; a path that exists and is not a regular
 * file (a device, a pipe) is written in place, since a rename onto
 * /dev/null would replace the device for every process. Returns NULL, or
 * an allocated message; a failed path.tmp is removed.
 */
char *outfile_write(const char *path, void (*write)(FILE *fp, const void *arg), const void *arg);

#endif
