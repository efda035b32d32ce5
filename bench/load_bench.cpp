// Times loading (map + verify + summarize) of programs, as `etinspect info`
// does, and prints the median per load.
//
//   load_bench FILE.pte [ITERATIONS]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "etkit/core/file_data.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: load_bench FILE.pte [ITERATIONS]\n");
    return 2;
  }
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  std::vector<double> load_ms;
  std::vector<double> summary_ms;
  size_t methods = 0;
  bool mapped = false;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto file = etkit::FileData::load(argv[1]);
    if (!file.ok()) {
      std::fprintf(stderr, "load_bench: error: %s\n", file.error().message());
      return 2;
    }
    mapped = (*file)->is_mapped();
    auto program = etkit::Program::load(*file, (*file)->bytes(), argv[1]);
    if (!program.ok()) {
      std::fprintf(stderr, "load_bench: error: %s\n", program.error().message());
      return 2;
    }
    const auto loaded = std::chrono::steady_clock::now();
    methods = etkit::summarize(*program).methods.size();
    const auto summarized = std::chrono::steady_clock::now();
    load_ms.push_back(std::chrono::duration<double, std::milli>(loaded - start).count());
    summary_ms.push_back(std::chrono::duration<double, std::milli>(summarized - loaded).count());
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("%s: %zu methods, %s, %d iterations\n", argv[1], methods,
              mapped ? "memory-mapped" : "read", iterations);
  std::printf("  map + verify:  median %.3f ms (min %.3f)\n", median(load_ms),
              *std::min_element(load_ms.begin(), load_ms.end()));
  std::printf("  summarize:     median %.3f ms\n", median(summary_ms));
  return 0;
}
