#pragma once
/// @file
/// etkit's kernels come in op sets, as upstream ExecuTorch groups them: each
/// set is its own library (etkit::kernels_<set>) with one function that
/// registers its kernels. A build links the sets its programs need and
/// registers them into the KernelRegistry it passes to Method::load
/// (MethodOptions::kernels); etkit/kernels/all_kernels.h has every set.

#include "etkit/core/kernel_registry.h"

namespace etkit {

/// aten ops of upstream's portable library (kernels/portable).
void register_portable_kernels(KernelRegistry& registry);
/// Scalar and view ops of dynamic programs (executorch_prim::, sym_size, …;
/// upstream's kernels/prim_ops).
void register_prim_kernels(KernelRegistry& registry);
/// quantized_decomposed:: ops (upstream's kernels/quantized).
void register_quantized_kernels(KernelRegistry& registry);
/// cortex_m:: int8 ops with CMSIS-NN's arithmetic (upstream's
/// backends/cortex_m/ops).
void register_cortex_m_kernels(KernelRegistry& registry);
/// llama:: ops of LLM programs: attention over a KV cache, cache updates,
/// the Hadamard transform (upstream's extension/llm/custom_ops).
void register_llm_kernels(KernelRegistry& registry);

}  // namespace etkit
