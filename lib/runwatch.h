/*
 * runwatch: what disturbed one run of a side, as alternate -w records it:
 * its wall and CPU time, its involuntary context switches (rusage from
 * wait4), the CPU pressure stall and steal time accumulated during it,
 * and how many other tasks were runnable as it ended. A run that had less
 * than RUN_DISTURBED of a CPU while it ran was disturbed: something else
 * ran in its place.
 */
#ifndef PERFGATE_RUNWATCH_H
#define PERFGATE_RUNWATCH_H

#include "buf.h"
#include "proc.h"

#define RUN_DISTURBED 0.9

struct runwatch {
	int hasstall, hassteal, hasrunning;
	double stall[2], steal[2];	/* before and after the run */
	long running;
};

/* Read the gauges before the run, and after it. */
void runwatch_start(struct runwatch *w);
void runwatch_end(struct runwatch *w);

/* The run's share of a CPU: its CPU time over its wall time; 0 without a wall time. */
double runwatch_share(const struct proc_result *res);

/*
 * The run's members, each ,"key":value, onto b: pressure (the system's
 * avg10, when withpressure), wall_s, cpu, ivcsw, stall_s, steal_s and
 * running (each only when the system could tell).
 */
void runwatch_members(struct buf *b, const struct runwatch *w, const struct proc_result *res, int withpressure);

#endif
