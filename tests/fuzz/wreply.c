/*
 * Fuzz target: the worker protocol's reply parser (lib/wproto.c), which
 * perfgate runs on what a worker writes. The input's first byte picks the
 * request answered (L W T E V), the rest is the line. A reply accepted is
 * printable ASCII within the limit; an err carries its text; L's digest is
 * 64 lowercase hex digits, T's time finite and not negative, E's two
 * counts what the digits say; a V reply's every field is key=value, and
 * wreply_vget finds the first value of each key.
 */
#include <float.h>

#include "fuzz.h"
#include "wproto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char ops[] = "LWTEV";
	struct wreply r;
	const char *why, *line;
	char op, out[64];
	size_t len, i;

	if (size == 0)
		return 0;
	op = ops[data[0] % 5];
	line = (const char *)data + 1;
	len = size - 1;
	why = wreply_parse(op, line, len, &r);
	if (len + 1 > WPROTO_LINE_MAX)
		FUZZ_CHECK(why != NULL, "a %zu-byte reply accepted", len);
	if (why != NULL)
		return 0;
	for (i = 0; i < len; i++)
		FUZZ_CHECK(line[i] >= 0x20 && line[i] < 0x7f, "byte %d accepted", line[i]);
	if (r.err) {
		FUZZ_CHECK(len > 4 && memcmp(line, "err ", 4) == 0 && strlen(r.text) == len - 4, "err");
		return 0;
	}
	switch (op) {
	case 'L':
		FUZZ_CHECK(strlen(r.sha256) == 64 && strspn(r.sha256, "0123456789abcdef") == 64, "sha %s", r.sha256);
		break;
	case 'W':
		FUZZ_CHECK(len == 2, "W reply of %zu bytes", len);
		break;
	case 'T':
		FUZZ_CHECK(r.ns >= 0 && r.ns <= DBL_MAX, "ns %g", r.ns);
		break;
	case 'E':
		{
			char digits[48] = "", *sp;

			memcpy(digits, line + 3, len - 3 < sizeof digits - 1 ? len - 3 : sizeof digits - 1);
			sp = strchr(digits, ' ');
			FUZZ_CHECK(sp != NULL && r.count >= 0 && r.raised >= 0 && strtol(digits, NULL, 10) == r.count &&
			    strtol(sp + 1, NULL, 10) == r.raised, "counts %ld %ld", r.count, r.raised);
		}
		break;
	case 'V':
		FUZZ_CHECK(len >= 3 && strlen(r.text) == len - 2, "V text");
		/* The first field's key is found, with its value. */
		{
			const char *eq = strchr(r.text, '='), *sp = strchr(r.text, ' ');
			char key[WPROTO_LINE_MAX];
			size_t kl = (size_t)(eq - r.text);

			FUZZ_CHECK(eq != NULL && (sp == NULL || eq < sp), "V field without =");
			memcpy(key, r.text, kl);
			key[kl] = '\0';
			if (strchr(key, '=') == NULL) {
				FUZZ_CHECK(wreply_vget(r.text, key, out, sizeof out), "key %s not found", key);
				FUZZ_CHECK(strncmp(out, eq + 1, strlen(out)) == 0, "value of %s", key);
			}
		}
		break;
	}
	return 0;
}
