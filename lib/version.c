/*
 * version: the version every perfgate tool prints with -V. The Makefile
 * passes PERFGATE_VERSION from the VERSION file; a compile without it (the
 * warnings check) still builds, and says so.
 */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "version.h"

#ifndef PERFGATE_VERSION
#define PERFGATE_VERSION "unknown"
#endif

const char *
perfgate_version(void)
{
	return PERFGATE_VERSION;
}

int
asks_version(int argc, char *argv[])
{
	return argc == 2 && strcmp(argv[1], "-V") == 0;
}

int
print_version(void)
{
	printf("%s %s\n", argv0, perfgate_version());
	return fshut(stdout, "stdout");
}
