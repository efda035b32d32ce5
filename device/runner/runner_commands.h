#pragma once
// The runner's two commands. Both write the device report; the return value
// is the process exit code.

#include <cstdint>
#include <string>
#include <vector>

namespace etkit::device {

struct RunnerOptions {
  std::string command;  ///< "verify" or "run"
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
};

int run_command(const RunnerOptions& options);

}  // namespace etkit::device
