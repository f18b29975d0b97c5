/*
 * pin: the CPU a gate's runs share (pin.h).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "pin.h"
#include "util.h"

const char *
pin_parse(const char *arg, long *cpu)
{
	if (strcmp(arg, "auto") == 0) {
		*cpu = PIN_AUTO;
		return NULL;
	}
	if (parse_long(arg, 0, CPU_SETSIZE - 1, cpu) != NULL)
		return "not auto or a CPU number from 0";
	return NULL;
}

const char *
pin_to(long cpu, long *chosen)
{
	cpu_set_t set;
	long i;

	if (cpu == PIN_AUTO) {
		if (sched_getaffinity(0, sizeof set, &set) != 0)
			return "cannot read the CPUs this process may use";
		for (i = CPU_SETSIZE - 1; i >= 0 && !CPU_ISSET((int)i, &set); i--)
			;
		if (i < 0) {
			errno = EINVAL;
			return "no CPU in this process's affinity mask";
		}
		cpu = i;
	}
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	*chosen = cpu;
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return "cannot pin to that CPU";
	return NULL;
}
