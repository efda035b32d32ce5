#pragma once
// The command line of a user's runner from a template (--runner-args), so
// a runtime's own binary is called with its own flags. Words are split at
// spaces; placeholders: {program}, {method}, {inputs}, {data}, {output_dir},
// {etdump}, {debug_buffer}. A word holding {inputs} or {data} is repeated
// per file; a word whose placeholder has no value ({etdump} untraced) is
// left out. A bare flag (a word starting with '-' and holding no
// placeholder) directly before a placeholder word goes with it: repeated
// or left out together ("--input {inputs}" gives one pair per input).

#include <map>
#include <string>
#include <vector>

#include "etkit/core/result.h"

namespace etkit::cli {

/// The contract's own command line (README "Your own runner").
inline constexpr const char* kDefaultRunnerTemplate =
    "run {program} --method {method} --input {inputs} --output-dir {output_dir} --data {data} --etdump {etdump} "
    "--debug-buffer {debug_buffer}";

/// Each placeholder's values (empty: absent).
using TemplateValues = std::map<std::string, std::vector<std::string>>;

/// The arguments `text` gives for `values`; an unknown placeholder or an
/// unclosed brace is an error naming it.
Result<std::vector<std::string>> expand_runner_template(const std::string& text, const TemplateValues& values);

}  // namespace etkit::cli
