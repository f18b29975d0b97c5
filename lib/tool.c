/*
 * tool: every tool's start and its numeric options (see tool.h).
 */
#include <stdlib.h>
#include <unistd.h>

#include "tool.h"
#include "util.h"
#include "version.h"

void
tool_begin(int argc, char *argv[])
{
	setargv0(argv[0]);
	if (asks_version(argc, argv))
		exit(print_version());
	opterr = 0;
}

void
opt_moved(int old, int now, const char *what)
{
	die("-%c is now -%c (%s)", old, now, what);
}

static _Noreturn void
refuse(int c, const char *why, const char *range)
{
	if (range != NULL)
		die("-%c %s: %s (%s)", c, optarg, why, range);
	die("-%c %s: %s", c, optarg, why);
}

double
opt_double(int c, double lo, double hi, const char *range)
{
	const char *why;
	double v;

	if ((why = parse_double(optarg, lo, hi, &v)) != NULL)
		refuse(c, why, range);
	return v;
}

long
opt_long(int c, long lo, long hi, const char *range)
{
	const char *why;
	long v;

	if ((why = parse_long(optarg, lo, hi, &v)) != NULL)
		refuse(c, why, range);
	return v;
}
