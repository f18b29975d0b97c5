/* order-seq: the cycle 0, 1, 2, ..., n - 1, 0: each link the next word. */
void order(unsigned *next, unsigned n);

void
order(unsigned *next, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		next[i] = (i + 1) % n;
}
