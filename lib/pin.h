/*
 * pin: the one CPU every run of a gate shares. The machines gates run on
 * are shared: a neighbour (another job, another guest of the host) slows
 * one CPU for tenths of a second at a time. A base run on the slowed CPU
 * and a head run on the other one differ by the neighbour, not the code;
 * on one CPU, the two runs of a round meet the same spells.
 */
#ifndef PERFGATE_PIN_H
#define PERFGATE_PIN_H

/* -1 in a pin's CPU: the last CPU this process may run on, found by pin_to. */
#define PIN_AUTO (-1L)

/* arg as a CPU: a number, or "auto" (PIN_AUTO); NULL, or what is wrong. */
const char *pin_parse(const char *arg, long *cpu);

/*
 * Pin this process (and so the children it starts after) to cpu, or with
 * PIN_AUTO to the highest-numbered CPU of its affinity mask (CPU 0 takes
 * most interrupts); *chosen is the CPU. NULL, or what is wrong (errno set).
 */
const char *pin_to(long cpu, long *chosen);

#endif
