#pragma once
// The core's measured peak of float32 multiply-adds, for benches that say
// how close a kernel comes to it: independent chains of FMAs (more chains
// than the FMA latency times the units, so nothing waits on a result), on
// one thread, 8-wide (AVX2) and, where the core has it, 16-wide (AVX-512,
// which etkit's GEMM uses there). GFLOP/s (an FMA is two flops), the best of
// a few tries; 0 for an ISA the core lacks.

#include <immintrin.h>

#include <chrono>
#include <cstdint>

namespace etkit::bench {

__attribute__((target("avx2,fma"))) inline double fma_chains_gflops(int64_t iterations) {
  constexpr int kChains = 12;
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(float(c) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Keep the result alive so the loop is not removed.
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  volatile float sink = _mm256_cvtss_f32(sum);
  (void)sink;
  return double(iterations) * kChains * 8 * 2 / seconds / 1e9;
}

__attribute__((target("avx512f"))) inline double fma_chains_gflops_512(int64_t iterations) {
  constexpr int kChains = 12;
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(float(c) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return double(iterations) * kChains * 16 * 2 / seconds / 1e9;
}

struct FmaPeak {
  double avx2 = 0, avx512 = 0;
  double best() const { return avx512 > avx2 ? avx512 : avx2; }
};

inline FmaPeak fma_peak_gflops() {
  FmaPeak peak;
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return peak;
  const bool wide = __builtin_cpu_supports("avx512f");
  for (int attempt = 0; attempt < 5; ++attempt) {
    const double g = fma_chains_gflops(20'000'000);
    peak.avx2 = g > peak.avx2 ? g : peak.avx2;
    const double w = wide ? fma_chains_gflops_512(10'000'000) : 0;
    peak.avx512 = w > peak.avx512 ? w : peak.avx512;
  }
  return peak;
}

}  // namespace etkit::bench
