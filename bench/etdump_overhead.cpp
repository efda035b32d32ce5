// Cost of tracing: the same method executed with no tracer, with profiling
// only, and with intermediate outputs logged, interleaved in one run.
// Prints the median run time of each mode, the relative slowdown and the
// nanoseconds added per recorded event.
//
//   etdump_overhead [RUNS]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "etkit/core/method.h"
#include "etkit/etdump/etdump_gen.h"
#include "support/program_builder.h"
#include "etkit/kernels/all_kernels.h"

using etkit::test::ProgramBuilder;
using namespace etkit;

namespace {

// Plans tensors one after another in arena 1 (64-byte aligned).
struct Planner {
  ProgramBuilder& b;
  int64_t offset = 0;
  int32_t tensor(std::vector<int32_t> sizes, ScalarType dtype = ScalarType::kFloat) {
    int64_t bytes = int64_t(element_size(dtype));
    for (int32_t s : sizes) bytes *= s;
    const int32_t value = b.tensor(sizes, offset, false, dtype);
    offset += (bytes + 63) / 64 * 64;
    return value;
  }
};

// A 12-op pre-norm transformer block on x[16, 64] (single head):
// layer_norm, q/k/v projections, k^T, scores, scale, softmax, context,
// residual add, MLP projection, gelu. Weights are method inputs.
ProgramBuilder transformer_block() {
  ProgramBuilder b;
  Planner p{b};
  const int32_t t = 16, d = 64;
  const int32_t x = p.tensor({t, d});
  std::vector<int32_t> inputs = {x};
  auto weight = [&](std::vector<int32_t> sizes) {
    const int32_t w = p.tensor(sizes);
    inputs.push_back(w);
    return w;
  };
  const int32_t ln_w = weight({d}), ln_b = weight({d});
  const int32_t wq = weight({d, d}), wk = weight({d, d}), wv = weight({d, d}), wm = weight({d, d});
  const int32_t bq = weight({d}), bk = weight({d}), bv = weight({d}), bm = weight({d});
  const int32_t one = b.integer(1), last = b.integer(-1), no = b.boolean(false);
  const int32_t ln = p.tensor({t, d}), mean = p.tensor({t, 1}), rstd = p.tensor({t, 1});
  b.kernel_call("aten::native_layer_norm", "out",
                {x, b.int_list({d}), ln_w, ln_b, b.real(1e-5), ln, mean, rstd, b.tensor_list({ln, mean, rstd})});
  const int32_t q = p.tensor({t, d}), k = p.tensor({t, d}), v = p.tensor({t, d});
  b.kernel_call("aten::addmm", "out", {bq, ln, wq, one, one, q, q});
  b.kernel_call("aten::addmm", "out", {bk, ln, wk, one, one, k, k});
  b.kernel_call("aten::addmm", "out", {bv, ln, wv, one, one, v, v});
  const int32_t kt = p.tensor({d, t});
  b.kernel_call("aten::permute_copy", "out", {k, b.int_list({1, 0}), kt, kt});
  const int32_t scores = p.tensor({t, t}), scaled = p.tensor({t, t}), attn = p.tensor({t, t});
  b.kernel_call("aten::mm", "out", {q, kt, scores, scores});
  b.kernel_call("aten::mul", "Scalar_out", {scores, b.real(0.125), scaled, scaled});
  b.kernel_call("aten::_softmax", "out", {scaled, last, no, attn, attn});
  const int32_t ctx = p.tensor({t, d}), h = p.tensor({t, d}), mlp = p.tensor({t, d}), out = p.tensor({t, d});
  b.kernel_call("aten::mm", "out", {attn, v, ctx, ctx});
  b.kernel_call("aten::add", "out", {x, ctx, one, h, h});
  b.kernel_call("aten::addmm", "out", {bm, h, wm, one, one, mlp, mlp});
  b.kernel_call("aten::gelu", "out", {mlp, b.string("none"), out, out});
  b.inputs(inputs);
  b.outputs({out});
  b.arena(p.offset);
  return b;
}

// The profiling tutorial's CNN shape: (conv 3x3, relu, max pool) x 3, then
// view and a linear layer, on a 1x3x64x64 image.
ProgramBuilder tutorial_cnn() {
  ProgramBuilder b;
  Planner p{b};
  const int32_t x = p.tensor({1, 3, 64, 64});
  std::vector<int32_t> inputs = {x};
  const int32_t one = b.integer(1), no = b.boolean(false);
  int32_t current = x, channels = 3, size = 64;
  for (int32_t next : {16, 32, 64}) {
    const int32_t w = p.tensor({next, channels, 3, 3}), bias = p.tensor({next});
    inputs.push_back(w);
    inputs.push_back(bias);
    const int32_t conv = p.tensor({1, next, size, size}), relu = p.tensor({1, next, size, size});
    b.kernel_call("aten::convolution", "out",
                  {current, w, bias, b.int_list({1, 1}), b.int_list({1, 1}), b.int_list({1, 1}), no,
                   b.int_list({0, 0}), one, conv, conv});
    b.kernel_call("aten::relu", "out", {conv, relu, relu});
    size /= 2;
    const int32_t pooled = p.tensor({1, next, size, size});
    const int32_t idx = p.tensor({1, next, size, size}, ScalarType::kLong);
    b.kernel_call("aten::max_pool2d_with_indices", "out",
                  {relu, b.int_list({2, 2}), b.int_list({2, 2}), b.int_list({0, 0}), b.int_list({1, 1}), no,
                   pooled, idx, b.tensor_list({pooled, idx})});
    current = pooled;
    channels = next;
  }
  const int32_t flat = p.tensor({1, channels * size * size});
  b.kernel_call("aten::view_copy", "out", {current, b.int_list({1, channels * size * size}), flat, flat});
  const int32_t w = p.tensor({channels * size * size, 10}), bias = p.tensor({10});
  inputs.push_back(w);
  inputs.push_back(bias);
  const int32_t out = p.tensor({1, 10});
  b.kernel_call("aten::addmm", "out", {bias, flat, w, one, one, out, out});
  b.inputs(inputs);
  b.outputs({out});
  b.arena(p.offset);
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The method loaded with `tracer` (none: null), its inputs set to random
// values kept in `inputs`; exits on a load error.
std::unique_ptr<Method> load_with_inputs(const char* label, const Program& program, EventTracer* tracer,
                                         std::mt19937& rng, std::vector<std::vector<float>>& inputs) {
  MethodOptions options;
  options.kernels = &all_kernels();
  options.tracer = tracer;
  auto method = Method::load(program, "forward", options);
  if (!method.ok()) {
    std::fprintf(stderr, "%s: %s\n", label, method.error().message());
    std::exit(2);
  }
  std::normal_distribution<float> normal(0, 0.1f);
  for (size_t i = 0; i < (*method)->input_count(); ++i) {
    const Tensor& spec = (*method)->input(i).unchecked_tensor();
    inputs.emplace_back(size_t(spec.numel()));
    for (float& f : inputs.back()) f = normal(rng);
    auto view = Tensor::make(spec.scalar_type(), spec.sizes(), spec.dim_order(), inputs.back().data(), spec.nbytes());
    (void)(*method)->set_input(i, *view);
  }
  return std::move(method).value();
}

void measure(const char* label, const ProgramBuilder& builder, int runs) {
  auto program = builder.load();
  if (!program.ok()) {
    std::fprintf(stderr, "%s: %s\n", label, program.error().message());
    std::exit(2);
  }
  std::vector<uint8_t> debug(64 << 20);
  etdump::ETDumpGenOptions profile_options;
  profile_options.event_capacity = size_t(runs) * 64 + 1024;
  profile_options.block_capacity = size_t(runs) + 16;
  etdump::ETDumpGenOptions debug_options = profile_options;
  debug_options.debug_level = etdump::DebugLevel::kIntermediateOutputs;
  debug_options.debug_buffer = Span<uint8_t>(debug.data(), debug.size());
  etdump::ETDumpGen profiler(profile_options), logger(debug_options);
  EventTracer* tracers[3] = {nullptr, &profiler, &logger};
  std::unique_ptr<Method> methods[3];
  std::mt19937 rng(1);
  std::vector<std::vector<float>> inputs;
  for (int m = 0; m < 3; ++m) methods[m] = load_with_inputs(label, *program, tracers[m], rng, inputs);
  const size_t load_events[3] = {0, profiler.stats().events, logger.stats().events};
  std::vector<double> times[3];
  for (int r = 0; r < runs; ++r) {
    for (int m = 0; m < 3; ++m) {  // interleaved so drift hits all modes alike
      const auto start = std::chrono::steady_clock::now();
      Status status = methods[m]->execute();
      if (!status.ok()) {
        std::fprintf(stderr, "%s: %s\n", label, status.error().message());
        std::exit(2);
      }
      times[m].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
  }
  const double base = median(times[0]);
  std::printf("%s: %zu instructions, %d runs per mode\n", label, methods[0]->instruction_count(), runs);
  std::printf("  %-22s %10s %10s %14s %12s\n", "mode", "median us", "slowdown", "events/run", "ns/event");
  std::printf("  %-22s %10.2f %10s %14s %12s\n", "no tracer", base, "-", "-", "-");
  const char* names[3] = {"", "profiling", "profiling+intermediates"};
  etdump::ETDumpGen* gens[3] = {nullptr, &profiler, &logger};
  for (int m = 1; m < 3; ++m) {
    const double t = median(times[m]);
    const double events = double(gens[m]->stats().events - load_events[m]) / runs;
    std::printf("  %-22s %10.2f %9.2f%% %14.1f %12.1f\n", names[m], t, 100.0 * (t - base) / base, events,
                1000.0 * (t - base) / events);
  }
}

// The recording cost alone: start+end of one profile event, as the
// runtime calls them, with no work between.
void measure_recording(size_t events) {
  etdump::ETDumpGenOptions options;
  options.event_capacity = events + 16;
  etdump::ETDumpGen gen(options);
  gen.create_event_block("Execute");
  const char* name = "native_call_add.out";
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < events; ++i) {
    gen.end_profiling(gen.start_profiling(name, 0, int32_t(i & 1023)));
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  std::printf("recording alone: %zu profile events, %.1f ns per event (clock reads included)\n",
              gen.stats().events, ns / double(events));
  // The floor set by the clock: every event reads it twice.
  uint64_t sink = 0;
  const auto clock_start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < events; ++i) sink += gen.now() + gen.now();
  const double clock_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - clock_start).count();
  std::printf("  of which two clock reads: %.1f ns (%s)\n", clock_ns / double(events),
              sink == 1 ? "" : "default clock");
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  measure_recording(1000000);
  measure("transformer block (12 ops, 16x64)", transformer_block(), runs);
  measure("tutorial CNN (14 ops, 1x3x64x64)", tutorial_cnn(), std::max(20, runs / 20));
  return 0;
}
