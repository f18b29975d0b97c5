// gbench_sum: Google Benchmark's side of lab/timer-vs-gbench.sh. It times
// the same object code as the bench.h side, plain_sum from kata/plain.c (a
// one-accumulator sum) over the same 4096 floats.
#include <benchmark/benchmark.h>

extern "C" float plain_sum(const float *x, int n);

static float x[4096];

static void
BM_sum4096(benchmark::State &state)
{
	for (int i = 0; i < 4096; i++)
		x[i] = (float)(i % 11 - 5) * 0.25f;
	for (auto _ : state)
		benchmark::DoNotOptimize(plain_sum(x, 4096));
}
BENCHMARK(BM_sum4096);

BENCHMARK_MAIN();
