/*
 * reap: no process a tool's child started outlives it (DESIGN.md: "No
 * orphans survive"), for proc.c. The tool makes itself a subreaper
 * (PR_SET_CHILD_SUBREAPER) before its first child.
 */
#ifndef PERFGATE_REAP_H
#define PERFGATE_REAP_H

#include <sys/types.h>

/* Start the guard, a process of its own group that outlives a killed tool. */
void reap_start_guard(void);

/* Tell the guard the running child's process group (0: none is running). */
void reap_tell_guard(pid_t pgid);

/* Kill and reap every descendant left, the guard excepted. */
void reap_descendants(void);

#endif
