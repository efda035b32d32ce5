#include "support/timed_trace.h"

#include <cmath>
#include <random>

#include "etkit/etdump/etdump_gen.h"
#include "support/corpus.h"

namespace etkit::test {
namespace {

// A clock that advances by `pending` at its next read, then stands still.
struct ManualClock {
  uint64_t now = 1'000'000;
  uint64_t pending = 0;
};
uint64_t read_manual(void* context) {
  auto* clock = static_cast<ManualClock*>(context);
  clock->now += clock->pending;
  clock->pending = 0;
  return clock->now;
}

// Uniform in (0, 1) from the generator's raw 32-bit outputs.
double uniform(std::mt19937& generator) { return (double(generator()) + 0.5) / 4294967296.0; }

}  // namespace

std::vector<uint8_t> timed_trace(const std::vector<std::string>& events,
                                 const std::vector<std::vector<uint64_t>>& durations_ns) {
  ManualClock clock;
  etdump::ETDumpGenOptions options;
  options.clock = etdump::TickSource{&read_manual, &clock, 1.0};
  etdump::ETDumpGen gen(options);
  for (const std::vector<uint64_t>& run : durations_ns) {
    gen.create_event_block("Execute");
    const auto execute = gen.start_profiling("Method::execute", -1, 0);
    for (size_t e = 0; e < events.size(); ++e) {
      const auto entry = gen.start_profiling(events[e].c_str(), 0, int32_t(e));
      clock.pending = run[e];
      gen.end_profiling(entry);
    }
    gen.end_profiling(execute);
  }
  return checked(gen.serialize(), "serialize a timed trace");
}

std::vector<std::vector<uint64_t>> noisy_runs(const std::vector<uint64_t>& base_ns, size_t runs, double sigma,
                                              double outlier, uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<std::vector<uint64_t>> out(runs, std::vector<uint64_t>(base_ns.size()));
  for (size_t r = 0; r < runs; ++r) {
    for (size_t e = 0; e < base_ns.size(); ++e) {
      const double u1 = uniform(generator), u2 = uniform(generator);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);  // Box-Muller
      double duration = double(base_ns[e]) * std::exp(sigma * z);
      if (uniform(generator) < outlier) duration *= 2.0;
      out[r][e] = uint64_t(std::llround(duration));
    }
  }
  return out;
}

}  // namespace etkit::test
