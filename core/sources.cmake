# Source lists shared by the host build (core/CMakeLists.txt,
# core/kernels/CMakeLists.txt) and the device runners' cross builds
# (device/CMakeLists.txt).
set(ETKIT_KERNELS_DIR ${CMAKE_CURRENT_LIST_DIR}/kernels)
# The shared kernel support (dtype dispatch, promotion, broadcasting,
# strided copies, the blocked GEMM): part of core, whose runtime uses its
# conversions and copies too (inputs in another dim order, float16 staging).
set(ETKIT_KERNEL_UTIL_SOURCES
  ${ETKIT_KERNELS_DIR}/util/copy_util.cpp
  ${ETKIT_KERNELS_DIR}/util/gemm.cpp
  ${ETKIT_KERNELS_DIR}/util/int8_gemm.cpp
  ${ETKIT_KERNELS_DIR}/util/kernel_util.cpp)
# One list per op set, as upstream groups them.
set(ETKIT_KERNELS_PORTABLE_SOURCES
  ${ETKIT_KERNELS_DIR}/portable/activation_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/along_dim_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/binary_math_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/binary_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/bitwise_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/complex_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/convolution.cpp
  ${ETKIT_KERNELS_DIR}/portable/creation_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/distance_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/grid_sampler.cpp
  ${ETKIT_KERNELS_DIR}/portable/index_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/linear_algebra.cpp
  ${ETKIT_KERNELS_DIR}/portable/norm_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/padding_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/pooling.cpp
  ${ETKIT_KERNELS_DIR}/portable/rearrange_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/reductions.cpp
  ${ETKIT_KERNELS_DIR}/portable/register_portable.cpp
  ${ETKIT_KERNELS_DIR}/portable/sampling_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/scatter_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/shape_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/statistics.cpp
  ${ETKIT_KERNELS_DIR}/portable/unary_ops.cpp
  ${ETKIT_KERNELS_DIR}/portable/view_copies.cpp)
set(ETKIT_KERNELS_PRIM_SOURCES
  ${ETKIT_KERNELS_DIR}/prim/prim_ops.cpp)
set(ETKIT_KERNELS_QUANTIZED_SOURCES
  ${ETKIT_KERNELS_DIR}/quantized/quantize_ops.cpp
  ${ETKIT_KERNELS_DIR}/quantized/choose_qparams_ops.cpp
  ${ETKIT_KERNELS_DIR}/quantized/embedding_ops.cpp
  ${ETKIT_KERNELS_DIR}/quantized/mixed_matmul_ops.cpp
  ${ETKIT_KERNELS_DIR}/quantized/add_op.cpp
  ${ETKIT_KERNELS_DIR}/quantized/register_quantized.cpp)
set(ETKIT_KERNELS_CORTEX_M_SOURCES
  ${ETKIT_KERNELS_DIR}/cortex_m/conv_linear_and_pad_ops.cpp
  ${ETKIT_KERNELS_DIR}/cortex_m/elementwise_ops.cpp
  ${ETKIT_KERNELS_DIR}/cortex_m/softmax.cpp
  ${ETKIT_KERNELS_DIR}/cortex_m/transpose.cpp
  ${ETKIT_KERNELS_DIR}/cortex_m/transpose_conv2d.cpp
  ${ETKIT_KERNELS_DIR}/cortex_m/batch_matmul.cpp
  ${ETKIT_KERNELS_DIR}/cortex_m/max_pool2d.cpp
  ${ETKIT_KERNELS_DIR}/cortex_m/register_cortex_m.cpp)
set(ETKIT_KERNELS_LLM_SOURCES
  ${ETKIT_KERNELS_DIR}/llm/sdpa_ops.cpp
  ${ETKIT_KERNELS_DIR}/llm/cache_ops.cpp
  ${ETKIT_KERNELS_DIR}/llm/hadamard_op.cpp
  ${ETKIT_KERNELS_DIR}/llm/register_llm.cpp)
set(ETKIT_OP_SETS PORTABLE PRIM QUANTIZED CORTEX_M LLM)
set(ETKIT_KERNEL_SOURCES ${ETKIT_KERNEL_UTIL_SOURCES})
foreach(set ${ETKIT_OP_SETS})
  list(APPEND ETKIT_KERNEL_SOURCES ${ETKIT_KERNELS_${set}_SOURCES})
endforeach()

set(ETKIT_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/checked_size.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/extended_header.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/file_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/file_kind.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/flat_tensor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/input_snapshot.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_verify_instructions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_verify_values.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/scalar_type.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/low_precision_staging.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/method.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/method_instructions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/method_values.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tensor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tensor_access.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/token_generation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/value.cpp
  ${ETKIT_KERNEL_UTIL_SOURCES})
set(ETKIT_CORE_SCHEMAS
  ${CMAKE_CURRENT_LIST_DIR}/schema/scalar_type.fbs
  ${CMAKE_CURRENT_LIST_DIR}/schema/program.fbs
  ${CMAKE_CURRENT_LIST_DIR}/schema/flat_tensor.fbs)
