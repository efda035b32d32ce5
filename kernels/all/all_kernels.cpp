#include "etkit/kernels/all_kernels.h"

#include "etkit/kernels/op_sets.h"
#include "op_set_list.h"  // generated: the sets this build links

namespace etkit {

void register_all_kernels(KernelRegistry& registry) {
#define ETKIT_REGISTER_OP_SET(name) register_##name##_kernels(registry);
  ETKIT_OP_SET_LIST(ETKIT_REGISTER_OP_SET)
#undef ETKIT_REGISTER_OP_SET
}

const KernelRegistry& all_kernels() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    register_all_kernels(*r);
    return r;
  }();
  return *registry;
}

}  // namespace etkit
