/*
 * gauge: the machine's load as a load gate reads it: the 1-minute load
 * average, or the CPU pressure (PSI), from the system or from the files
 * PERFGATE_LOADAVG and PERFGATE_PRESSURE name, which tests use to fake a
 * load.
 */
#ifndef PERFGATE_GAUGE_H
#define PERFGATE_GAUGE_H

struct gauge {
	const char *loadpath;		/* NULL: getloadavg(3) */
	const char *pressurepath;	/* NULL: no pressure asked for */
};

/*
 * Find the files: PERFGATE_LOADAVG, else /proc/loadavg where it can be
 * read; with pressure, PERFGATE_PRESSURE, else /proc/pressure/cpu, read
 * once now so that a kernel without PSI is an error at once. Returns NULL
 * or a message.
 */
const char *gauge_open(struct gauge *g, int pressure);

/*
 * The 1-minute load average, and the CPU pressure: "some avg10", the
 * percentage of the last ten seconds in which a runnable task waited for
 * a CPU, which answers within seconds where the load average lags by tens.
 * Return NULL, or a message such as "FILE:1: expected a load average".
 */
const char *gauge_load(const struct gauge *g, double *v);
const char *gauge_pressure(const struct gauge *g, double *v);

/*
 * What a run's disturbance is measured by, read before and after it:
 * the CPU pressure's "some total", microseconds in which a runnable task
 * waited for a CPU (PERFGATE_PRESSURE, else /proc/pressure/cpu), and the
 * steal time of all CPUs in seconds, the time a hypervisor ran something
 * else (PERFGATE_STAT, else /proc/stat). Each returns 0, or -1 when the
 * system cannot tell (no PSI, no steal column): the run's record then
 * lacks that member.
 */
int gauge_stall(double *total_us);
int gauge_steal(double *seconds);
/*
 * How many tasks are runnable at this moment besides the caller (the
 * fourth field of /proc/loadavg, or PERFGATE_LOADAVG's file): unlike the
 * load average, it shows a spell. 0, or -1 when it cannot be read.
 */
int gauge_running(long *others);

#endif
