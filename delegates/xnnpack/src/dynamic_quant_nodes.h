#pragma once
// The dynamically quantized nodes this XNNPACK lacks, on etkit's integer
// kernels inside the delegate call: Convert fp32 -> qdint8 (per-row
// asymmetric int8 with XNNPACK's parameter rule), and Fully Connected with
// a qdint8 input and qc8w, qc4w or qb4w weights (int32 accumulation, float
// rescale by the row's and the channel's, or block's, scales, plus bias).
// Everything is prepared at load; a run allocates nothing.

#include <memory>
#include <vector>

#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {

/// A qdint8 row's parameters: real = (q - zero_point) * scale.
struct RowQuantization {
  float scale = 1;
  int32_t zero_point = 0;
};

/// XNNPACK's per-row rule (xnn_f32_qd8_asymmetric_quantization_params):
/// the range widened to include 0, multiplier 255 / (max - min), the zero
/// point from the end that loses less, rounded half to even.
RowQuantization qd8_row_quantization(float min, float max);

/// Per qdint8 value: its rows' parameters (filled by the Convert).
using RowParamsTable = std::vector<std::vector<RowQuantization>>;

struct DynamicQuantNode {
  bool convert = false;  ///< Convert fp32 -> qdint8; else Fully Connected
  size_t rows = 0;       ///< tokens
  size_t k = 0;          ///< row length (input channels)
  size_t n = 0;          ///< output channels (fully connected)
  // Convert: in -> out, row params written to *params.
  const float* in = nullptr;
  int8_t* quantized = nullptr;
  std::vector<RowQuantization>* params = nullptr;
  // Fully connected: quantized (with *params) x weights -> out.
  const uint8_t* weights = nullptr;
  size_t weight_row_bytes = 0;
  bool four_bit = false;
  size_t group = 0;                    ///< columns per scale: k for per channel
  // By channel block, so the eight channels' values of a group are one
  // vector: [ceil(n / 8)][k / group][8], lanes past n 0.
  std::vector<float> scales;           ///< a channel's scale per group
  std::vector<int32_t> weight_sums;    ///< the sum of a group's weights
  /// 4-bit weights in blocks of eight channels (kernels/int4_channel_blocks.h)
  /// where that kernel suits the shape; empty: the rows at `weights` are read.
  std::vector<uint8_t> channel_blocks;
  const float* bias = nullptr;         ///< may be null
  float* out = nullptr;
  float output_min = 0, output_max = 0;
  // Per run: 4-bit products read each activation row split into even and
  // odd columns (without channel blocks), and the sums of its groups.
  std::vector<int8_t> even, odd;       ///< rows * ceil(k / 2)
  std::vector<int32_t> row_sums;       ///< rows * groups
  // Output channels are split into `tasks` ranges run on the delegate's
  // thread pool, each with its own scratch (every output is computed the
  // same way whatever the split: the same bits for any thread count).
  size_t tasks = 1;
  std::vector<int32_t> dots;           ///< tasks * rows * groups * 8 channels: group products
  std::vector<int32_t> scratch;        ///< tasks * rows_scratch_ints: for kernels::group_dots_s8_u4_rows
};

/// Prepares node `index` (a NodeRunner::kDynamicQuant node) over the
/// delegate's buffers; fails naming the node for shapes or kinds it cannot run.
/// `threads`: the most ranges a fully connected node is split into.
Result<std::unique_ptr<DynamicQuantNode>> prepare_dynamic_quant_node(const XnnGraph& graph, uint32_t index,
                                                                     const std::vector<void*>& buffers,
                                                                     RowParamsTable& row_params, size_t threads);

/// Runs the node over its current `rows`, a fully connected one on
/// `threadpool` (a pthreadpool_t; null: the calling thread) when it is
/// large enough to gain from it.
void run_dynamic_quant_node(DynamicQuantNode& node, void* threadpool);

}  // namespace etkit::xnnpack
