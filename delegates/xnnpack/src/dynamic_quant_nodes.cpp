#include "dynamic_quant_nodes.h"

#include <algorithm>
#include <cmath>

#include <pthreadpool.h>

#include "etkit/kernels/int4_channel_blocks.h"
#include "etkit/kernels/int8_gemm.h"
#include "etkit/kernels/qd8_rows.h"

namespace etkit::xnnpack {
namespace {

constexpr uint32_t kTransposeWeightsFlag = 0x00000001;  // XNN_FLAG_TRANSPOSE_WEIGHTS
// Output channels a fully connected node fills together: their values of
// one row are one vector.
constexpr size_t kChannelBlock = 8;
static_assert(kChannelBlock == kernels::kInt4ChannelBlock, "4-bit channel blocks are the node's channel blocks");

Error fail(uint32_t index, const GraphNode& node, const char* what) {
  return Error::make(ErrorCode::kUnsupported, "node %u (%s, debug handle %u): %s", index,
                     node_kind_name(node.kind), node.debug_handle, what);
}

// Rows of a qdint8 value: everything before its last num_nonbatch_dims dims.
void row_shape(const GraphValue& value, size_t& rows, size_t& width) {
  width = 1;
  const size_t nonbatch = value.quant.num_nonbatch_dims;
  for (size_t d = value.dims.size() - nonbatch; d < value.dims.size(); ++d) width *= value.dims[d];
  rows = width == 0 ? 0 : value.element_count() / width;
}

}  // namespace

RowQuantization qd8_row_quantization(float min, float max) {
  const float qmin = -128.0f, qmax = 127.0f;
  const float rmin = std::min(0.0f, min), rmax = std::max(0.0f, max);
  float multiplier = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
  // A range of a few denormals makes the multiplier infinite (and 0 * inf a
  // NaN zero point): quantize such a row as an all-zero one.
  if (!std::isfinite(multiplier)) multiplier = 1.0f;
  const float descaled_min = rmin * multiplier, descaled_max = rmax * multiplier;
  float zero_point = (qmin + descaled_min) + (qmax + descaled_max) > 0 ? qmin - descaled_min : qmax - descaled_max;
  zero_point = std::min(std::max(zero_point, qmin), qmax);
  return {1.0f / multiplier, int32_t(std::nearbyint(zero_point))};
}

namespace {

// Where channel j's value of group g lies in a by-channel-block table.
size_t channel_lane(size_t j, size_t g, size_t groups) {
  return ((j / kChannelBlock) * groups + g) * kChannelBlock + j % kChannelBlock;
}

// The weights of a dynamically quantized linear: their scales by output
// channel or channel group, and each group's sum (the zero point's share of
// a dot product); scratch sized for the groups.

Status prepare_weights(uint32_t index, const GraphNode& node, const GraphValue& w, DynamicQuantNode& out) {
  out.weights = w.constant.data;
  out.four_bit = w.datatype == Datatype::kQcint4 || w.datatype == Datatype::kQbint4;
  out.weight_row_bytes = out.four_bit ? (out.k + 1) / 2 : out.k;
  if (w.constant.size < out.n * out.weight_row_bytes) return fail(index, node, "weights are truncated");
  if (w.datatype == Datatype::kQbint4) {
    out.group = w.quant.group_size;
  } else if (w.quant.kind == QuantKind::kPerChannel && w.quant.channel_dim == 0) {
    out.group = out.k;
  } else {
    return fail(index, node, "weights must be quantized per output channel (channel_dim 0) or per channel group");
  }
  // Blocks tile each row in whole 4-bit byte pairs, with a scale each: a
  // group that does not divide the row would index past the sums and scales.
  const bool odd_block = out.four_bit && out.group != out.k && out.group % 2 != 0;
  if (out.k > 0 && (out.group == 0 || out.k % out.group != 0 || odd_block)) {
    return fail(index, node, "the weights' block size must divide the row (in whole bytes for 4-bit weights)");
  }
  const size_t groups = out.k / std::max<size_t>(out.group, 1);
  const std::vector<float>& scales = w.quant.scales;  // [n][groups]
  if (out.k > 0 && scales.size() != out.n * groups) {
    return fail(index, node, "the weights' scales are not one per output channel and block");
  }
  const size_t blocks = (out.n + kChannelBlock - 1) / kChannelBlock;
  out.scales.assign(blocks * groups * kChannelBlock, 0.0f);
  out.weight_sums.assign(blocks * groups * kChannelBlock, 0);
  std::vector<int8_t> row(out.k);
  for (size_t j = 0; j < out.n; ++j) {
    const uint8_t* packed = out.weights + j * out.weight_row_bytes;
    if (out.four_bit) {
      kernels::unpack_s4(packed, out.k, row.data());
    } else {
      std::copy(packed, packed + out.k, reinterpret_cast<uint8_t*>(row.data()));
    }
    for (size_t g = 0; g < groups; ++g) {
      const size_t lane = channel_lane(j, g, groups);
      out.scales[lane] = scales[j * groups + g];
      for (size_t c = g * out.group; c < (g + 1) * out.group; ++c) out.weight_sums[lane] += row[c];
    }
  }
  const size_t half = (out.k + 1) / 2;
  if (out.four_bit && kernels::channel_blocks_suit(out.k, out.group)) {
    out.channel_blocks = kernels::pack_int4_channel_blocks(out.weights, out.n, out.k);
  } else if (out.four_bit) {
    out.even.assign(out.rows * half, 0);
    out.odd.assign(out.rows * half, 0);
  }
  if (out.four_bit) out.row_sums.assign(out.rows * groups, 0);
  out.dots.assign(out.tasks * out.rows * groups * kChannelBlock, 0);
  out.scratch.assign(out.tasks * kernels::rows_scratch_ints(groups), 0);
  return Ok{};
}

}  // namespace

Result<std::unique_ptr<DynamicQuantNode>> prepare_dynamic_quant_node(const XnnGraph& graph, uint32_t index,
                                                                     const std::vector<void*>& buffers,
                                                                     RowParamsTable& row_params, size_t threads) {
  const GraphNode& node = graph.nodes[index];
  auto out = std::make_unique<DynamicQuantNode>();
  out->tasks = std::max<size_t>(threads, 1);
  if (node.kind == NodeKind::kConvert) {
    const GraphValue& q = graph.values[node.outputs[0]];
    out->convert = true;
    row_shape(q, out->rows, out->k);
    out->in = static_cast<const float*>(buffers[node.inputs[0]]);
    out->quantized = static_cast<int8_t*>(buffers[node.outputs[0]]);
    out->params = &row_params[node.outputs[0]];
    out->params->assign(out->rows, RowQuantization{});
    return out;
  }
  // Fully connected: [rows, k] qdint8 x [n, k] weights -> [rows, n] fp32.
  const GraphValue& x = graph.values[node.inputs[0]];
  const GraphValue& w = graph.values[node.inputs[1]];
  const GraphValue& y = graph.values[node.outputs[0]];
  if (node.flags & kTransposeWeightsFlag) return fail(index, node, "transposed weights are not supported");
  if (w.dims.size() != 2) return fail(index, node, "weights must be 2-D");
  if (y.datatype != Datatype::kFp32) return fail(index, node, "a dynamically quantized linear must write fp32");
  size_t rows = 0, width = 0;
  row_shape(x, rows, width);
  out->k = w.dims[1];
  out->n = w.dims[0];
  if (x.dims.empty() || x.dims.back() != out->k) return fail(index, node, "input rows do not match the weights");
  out->rows = x.element_count() / std::max<size_t>(out->k, 1);
  if (width % std::max<size_t>(out->k, 1) != 0 || y.element_count() != out->rows * out->n) {
    return fail(index, node, "input, weight and output shapes do not agree");
  }
  if (x.quant.num_nonbatch_dims != 1) return fail(index, node, "qdint8 input must be quantized per row");
  const uint32_t bias = node.inputs.size() > 2 ? node.inputs[2] : kNoValue;
  if (bias != kNoValue) {
    const GraphValue& b = graph.values[bias];
    if (b.datatype != Datatype::kFp32 || b.constant.size == 0 || b.element_count() != out->n) {
      return fail(index, node, "the bias must be a constant fp32 vector of one value per output channel");
    }
    out->bias = reinterpret_cast<const float*>(b.constant.data);
  }
  out->quantized = static_cast<int8_t*>(buffers[node.inputs[0]]);
  out->params = &row_params[node.inputs[0]];
  out->out = static_cast<float*>(buffers[node.outputs[0]]);
  out->output_min = node.output_min;
  out->output_max = node.output_max;
  ETKIT_TRY(prepare_weights(index, node, w, *out));
  return out;
}

namespace {

// The Convert fp32 -> qd8 node: per row, its scale and zero point, then
// every value quantized.
void quantize_rows(DynamicQuantNode& node, std::vector<RowQuantization>& params) {
  for (size_t r = 0; r < node.rows; ++r) {
    const float* x = node.in + r * node.k;
    // The row's range over its finite values: a NaN or an infinity (a
    // diverged activation) would make the scale non-finite and every
    // integer conversion below undefined. NaN then quantizes to the zero
    // point and infinities clamp to the range's ends.
    float min, max;
    kernels::finite_range(x, node.k, min, max);
    if (min > max) min = max = 0;  // no finite value
    const RowQuantization q = qd8_row_quantization(min, max);
    params[r] = q;
    // XNNPACK's f32 -> qs8 conversion: x * (1 / scale), clamped so the
    // zero point keeps it in int8, rounded half to even.
    kernels::quantize_qd8(x, node.k, 1.0f / q.scale, float(-128 - q.zero_point), float(127 - q.zero_point),
                          q.zero_point, node.quantized + r * node.k);
  }
}

}  // namespace

namespace {

// Per row: the 4-bit products read the row split into even and odd columns,
// and each group's sum takes back the weights' stored + 8.
void split_rows(DynamicQuantNode& node) {
  const size_t groups = node.k / node.group, half = (node.k + 1) / 2;
  for (size_t r = 0; r < node.rows; ++r) {
    const int8_t* x = node.quantized + r * node.k;
    if (node.channel_blocks.empty()) {
      kernels::split_even_odd(x, node.k, node.even.data() + r * half, node.odd.data() + r * half);
    }
    for (size_t g = 0; g < groups; ++g) {
      int32_t sum = 0;
      for (size_t c = g * node.group; c < (g + 1) * node.group; ++c) sum += x[c];
      node.row_sums[r * groups + g] = sum;
    }
  }
}

// The group products of output channels [j0, j0 + width) against every
// row, from the rows of weights at `weights`, into dots[(r * groups + g) *
// kChannelBlock + jj].
void row_dots(const DynamicQuantNode& node, size_t j0, size_t width, int32_t* dots, int32_t* scratch) {
  const size_t groups = node.k / node.group, half = (node.k + 1) / 2;
  const size_t group_bytes = node.group / 2;  // 4-bit groups are even, or the whole (padded) row
  const kernels::DotLayout layout{groups * kChannelBlock, kChannelBlock};
  // The lanes of a partial block hold 0, as the channel-block kernel's
  // padding channels do: the corrections run over all eight.
  for (size_t at = 0; width < kChannelBlock && at < node.rows * groups; ++at) {
    std::fill(dots + at * kChannelBlock + width, dots + (at + 1) * kChannelBlock, 0);
  }
  for (size_t jj = 0; jj < width; ++jj) {
    const uint8_t* row = node.weights + (j0 + jj) * node.weight_row_bytes;
    if (node.four_bit) {
      kernels::group_dots_s8_u4_rows(node.even.data(), node.odd.data(), half, node.rows, row, groups,
                                     groups == 1 ? half : group_bytes, dots + jj, layout, scratch);
      continue;
    }
    for (size_t r = 0; r < node.rows; ++r) {
      for (size_t g = 0; g < groups; ++g) {
        dots[r * layout.row + g * layout.group + jj] =
            kernels::dot_s8(node.quantized + r * node.k + g * node.group,
                            reinterpret_cast<const int8_t*>(row) + g * node.group, node.group);
      }
    }
  }
}

// The group products of output channels [j0, j0 + width), with (x - zero
// point) and the 4-bit weights' stored + 8 taken out.
void block_dots(const DynamicQuantNode& node, size_t j0, size_t width, int32_t* dots, int32_t* scratch) {
  const std::vector<RowQuantization>& params = *node.params;
  const size_t groups = node.k / node.group;
  if (!node.channel_blocks.empty()) {  // j0 starts a block: ranges split at multiples of eight
    kernels::channel_block_dots_s8_u4(node.quantized, node.rows, node.k,
                                      node.channel_blocks.data() + (j0 / kChannelBlock) * 4 * node.k, node.group,
                                      dots);
  } else {
    row_dots(node, j0, width, dots, scratch);
  }
  // All eight lanes, those past `width` too (never written out): a loop of
  // constant length stays in registers.
  const int32_t* sums = node.weight_sums.data() + (j0 / kChannelBlock) * groups * kChannelBlock;
  for (size_t r = 0; r < node.rows; ++r) {
    const int32_t zero_point = params[r].zero_point;
    for (size_t g = 0; g < groups; ++g) {
      int32_t* d = dots + r * groups * kChannelBlock + g * kChannelBlock;
      const int32_t stored_eight = node.four_bit ? 8 * node.row_sums[r * groups + g] : 0;
      for (size_t jj = 0; jj < kChannelBlock; ++jj) d[jj] -= stored_eight + zero_point * sums[g * kChannelBlock + jj];
    }
  }
}

// Output channels [begin, end) of a fully connected node, with `dots`
// (rows * groups * kChannelBlock) and `scratch` its own. Each value is
// computed in the same order whatever the blocks: the int32 group products,
// then (XNNPACK's order) acc * input scale * channel scale per channel, or
// the sum of acc * block scale then the input scale per block, then bias
// and clamp.
void fully_connected_range(const DynamicQuantNode& node, size_t begin, size_t end, int32_t* dots, int32_t* scratch) {
  const std::vector<RowQuantization>& params = *node.params;
  const size_t groups = node.k / node.group;
  for (size_t j0 = begin; j0 < end; j0 += kChannelBlock) {
    const size_t width = std::min(kChannelBlock, end - j0);
    block_dots(node, j0, width, dots, scratch);
    const float* scales = node.scales.data() + (j0 / kChannelBlock) * groups * kChannelBlock;
    for (size_t r = 0; r < node.rows; ++r) {
      const int32_t* d = dots + r * groups * kChannelBlock;
      // All eight lanes, as in block_dots.
      float values[kChannelBlock];
      if (groups == 1) {
        for (size_t jj = 0; jj < kChannelBlock; ++jj) values[jj] = float(d[jj]) * params[r].scale * scales[jj];
      } else {
        for (size_t jj = 0; jj < kChannelBlock; ++jj) values[jj] = 0;
        for (size_t g = 0; g < groups; ++g) {
          for (size_t jj = 0; jj < kChannelBlock; ++jj) {
            values[jj] += float(d[g * kChannelBlock + jj]) * scales[g * kChannelBlock + jj];
          }
        }
        for (size_t jj = 0; jj < kChannelBlock; ++jj) values[jj] *= params[r].scale;
      }
      float* out = node.out + r * node.n + j0;
      for (size_t jj = 0; jj < width; ++jj) {
        const float value = node.bias ? values[jj] + node.bias[j0 + jj] : values[jj];
        out[jj] = std::min(std::max(value, node.output_min), node.output_max);
      }
    }
  }
}

struct RangeJob {
  DynamicQuantNode* node;  ///< its scratch is written, a part per task
  size_t tasks;
};

void run_range(void* context, size_t task) {
  const RangeJob& job = *static_cast<const RangeJob*>(context);
  DynamicQuantNode& node = *job.node;
  const size_t groups = node.k / node.group;
  int32_t* dots = node.dots.data() + task * (node.dots.size() / node.tasks);
  int32_t* scratch = node.scratch.data() + task * kernels::rows_scratch_ints(groups);
  // Whole blocks of eight channels per task (the channel-block kernel
  // reads them so); each channel's value does not depend on the split.
  const size_t blocks = (node.n + kChannelBlock - 1) / kChannelBlock;
  fully_connected_range(node, std::min(node.n, kChannelBlock * (blocks * task / job.tasks)),
                        std::min(node.n, kChannelBlock * (blocks * (task + 1) / job.tasks)), dots, scratch);
}

// Below this many multiply-adds a wake-up of the pool costs more than it saves.
constexpr size_t kMinMultiplyAddsPerTask = 16384;

}  // namespace

void run_dynamic_quant_node(DynamicQuantNode& node, void* threadpool) {
  if (node.convert) {
    quantize_rows(node, *node.params);
    return;
  }
  if (node.rows == 0 || node.n == 0) return;  // an empty input or output: nothing to compute
  if (node.k == 0 || node.group == 0) {
    // No input columns: every output is its bias (or 0), clamped.
    for (size_t r = 0; r < node.rows; ++r) {
      for (size_t j = 0; j < node.n; ++j) {
        const float value = node.bias ? node.bias[j] : 0.0f;
        node.out[r * node.n + j] = std::min(std::max(value, node.output_min), node.output_max);
      }
    }
    return;
  }
  if (node.four_bit) split_rows(node);
  const size_t work = node.rows * node.n * node.k;
  RangeJob job{&node, std::min({node.tasks, node.n, std::max<size_t>(work / kMinMultiplyAddsPerTask, 1)})};
  if (job.tasks <= 1 || threadpool == nullptr) {
    fully_connected_range(node, 0, node.n, node.dots.data(), node.scratch.data());
    return;
  }
  pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(threadpool), run_range, &job,
                             job.tasks, 0);
}

}  // namespace etkit::xnnpack
