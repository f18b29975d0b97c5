/*
 * outfile: an output the user named, renamed into place only when it is a
 * regular file or absent (outfile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "outfile.h"
#include "util.h"

/*
 * Whether path may be replaced by a rename: absent, or a regular file.
 * lstat, not stat: a symlink is the user's, kept, and written through.
 */
static int
renamable(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno == ENOENT;
	return S_ISREG(st.st_mode);
}

static void
release(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->fp = NULL;
	o->path = o->tmp = NULL;
}

char *
outfile_open(struct outfile *o, const char *path, const char *mode)
{
	const char *out;

	o->fp = NULL;
	o->path = xstrdup(path);
	o->tmp = NULL;
	if (renamable(path)) {
		o->tmp = msgf("%s.tmp", path);
		out = o->tmp;
	} else {
		out = path;
	}
	if ((o->fp = fopen(out, mode)) == NULL) {
		char *msg = msgf("%s: %s", out, strerror(errno));

		release(o);
		return msg;
	}
	return NULL;
}

char *
outfile_commit(struct outfile *o)
{
	const char *out = o->tmp != NULL ? o->tmp : o->path;
	char *msg = NULL;
	int bad = fflush(o->fp) != 0 || ferror(o->fp), e = errno;

	if (bad) {
		msg = msgf("write %s: %s", out, strerror(e));
		fclose(o->fp);
	} else if (fclose(o->fp) != 0) {
		msg = msgf("write %s: %s", out, strerror(errno));
	} else if (o->tmp != NULL && rename(o->tmp, o->path) != 0) {
		msg = msgf("rename %s: %s", o->tmp, strerror(errno));
	}
	if (msg != NULL && o->tmp != NULL)
		unlink(o->tmp);
	release(o);
	return msg;
}

void
outfile_abort(struct outfile *o)
{
	if (o->fp != NULL)
		fclose(o->fp);
	if (o->tmp != NULL)
		unlink(o->tmp);
	release(o);
}

char *
outfile_put(const char *path, const char *s, size_t n)
{
	struct outfile o;
	char *msg;

	if ((msg = outfile_open(&o, path, "w")) != NULL)
		return msg;
	if (n > 0 && fwrite(s, 1, n, o.fp) != n) {
		msg = msgf("write %s: %s", o.tmp != NULL ? o.tmp : o.path, strerror(errno));
		outfile_abort(&o);
		return msg;
	}
	return outfile_commit(&o);
}
