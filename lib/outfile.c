/*
 * outfile: an output file the user names, written whole or not at all
 * (outfile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "outfile.h"
#include "util.h"

char *
outfile_write(const char *path, void (*write)(FILE *fp, const void *arg), const void *arg)
{
	size_t n = strlen(path);
	char *tmp = xmalloc(n + 5), *msg = NULL;
	const char *out = tmp;
	struct stat st;
	FILE *fp;
	int bad;

	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp", 5);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		out = path;
	if ((fp = fopen(out, "w")) == NULL) {
		msg = msgf("%s: %s", out, strerror(errno));
		free(tmp);
		return msg;
	}
	write(fp, arg);
	bad = fflush(fp) != 0 || ferror(fp);
	if (fclose(fp) != 0 || bad) {
		msg = msgf("write %s: %s", out, strerror(errno));
		if (out == tmp)
			unlink(tmp);
	} else if (out == tmp && rename(tmp, path) != 0) {
		msg = msgf("rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return msg;
}
