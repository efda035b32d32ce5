#pragma once
// run --save-intermediates DIR: the intermediate outputs a traced run logged
// (its first run), one .npy per value, named as gap's reference folders
// are read: <instruction>.npy for an instruction's output, so that
// `gap TRACE --reference DIR` compares a later trace against this run.

#include <string>

#include "etkit/core/result.h"

namespace etkit::cli {

/// Reads the trace at `etdump` and its data at `debug_buffer` and writes
/// the first run's values into `dir`: <instruction>.npy (an instruction's
/// first output), <instruction>.out<k>.npy (its k-th), and
/// <instruction>.delegate<id>.npy (a delegate node's last value).
/// Floating values other than float32/float64 are written as float32, the
/// rest in their dtype. Returns how many files it wrote.
Result<size_t> save_intermediates(const std::string& etdump, const std::string& debug_buffer, const std::string& dir);

}  // namespace etkit::cli
