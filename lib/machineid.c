/*
 * machineid: what names the machine a history record was measured on. A
 * paired ratio cancels the machine, so the name does not enter the chain;
 * it says which records one runner wrote (a newer record of the same
 * commit replaces its own older one) and where the runner changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "machineid.h"
#include "sha256.h"

/* The CPU's model as /proc/cpuinfo names it, or "" where it does not. */
static void
cpumodel(char *out, size_t size)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512], *p;

	out[0] = '\0';
	if (fp == NULL)
		return;
	while (fgets(line, sizeof line, fp) != NULL) {
		if (strncmp(line, "model name", 10) != 0 || (p = strchr(line, ':')) == NULL)
			continue;
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		p[strcspn(p, "\n")] = '\0';
		snprintf(out, size, "%s", p);
		break;
	}
	fclose(fp);
}

const char *
machine_id(char id[MACHINE_ID_MAX + 1], char desc[MACHINE_DESC_MAX])
{
	const char *env = getenv("PERFGATE_MACHINE");
	char model[160];
	struct utsname u;
	struct sha256 h;
	char hex[65];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const unsigned char *p;

	cpumodel(model, sizeof model);
	if (uname(&u) != 0) {
		strcpy(u.release, "?");
		strcpy(u.machine, "?");
	}
	snprintf(desc, MACHINE_DESC_MAX, "%s, %s %s, %ld CPUs", model[0] ? model : "unknown CPU",
	    u.release, u.machine, cpus);
	if (env != NULL && env[0] != '\0') {
		/* A name is shown in pages and records: printable ASCII, no quotes needed. */
		if (strlen(env) > MACHINE_ID_MAX)
			return "PERFGATE_MACHINE is longer than 64 characters";
		for (p = (const unsigned char *)env; *p; p++)
			if (*p <= ' ' || *p >= 0x7f)
				return "PERFGATE_MACHINE holds a blank or a character that is not printable ASCII";
		strcpy(id, env);
		return NULL;
	}
	sha256_init(&h);
	sha256_update(&h, desc, strlen(desc));
	sha256_hex(&h, hex);
	snprintf(id, MACHINE_ID_MAX + 1, "m-%.16s", hex);
	return NULL;
}
