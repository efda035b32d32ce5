#include "etkit/inspector/numeric_gap.h"

#include <cmath>
#include <limits>

#include "etkit/core/tensor_access.h"

namespace etkit::inspector {

TensorStats tensor_stats(const std::vector<double>& values) {
  TensorStats stats;
  stats.count = values.size();
  double sum = 0;
  size_t finite_or_inf = 0;
  for (double v : values) {
    if (std::isnan(v)) {
      ++stats.nan_count;
      continue;
    }
    if (finite_or_inf++ == 0) stats.min = stats.max = v;
    stats.min = std::min(stats.min, v);
    stats.max = std::max(stats.max, v);
    sum += v;
  }
  stats.mean = finite_or_inf ? sum / double(finite_or_inf) : 0;
  return stats;
}

GapMetrics compare_values(const std::vector<double>& actual, const std::vector<double>& reference) {
  GapMetrics m;
  m.count = static_cast<int64_t>(actual.size());
  double sum_sq_diff = 0, sum_sq_ref = 0, sum_sq_act = 0, dot = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], r = reference[i];
    // Equal values (masked -inf scores included) and NaN against NaN agree,
    // as allclose(equal_nan=True) has it; they add nothing to the sums.
    if (a == r || (std::isnan(a) && std::isnan(r))) {
      if (std::isfinite(r)) {
        sum_sq_ref += r * r;
        sum_sq_act += a * a;
        dot += a * r;
        m.max_abs_reference = std::max(m.max_abs_reference, std::fabs(r));
      }
      continue;
    }
    if (!std::isfinite(a) || !std::isfinite(r)) {
      m.max_abs = std::numeric_limits<double>::infinity();
      m.l1 = std::numeric_limits<double>::infinity();
      sum_sq_diff = std::numeric_limits<double>::infinity();
      continue;
    }
    const double diff = a - r;
    sum_sq_diff += diff * diff;
    sum_sq_ref += r * r;
    sum_sq_act += a * a;
    dot += a * r;
    m.l1 += std::fabs(diff);
    m.max_abs = std::max(m.max_abs, std::fabs(diff));
    m.max_abs_reference = std::max(m.max_abs_reference, std::fabs(r));
  }
  m.mse = m.count ? sum_sq_diff / double(m.count) : 0;
  m.snr_db = sum_sq_diff == 0 ? std::numeric_limits<double>::infinity()
                              : 10.0 * std::log10(sum_sq_ref / sum_sq_diff);
  if (sum_sq_ref == 0 && sum_sq_act == 0) m.cosine = 1;
  else if (sum_sq_ref == 0 || sum_sq_act == 0) m.cosine = 0;
  else m.cosine = dot / (std::sqrt(sum_sq_ref) * std::sqrt(sum_sq_act));
  return m;
}

namespace {

// Every tensor of each debug event of block `b` that `wanted` accepts;
// consecutive events of one instruction (and one delegate debug id) number
// their tensors on.
template <typename Wanted>
Result<std::vector<RecordedOutput>> block_values(const etdump::ETDump& trace, ByteSpan debug_buffer, size_t b,
                                                 Wanted wanted) {
  const etdump::RunBlock block = trace.block(b);
  std::vector<RecordedOutput> outputs;
  for (size_t e = 0; e < block.event_count(); ++e) {
    const etdump::EventView event = block.event(e);
    if (event.kind != etdump::EventKind::kDebug) continue;
    const etdump::DebugEventView& debug = event.debug;
    if (!wanted(debug)) continue;
    for (const etdump::DebugTensorView& view : debug.tensors) {
      Result<Tensor> tensor = etdump::debug_tensor(view, debug_buffer);
      if (!tensor.ok()) {
        return tensor.error().with_context("run block %zu, debug event %zu (instruction %d)", b, e,
                                           debug.instruction_id);
      }
      RecordedOutput out;
      out.instruction_id = debug.instruction_id;
      out.delegate_debug_id = debug.delegate_debug_id_int;
      const bool same_op = !outputs.empty() && outputs.back().instruction_id == debug.instruction_id &&
                           outputs.back().delegate_debug_id == out.delegate_debug_id;
      out.output_index = same_op ? outputs.back().output_index + 1 : 0;
      out.name = std::string(debug.name);
      out.dtype = tensor->scalar_type();
      out.sizes.assign(tensor->sizes().begin(), tensor->sizes().end());
      out.values.resize(static_cast<size_t>(tensor->numel()));
      for (int64_t i = 0; i < tensor->numel(); ++i) out.values[size_t(i)] = element_as_double(*tensor, i);
      outputs.push_back(std::move(out));
    }
  }
  return outputs;
}

}  // namespace

Result<std::vector<RecordedOutput>> recorded_outputs(const etdump::ETDump& trace,
                                                     ByteSpan debug_buffer) {
  for (size_t b = 0; b < trace.block_count(); ++b) {
    ETKIT_ASSIGN_OR_RETURN(std::vector<RecordedOutput> outputs,
                           block_values(trace, debug_buffer, b, [](const etdump::DebugEventView& d) {
                             return !d.is_output && d.instruction_id >= 0;
                           }));
    if (!outputs.empty()) return outputs;
  }
  return std::vector<RecordedOutput>{};
}

Result<std::vector<RecordedOutput>> recorded_outputs(const etdump::ETDump& trace, ByteSpan debug_buffer,
                                                     size_t block) {
  if (block >= trace.block_count()) {
    return Error::make(ErrorCode::kOutOfRange, "%s: run block %zu of %zu", trace.name().c_str(), block,
                       trace.block_count());
  }
  return block_values(trace, debug_buffer, block, [](const etdump::DebugEventView& d) {
    return !d.is_output && d.instruction_id >= 0;
  });
}

Result<std::vector<RecordedOutput>> run_outputs(const etdump::ETDump& trace, ByteSpan debug_buffer,
                                                size_t block) {
  if (block >= trace.block_count()) {
    return Error::make(ErrorCode::kOutOfRange, "%s: run block %zu of %zu", trace.name().c_str(), block,
                       trace.block_count());
  }
  return block_values(trace, debug_buffer, block, [](const etdump::DebugEventView& d) { return d.is_output; });
}

}  // namespace etkit::inspector
