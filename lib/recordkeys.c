/*
 * recordkeys: the bookkeeping keys of a run's record (recordkeys.h).
 */
#include <string.h>

#include "recordkeys.h"

const char *const record_bookkeeping[] = {
	"round", "slot", "load", "pressure", "threads", "discarded",
	"load_before", "pressure_before",
	/* alternate -w: what disturbed each run, and the rounds run again. */
	"wall_s", "cpu", "ivcsw", "stall_s", "steal_s", "running", "busy", "reruns",
	/* alternate -c: the CPU the runs were pinned to, and how many other gates held it. */
	"pinned", "shared", NULL
};

int
is_bookkeeping(const char *key, size_t len)
{
	size_t i;

	for (i = 0; record_bookkeeping[i] != NULL; i++)
		if (strlen(record_bookkeeping[i]) == len && memcmp(record_bookkeeping[i], key, len) == 0)
			return 1;
	return 0;
}
