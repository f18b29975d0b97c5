/*
 * Fuzz target: the line reader (jreader in lib/jsonl.c). The first byte of
 * the input sets how the file arrives, the rest is the file: it is sent
 * through a SOCK_SEQPACKET socket in up to 64 pieces of 1 to 64 bytes (the
 * last takes the rest), and each read(2) returns one piece, so lines are
 * cut across reads as a pipe cuts them. Checked: jreader gives the lines a plain split on '\n' gives
 * (a last line without '\n' too, nothing after a final '\n'), each with
 * its number, then end of file, whatever the pieces.
 */
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "jsonl.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jreader r;
	const char *line, *p, *end, *nl;
	size_t len, off, piece, step;
	unsigned long n = 0;
	int sv[2], k;

	if (size < 1)
		return 0;
	/* The pieces must all fit the socket's buffer before the first read. */
	if (size > 65537)
		size = 65537;
	step = (size_t)(data[0] & 63) + 1;
	p = (const char *)data + 1;
	end = (const char *)data + size;
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0, "socketpair");
	for (off = 0, k = 0; off < size - 1; off += piece, k++) {
		/* Piece sizes vary with the data, from 1 to step bytes. */
		piece = 1 + (size_t)(unsigned char)p[off] % step;
		if (piece > size - 1 - off || k == 63)
			piece = size - 1 - off;
		FUZZ_CHECK(send(sv[1], p + off, piece, MSG_DONTWAIT) == (ssize_t)piece, "write piece %d", k);
	}
	FUZZ_CHECK(shutdown(sv[1], SHUT_WR) == 0, "shutdown");
	FUZZ_CHECK(jreader_open(&r, "-") == 0, "jreader_open");
	r.fd = sv[0];
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		FUZZ_CHECK(jreader_next(&r, &line, &len) == 1, "jreader ends before line %lu", n + 1);
		n++;
		FUZZ_CHECK(len == (size_t)(nl - p) && memcmp(line, p, len) == 0,
		    "line %lu: \"%.*s\", want \"%.*s\"", n, (int)len, line, (int)(nl - p), p);
		FUZZ_CHECK(r.lineno == n, "line %lu numbered %lu", n, r.lineno);
		p = nl + 1;
	}
	FUZZ_CHECK(jreader_next(&r, &line, &len) == 0, "more than %lu lines", n);
	FUZZ_CHECK(jreader_next(&r, &line, &len) == 0, "a line after end of file");
	jreader_close(&r);	/* closes sv[0], as it is not standard input */
	close(sv[1]);
	return 0;
}
