#pragma once
/// @file
/// The texts an event's table cells show, shared by `etinspect table` and the
/// GUI's events table and details panel so that both say the same thing.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/numeric_gap.h"

namespace etkit::inspector {

/// Intermediate outputs by instruction id, every output of an instruction
/// in logged order (the table's debug_data column).
using DebugOutputs = std::map<int32_t, std::vector<RecordedOutput>>;

/// `outputs` keyed by instruction id.
DebugOutputs by_instruction(std::vector<RecordedOutput> outputs);

/// The outputs the event's instruction logged; null for events of no
/// instruction and for delegated events (they carry their own ids).
const std::vector<RecordedOutput>* outputs_of(const Event& event, const DebugOutputs& debug);

/// Decimals that show a `source`-unit timestamp exactly in `target` units
/// (at most 9): ns -> ms gives 6, so statistics line up without noise.
int decimals_for(TimeUnit source, TimeUnit target);

/// "[aten.convolution.default, …]", as upstream prints op_types.
std::string op_types_text(const Event& event);
/// "file:line" of the innermost user frame of each linked node, joined;
/// paths shortened to their last folder and file unless `full_paths`.
std::string source_text(const Event& event, bool full_paths = true);
/// "path (Type)" of the innermost module of each linked node, joined.
std::string module_text(const Event& event);
/// The op a name stands for, short, the same from every source of names:
/// "convolution" for a kernel event (native_call_convolution.out), an
/// operator (aten::convolution.out, llama::sdpa_with_kv_cache.out) and an
/// op type (aten.convolution.default); other names (Method::execute, an
/// XNNPACK operator's "Convolution (NHWC, F32) GEMM #26") as they are.
std::string short_op_name(std::string_view name);
/// What the views label an event with: its short op name and the path of
/// the innermost module of its first linked node, "convolution ·
/// features.3.conv.0" (the op alone without a module).
std::string op_label(const Event& event);
/// "float32[1,16,14,14]".
std::string shape_text(const RecordedOutput& output);
/// "float32[1,16,14,14], int64[1,16,14,14]": the outputs an event's
/// instruction logged, empty for other events.
std::string debug_data_text(const Event& event, const DebugOutputs& debug);

}  // namespace etkit::inspector
