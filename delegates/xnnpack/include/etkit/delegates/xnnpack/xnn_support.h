#pragma once
/// @file
/// What etkit's XNNPACK backend does with each node of a payload: hand it
/// to XNNPACK (Debian's 2022 snapshot), or run it with etkit's portable
/// kernels inside the same delegate call because that XNNPACK cannot
/// express it. Pure functions: `etinspect info` uses them without the
/// XNNPACK library.

#include <string>
#include <vector>

#include "etkit/core/scalar_type.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {

enum class NodeRunner : uint8_t {
  kXnnpack,      ///< an XNNPACK subgraph node
  kPortable,     ///< an etkit portable kernel (this XNNPACK lacks the node)
  kUnsupported,  ///< neither can run it; the payload fails to load
  /// etkit's integer kernels for dynamically quantized nodes (qdint8
  /// activations, qc8w/qc4w/qb4w weights), which this XNNPACK lacks
  kDynamicQuant,
};

/// Who runs `kind` in a float graph.
NodeRunner runner_of(NodeKind kind);

/// Who runs `node` of `graph`: as runner_of, except that converts to
/// qdint8 and fully connected nodes reading qdint8 run on kDynamicQuant.
NodeRunner node_runner(const XnnGraph& graph, const GraphNode& node);

/// A value's kind for reports: "fp32", "qs8" (qint8 per tensor), "qu8",
/// "qs32", "qc8w", "qc32", "qc4w", "qd8", "qb4w", or the datatype's name.
std::string value_kind(const GraphValue& value);

/// The portable kernel that runs a kPortable kind ("aten::permute_copy.out").
const char* portable_kernel_of(NodeKind kind);

/// The etkit dtype whose elements have a value's storage size: kFloat for
/// fp32, kChar for qint8/qcint8/qdint8, kByte for quint8, kInt for the
/// 32-bit kinds. Meaningless for packed 4-bit kinds (never a tensor).
ScalarType buffer_scalar_type(Datatype type);

/// Why the portable kernels cannot run node `index` (a kPortable kind) of
/// `graph` as XNNPACK would, or "": layout nodes (transpose, concatenate,
/// slice) copy any one element kind whose inputs and output share their
/// quantization; arithmetic nodes (batch matmul, rsqrt, log, gelu, tanh,
/// exp, sin) take fp32 only; an output range applies to fp32 only.
std::string portable_node_problem(const XnnGraph& graph, size_t index);

/// The event name of a node in traces: XNNPACK's operator name
/// ("Fully Connected (NC, F32) GEMM"), or the kind and its portable kernel.
std::string operator_name(const GraphNode& node);
/// The same for a node of `graph`, naming its value kinds when quantized
/// ("Convolution (NHWC, QS8, QC8W) IGEMM", "Fully Connected (NC, QD8, F32, QB4W)").
std::string operator_name(const XnnGraph& graph, const GraphNode& node);

/// Why the backend cannot run `graph`, or an empty string: unsupported
/// node kinds, or value kinds neither this XNNPACK nor etkit's dynamic
/// quantization kernels handle.
std::string unsupported_reason(const XnnGraph& graph);

}  // namespace etkit::xnnpack
