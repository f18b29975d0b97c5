/*
 * jsonreader: the line reader of record files (jsonreader.h): large buffered
 * reads, lines of any length, each byte searched for '\n' once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonreader.h"
#include "json.h"
#include "util.h"

#define READ_BLOCK (256 * 1024)

int
jreader_open(struct jreader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	if (strcmp(path, "-") == 0) {
		r->fd = 0;
		r->name = "<stdin>";
	} else {
		if ((r->fd = open(path, O_RDONLY)) < 0)
			return -1;
		r->name = path;
	}
	r->cap = READ_BLOCK;
	r->buf = xmalloc(r->cap);
	return 0;
}

static int
nextline(struct jreader *r, const char **line, size_t *len)
{
	char *nl;
	ssize_t got;

	for (;;) {
		nl = memchr(r->buf + r->scan, '\n', r->end - r->scan);
		if (nl != NULL) {
			*line = r->buf + r->start;
			*len = (size_t)(nl - *line);
			r->start = r->scan = (size_t)(nl - r->buf) + 1;
			r->lineno++;
			return 1;
		}
		r->scan = r->end;
		if (r->eof) {
			if (r->start == r->end)
				return 0;
			*line = r->buf + r->start;
			*len = r->end - r->start;
			r->start = r->scan = r->end;
			r->lineno++;
			return 1;
		}
		/* Keep the partial line and make room behind it. */
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->scan = r->end;
			r->start = 0;
		}
		if (r->cap - r->end < READ_BLOCK / 2) {
			r->cap *= 2;
			r->buf = xrealloc(r->buf, r->cap);
		}
		do
			got = read(r->fd, r->buf + r->end, r->cap - r->end);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			return -1;
		if (got == 0)
			r->eof = 1;
		r->end += (size_t)got;
	}
}

int
jreader_next(struct jreader *r, const char **line, size_t *len)
{
	int rc;

	while ((rc = nextline(r, line, len)) == 1) {
		/* A byte order mark (an editor's, PowerShell's) says UTF-8, which records are. */
		if (r->lineno == 1 && *len >= 3 && memcmp(*line, "\xef\xbb\xbf", 3) == 0) {
			*line += 3;
			*len -= 3;
		}
		if (*len > 0 && (*line)[*len - 1] == '\r')
			--*len;
		/* A blank line holds no record: skipping it loses nothing measured. */
		if (!jblank(*line, *len))
			break;
	}
	return rc;
}

void
jreader_close(struct jreader *r)
{
	if (r->fd > 0)
		close(r->fd);
	free(r->buf);
	r->buf = NULL;
}
