#include "device_kernels.h"

#include "etkit/kernels/op_sets.h"
#include "op_set_list.h"  // generated: the sets this runner links

namespace etkit::device {

const KernelRegistry& device_kernels() {
  static KernelRegistry registry;
  static bool registered = false;  // the runner is single-threaded
  if (!registered) {
#define ETKIT_REGISTER_OP_SET(name) register_##name##_kernels(registry);
    ETKIT_OP_SET_LIST(ETKIT_REGISTER_OP_SET)
#undef ETKIT_REGISTER_OP_SET
    registered = true;
  }
  return registry;
}

}  // namespace etkit::device
