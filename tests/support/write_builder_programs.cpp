// Writes programs made by the tests' own ProgramBuilder (and XNNPACK
// payloads made by their PayloadBuilder) to a folder, with a manifest of
// their inputs, so tests/upstream/test_differential_runs.py can run each on
// upstream's runtime and on etkit: the builders' programs are what many of
// etkit's tests run, and only upstream's runtime can say they are programs
// as upstream writes them.
//
//   write_builder_programs DIR      -> DIR/<name>.pte, DIR/programs.json

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "support/program_builder.h"
#include "support/xnn_payload_builder.h"

namespace {

using etkit::ScalarType;
using etkit::test::PayloadBuilder;
using etkit::test::ProgramBuilder;
using nlohmann::json;

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// An input as the manifest describes it: shape, dtype (numpy's name) and
/// the range of its random values.
json input(std::vector<int64_t> shape, const char* dtype, double low = -4, double high = 4) {
  return {{"shape", shape}, {"dtype", dtype}, {"low", low}, {"high", high}};
}

/// sum over dim 1 of a constant [3, 4] indexed by the input's rows, then
/// added to a planned [2] input: IntList boxing, None and bool arguments,
/// an inline constant buffer, and index.Tensor's Tensor?[] with a None item.
ProgramBuilder constants_lists_and_none() {
  ProgramBuilder b;
  std::vector<float> table(12);
  for (size_t i = 0; i < table.size(); ++i) table[i] = float(i) * 0.5f - 2.f;
  const int32_t constant = b.constant_tensor({3, 4}, ScalarType::kFloat, bytes_of(table));
  const int32_t rows = b.tensor({2}, 0, false, ScalarType::kLong);
  const int32_t gathered = b.tensor({2, 4}, 16);
  b.kernel_call("aten::index", "Tensor_out", {constant, b.optional_tensor_list({rows}), gathered, gathered});
  const int32_t picked = b.tensor({3, 2}, 48);
  b.kernel_call("aten::index", "Tensor_out",
                {constant, b.optional_tensor_list({-1, rows}), picked, picked});
  const int32_t sums = b.tensor({2}, 80);
  b.kernel_call("aten::sum", "IntList_out", {gathered, b.int_list({1}), b.boolean(false), b.none(), sums, sums});
  b.inputs({rows});
  b.outputs({sums, picked});
  b.arena(96);
  return b;
}

/// y = x + x with x and y DYNAMIC_BOUND [4]: run with fewer elements.
ProgramBuilder dynamic_add() {
  ProgramBuilder b;
  const int32_t x = b.tensor({4}, 0, true);
  const int32_t y = b.tensor({4}, 16, true);
  b.kernel_call("aten::add", "out", {x, x, b.integer(1), y, y});
  b.inputs({x});
  b.outputs({y});
  b.arena(32);
  return b;
}

/// A float fully connected layer as one XNNPACK delegate call.
ProgramBuilder xnnpack_linear() {
  PayloadBuilder p;
  std::vector<float> weight(3 * 5), bias = {0.5f, -1.f, 0.25f};
  for (size_t i = 0; i < weight.size(); ++i) weight[i] = float(int(i % 7) - 3) * 0.125f;
  const int x = p.value("fp32", {2, 5}, 0, 1);
  const int w = p.value("fp32", {3, 5}, p.constant(weight.data(), weight.size() * 4));
  const int c = p.value("fp32", {3}, p.constant(bias.data(), bias.size() * 4));
  const int y = p.value("fp32", {2, 3}, 0, 2);
  p.fully_connected(x, w, c, y, 1);
  ProgramBuilder b;
  const int32_t in = b.tensor({2, 5}, 0);
  const int32_t out = b.tensor({2, 3}, 48);
  b.delegate_call("XnnpackBackend", p.finish(), {in, out});
  b.inputs({in});
  b.outputs({out});
  b.arena(80);
  return b;
}

/// A static int8 convolution in XNNPACK (Convert, qs8 x qc8w Conv2d with
/// qc32 bias, Convert back), NHWC as upstream's lowering leaves it.
ProgramBuilder xnnpack_int8_convolution() {
  const float s_in = 0.05f, s_out = 0.1f;
  const std::vector<float> s_w = {0.01f, 0.02f};
  std::vector<int8_t> weight(2 * 3 * 3 * 3);
  for (size_t i = 0; i < weight.size(); ++i) weight[i] = int8_t(int(i * 37 % 255) - 127);
  const std::vector<int32_t> bias = {150, -320};
  PayloadBuilder p;
  const int x = p.value("fp32", {1, 4, 4, 3}, 0, 1);
  const int xq = p.per_tensor("qint8", {1, 4, 4, 3}, s_in, 3);
  const int wq = p.per_channel("qcint8", {2, 3, 3, 3}, s_w, p.constant(weight.data(), weight.size()));
  const int bq = p.per_channel("qcint32", {2}, {s_in * s_w[0], s_in * s_w[1]}, p.constant(bias.data(), 8));
  const int yq = p.per_tensor("qint8", {1, 4, 4, 2}, s_out, -5);
  const int y = p.value("fp32", {1, 4, 4, 2}, 0, 2);
  p.convert(x, xq, 1);
  p.node("Conv2d", 2,
         {{"padding_top", 1}, {"padding_right", 1}, {"padding_bottom", 1}, {"padding_left", 1},
          {"kernel_height", 3}, {"kernel_width", 3}, {"subsampling_height", 1}, {"subsampling_width", 1},
          {"dilation_height", 1}, {"dilation_width", 1}, {"group_input_channels", 3},
          {"group_output_channels", 2}, {"groups", 1}, {"input1_id", xq}, {"filter_id", wq},
          {"bias_id", bq}, {"output_id", yq}});
  p.convert(yq, y, 3);
  ProgramBuilder b;
  const int32_t in = b.tensor({1, 4, 4, 3}, 0);
  const int32_t out = b.tensor({1, 4, 4, 2}, 192);
  b.delegate_call("XnnpackBackend", p.finish(), {in, out});
  b.inputs({in});
  b.outputs({out});
  b.arena(320);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_builder_programs DIR\n";
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  std::filesystem::create_directories(folder);
  struct Entry {
    const char* name;
    ProgramBuilder builder;
    json inputs;
    const char* what;
  };
  const std::vector<Entry> entries = {
      {"two_step", etkit::test::two_step_program(0, 48), json::array({input({4}, "float32")}),
       "add then mul, the output reusing the input's planned bytes"},
      {"running_sum", etkit::test::running_sum_program(), json::array({input({4}, "float32")}),
       "a mutable buffer with an initial state in the program's mutable data segment"},
      {"constants_lists_and_none", constants_lists_and_none(), json::array({input({2}, "int64", 0, 3)}),
       "an inline constant buffer, IntList, None, bool, Tensor?[] with a None item"},
      {"dynamic_add", dynamic_add(), json::array({input({3}, "float32")}),
       "a DYNAMIC_BOUND input run below its bound"},
      {"xnnpack_linear", xnnpack_linear(), json::array({input({2, 5}, "float32")}),
       "an fp32 FullyConnected XNNPACK payload made by the tests' PayloadBuilder"},
      {"xnnpack_int8_convolution", xnnpack_int8_convolution(), json::array({input({1, 4, 4, 3}, "float32")}),
       "a qs8 x qc8w convolution XNNPACK payload made by the tests' PayloadBuilder"},
  };
  json manifest = json::array();
  for (const Entry& entry : entries) {
    const std::vector<uint8_t> bytes = entry.builder.build();
    std::ofstream out(folder / (std::string(entry.name) + ".pte"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) {
      std::cerr << "write_builder_programs: cannot write " << (folder / entry.name).string() << ".pte\n";
      return 1;
    }
    manifest.push_back({{"name", entry.name}, {"inputs", entry.inputs}, {"what", entry.what}});
  }
  std::ofstream(folder / "programs.json") << manifest.dump(1) << "\n";
  return 0;
}
