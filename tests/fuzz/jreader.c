/*
 * Fuzz target: the line reader (jreader in lib/jsonl.c). The first byte of
 * the input sets how the file arrives, the rest is the file: it is sent
 * through a SOCK_SEQPACKET socket in up to 64 pieces of 1 to 64 bytes (the
 * last takes the rest), and each read(2) returns one piece, so lines are
 * cut across reads as a pipe cuts them. Checked: jreader gives the lines a
 * plain split on '\n' gives (a last line without '\n' too, nothing after a
 * final '\n'), each with its number, then end of file, whatever the
 * pieces; by the readers' rule (jsonreader.h), each without a CR before
 * its '\n', the first without a UTF-8 byte order mark, and none that is
 * empty or only blanks.
 */
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "jsonl.h"

/* The reference: only space, tab, CR (JSON's blanks on a line). */
static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jreader r;
	const char *line, *p, *end, *nl, *want;
	size_t len, off, piece, step, wantlen;
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
		n++;
		want = p;
		wantlen = (size_t)(nl - p);
		p = nl + 1;
		if (n == 1 && wantlen >= 3 && memcmp(want, "\xef\xbb\xbf", 3) == 0)
			want += 3, wantlen -= 3;
		if (wantlen > 0 && want[wantlen - 1] == '\r')
			wantlen--;
		if (blank(want, wantlen))
			continue;
		FUZZ_CHECK(jreader_next(&r, &line, &len) == 1, "jreader ends before line %lu", n);
		FUZZ_CHECK(len == wantlen && memcmp(line, want, len) == 0,
		    "line %lu: \"%.*s\", want \"%.*s\"", n, (int)len, line, (int)wantlen, want);
		FUZZ_CHECK(r.lineno == n, "line %lu numbered %lu", n, r.lineno);
	}
	FUZZ_CHECK(jreader_next(&r, &line, &len) == 0, "more than %lu lines", n);
	FUZZ_CHECK(jreader_next(&r, &line, &len) == 0, "a line after end of file");
	jreader_close(&r);	/* closes sv[0], as it is not standard input */
	close(sv[1]);
	return 0;
}
