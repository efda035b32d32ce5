#pragma once
// The CLI's one validation layer: every option value is checked here, when
// the command line is parsed and before any work starts, and a bad value is
// one usage error (exit 2) naming the option, the value and what is
// allowed. Commands attach these checks to their options instead of
// checking values themselves; checks that need a loaded file (a case index
// against the bundle's case count, a block name against the trace's
// blocks) go through the helpers at the bottom, so they read the same.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/error.h"

namespace etkit::cli {

/// Largest count any option accepts (iterations, rows, depth): beyond it a
/// value is a typo, not a request.
inline constexpr int64_t kMaxCount = 100'000'000;

/// A whole number in [min, max]: "abc", "1.5", "nan" and out-of-range
/// values are refused with the allowed range.
CLI::Validator whole_number(int64_t min, int64_t max = kMaxCount);

/// A finite number >= 0 (tolerances, thresholds): "-1", "nan", "inf" and
/// words are refused.
CLI::Validator non_negative_number();

/// A finite number in [min, max] (a temperature, a probability, a
/// confidence), refused in plain numbers ("2 is not allowed (allowed: a
/// number from 0 to 1)").
CLI::Validator number_in(double min, double max);

/// An output path whose folder exists and can be written, checked before
/// any work so a long run never fails at its end.
CLI::Validator writable_path();

/// --threads N for the delegate backends' thread pools (XNNPACK): 1 runs
/// on the calling thread, 0 uses every core.
void add_threads_option(CLI::App& command, int& threads);

/// Adds --phase prefill|decode, which sets `block` to the Prefill or Decode
/// block of a generate trace (each step one run); it excludes `block_option`.
void add_phase_option(CLI::App& command, std::shared_ptr<std::string> block, CLI::Option* block_option);

/// Refuses `old_name`, an option renamed so that one name means one thing
/// across commands, with a usage error naming `new_name` and `why`; hidden
/// from --help.
void add_renamed_option(CLI::App& command, const std::string& old_name, const std::string& new_name,
                        const std::string& why);

/// `what` '`value`' not found: the error listing what exists, for names
/// checked against a loaded file (blocks, methods, modules).
Error unknown_name(const std::string& option, const std::string& value, const std::string& what,
                   const std::vector<std::string>& existing);

/// An index option (`--case 7`) beyond what the file holds.
Error index_out_of_range(const std::string& option, int64_t value, const std::string& what, size_t count);

}  // namespace etkit::cli
