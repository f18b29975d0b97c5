/*
 * pin: the one CPU every run of a gate shares. The machines gates run on
 * are shared: a neighbour (another job, another guest of the host) slows
 * one CPU for tenths of a second at a time. A base run on the slowed CPU
 * and a head run on the other one differ by the neighbour, not the code;
 * on one CPU, the two runs of a round meet the same spells.
 *
 * Gates started together (make -j over shards, two CI jobs on one runner)
 * would meet each other the same way on one CPU while the others idle: a
 * gate holds its CPU by a lock, a file per CPU in a directory every gate
 * of the machine reads, and "auto" takes a CPU no other gate holds. The
 * lock is an flock(2): the kernel lets it go when the gate ends, however
 * it ends.
 */
#ifndef PERFGATE_PIN_H
#define PERFGATE_PIN_H

/* -1 in a pin's CPU: the CPU pin_take chooses. */
#define PIN_AUTO (-1L)

/* A CPU held: its number, the locks' directory and the lock that holds it (-1: none). */
struct pin {
	long cpu;
	int dirfd, fd;
};

/* arg as a CPU: a number, or "auto" (PIN_AUTO); NULL, or what is wrong. */
const char *pin_parse(const char *arg, long *cpu);

/*
 * Pin this process (and so the children it starts after) to a CPU and
 * hold it: cpu, or with PIN_AUTO the CPU of this process's affinity mask
 * that the fewest other gates hold, the highest-numbered of those (CPU 0,
 * which takes most interrupts, last). The locks are in PERFGATE_CPU_LOCKS when set (made when
 * missing; one that cannot be used is an error), else in
 * /run/lock/perfgate-cpu (made for every user of the machine), else, when
 * that cannot be used, in /tmp/perfgate-cpu-UID, this user's own. NULL,
 * or an allocated message.
 */
char *pin_take(long cpu, struct pin *p);

/* How many other gates hold p's CPU now. */
long pin_sharers(const struct pin *p);

/*
 * Move the process whose pid the file pidfile holds (a worker started
 * before this process was pinned, and serving it) onto this process's
 * CPUs. pidfile is freed. NULL, or an allocated message.
 */
char *pin_follow(char *pidfile);

/* Let the CPU go. */
void pin_release(struct pin *p);

#endif
