/*
 * version: what every perfgate tool answers to -V, "<tool> <version>".
 */
#ifndef PERFGATE_VERSION_H
#define PERFGATE_VERSION_H

/*
 * Whether the command line is just "-V": checked before getopt, so that a
 * tool gains -V with one line in main and no change to its options.
 */
int asks_version(int argc, char *argv[]);

/* The version, for records that name what wrote them ("perfgate_version"). */
const char *perfgate_version(void);

/*
 * Print "argv0 version" on stdout. Returns the exit status: 0, or 2 when
 * stdout could not be written.
 */
int print_version(void);

#endif
