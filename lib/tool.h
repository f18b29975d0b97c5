/*
 * tool: what every tool's main does first and with its options, once:
 * its name for messages, -V, and a number given to an option, read with
 * a range check and refused in one line.
 */
#ifndef PERFGATE_TOOL_H
#define PERFGATE_TOOL_H

/*
 * A tool's start: argv0 for messages (msg.h), "tool -V" answered with
 * the version (exit 0), and getopt's own messages off, so that
 * optionerror speaks in the tool's voice.
 */
void tool_begin(int argc, char *argv[]);

/*
 * optarg as the number of option c, from lo to hi; else one line
 * "tool: -c ARG: why (range)" and exit 2 (range NULL: no range said).
 */
double opt_double(int c, double lo, double hi, const char *range);
long opt_long(int c, long lo, long hi, const char *range);

/*
 * An option letter given a new one (docs/DESIGN.md, Option letters): one
 * line "tool: -old is now -new (what)" and exit 2, so that a caller of the
 * old letter stops, never gets another meaning.
 */
_Noreturn void opt_moved(int old, int now, const char *what);

#endif
