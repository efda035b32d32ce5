#pragma once
/// @file
/// Upstream ExecuTorch's op libraries by name (kernels/op_lists/*.txt,
/// names read from one upstream commit): which library provides an op, so
/// a program's missing kernels can be explained.

#include <string>
#include <vector>

namespace etkit {

/// The op sets whose names etkit keeps: "portable", "prim", "quantized",
/// "cortex_m", "llm".
const std::vector<std::string>& upstream_op_set_names();

/// The operators ("namespace::name.overload") of one upstream op set; empty
/// for an unknown set.
const std::vector<std::string>& upstream_ops(const std::string& set);

/// Where upstream gets `op` from, in words: "upstream's portable kernels
/// (kernels/portable)", "upstream's LLM custom ops (extension/llm/custom_ops)",
/// "the Cadence backend's ops", … or, for an op no list and no known
/// namespace names, "no upstream op library: a custom op library".
std::string upstream_provider(const std::string& op);

}  // namespace etkit
