// etkit's device runner: the same runtime, kernels, verifier and ETDumpGen
// as the host tools, and nothing else, built for a board or a phone.
//
//   runner verify BUNDLE --report FILE [--rtol X] [--atol X] [--method M]
//                 [--case N] [--data PTD]... [trace options]
//   runner run PROGRAM --report FILE [--method M] [--input NPY]...
//              [--iterations N] [--warmup N] [--reset-state] [--output-dir DIR]
//              [--data PTD]... [trace options]
//   runner generate PROGRAM --report FILE --prompt-tokens 1,2,3 [--max-new N]
//                   [--temperature T] [--top-p P] [--seed S] [--method M]
//                   [--output-dir DIR] [--data PTD]... [trace options]
//   trace options: --etdump FILE [--debug-level L] [--debug-buffer FILE]
//                  [--debug-filter TEXT] [--trace-allocations]
//
// The host (etinspect --device) writes the arguments and reads back the
// report (etkit/bundled/device_report.h), the outputs and the trace. Exit
// code: 0 passed, 1 a case failed, 2 the input could not be verified or run
// (the report says why), 3 the report itself could not be written.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runner_commands.h"

namespace {

using etkit::device::RunnerOptions;

bool needs_value(const char* flag) {
  static const char* const kFlags[] = {"--report", "--rtol", "--atol", "--method", "--case", "--data",
                                       "--input", "--iterations", "--warmup", "--output-dir", "--etdump",
                                       "--debug-level", "--debug-buffer", "--debug-filter",
                                       "--prompt-tokens", "--max-new", "--temperature", "--top-p", "--seed"};
  for (const char* f : kFlags) {
    if (std::strcmp(f, flag) == 0) return true;
  }
  return false;
}

// Fills `options` from argv; false (with a message) on a usage error.
bool parse(int argc, char** argv, RunnerOptions& o) {
  if (argc < 3) return false;
  o.command = argv[1];
  o.file = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--trace-allocations") {
      o.trace_allocations = true;
      continue;
    }
    if (flag == "--reset-state") {
      o.reset_state = true;
      continue;
    }
    if (!needs_value(flag.c_str()) || i + 1 >= argc) {
      std::fprintf(stderr, "etkit runner: unknown option or missing value: %s\n", flag.c_str());
      return false;
    }
    const std::string value = argv[++i];
    if (flag == "--report") o.report = value;
    else if (flag == "--rtol") o.rtol = std::strtod(value.c_str(), nullptr);
    else if (flag == "--atol") o.atol = std::strtod(value.c_str(), nullptr);
    else if (flag == "--method") o.method = value;
    else if (flag == "--case") o.case_index = std::strtoll(value.c_str(), nullptr, 10);
    else if (flag == "--data") o.data.push_back(value);
    else if (flag == "--input") o.inputs.push_back(value);
    else if (flag == "--iterations") o.iterations = std::atoi(value.c_str());
    else if (flag == "--warmup") o.warmup = std::atoi(value.c_str());
    else if (flag == "--output-dir") o.output_dir = value;
    else if (flag == "--etdump") o.etdump = value;
    else if (flag == "--debug-level") o.debug_level = value;
    else if (flag == "--debug-buffer") o.debug_buffer = value;
    else if (flag == "--debug-filter") o.debug_filter = value;
    else if (flag == "--max-new") o.max_new = std::strtoll(value.c_str(), nullptr, 10);
    else if (flag == "--temperature") o.temperature = std::strtod(value.c_str(), nullptr);
    else if (flag == "--top-p") o.top_p = std::strtod(value.c_str(), nullptr);
    else if (flag == "--seed") o.seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--prompt-tokens") {
      for (const char* p = value.c_str(); *p != '\0';) {
        char* end = nullptr;
        o.prompt_tokens.push_back(std::strtoll(p, &end, 10));
        if (end == p) return false;
        p = *end == ',' ? end + 1 : end;
      }
    }
  }
  return !o.report.empty() && (o.command == "verify" || o.command == "run" || o.command == "generate");
}

}  // namespace

int main(int argc, char** argv) {
  RunnerOptions options;
  if (!parse(argc, argv, options)) {
    std::fprintf(stderr, "usage: runner verify|run|generate FILE --report FILE [options]\n");
    return 2;
  }
  return etkit::device::run_command(options);
}
