// make_trace OUT.etdp RUNS [--per-run-blocks]: writes a generated trace of
// RUNS runs x 100 operators (201 profile events per run), the inspector
// benchmark's generator, for the GUI benchmark (bench/gui_bench.sh).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "generated_trace.h"

int main(int argc, char** argv) {
  if (argc < 3 || std::atoi(argv[2]) < 1) {
    std::fprintf(stderr, "usage: %s OUT.etdp RUNS [--per-run-blocks]\n", argv[0]);
    return 2;
  }
  const bool per_run = argc > 3 && std::string(argv[3]) == "--per-run-blocks";
  const auto stats = etkit::bench::generate_trace(argv[1], std::atoi(argv[2]), 100, per_run);
  if (!stats) {
    std::fprintf(stderr, "make_trace: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("%s: %zu events recorded, %zu dropped\n", argv[1], stats->events, stats->dropped_events);
  return stats->dropped_events == 0 ? 0 : 1;
}
