#pragma once
// The runner's two commands. Both write the device report; the return value
// is the process exit code.

#include <cstdint>
#include <string>
#include <vector>

namespace etkit::device {

struct RunnerOptions {
  std::string command;  ///< "verify", "run" or "generate"
  std::string file;     ///< the bundle or program
  std::string report;
  double rtol = 1e-5, atol = 1e-8;
  std::string method;
  int64_t case_index = -1;
  std::vector<std::string> data;
  std::vector<std::string> inputs;
  int iterations = 1, warmup = 0;
  bool reset_state = false;  // planned memory as loaded before each run (else state carries)
  std::string output_dir;
  std::string etdump, debug_level = "none", debug_buffer, debug_filter;
  bool trace_allocations = false;
  // generate: prompt token ids, tokens to generate, sampling.
  std::vector<int64_t> prompt_tokens;
  int64_t max_new = 32;
  double temperature = 0.0, top_p = 1.0;
  uint64_t seed = 0;
};

int run_command(const RunnerOptions& options);

}  // namespace etkit::device
