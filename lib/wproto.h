/*
 * wproto: the perfgate side of the worker protocol, the reference-benchmark
 * contract's rbw1 (bench/worker.h has the worker's), and of its JSON-line
 * form, which a Python worker speaks: a reply line parsed against the
 * request it answers, and a V reply's threads checked.
 */
#ifndef PERFGATE_WPROTO_H
#define PERFGATE_WPROTO_H

#include <stddef.h>
#include <stdio.h>

#define WPROTO_LINE_MAX 4096	/* bytes of a line, its newline included */

struct wreply {
	int err;		/* "err <why>": why is in text */
	char text[WPROTO_LINE_MAX];
	char sha256[65];	/* L's digest */
	double ns;		/* T's time of one call */
	long count;		/* E's non-finite results */
	long raised;		/* E's points where the kernel raised */
};

/*
 * Parse the reply line (its newline taken off) to a request of op (L W T
 * E V). Returns NULL, or why the line is not a reply to op.
 */
const char *wreply_parse(char op, const char *line, size_t len, struct wreply *r);

/*
 * The same of a JSON-line reply: {"ok":true,...} with "sha256" (L), "ns"
 * (T), "n_nonfinite" and "n_raised" (E), and for V every other member a
 * string or a number, made the text "k=v k=v" of the rbw1 reply; or
 * {"ok":false,"error":"why"}.
 */
const char *wreply_parse_json(char op, const char *line, size_t len, struct wreply *r);

/* The value of key in a V reply's text ("k=v k=v"), into out; 0 if absent. */
int wreply_vget(const char *text, const char *key, char *out, size_t size);

/*
 * NULL when a V reply's text shows one thread: threads=1, every *_threads
 * key at 1, and threads_source omp, proc or assumed; else why not, into
 * why (size bytes).
 */
const char *wreply_one_thread(const char *text, char *why, size_t size);

/*
 * An argument's n values, float32 (len = 4n) or float64 (len = 8n) in this
 * machine's order, as float64 little-endian into out (8n bytes), as rbw1's
 * L reads them. -1 when len is neither.
 */
int warg_f64(const unsigned char *in, size_t len, size_t n, unsigned char *out);

/*
 * E's n results, float64 little-endian, written to fp as type says (f32,
 * or i32: each a whole number in range), as bench.c's BENCH_EVAL writes
 * them; *nonfinite counts NaN and the infinities. NULL, or what is wrong
 * (into why).
 */
const char *wresult_write(const unsigned char *b, size_t n, const char *type, FILE *fp,
    long *nonfinite, char *why, size_t size);

#endif
