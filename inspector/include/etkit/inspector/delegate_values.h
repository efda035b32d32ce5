#pragma once
/// @file
/// What the values a delegate logs for its nodes mean in the graph's terms.
/// XNNPACK delegates log each node's output as its buffer holds it: int8
/// for quantized activations, NHWC for 4-D ones. A numeric gap against a
/// float, NCHW reference needs them dequantized and permuted.

#include <string>
#include <vector>

#include "etkit/inspector/numeric_gap.h"

namespace etkit {
class Program;
}

namespace etkit::inspector {

/// For the XNNPACK delegate calls of `method`: per-tensor quantized values
/// (qs8, qu8, qs32) become (q - zero point) × scale with the payload's
/// parameters (RecordedOutput::decoded says so), and 4-D activations other
/// than the delegate's own outputs and transposes into NCHW are marked
/// `nhwc`. Logged values line up with the payload's node outputs in node
/// order; returns one warning per delegate call whose values do not (they
/// stay as logged) or whose values cannot be decoded (per-row dynamic qd8).
std::vector<std::string> decode_delegate_outputs(const Program& program, const std::string& method,
                                                 std::vector<RecordedOutput>& outputs);

}  // namespace etkit::inspector
