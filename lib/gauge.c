/*
 * gauge: the load average and the CPU pressure, read for a load gate
 * (gauge.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gauge.h"

static char msg[512];

/* The start of a small file such as /proc/loadavg, as a string. */
static const char *
readsmall(const char *path, char *buf, size_t size)
{
	FILE *fp;
	size_t n;

	if ((fp = fopen(path, "r")) == NULL) {
		snprintf(msg, sizeof msg, "%s: %s", path, strerror(errno));
		return msg;
	}
	n = fread(buf, 1, size - 1, fp);
	if (ferror(fp)) {
		snprintf(msg, sizeof msg, "%s: %s", path, strerror(errno));
		fclose(fp);
		return msg;
	}
	fclose(fp);
	buf[n] = '\0';
	return NULL;
}

/* A gauge's figure at s, ended by a blank or the end of the line. */
static const char *
gaugenum(const char *s, const char *path, const char *what, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || (*end != '\0' && *end != ' ' && *end != '\n') ||
	    errno == ERANGE || !isfinite(*v) || *v < 0) {
		snprintf(msg, sizeof msg, "%s:1: expected %s", path, what);
		return msg;
	}
	return NULL;
}

const char *
gauge_open(struct gauge *g, int pressure)
{
	const char *env;
	double v;

	g->loadpath = g->pressurepath = NULL;
	if (pressure) {
		if ((env = getenv("PERFGATE_PRESSURE")) != NULL && *env != '\0')
			g->pressurepath = env;
		else
			g->pressurepath = "/proc/pressure/cpu";
	}
	/* The file's two decimals, not getloadavg's binary fixed point. */
	if ((env = getenv("PERFGATE_LOADAVG")) != NULL && *env != '\0')
		g->loadpath = env;
	else if (access("/proc/loadavg", R_OK) == 0)
		g->loadpath = "/proc/loadavg";
	return pressure ? gauge_pressure(g, &v) : NULL;
}

const char *
gauge_load(const struct gauge *g, double *v)
{
	char line[128];
	const char *err;

	if (g->loadpath == NULL) {
		if (getloadavg(v, 1) != 1)
			return "cannot read the load average";
		return NULL;
	}
	if ((err = readsmall(g->loadpath, line, sizeof line)) != NULL)
		return err;
	return gaugenum(line, g->loadpath, "a load average", v);
}

const char *
gauge_pressure(const struct gauge *g, double *v)
{
	char line[256], *p;
	const char *err;

	if ((err = readsmall(g->pressurepath, line, sizeof line)) != NULL)
		return err;
	if (strncmp(line, "some ", 5) != 0 || (p = strstr(line, "avg10=")) == NULL) {
		snprintf(msg, sizeof msg, "%s:1: expected \"some avg10=\"", g->pressurepath);
		return msg;
	}
	return gaugenum(p + 6, g->pressurepath, "a CPU pressure after avg10=", v);
}

int
gauge_stall(double *total_us)
{
	const char *path = getenv("PERFGATE_PRESSURE"), *p;
	char line[256], *end;

	if (path == NULL || *path == '\0')
		path = "/proc/pressure/cpu";
	if (readsmall(path, line, sizeof line) != NULL || strncmp(line, "some ", 5) != 0 ||
	    (p = strstr(line, "total=")) == NULL)
		return -1;
	errno = 0;
	*total_us = strtod(p + 6, &end);
	return end == p + 6 || errno == ERANGE || !(*total_us >= 0) ? -1 : 0;
}

int
gauge_steal(double *seconds)
{
	const char *path = getenv("PERFGATE_STAT"), *p;
	char line[512], *end;
	double v = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int i;

	if (path == NULL || *path == '\0')
		path = "/proc/stat";
	if (hz <= 0 || readsmall(path, line, sizeof line) != NULL || strncmp(line, "cpu ", 4) != 0)
		return -1;
	/* cpu user nice system idle iowait irq softirq steal ...: the eighth number. */
	for (p = line + 4, i = 0; i < 8; i++) {
		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno == ERANGE)
			return -1;
		p = end;
	}
	*seconds = v / (double)hz;
	return 0;
}

int
gauge_running(long *others)
{
	const char *path = getenv("PERFGATE_LOADAVG"), *p;
	char line[128], *end;
	long n;

	if (path == NULL || *path == '\0')
		path = "/proc/loadavg";
	/* "0.52 0.58 0.59 2/123 4567": the fourth field's first number. */
	if (readsmall(path, line, sizeof line) != NULL || (p = strchr(line, '/')) == NULL)
		return -1;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	errno = 0;
	n = strtol(p, &end, 10);
	if (end == p || *end != '/' || errno == ERANGE || n < 1)
		return -1;
	/* The reader itself is running as it reads. */
	*others = n - 1;
	return 0;
}
