/*
 * runwatch: what disturbed one run of a side (runwatch.h).
 */
#include <stdlib.h>

#include "gauge.h"
#include "runwatch.h"
#include "util.h"

void
runwatch_start(struct runwatch *w)
{
	w->hasstall = gauge_stall(&w->stall[0]) == 0;
	w->hassteal = gauge_steal(&w->steal[0]) == 0;
	w->hasrunning = 0;
}

void
runwatch_end(struct runwatch *w)
{
	w->hasstall = w->hasstall && gauge_stall(&w->stall[1]) == 0;
	w->hassteal = w->hassteal && gauge_steal(&w->steal[1]) == 0;
	w->hasrunning = gauge_running(&w->running) == 0;
}

double
runwatch_share(const struct proc_result *res)
{
	double wall = (double)res->wall_ns / 1e9;
	double cpu = (double)res->ru.ru_utime.tv_sec + (double)res->ru.ru_utime.tv_usec / 1e6 +
	    (double)res->ru.ru_stime.tv_sec + (double)res->ru.ru_stime.tv_usec / 1e6;

	return wall > 0 ? cpu / wall : 0;
}

/* ,"key":v in the shortest form that reads back to v. */
static void
member(struct buf *b, const char *key, double v)
{
	char num[40];

	fmt_double(num, v);
	buf_printf(b, ",\"%s\":%s", key, num);
}

void
runwatch_members(struct buf *b, const struct runwatch *w, const struct proc_result *res, int withpressure)
{
	const char *path = getenv("PERFGATE_PRESSURE");
	struct gauge psi = { NULL, path != NULL && *path != '\0' ? path : "/proc/pressure/cpu" };
	double avg10;

	/* The pressure the system reports, without a load gate too. */
	if (withpressure && gauge_pressure(&psi, &avg10) == NULL)
		member(b, "pressure", avg10);
	member(b, "wall_s", (double)res->wall_ns / 1e9);
	member(b, "cpu", runwatch_share(res));
	buf_printf(b, ",\"ivcsw\":%ld", (long)res->ru.ru_nivcsw);
	if (w->hasstall)
		member(b, "stall_s", w->stall[1] > w->stall[0] ? (w->stall[1] - w->stall[0]) / 1e6 : 0);
	if (w->hassteal)
		member(b, "steal_s", w->steal[1] > w->steal[0] ? w->steal[1] - w->steal[0] : 0);
	if (w->hasrunning)
		buf_printf(b, ",\"running\":%ld", w->running);
}
