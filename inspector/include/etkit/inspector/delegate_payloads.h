#pragma once
/// @file
/// What is inside a program's delegate payloads, for `etinspect info`:
/// for XNNPACK payloads, the node types, how many nodes, and which nodes
/// etkit runs on its portable kernels because Debian's XNNPACK lacks them.

#include <cstdint>
#include <string>
#include <vector>

namespace etkit {
class Program;
struct ProgramSummary;
}

namespace etkit::inspector {

struct DelegateNodeTypeCount {
  std::string kind;     ///< the payload's node kind ("Conv2d")
  size_t count = 0;
  /// "xnnpack", "portable" (etkit's portable kernels), "etkit-qd8" (etkit's
  /// dynamic quantization kernels) or "unsupported"
  std::string runs_on;
};

struct DelegateValueKindCount {
  std::string kind;  ///< "fp32", "qs8", "qc8w", "qd8", "qc4w", "qb4w", ...
  size_t count = 0;
};

struct DelegatePortableNode {
  uint32_t index = 0;  ///< node index in the payload
  std::string kind;
  uint32_t debug_handle = 0;
  std::string kernel;  ///< the portable kernel that runs it
};

struct DelegatePayloadSummary {
  std::string method;
  size_t delegate_index = 0;
  std::string backend_id;
  std::string error;        ///< why the payload cannot be read; empty when it reads
  std::string unsupported;  ///< why etkit cannot run it; empty when it can
  std::string version;
  bool has_header = false;
  size_t node_count = 0;
  size_t value_count = 0;
  size_t constant_bytes = 0;
  /// Per node kind and where it runs, in order of first appearance.
  std::vector<DelegateNodeTypeCount> node_types;
  std::vector<DelegateValueKindCount> value_kinds;  ///< in order of first appearance
  std::vector<DelegatePortableNode> portable_nodes;
};

/// One summary per XNNPACK delegate of every method. A payload that does
/// not read is summarized with its error, not skipped.
/// `summary` is summarize(program), which the caller has already made.
std::vector<DelegatePayloadSummary> summarize_delegate_payloads(const Program& program,
                                                                const ProgramSummary& summary);

}  // namespace etkit::inspector
