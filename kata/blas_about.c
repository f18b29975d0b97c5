/*
 * blas_about: what kata/blas.c runs on, one JSON object on stdout: the file
 * whose cblas_sgemm -lblas resolved to at run time (dladdr), whether it is
 * an optimized BLAS (it exports OpenBLAS's, MKL's or BLIS's version
 * function) or the reference one, OpenBLAS's configuration, kernel (core
 * name) and threads where it is OpenBLAS, and what each case calls.
 * Refuses, exit 2 with one line, a reference BLAS unless
 * COMPARE_REFERENCE_BLAS=1, as kata/numpy_worker.py --about does.
 *
 * Build: cc -std=c11 -O2 -Ikata -o blas_about kata/blas_about.c -lblas -ldl
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* dladdr */
#endif
#include <cblas.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s as a JSON string, or null. */
static void
jstr(const char *key, const char *s)
{
	printf(",\"%s\":", key);
	if (s == NULL) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s != '\0'; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	putchar('"');
}

/* A string-returning function of the library, looked up by name; or NULL. */
static const char *
libstr(void *h, const char *name)
{
	const char *(*fn)(void);

	*(void **)&fn = dlsym(h, name);
	return fn != NULL ? fn() : NULL;
}

int
main(void)
{
	static const char *optimized[] = { "openblas_get_config", "mkl_get_version_string",
		"bli_info_get_version_str" };
	char real[PATH_MAX];
	const char *file = NULL, *kind = "reference";
	int (*threads)(void);
	void *h = NULL;
	Dl_info info;
	size_t i;

	void (*sgemm)(void) = (void (*)(void))cblas_sgemm;
	void *addr;

	/* A function's address as data: POSIX's dladdr wants a void *. */
	memcpy(&addr, &sgemm, sizeof addr);
	if (dladdr(addr, &info) != 0 && info.dli_fname != NULL) {
		file = realpath(info.dli_fname, real) != NULL ? real : info.dli_fname;
		h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	}
	for (i = 0; h != NULL && i < sizeof optimized / sizeof *optimized; i++)
		if (dlsym(h, optimized[i]) != NULL)
			kind = "optimized";
	if (strcmp(kind, "reference") == 0 && (getenv("COMPARE_REFERENCE_BLAS") == NULL ||
	    strcmp(getenv("COMPARE_REFERENCE_BLAS"), "1") != 0)) {
		fprintf(stderr, "blas_about: cblas_sgemm is the reference BLAS's (%s):"
		    " apt-get install libopenblas0-serial, or COMPARE_REFERENCE_BLAS=1 to"
		    " measure it anyway\n", file ? file : "no library found");
		return 2;
	}
	printf("{\"kernels\":\"matmul cblas_sgemm, sum cblas_sdot with one 1.0f, rmsnorm"
	    " cblas_sdot then a loop, count_below plain.c's (BLAS has no search)\"");
	jstr("blas_sgemm", file);
	jstr("blas_kind", kind);
	jstr("openblas_config", h ? libstr(h, "openblas_get_config") : NULL);
	jstr("openblas_corename", h ? libstr(h, "openblas_get_corename") : NULL);
	*(void **)&threads = h ? dlsym(h, "openblas_get_num_threads") : NULL;
	if (threads != NULL)
		printf(",\"openblas_threads\":%d", threads());
	else
		fputs(",\"openblas_threads\":null", stdout);
	puts("}");
	if (h != NULL)
		dlclose(h);
	return fflush(stdout) != 0 || ferror(stdout) ? 2 : 0;
}
