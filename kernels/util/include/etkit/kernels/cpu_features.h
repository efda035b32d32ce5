#pragma once
// What the integer kernels' AVX2 paths ask of the CPU, read once. (The
// float kernels' AVX2+FMA test is cpu_has_avx2_fma in fast_math.h.)

namespace etkit::kernels {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
inline bool cpu_has_avx2() {
  static const bool supported = __builtin_cpu_supports("avx2");
  return supported;
}
inline bool cpu_has_avx512f() {
  static const bool supported = __builtin_cpu_supports("avx512f");
  return supported;
}
#else
inline bool cpu_has_avx2() { return false; }
inline bool cpu_has_avx512f() { return false; }
#endif

}  // namespace etkit::kernels
