#include "etkit/core/kernel_registry.h"

#include <algorithm>

namespace etkit {

void KernelRegistry::add(const std::string& name, KernelFunction function,
                         std::string signature) {
  kernels_[name] = KernelEntry{function, std::move(signature)};
  ++additions_;
}

const KernelEntry* KernelRegistry::find(const std::string& name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : kernels_) {
    out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace etkit
