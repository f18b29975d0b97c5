/*
 * Fuzz target: callgrind's dump reader (cg_parse in lib/cgdump.c), which
 * cgdiff runs on the dumps of both sides. The input is a dump. Checked,
 * when it is accepted: every function's self cost adds up to the totals,
 * event sum by event sum (the reader's own check, from the other end);
 * no function's inclusive cost is below its self cost; cg_find finds each
 * function at its own index; the self instructions of the lines add up to
 * the functions' self instructions wherever the dump has line positions;
 * the line number it reports on refusal is within the input.
 */
#include "cgdump.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_dump d;
	const char *why;
	unsigned long long sum[CG_NSUM] = { 0 }, lines = 0, ir = 0;
	size_t i, line, nl = 1;
	int k;

	memset(&d, 0, sizeof d);
	why = cg_parse((const char *)data, size, &d, &line);
	for (i = 0; i < size; i++)
		nl += data[i] == '\n';
	FUZZ_CHECK(line <= nl, "line %zu of %zu", line, nl);
	if (why == NULL) {
		for (i = 0; i < d.nfn; i++) {
			for (k = 0; k < CG_NSUM; k++) {
				FUZZ_CHECK(d.fn[i].incl[k] >= d.fn[i].self[k], "%s: inclusive below self", d.fn[i].name);
				sum[k] += d.fn[i].self[k];
			}
			FUZZ_CHECK(cg_find(&d, d.fn[i].name, d.fn[i].file) == (long)i, "%s: not found", d.fn[i].name);
		}
		for (k = 0; k < CG_NSUM; k++)
			FUZZ_CHECK(sum[k] == d.total[k], "sum %d: %llu, totals %llu", k, sum[k], d.total[k]);
		for (i = 0; i < d.capline; i++)
			if (d.line[i].file != NULL) {
				FUZZ_CHECK(d.line[i].fn < d.nfn, "line of function %zu", d.line[i].fn);
				lines += d.line[i].ir;
			}
		for (i = 0; i < d.nfn; i++)
			ir += d.fn[i].self[CG_IR];
		FUZZ_CHECK(d.nline == 0 || lines == ir, "lines %llu, functions %llu", lines, ir);
	}
	cg_free(&d);
	return 0;
}
