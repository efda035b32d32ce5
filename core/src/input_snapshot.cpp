#include "etkit/core/input_snapshot.h"

#include <cstring>

#include "etkit/core/method.h"

namespace etkit {

InputSnapshot InputSnapshot::capture(const Method& method) {
  InputSnapshot snapshot;
  snapshot.inputs_.resize(method.input_count());
  for (size_t i = 0; i < method.input_count(); ++i) {
    const Value& input = method.input(i);
    Saved& saved = snapshot.inputs_[i];
    if (!input.is_tensor()) {
      saved.value = input;
      continue;
    }
    const Tensor& tensor = input.unchecked_tensor();
    saved.is_tensor = true;
    // One spare byte keeps data() non-null for empty tensors.
    saved.bytes.resize(tensor.nbytes() + 1);
    if (tensor.nbytes() > 0) std::memcpy(saved.bytes.data(), tensor.data(), tensor.nbytes());
    saved.view = tensor;
    saved.view.set_data(saved.bytes.data(), tensor.nbytes());
  }
  return snapshot;
}

Status InputSnapshot::restore(Method& method) const {
  if (method.input_count() != inputs_.size()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "method '%s' has %zu inputs, the snapshot %zu", method.name().c_str(),
                       method.input_count(), inputs_.size());
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Saved& saved = inputs_[i];
    if (saved.is_tensor) {
      ETKIT_TRY(method.set_input(i, saved.view));
    } else if (saved.value.tag() != ValueTag::kNone) {
      ETKIT_TRY(method.set_input(i, saved.value));
    }
  }
  return Ok{};
}

}  // namespace etkit
