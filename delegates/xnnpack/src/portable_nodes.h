#pragma once
// Nodes this XNNPACK cannot express, run with etkit's portable kernels
// inside the delegate call. Every argument (tensor views of the delegate's
// buffers, boxed ints, lists) is built at load so a run only calls kernels.

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/kernel_registry.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {

struct PortableCall {
  const KernelEntry* kernel = nullptr;
  const char* kernel_name = "";
  std::vector<Value*> args;
};

struct PortableNode {
  std::vector<PortableCall> calls;  ///< in order (a slice of several dims is several)
  // Stable storage the calls point into.
  std::deque<Tensor> tensors;
  std::deque<Value> values;
  std::deque<std::vector<Value*>> int_lists;
  std::deque<std::vector<Tensor*>> tensor_lists;
  std::vector<std::unique_ptr<uint64_t[]>> temporaries;  ///< 8-byte aligned
};

/// Prepares `node` (a NodeRunner::kPortable kind) over `buffers` (value
/// index → data). The graph has passed unsupported_reason, which refuses
/// what the fallback cannot compute (portable_node_problem); fails, naming
/// the node, for other parameters the portable kernels cannot honour.
Result<std::unique_ptr<PortableNode>> prepare_portable_node(const XnnGraph& graph, uint32_t index,
                                                            const std::vector<void*>& buffers,
                                                            const KernelRegistry& kernels);

/// Runs the prepared calls; allocates nothing.
Status run_portable_node(PortableNode& node, KernelContext& context);

}  // namespace etkit::xnnpack
