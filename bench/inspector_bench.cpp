// Tabulating very large traces: generates ETDumps of ~1,000,000 profile
// events (100 ops per run, 5,000 runs, each op an OPERATOR_CALL with its
// kernel event nested inside, as the runtime records them), then times
// `etinspect table` on them as a whole process and reads its peak memory.
//
//   inspector_bench ETINSPECT [OUT_DIR] [REPEATS]
//
// Two traces: every run with the same signature (one event block), and
// every run with its own bundled input index (one event block per run).

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"
#include "generated_trace.h"

namespace {

constexpr int kRuns = 5000;
constexpr int kOpsPerRun = 100;

bool generate(const std::string& path, bool per_run_blocks) {
  const auto stats = etkit::bench::generate_trace(path, kRuns, kOpsPerRun, per_run_blocks);
  if (!stats) return false;
  std::printf("  %s: %zu events recorded, %zu dropped\n", path.c_str(), stats->events, stats->dropped_events);
  return true;
}

struct Measured {
  double seconds;
  long max_rss_kib;
  int status;
};

// The Inspector step alone, in this process: load, group, and materialize
// every event block with its statistics (what upstream's Inspector builds).
double build_blocks(const std::string& trace, size_t& events) {
  const auto start = std::chrono::steady_clock::now();
  auto dump = etkit::etdump::ETDump::load_file(trace);
  if (!dump.ok()) return -1;
  auto grouped = etkit::inspector::GroupedEvents::build(*dump);
  if (!grouped.ok()) return -1;
  etkit::inspector::EventBlock block;
  events = 0;
  for (size_t i = 0; i < grouped->block_count(); ++i) {
    grouped->block_into(i, block);
    events += block.events.size();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Measured run_table(const std::string& etinspect, const std::string& trace, const char* format) {
  const auto start = std::chrono::steady_clock::now();
  std::fflush(stdout);  // or the child would print our buffered lines again
  pid_t pid = fork();
  if (pid == 0) {
    FILE* null = std::freopen("/dev/null", "w", stdout);
    (void)null;
    execl(etinspect.c_str(), etinspect.c_str(), "table", trace.c_str(), "--format", format,
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {seconds, usage.ru_maxrss, status};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ETINSPECT [OUT_DIR] [REPEATS]\n", argv[0]);
    return 2;
  }
  const std::string etinspect = argv[1];
  const std::string dir = argc > 2 ? argv[2] : "/tmp";
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  std::printf("generating traces (%d runs x %d ops, OPERATOR_CALL + kernel event each)\n", kRuns, kOpsPerRun);
  struct Case {
    const char* label;
    std::string path;
    bool per_run;
  } cases[] = {{"one signature", dir + "/inspector_bench_same.etdp", false},
               {"block per run", dir + "/inspector_bench_per_run.etdp", true}};
  for (const Case& c : cases) {
    if (!generate(c.path, c.per_run)) {
      std::fprintf(stderr, "cannot write %s\n", c.path.c_str());
      return 1;
    }
  }
  std::printf("\nInspector step in-process (load + group + every block with statistics):\n");
  for (const Case& c : cases) {
    std::vector<double> times;
    size_t events = 0;
    for (int i = 0; i < repeats; ++i) times.push_back(build_blocks(c.path, events));
    std::sort(times.begin(), times.end());
    std::printf("  %-14s %zu events in blocks, median %.3f s\n", c.label, events, times[times.size() / 2]);
  }
  std::printf("\nwhole `etinspect table` process, output to /dev/null:\n");
  std::printf("%-14s %-6s %10s %12s %12s %14s\n", "trace", "format", "size (MB)", "median (s)", "max (s)",
              "peak RSS / size");
  for (const Case& c : cases) for (const char* format : {"text", "csv"}) {
    struct stat st {};
    stat(c.path.c_str(), &st);
    std::vector<double> times;
    long rss = 0;
    for (int i = 0; i < repeats; ++i) {
      const Measured m = run_table(etinspect, c.path, format);
      if (!WIFEXITED(m.status) || WEXITSTATUS(m.status) != 0) {
        std::fprintf(stderr, "etinspect table %s failed (status %d)\n", c.path.c_str(), m.status);
        return 1;
      }
      times.push_back(m.seconds);
      rss = std::max(rss, m.max_rss_kib);
    }
    std::sort(times.begin(), times.end());
    const double mb = double(st.st_size) / 1e6;
    std::printf("%-14s %-6s %10.1f %12.3f %12.3f %8.2f (%ld MB)\n", c.label, format, mb, times[times.size() / 2],
                times.back(),
                double(rss) * 1024.0 / double(st.st_size), rss / 1024);
  }
  return 0;
}
