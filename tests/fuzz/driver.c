/*
 * driver: run a fuzz target without a fuzzer. Each argument is a file, or
 * a directory whose files are read in name order; each file is one input
 * to LLVMFuzzerTestOneInput. With no argument, or "-", standard input is
 * the one input, so afl-fuzz can also drive a target built with this main
 * (afl-cc driver.c target.c; afl-fuzz -i seeds -o out -- ./target).
 * A broken check aborts, so the exit status is the regression test's answer;
 * with -v each input is named on stderr before it runs, so the last name
 * printed is the one that failed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long ninputs;
static int verbose;

/*
 * The read buffer, kept from one input to the next: a fresh 64 KiB an
 * input, under AddressSanitizer (whose quarantine holds a freed block
 * back from reuse), was most of a replay's time in page faults.
 */
static char *buf;
static size_t cap;

static int
runfile(FILE *fp, const char *name)
{
	size_t len = 0, got;
	char *more;

	for (;;) {
		if (cap - len < 65536) {
			if ((more = realloc(buf, cap ? 2 * cap : 65536)) == NULL) {
				fprintf(stderr, "driver: out of memory\n");
				return 2;
			}
			buf = more;
			cap = cap ? 2 * cap : 65536;
		}
		got = fread(buf + len, 1, cap - len, fp);
		len += got;
		if (got == 0)
			break;
	}
	if (verbose)
		fprintf(stderr, "driver: %s\n", name);
	if (ferror(fp)) {
		fprintf(stderr, "driver: read %s: %s\n", name, strerror(errno));
		return 2;
	}
	/* An exact-size copy, so that AddressSanitizer sees a read past the end. */
	{
		uint8_t *data = malloc(len ? len : 1);

		if (data == NULL)
			return 2;
		memcpy(data, buf, len);
		LLVMFuzzerTestOneInput(data, len);
		free(data);
	}
	ninputs++;
	return 0;
}

static int
runpath(const char *path)
{
	struct stat st;
	struct dirent **ent;
	FILE *fp;
	char *sub;
	int i, n, rc = 0;

	if (strcmp(path, "-") == 0)
		return runfile(stdin, "<stdin>");
	if (stat(path, &st) != 0) {
		fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (S_ISDIR(st.st_mode)) {
		if ((n = scandir(path, &ent, NULL, alphasort)) < 0) {
			fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
			return 2;
		}
		for (i = 0; i < n; i++) {
			if (ent[i]->d_name[0] != '.' && rc == 0) {
				if ((sub = malloc(strlen(path) + strlen(ent[i]->d_name) + 2)) == NULL)
					return 2;
				sprintf(sub, "%s/%s", path, ent[i]->d_name);
				rc = runpath(sub);
				free(sub);
			}
			free(ent[i]);
		}
		free(ent);
		return rc;
	}
	if ((fp = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
		return 2;
	}
	rc = runfile(fp, path);
	fclose(fp);
	return rc;
}

int
main(int argc, char *argv[])
{
	int i = 1, rc = 0;

	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		verbose = 1;
		i++;
	}
	if (i == argc)
		rc = runpath("-");
	for (; i < argc && rc == 0; i++)
		rc = runpath(argv[i]);
	free(buf);
	if (rc == 0)
		fprintf(stderr, "driver: %lu inputs\n", ninputs);
	return rc;
}
