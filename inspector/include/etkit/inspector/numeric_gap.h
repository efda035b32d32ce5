#pragma once
/// @file
/// Numeric gap between runtime intermediate outputs and a reference, with
/// upstream's metric definitions: MSE, L1 as a sum of absolute differences,
/// SNR in dB (reference power over difference power), cosine similarity,
/// plus the largest absolute difference.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/core/byte_span.h"
#include "etkit/core/scalar_type.h"
#include "etkit/etdump/etdump_reader.h"

namespace etkit::inspector {

struct GapMetrics {
  int64_t count = 0;
  double mse = 0;
  double l1 = 0;
  double snr_db = 0;   ///< +inf when the values are identical
  double cosine = 0;   ///< 1 when both are all zeros
  double max_abs = 0;
  double max_abs_reference = 0;
};

/// Summary statistics of a tensor's values (NaN ignored in min/max/mean;
/// all zero for an empty tensor).
struct TensorStats {
  size_t count = 0;
  size_t nan_count = 0;
  double min = 0, max = 0, mean = 0;
};
TensorStats tensor_stats(const std::vector<double>& values);

/// How compare_values treats values that are not finite.
enum class NonFinite {
  /// etinspect gap's rule: equal values (masked -inf scores, NaN against
  /// NaN) agree, as allclose(equal_nan=True) has it; any other pair holding
  /// an infinity or a NaN makes the distances infinite.
  kEqualValuesAgree,
  /// Upstream's comparators (MSEComparator, L1Comparator, SNRComparator):
  /// the plain formulas in IEEE float64, as numpy computes them, so a NaN or
  /// an inf - inf difference makes the distance NaN.
  kPlainArithmetic,
};

/// Element-wise comparison of `actual` against `reference` (the SNR's
/// signal); sizes must match (checked by the caller). The one definition of
/// the distances: etinspect gap, the GUI and the Python comparators use it.
GapMetrics compare_values(const std::vector<double>& actual, const std::vector<double>& reference,
                          NonFinite rule = NonFinite::kEqualValuesAgree);

/// One recorded output tensor of an instruction. An op with several out
/// arguments (max_pool2d_with_indices: values, indices) has one per out
/// argument, numbered by `output_index` in the order they were logged.
struct RecordedOutput {
  int32_t instruction_id = -1;
  /// Numbered per instruction, and per delegate debug id within a delegate
  /// call: the values a delegate logs for one of its nodes count apart.
  int32_t output_index = 0;
  /// A value a delegate logged for one of its nodes; -1 for the
  /// instruction's own outputs.
  int64_t delegate_debug_id = -1;
  /// Set by decode_delegate_outputs: the value is an NHWC activation inside
  /// a delegate (compared with an NCHW reference after permuting).
  bool nhwc = false;
  /// How the values were decoded ("dequantized qs8: scale 0.02, zero point
  /// -3"); empty when they are the logged numbers.
  std::string decoded;
  /// The quantization step of a dequantized value (its scale); 0 for values
  /// that were not quantized.
  double quantum = 0;
  std::string name;
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> sizes;
  std::vector<double> values;
};

/// The intermediate outputs of the first run block that has any: every
/// tensor of every debug event with an instruction id, in trace order
/// (a tensor list contributes each item), resolved in `debug_buffer`.
/// Errors name the event whose tensor is out of bounds.
Result<std::vector<RecordedOutput>> recorded_outputs(const etdump::ETDump& trace,
                                                     ByteSpan debug_buffer);
/// The intermediate outputs of run block `block` (a run block index);
/// fails when there is no such block.
Result<std::vector<RecordedOutput>> recorded_outputs(const etdump::ETDump& trace, ByteSpan debug_buffer,
                                                     size_t block);

/// Program outputs recorded in run block `block` (debug events marked as
/// outputs; empty when the trace was recorded without them): upstream's
/// EventBlock.run_output.
Result<std::vector<RecordedOutput>> run_outputs(const etdump::ETDump& trace, ByteSpan debug_buffer,
                                                size_t block);

}  // namespace etkit::inspector
