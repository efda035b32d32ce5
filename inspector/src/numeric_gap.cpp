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

namespace {

// The distances from the sums of one pass over the values.
struct GapSums {
  double sq_diff = 0, sq_ref = 0, sq_act = 0, dot = 0;
};

void finish_metrics(const GapSums& sums, NonFinite rule, GapMetrics& m) {
  if (rule == NonFinite::kPlainArithmetic) {
    // numpy's mean of nothing is NaN; 0/0 powers give a NaN SNR, x/0 +inf.
    m.mse = sums.sq_diff / double(m.count);
    m.snr_db = 10.0 * std::log10(sums.sq_ref / sums.sq_diff);
  } else {
    m.mse = m.count ? sums.sq_diff / double(m.count) : 0;
    m.snr_db = sums.sq_diff == 0 ? std::numeric_limits<double>::infinity()
                                 : 10.0 * std::log10(sums.sq_ref / sums.sq_diff);
  }
  if (sums.sq_ref == 0 && sums.sq_act == 0) m.cosine = 1;
  else if (sums.sq_ref == 0 || sums.sq_act == 0) m.cosine = 0;
  else m.cosine = sums.dot / (std::sqrt(sums.sq_ref) * std::sqrt(sums.sq_act));
}

// The larger value, NaN once either is NaN (numpy's max).
double nan_propagating_max(double so_far, double value) {
  if (std::isnan(so_far) || std::isnan(value)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(so_far, value);
}

void add_pair(double a, double r, GapSums& sums, GapMetrics& m) {
  const double diff = a - r;
  sums.sq_diff += diff * diff;
  sums.sq_ref += r * r;
  sums.sq_act += a * a;
  sums.dot += a * r;
  m.l1 += std::fabs(diff);
  m.max_abs = nan_propagating_max(m.max_abs, std::fabs(diff));
  m.max_abs_reference = nan_propagating_max(m.max_abs_reference, std::fabs(r));
}

GapMetrics compare_plainly(const std::vector<double>& actual, const std::vector<double>& reference) {
  GapMetrics m;
  m.count = static_cast<int64_t>(actual.size());
  GapSums sums;
  for (size_t i = 0; i < actual.size(); ++i) add_pair(actual[i], reference[i], sums, m);
  finish_metrics(sums, NonFinite::kPlainArithmetic, m);
  return m;
}

}  // namespace

GapMetrics compare_values(const std::vector<double>& actual, const std::vector<double>& reference, NonFinite rule) {
  if (rule == NonFinite::kPlainArithmetic) return compare_plainly(actual, reference);
  GapMetrics m;
  m.count = static_cast<int64_t>(actual.size());
  GapSums sums;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], r = reference[i];
    // Equal values (masked -inf scores included) and NaN against NaN agree,
    // as allclose(equal_nan=True) has it; they add nothing to the sums.
    if (a == r || (std::isnan(a) && std::isnan(r))) {
      if (std::isfinite(r)) {
        sums.sq_ref += r * r;
        sums.sq_act += a * a;
        sums.dot += a * r;
        m.max_abs_reference = std::max(m.max_abs_reference, std::fabs(r));
      }
      continue;
    }
    if (!std::isfinite(a) || !std::isfinite(r)) {
      m.max_abs = std::numeric_limits<double>::infinity();
      m.l1 = std::numeric_limits<double>::infinity();
      sums.sq_diff = std::numeric_limits<double>::infinity();
      continue;
    }
    add_pair(a, r, sums, m);
  }
  finish_metrics(sums, rule, m);
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
