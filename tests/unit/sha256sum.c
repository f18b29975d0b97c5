/*
 * sha256sum: bench/sha256.h as a command, printing what sha256sum(1) prints,
 * so that tests compare the two on the same files. Reads in chunks of odd
 * sizes so that every path through sha256_update is taken.
 */
#include <stdio.h>

#include "sha256.h"

int
main(int argc, char *argv[])
{
	static const size_t chunks[] = { 1, 63, 64, 65, 7, 4096, 129 };
	unsigned char buf[4096];
	struct sha256 h;
	char hex[65];
	size_t n, i;
	FILE *fp;
	int a, status = 0;

	for (a = 1; a < argc; a++) {
		if (!(fp = fopen(argv[a], "rb"))) {
			perror(argv[a]);
			status = 2;
			continue;
		}
		sha256_init(&h);
		for (i = 0; (n = fread(buf, 1, chunks[i % 7], fp)) > 0; i++)
			sha256_update(&h, buf, n);
		if (ferror(fp)) {
			perror(argv[a]);
			status = 2;
		}
		fclose(fp);
		sha256_hex(&h, hex);
		printf("%s  %s\n", hex, argv[a]);
	}
	return status;
}
