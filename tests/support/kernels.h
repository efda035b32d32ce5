#pragma once
// Tests run programs with every op set etkit has.

#include "etkit/core/method.h"
#include "etkit/kernels/all_kernels.h"

namespace etkit::test {

/// Method options whose kernels are every op set.
inline MethodOptions with_kernels(MethodOptions options = {}) {
  options.kernels = &all_kernels();
  return options;
}

}  // namespace etkit::test
