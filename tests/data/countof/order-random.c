/*
 * order-random: one random cycle through all n indices (Sattolo's
 * algorithm, a fixed linear congruential generator): each link a cache
 * miss. The same instructions a call as order-seq.c; only the order of
 * memory accesses differs.
 */
void order(unsigned *next, unsigned n);

void
order(unsigned *next, unsigned n)
{
	unsigned long long x = 88172645463325252ULL;
	unsigned i, j, t;

	for (i = 0; i < n; i++)
		next[i] = i;
	for (i = n - 1; i > 0; i--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (unsigned)((x >> 33) % i);
		t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
}
