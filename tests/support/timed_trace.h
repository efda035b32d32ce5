#pragma once
// Traces whose every duration is chosen by the test: ETDumpGen (the real
// writer) with a clock that only advances when an event ends, so the
// statistics a reader computes from them are known by hand. Noisy runs come
// from a seeded generator whose outputs the C++ standard fixes (mt19937 and
// a Box-Muller transform written here; std's distributions differ between
// standard libraries).

#include <cstdint>
#include <string>
#include <vector>

namespace etkit::test {

/// An ETDump of one "Execute" block per entry of `durations_ns`: a
/// Method::execute event (chain -1) around one event per name of `events`
/// (chain 0, instruction = its index), event `e` of run `r` lasting
/// durations_ns[r][e] ns and Method::execute their sum.
std::vector<uint8_t> timed_trace(const std::vector<std::string>& events,
                                 const std::vector<std::vector<uint64_t>>& durations_ns);

/// `runs` runs of events lasting base_ns[e] * exp(sigma * z) (z standard
/// normal, a log-normal spread as latencies have), where each duration is
/// doubled with probability `outlier` (a preempted run). Seeded: the same
/// arguments give the same durations on every platform.
std::vector<std::vector<uint64_t>> noisy_runs(const std::vector<uint64_t>& base_ns, size_t runs, double sigma,
                                              double outlier, uint32_t seed);

}  // namespace etkit::test
