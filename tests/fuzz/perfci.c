/*
 * Fuzz target: make compare-ci's readers of a C header and of the
 * exemptions file (ci_check_public in lib/perfci.c). The input is the
 * header, a NUL, then the exemptions (no NUL: an empty exemptions file).
 * ci_check_public either refuses with one line, "perfdoc: PATH:LINE:
 * what", and exit 2 (its exit is caught by linking with
 * -Wl,--wrap=exit), or answers 0 or 1: 1 exactly when it said something,
 * and every line it said names a line of the header or of the exemptions.
 *
 * LDFLAGS: -Wl,--wrap=exit
 * LEAKS: a refusal jumps out of the parser, whose memory the real program frees by exiting.
 */
#include <setjmp.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "perfci.h"
#include "perfjson.h"
#include "util.h"

static jmp_buf fuzz_died;
static int fuzz_armed, fuzz_code;

void __real_exit(int code);

void
__wrap_exit(int code)
{
	if (fuzz_armed) {
		fuzz_armed = 0;
		fuzz_code = code;
		longjmp(fuzz_died, 1);
	}
	__real_exit(code);
}

/* A file of the process's own, by a path: /proc/self/fd/N. */
static void
memfile(int *fd, char *path, size_t size, const char *name)
{
	if (*fd < 0) {
		FUZZ_CHECK((*fd = memfd_create(name, 0)) >= 0, "memfd_create");
		snprintf(path, size, "/proc/self/fd/%d", *fd);
	}
}

/* Whether line starts "perfdoc: PATH:DIGITS: ". */
static int
names_a_line(const char *line, const char *path)
{
	size_t n = strlen(path);

	if (strncmp(line, "perfdoc: ", 9) != 0 || strncmp(line + 9, path, n) != 0 || line[9 + n] != ':')
		return 0;
	line += 10 + n;
	if (*line < '1' || *line > '9')
		return 0;
	while (*line >= '0' && *line <= '9')
		line++;
	return line[0] == ':' && line[1] == ' ';
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char docjson[] = "{\"schema\":1,\"rows\":[{\"case\":\"sum\"},{\"case\":\"count_below\"}]}";
	static char hpath[64], epath[64], dpath[64], msg[8192];
	static int hfd = -1, efd = -1, dfd = -1;
	static struct doc d;
	const uint8_t *nul = memchr(data, '\0', size);
	size_t hlen = nul ? (size_t)(nul - data) : size, len;
	volatile int rc = -1;
	FILE *saved, *fp;
	char *line, *next;

	setargv0("perfdoc");
	memfile(&hfd, hpath, sizeof hpath, "header");
	memfile(&efd, epath, sizeof epath, "exempt");
	if (dfd < 0) {
		memfile(&dfd, dpath, sizeof dpath, "doc");
		FUZZ_CHECK(pwrite(dfd, docjson, sizeof docjson - 1, 0) == (ssize_t)(sizeof docjson - 1), "write doc");
		doc_read(&d, dpath);
	}
	FUZZ_CHECK(ftruncate(hfd, 0) == 0 && pwrite(hfd, data, hlen, 0) == (ssize_t)hlen, "write header");
	FUZZ_CHECK(ftruncate(efd, 0) == 0, "truncate exemptions");
	if (nul != NULL)
		FUZZ_CHECK(pwrite(efd, nul + 1, size - hlen - 1, 0) == (ssize_t)(size - hlen - 1), "write exemptions");
	saved = stderr;
	FUZZ_CHECK((fp = fmemopen(msg, sizeof msg, "w")) != NULL, "fmemopen");
	stderr = fp;
	fuzz_code = -1;
	if (setjmp(fuzz_died) == 0) {
		fuzz_armed = 1;
		rc = ci_check_public(hpath, epath, &d);
		fuzz_armed = 0;
	}
	stderr = saved;
	len = (size_t)ftell(fp);
	fclose(fp);
	msg[len < sizeof msg ? len : sizeof msg - 1] = '\0';
	if (rc < 0) {
		FUZZ_CHECK(fuzz_code == 2, "exit %d", fuzz_code);
		FUZZ_CHECK((names_a_line(msg, hpath) || names_a_line(msg, epath)) && strchr(msg, '\n') == msg + len - 1,
		    "refused with: %s", msg);
		return 0;
	}
	FUZZ_CHECK(rc == (len > 0), "answered %d, having said: %s", rc, msg);
	/* Many lines may overflow msg: only whole ones are checked. */
	for (line = msg; (next = strchr(line, '\n')) != NULL; line = next + 1) {
		*next = '\0';
		FUZZ_CHECK(names_a_line(line, hpath) || names_a_line(line, epath), "said: %s", line);
	}
	return 0;
}
