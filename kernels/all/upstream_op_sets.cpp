#include "etkit/kernels/upstream_op_sets.h"

#include <algorithm>
#include <map>

#include "upstream_op_lists.h"  // generated from op_lists/*.txt

namespace etkit {
namespace {

struct SetInfo {
  const char* name;
  const char* provider;
};
// In lookup order; the prim set wins for the ops it shares with no other.
constexpr SetInfo kSets[] = {
    {"portable", "upstream's portable kernels (kernels/portable)"},
    {"prim", "upstream's prim ops (kernels/prim_ops, linked with its runtime)"},
    {"quantized", "upstream's quantized kernels (kernels/quantized)"},
    {"cortex_m", "upstream's Cortex-M backend ops (backends/cortex_m)"},
    {"llm", "upstream's LLM custom ops (extension/llm/custom_ops)"},
};

const std::map<std::string, std::vector<std::string>>& lists() {
  static const auto* all = [] {
    auto* m = new std::map<std::string, std::vector<std::string>>();
    for (const detail::UpstreamOpList& list : detail::kUpstreamOpLists) {
      std::vector<std::string>& ops = (*m)[list.set];
      for (size_t i = 0; i < list.count; ++i) ops.emplace_back(list.ops[i]);
    }
    return m;
  }();
  return *all;
}

}  // namespace

const std::vector<std::string>& upstream_op_set_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const SetInfo& s : kSets) v.emplace_back(s.name);
    return v;
  }();
  return names;
}

const std::vector<std::string>& upstream_ops(const std::string& set) {
  static const std::vector<std::string> none;
  auto it = lists().find(set);
  return it == lists().end() ? none : it->second;
}

std::string upstream_provider(const std::string& op) {
  for (const SetInfo& s : kSets) {
    const std::vector<std::string>& ops = upstream_ops(s.name);
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) return s.provider;
  }
  const std::string ns = op.substr(0, op.find("::"));
  if (ns == "llama") return "upstream's LLM custom ops (extension/llm/custom_ops)";
  if (ns == "quantized_decomposed") return "upstream's quantized kernels (kernels/quantized)";
  if (ns == "cortex_m") return "upstream's Cortex-M backend ops (backends/cortex_m)";
  if (ns == "cadence") return "the Cadence backend's ops (backends/cadence)";
  if (ns == "aten") {
    return "not in upstream's portable kernels: a backend or an optimized/custom kernel library must provide it";
  }
  return "no upstream op library: a custom op library ('" + ns + "::')";
}

}  // namespace etkit
