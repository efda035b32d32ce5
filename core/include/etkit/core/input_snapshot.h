#pragma once
/// @file
/// A method's inputs, copied once and put back before every execute.
///
/// Upstream's memory planner gives a method's inputs the lifetime
/// [0, last use], so later instructions may reuse their bytes: a second
/// execute of the same method would compute on whatever the first left
/// there. Callers that run a method several times (latency loops, traced
/// repeats) capture the inputs after setting them and restore them before
/// each execute, outside any timed region.

#include <cstdint>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/core/tensor.h"
#include "etkit/core/value.h"

namespace etkit {

class Method;

class InputSnapshot {
 public:
  /// Copies every input of `method` as it is now (tensor bytes, shape,
  /// scalars). Host side; allocates.
  static InputSnapshot capture(const Method& method);

  /// Sets every input of `method` back to the captured values. Does not
  /// allocate. `method` must be the one captured (same input count).
  Status restore(Method& method) const;

 private:
  struct Saved {
    Value value;                 ///< scalars and None as they were
    bool is_tensor = false;
    Tensor view;                 ///< points into `bytes`
    std::vector<uint8_t> bytes;  ///< the tensor's bytes
  };
  std::vector<Saved> inputs_;
};

}  // namespace etkit
