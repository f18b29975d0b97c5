/*
 * blas: the kata's kernels on the BLAS a C programmer links (-lblas), as a
 * reference beside the kata: matmul is cblas_sgemm; sum is cblas_sdot
 * against a single 1.0f (increment 0), BLAS having no plain sum; rmsnorm
 * takes its sum of squares from cblas_sdot and scales in a loop; BLAS has
 * no search, so count_below is plain.c's. Which library answers -lblas at
 * run time (Debian's alternatives: netlib's or OpenBLAS) is what
 * kata/blas_about.c reports.
 *
 * kata_worker_name and kata_worker_version name the side and the library
 * for kata/worker.c (V, --lock).
 *
 * Build: cc -std=c11 -O2 -ffp-contract=off -Ikata -Ibench bench/bench.c kata/blas.c kata/plain.c -lblas -lm
 */
#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "plain.h"

void
kata_matmul(const float *A, const float *B, float *C, int n)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n,
	    0.0f, C, n);
}

float
kata_sum(const float *x, int n)
{
	static const float one = 1.0f;

	return cblas_sdot(n, x, 1, &one, 0);
}

void
kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
	int r, i;

	for (r = 0; r < rows; r++) {
		const float *xr = x + (long)r * d;
		float *yr = y + (long)r * d;
		float rms = sqrtf(cblas_sdot(d, xr, 1, xr, 1) / d + eps);

		for (i = 0; i < d; i++)
			yr[i] = xr[i] / rms * w[i];
	}
}

int
kata_count_below(const float *sorted, int n, float t)
{
	return plain_count_below(sorted, n, t);
}

const char *kata_worker_name(void);
const char *kata_worker_version(void);

const char *
kata_worker_name(void)
{
	return "blas";
}

/*
 * The library and its version from OpenBLAS's configuration line
 * ("OpenBLAS 0.3.21"), without the kernel it chose at run time, which the
 * table records apart; or what is known.
 */
const char *
kata_worker_version(void)
{
	static char v[64];
	void *self = dlopen(NULL, RTLD_LAZY), *sym = self ? dlsym(self, "openblas_get_config") : NULL;
	const char *(*config)(void), *c, *sp;

	if (sym == NULL)
		return "a BLAS that is not OpenBLAS (no openblas_get_config)";
	memcpy(&config, &sym, sizeof config);
	c = config();
	sp = strchr(c, ' ');
	sp = sp != NULL ? strchr(sp + 1, ' ') : NULL;
	snprintf(v, sizeof v, "%.*s", sp != NULL ? (int)(sp - c) : (int)strlen(c), c);
	return v;
}
