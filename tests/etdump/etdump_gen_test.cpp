// ETDumpGen: what is recorded reads back unchanged, the layout matches
// upstream's traces, logged tensors equal the computed values, and limits
// degrade into counted drops.

#include "etkit/etdump/etdump_gen.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "etkit/core/file_data.h"
#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/etdump/etdump_reader.h"
#include "support/corpus.h"
#include "support/kernels.h"

namespace etkit::etdump {
namespace {

const std::string kSchema = std::string(ETKIT_SOURCE_DIR) + "/etdump/schema/etdump.fbs";

// A clock that advances by 10 ticks per reading.
uint64_t counter_clock(void* context) { return *static_cast<uint64_t*>(context) += 10; }

ETDump reread(const ETDumpGen& gen) {
  const std::vector<uint8_t> bytes = test::checked(gen.serialize(), "serialize");
  return test::checked(ETDump::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "gen.etdp"), "gen.etdp"),
                       "reading the trace back");
}

// Options that log values at `level` into `buffer`.
ETDumpGenOptions logging_into(std::vector<uint8_t>& buffer, DebugLevel level) {
  ETDumpGenOptions options;
  options.debug_level = level;
  options.debug_buffer = Span<uint8_t>(buffer.data(), buffer.size());
  return options;
}

// What a test expects back for one event.
struct Expected {
  EventKind kind;
  std::string name;
  int32_t chain = 0, instruction = -1, delegate_int = -1;
  std::string delegate_str;
  std::vector<uint8_t> metadata;
  uint64_t start = 0, end = 0;
  int32_t allocator = 0;
  uint64_t size = 0;
  std::string value_type;
  int64_t int_value = 0;
  double double_value = 0;
  std::vector<std::vector<int64_t>> tensor_sizes;
  std::vector<std::vector<float>> tensor_data;
  bool output = false;
};

// A 0-dim tensor's sizes and strides are empty vectors, which flatbuffers
// does not align: the reader refused such traces of etkit's own writer
// ("not 8-byte aligned"), e.g. of upstream's YOLO-style detector export.
TEST(ETDumpGen, ZeroDimTensorsReadBack) {
  std::vector<uint8_t> buffer(256);
  ETDumpGenOptions options = logging_into(buffer, DebugLevel::kIntermediateOutputs);
  ETDumpGen gen(options);
  std::vector<float> data = {8.f, 16.f, -2.5f};
  std::vector<Tensor> scalars;
  for (float& value : data) {
    scalars.push_back(*Tensor::make(ScalarType::kFloat, Span<const int64_t>(), {}, &value, sizeof(float)));
  }
  for (size_t i = 0; i < scalars.size(); ++i) {
    gen.log_value(Value::from_tensor(&scalars[i]), LoggedValueKind::kIntermediateOutput, 0, int32_t(i), "");
  }
  ETDump trace = reread(gen);
  ASSERT_EQ(trace.block(0).event_count(), scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i) {
    const EventView event = trace.block(0).event(i);
    ASSERT_EQ(event.debug.tensors.size(), 1u);
    EXPECT_TRUE(event.debug.tensors[0].sizes.empty());
    auto view = debug_tensor(event.debug.tensors[0], ByteSpan{buffer.data(), buffer.size()});
    ASSERT_TRUE(view.ok()) << view.error().message();
    EXPECT_EQ(view->numel(), 1);
    EXPECT_EQ(*view->data_as<float>(), data[i]);
  }
}

TEST(ETDumpGen, RandomEventSequencesReadBackExactly) {
  const char* seed = std::getenv("ETKIT_TEST_SEED");
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261122u);
  const char* names[] = {"OPERATOR_CALL", "native_call_add.out", "DELEGATE_CALL", "Method::execute"};
  for (int trial = 0; trial < 20; ++trial) {
    uint64_t ticks = 1000;
    std::vector<uint8_t> buffer(1 << 16);
    ETDumpGenOptions options;
    options.clock = TickSource{&counter_clock, &ticks, 1.0};
    options.debug_level = DebugLevel::kIntermediateOutputs;
    options.debug_buffer = Span<uint8_t>(buffer.data(), buffer.size());
    options.track_allocations = true;
    ETDumpGen gen(options);
    std::vector<std::pair<std::string, int32_t>> blocks;   // name, bundled index
    std::vector<std::vector<Expected>> expected;
    std::vector<std::vector<std::string>> allocators;
    std::vector<std::vector<float>> storage;  // tensor data kept alive
    storage.reserve(1000);
    const int block_count = 1 + int(rng() % 4);
    for (int b = 0; b < block_count; ++b) {
      const std::string block_name = b == 0 ? "Default" : "Execute";
      if (b > 0) gen.create_event_block("Execute");
      blocks.push_back({block_name, -1});
      expected.emplace_back();
      allocators.emplace_back();
      const int events = int(rng() % 12);
      for (int e = 0; e < events; ++e) {
        Expected x;
        const int kind = int(rng() % 5);
        if (kind == 0) {
          x.kind = EventKind::kProfile;
          const char* name = names[rng() % 4];  // literals: stable pointers
          x.name = name;
          x.chain = int32_t(rng() % 3) - 1;
          x.instruction = int32_t(rng() % 20);
          gen.end_profiling(gen.start_profiling(name, x.chain, x.instruction));
        } else if (kind == 1) {
          x.kind = EventKind::kProfile;
          x.chain = int32_t(rng() % 2);
          x.instruction = int32_t(rng() % 7);
          gen.current_chain_id = x.chain;
          gen.current_instruction_id = x.instruction;
          if (rng() % 2) {
            x.delegate_int = int32_t(rng() % 100);
          } else {
            x.delegate_str = "op #" + std::to_string(rng() % 50);
          }
          x.metadata.resize(rng() % 5);
          for (auto& m : x.metadata) m = uint8_t(rng());
          x.start = rng() % 100000;
          x.end = x.start + rng() % 1000;
          gen.log_profiling_delegate(x.delegate_str.empty() ? nullptr : x.delegate_str.c_str(),
                                     x.delegate_int, x.start, x.end,
                                     ByteSpan{x.metadata.data(), x.metadata.size()});
        } else if (kind == 2) {
          x.kind = EventKind::kAllocation;
          const std::string name = "arena" + std::to_string(allocators.back().size());
          // Allocator names are interned by pointer: keep them alive.
          static std::vector<std::string> allocator_names;
          allocator_names.reserve(4096);
          allocator_names.push_back(name);
          const int32_t id = gen.track_allocator(allocator_names.back().c_str());
          allocators.back().push_back(name);
          x.allocator = id;
          x.size = rng() % 100000;
          gen.track_allocation(id, x.size);
        } else {
          x.kind = EventKind::kDebug;
          x.name = "";  // value events are unnamed, as upstream's (the op name only filters)
          x.chain = 0;
          x.instruction = int32_t(rng() % 9);
          Value value;
          std::vector<Tensor> tensors;
          const int what = int(rng() % 4);
          if (what == 0) {
            x.value_type = "int";
            x.int_value = int64_t(rng() % 1000) - 500;
            value = Value::from_int(x.int_value);
          } else if (what == 1) {
            x.value_type = "double";
            x.double_value = double(rng() % 1000) / 7;
            value = Value::from_double(x.double_value);
          } else {
            const int count = what == 2 ? 1 : 1 + int(rng() % 3);
            x.value_type = what == 2 ? "tensor" : "tensor_list";
            static std::vector<Tensor> list_storage;
            list_storage.reserve(4096);
            static std::vector<Tensor*> pointers;
            pointers.reserve(4096);
            const size_t first = pointers.size();
            for (int t = 0; t < count; ++t) {
              std::vector<int64_t> sizes = {int64_t(1 + rng() % 3), int64_t(1 + rng() % 4)};
              storage.emplace_back(size_t(sizes[0] * sizes[1]));
              for (float& f : storage.back()) f = float(rng() % 100) / 4;
              list_storage.push_back(*Tensor::make(ScalarType::kFloat,
                                                   Span<const int64_t>(sizes.data(), 2), {},
                                                   storage.back().data(), storage.back().size() * 4));
              pointers.push_back(&list_storage.back());
              x.tensor_sizes.push_back(sizes);
              x.tensor_data.push_back(storage.back());
            }
            value = what == 2 ? Value::from_tensor(pointers[first])
                              : Value::from_tensor_list(Span<Tensor* const>(pointers.data() + first, size_t(count)), false);
          }
          gen.log_value(value, LoggedValueKind::kIntermediateOutput, x.chain, x.instruction,
                        "aten::op.out");
        }
        expected.back().push_back(x);
      }
      if (b > 0 && rng() % 2) {
        blocks.back().second = int32_t(rng() % 10);
        gen.set_bundled_input_index(blocks.back().second);
      }
    }
    // "Default" is created lazily by the first event recorded before any
    // explicit block; with no such event it does not exist.
    if (expected[0].empty()) {
      blocks.erase(blocks.begin());
      expected.erase(expected.begin());
      allocators.erase(allocators.begin());
    }
    ETDump trace = reread(gen);
    const ByteSpan debug{buffer.data(), gen.debug_buffer_used()};
    ASSERT_EQ(trace.block_count(), blocks.size()) << "trial " << trial;
    for (size_t b = 0; b < blocks.size(); ++b) {
      RunBlock block = trace.block(b);
      EXPECT_EQ(block.name(), blocks[b].first);
      EXPECT_EQ(block.bundled_input_index(), blocks[b].second);
      ASSERT_EQ(block.allocator_count(), allocators[b].size());
      for (size_t a = 0; a < allocators[b].size(); ++a) EXPECT_EQ(block.allocator_name(a), allocators[b][a]);
      ASSERT_EQ(block.event_count(), expected[b].size());
      for (size_t e = 0; e < expected[b].size(); ++e) {
        const Expected& x = expected[b][e];
        const EventView got = block.event(e);
        ASSERT_EQ(got.kind, x.kind);
        if (x.kind == EventKind::kProfile) {
          EXPECT_EQ(got.profile.name, x.name);
          EXPECT_EQ(got.profile.chain_index, x.chain);
          EXPECT_EQ(got.profile.instruction_id, x.instruction);
          EXPECT_EQ(got.profile.delegate_debug_id_int, x.delegate_int);
          EXPECT_EQ(got.profile.delegate_debug_id_str, x.delegate_str);
          EXPECT_EQ(std::vector<uint8_t>(got.profile.delegate_debug_metadata.data,
                                         got.profile.delegate_debug_metadata.data +
                                             got.profile.delegate_debug_metadata.size),
                    x.metadata);
          if (x.delegate_int >= 0 || !x.delegate_str.empty()) {
            EXPECT_EQ(got.profile.start_time, x.start);
            EXPECT_EQ(got.profile.end_time, x.end);
          } else {
            EXPECT_EQ(got.profile.end_time - got.profile.start_time, 10u);
          }
        } else if (x.kind == EventKind::kAllocation) {
          EXPECT_EQ(got.allocation.allocator_id, x.allocator);
          EXPECT_EQ(got.allocation.allocation_size, x.size);
        } else {
          EXPECT_EQ(got.debug.name, x.name);
          EXPECT_EQ(got.debug.instruction_id, x.instruction);
          EXPECT_EQ(got.debug.value_type, x.value_type);
          if (x.value_type == "int") {
            EXPECT_EQ(got.debug.int_value, x.int_value);
          }
          if (x.value_type == "double") {
            EXPECT_EQ(got.debug.double_value, x.double_value);
          }
          ASSERT_EQ(got.debug.tensors.size(), x.tensor_sizes.size());
          for (size_t t = 0; t < x.tensor_sizes.size(); ++t) {
            EXPECT_EQ(got.debug.tensors[t].sizes, x.tensor_sizes[t]);
            auto view = debug_tensor(got.debug.tensors[t], debug);
            ASSERT_TRUE(view.ok()) << view.error().message();
            EXPECT_EQ(std::vector<float>(view->data_as<float>(), view->data_as<float>() + view->numel()),
                      x.tensor_data[t]);
          }
        }
      }
    }
  }
}

// The structure of our traces, converted to JSON by Debian's flatc, is the
// structure of the upstream runtime's trace converted the same way.
void collect_keys(const nlohmann::json& node, const std::string& path,
                  std::map<std::string, std::set<std::string>>& keys) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      keys[path].insert(key);
      collect_keys(value, path + "/" + key, keys);
    }
  } else if (node.is_array()) {
    for (const auto& item : node) collect_keys(item, path + "[]", keys);
  }
}

TEST(ETDumpGen, TraceOfACorpusProgramHasUpstreamsStructure) {
  auto program = Program::load_file(test::corpus("upstream/pte/module_linear_inline_constants.pte"));
  ASSERT_TRUE(program.ok());
  ETDumpGen gen;
  MethodOptions options;
  options.kernels = &all_kernels();
  options.tracer = &gen;
  auto method = Method::load(*program, "forward", options);
  ASSERT_TRUE(method.ok());
  std::vector<float> x(4, 1.0f);
  std::vector<int64_t> sizes = {2, 2};
  ASSERT_TRUE((*method)->set_input(0, *Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 2),
                                                     {}, x.data(), 16)).ok());
  for (int run = 0; run < 2; ++run) ASSERT_TRUE((*method)->execute().ok());
  auto bytes = gen.serialize();
  ASSERT_TRUE(bytes.ok());
  const std::string ours = test::write_temp("ours.etdp", *bytes);
  const auto ours_json = nlohmann::json::parse(test::flatc_json(kSchema, ours, true));
  const auto upstream_json = nlohmann::json::parse(
      test::flatc_json(kSchema, test::corpus("upstream/etdump/tutorial_cnn.etdp"), true));
  std::map<std::string, std::set<std::string>> our_keys, upstream_keys;
  collect_keys(ours_json, "", our_keys);
  collect_keys(upstream_json, "", upstream_keys);
  // The same key paths with the same keys: no allocation events or
  // allocator lists (upstream's runners record none) and nothing else extra.
  EXPECT_EQ(our_keys, upstream_keys);
  // Same block layout: "Default" with the load events, then one "Execute"
  // per run, kernel events before their OPERATOR_CALL, Method::execute last
  // with chain -1, instruction 0.
  const auto& runs = ours_json["run_data"];
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0]["name"], "Default");
  for (size_t r = 1; r < 3; ++r) {
    EXPECT_EQ(runs[r]["name"], "Execute");
    const auto& events = runs[r]["events"];
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[0]["profile_event"]["name"], "native_call_mul.out");
    EXPECT_EQ(events[1]["profile_event"]["name"], "OPERATOR_CALL");
    EXPECT_EQ(events[2]["profile_event"]["name"], "native_call_add.out");
    EXPECT_EQ(events[2]["profile_event"]["instruction_id"], 1);
    EXPECT_EQ(events[3]["profile_event"]["name"], "OPERATOR_CALL");
    EXPECT_EQ(events[4]["profile_event"]["name"], "Method::execute");
    EXPECT_EQ(events[4]["profile_event"]["chain_index"], -1);
    EXPECT_EQ(events[4]["profile_event"]["instruction_id"], 0);
  }
}

TEST(ETDumpGen, IntermediateOutputsEqualTheComputedValues) {
  // ModuleLinear computes mul = a * x, then add = mul + b, with a = 3, b = 2
  // (corpus README): the logged intermediates are 3x and 3x + 2.
  auto program = Program::load_file(test::corpus("upstream/pte/module_linear_inline_constants.pte"));
  std::vector<uint8_t> buffer(4096);
  ETDumpGenOptions gen_options = logging_into(buffer, DebugLevel::kIntermediateOutputs);
  ETDumpGen gen(gen_options);
  MethodOptions options;
  options.kernels = &all_kernels();
  options.tracer = &gen;
  auto method = Method::load(*program, "forward", options);
  std::vector<float> x = {0.5f, -1.0f, 2.0f, 10.0f};
  std::vector<int64_t> sizes = {2, 2};
  ASSERT_TRUE((*method)->set_input(0, *Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 2),
                                                     {}, x.data(), 16)).ok());
  ASSERT_TRUE((*method)->execute().ok());
  ETDump trace = reread(gen);
  RunBlock execute = trace.block(1);
  std::vector<std::vector<float>> logged;
  std::vector<bool> outputs;
  for (size_t e = 0; e < execute.event_count(); ++e) {
    EventView event = execute.event(e);
    if (event.kind != EventKind::kDebug) continue;
    auto view = debug_tensor(event.debug.tensors.at(0), ByteSpan{buffer.data(), gen.debug_buffer_used()});
    ASSERT_TRUE(view.ok()) << view.error().message();
    logged.emplace_back(view->data_as<float>(), view->data_as<float>() + 4);
    outputs.push_back(event.debug.is_output);
  }
  ASSERT_EQ(logged.size(), 3u);  // mul, add, then the program output
  EXPECT_EQ(logged[0], (std::vector<float>{1.5f, -3.0f, 6.0f, 30.0f}));
  EXPECT_EQ(logged[1], (std::vector<float>{3.5f, -1.0f, 8.0f, 32.0f}));
  EXPECT_EQ(logged[2], logged[1]);
  EXPECT_EQ(outputs, (std::vector<bool>{false, false, true}));
}

TEST(ETDumpGen, FiltersByOperatorAndInstructionRange) {
  auto program = Program::load_file(test::corpus("upstream/pte/module_linear_inline_constants.pte"));
  for (const auto& [filter, first, last, expected] :
       std::vector<std::tuple<std::string, int64_t, int64_t, size_t>>{
           {"aten::add*", -1, -1, 1}, {"mul", -1, -1, 1}, {"", 1, 1, 1}, {"", -1, -1, 2}, {"relu", -1, -1, 0}}) {
    std::vector<uint8_t> buffer(4096);
    ETDumpGenOptions gen_options = logging_into(buffer, DebugLevel::kIntermediateOutputs);
    gen_options.op_filter = filter;
    gen_options.first_instruction = first;
    gen_options.last_instruction = last;
    ETDumpGen gen(gen_options);
    MethodOptions options;
    options.kernels = &all_kernels();
    options.tracer = &gen;
    auto method = Method::load(*program, "forward", options);
    std::vector<float> x(4, 1.0f);
    std::vector<int64_t> sizes = {2, 2};
    ASSERT_TRUE((*method)->set_input(0, *Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 2),
                                                       {}, x.data(), 16)).ok());
    ASSERT_TRUE((*method)->execute().ok());
    size_t intermediates = 0;
    ETDump trace = reread(gen);
    RunBlock execute = trace.block(1);
    for (size_t e = 0; e < execute.event_count(); ++e) {
      EventView event = execute.event(e);
      intermediates += event.kind == EventKind::kDebug && !event.debug.is_output;
    }
    EXPECT_EQ(intermediates, expected) << "filter '" << filter << "' " << first << ".." << last;
  }
}

TEST(ETDumpGen, FullCapacityCountsDropsInsteadOfFailing) {
  uint64_t ticks = 0;
  ETDumpGenOptions options;
  options.event_capacity = 3;
  options.clock = TickSource{&counter_clock, &ticks, 1.0};
  ETDumpGen gen(options);
  gen.create_event_block("Execute");
  for (int i = 0; i < 10; ++i) gen.end_profiling(gen.start_profiling("OPERATOR_CALL", 0, i));
  EXPECT_EQ(gen.stats().events, 3u);
  EXPECT_EQ(gen.stats().dropped_events, 7u);
  ETDump trace = reread(gen);
  RunBlock block = trace.block(0);
  ASSERT_EQ(block.event_count(), 4u);
  const EventView marker = block.event(3);
  ASSERT_EQ(marker.kind, EventKind::kDebug);
  EXPECT_EQ(marker.debug.name, "ETDUMP_DROPPED_EVENTS");
  EXPECT_EQ(marker.debug.int_value, 7);
  // The pluggable clock's ticks are the timestamps.
  EXPECT_EQ(block.event(0).profile.start_time, 10u);
  EXPECT_EQ(block.event(0).profile.end_time, 20u);
}

TEST(ETDumpGen, DebugBufferTooSmallDropsValuesAndReaderSaysWhy) {
  std::vector<uint8_t> buffer(8);
  ETDumpGenOptions options = logging_into(buffer, DebugLevel::kProgramOutputs);
  ETDumpGen gen(options);
  std::vector<float> data(16, 1.0f);
  std::vector<int64_t> sizes = {16};
  Tensor t = *Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 1), {}, data.data(), 64);
  gen.log_value(Value::from_tensor(&t), LoggedValueKind::kProgramOutput, -1, -1, "output");
  EXPECT_EQ(gen.stats().dropped_values, 1u);
  ETDump trace = reread(gen);
  const EventView event = trace.block(0).event(0);
  ASSERT_EQ(event.debug.tensors.size(), 1u);
  EXPECT_EQ(event.debug.tensors[0].offset, -1);
  auto view = debug_tensor(event.debug.tensors[0], ByteSpan{buffer.data(), buffer.size()});
  ASSERT_FALSE(view.ok());
  EXPECT_NE(std::string(view.error().message()).find("lies outside the 8-byte buffer"), std::string::npos);
}

TEST(ETDumpGen, EveryRunnableCorpusProgramTracesValidly) {
  for (const char* file : {"upstream/pte/add.pte", "upstream/pte/add_apple_tests.pte",
                           "upstream/pte/add_arduino.pte", "upstream/pte/module_linear_inline_constants.pte",
                           "upstream/pte/softmax.pte", "upstream/pte/maxpool2d.pte"}) {
    auto program = Program::load_file(test::corpus(file));
    ASSERT_TRUE(program.ok());
    std::vector<uint8_t> buffer(16 << 20);
    ETDumpGenOptions gen_options = logging_into(buffer, DebugLevel::kIntermediateOutputs);
    ETDumpGen gen(gen_options);
    MethodOptions options;
    options.kernels = &all_kernels();
    options.tracer = &gen;
    auto method = Method::load(*program, "forward", options);
    ASSERT_TRUE(method.ok()) << file;
    std::vector<std::vector<float>> inputs;
    for (size_t i = 0; i < (*method)->input_count(); ++i) {
      const Tensor& spec = (*method)->input(i).unchecked_tensor();
      inputs.emplace_back(size_t(spec.numel()));
      for (size_t k = 0; k < inputs.back().size(); ++k) inputs.back()[k] = float(k % 7) - 3.0f;
      ASSERT_TRUE((*method)->set_input(i, *Tensor::make(spec.scalar_type(), spec.sizes(), spec.dim_order(),
                                                         inputs.back().data(), spec.nbytes())).ok());
    }
    ASSERT_TRUE((*method)->execute().ok()) << file;
    ETDump trace = reread(gen);
    ASSERT_EQ(trace.block_count(), 2u) << file;
    const ByteSpan debug{buffer.data(), gen.debug_buffer_used()};
    RunBlock execute = trace.block(1);
    const Tensor& output = (*method)->output(0).unchecked_tensor();
    const Tensor* last_intermediate = nullptr;
    Tensor view;
    std::set<int32_t> instructions_logged;
    size_t outputs_logged = 0, logged_by_last = 0;
    int32_t last_instruction = -1;
    for (size_t e = 0; e < execute.event_count(); ++e) {
      EventView event = execute.event(e);
      if (event.kind != EventKind::kDebug) continue;
      for (const DebugTensorView& t : event.debug.tensors) {
        auto resolved = debug_tensor(t, debug);
        ASSERT_TRUE(resolved.ok()) << file << ": " << resolved.error().message();
      }
      if (event.debug.is_output) {
        ++outputs_logged;
        continue;
      }
      instructions_logged.insert(event.debug.instruction_id);
      // An instruction's first logged value is its first out argument.
      if (event.debug.instruction_id != last_instruction) {
        view = *debug_tensor(event.debug.tensors.at(0), debug);
        last_intermediate = &view;
        last_instruction = event.debug.instruction_id;
        logged_by_last = 0;
      }
      ++logged_by_last;
    }
    EXPECT_EQ(instructions_logged.size(), (*method)->instruction_count()) << file;
    EXPECT_EQ(outputs_logged, (*method)->output_count()) << file;
    // One value per out argument: max_pool2d_with_indices writes values and
    // indices (corpus README), the other corpus ops one out each.
    EXPECT_EQ(logged_by_last, std::string(file).find("maxpool2d") != std::string::npos ? 2u : 1u) << file;
    // The last instruction's (first) result is the program output.
    ASSERT_NE(last_intermediate, nullptr);
    ASSERT_EQ(last_intermediate->nbytes(), output.nbytes());
    EXPECT_EQ(std::memcmp(last_intermediate->data(), output.data(), output.nbytes()), 0) << file;
  }
}

TEST(ETDumpGen, DebugLevelsParse) {
  EXPECT_EQ(*parse_debug_level("intermediates"), DebugLevel::kIntermediateOutputs);
  EXPECT_EQ(*parse_debug_level("outputs"), DebugLevel::kProgramOutputs);
  EXPECT_STREQ(parse_debug_level("all").error().message(),
               "debug level 'all' is not one of none, outputs, intermediates");
}

}  // namespace
}  // namespace etkit::etdump

namespace etkit::etdump {
namespace {

// A method's names are freed with it, and a later method's names may take
// their addresses: each event keeps the name it was given.
TEST(ETDumpGen, ANameAtAReusedAddressIsRecordedAsItIsNow) {
  ETDumpGen gen;
  gen.create_event_block("Execute");
  char name[32] = "native_call_add.out";
  gen.end_profiling(gen.start_profiling(name, 0, 0));
  std::strcpy(name, "native_call_mul.out");
  gen.end_profiling(gen.start_profiling(name, 0, 1));
  std::strcpy(name, "relu");  // shorter than the pooled name
  gen.end_profiling(gen.start_profiling(name, 0, 2));
  ETDump trace = reread(gen);
  RunBlock block = trace.block(0);
  ASSERT_EQ(block.event_count(), 3u);
  EXPECT_EQ(block.event(0).profile.name, "native_call_add.out");
  EXPECT_EQ(block.event(1).profile.name, "native_call_mul.out");
  EXPECT_EQ(block.event(2).profile.name, "relu");
}

}  // namespace
}  // namespace etkit::etdump
