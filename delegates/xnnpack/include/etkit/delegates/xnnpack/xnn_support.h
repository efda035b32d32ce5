#pragma once
/// @file
/// What etkit's XNNPACK backend does with each node of a payload: hand it
/// to XNNPACK (Debian's 2022 snapshot), or run it with etkit's portable
/// kernels inside the same delegate call because that XNNPACK cannot
/// express it. Pure functions: `etinspect info` uses them without the
/// XNNPACK library.

#include <string>
#include <vector>

#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {

enum class NodeRunner : uint8_t {
  kXnnpack,      ///< an XNNPACK subgraph node
  kPortable,     ///< an etkit portable kernel (this XNNPACK lacks the node)
  kUnsupported,  ///< neither can run it; the payload fails to load
};

/// Who runs `kind`.
NodeRunner runner_of(NodeKind kind);

/// The portable kernel that runs a kPortable kind ("aten::permute_copy.out").
const char* portable_kernel_of(NodeKind kind);

/// The event name of a node in traces: XNNPACK's operator name
/// ("Fully Connected (NC, F32) GEMM"), or the kind and its portable kernel.
std::string operator_name(const GraphNode& node);

/// Why the backend cannot run `graph`, or an empty string: unsupported
/// node kinds, or value types other than fp32.
std::string unsupported_reason(const XnnGraph& graph);

}  // namespace etkit::xnnpack
