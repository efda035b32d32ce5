#pragma once
// The random numbers of rand, randn and training-mode dropout: splitmix64
// seeded the same at every call, so runs are reproducible and no generator
// state outlives a kernel call (ATen's generator cannot be matched bit for
// bit; callers get the distribution, not ATen's draws).

#include <cstdint>

namespace etkit::kernels {

class CallRandom {
 public:
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_ = 0x5eed5eed5eed5eedull;
};

}  // namespace etkit::kernels
