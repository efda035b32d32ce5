// etinspect with the XNNPACK delegate, as a user runs it: info shows the
// node split, the delegated MobileNetV2 sample verifies and computes what
// the portable sample computes, and its table names an op and a module on
// every delegated row.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <nlohmann/json.hpp>

#include "etkit/inspector/npy.h"
#include "support/cli.h"

namespace etkit {
namespace {

const std::string kXnnSample = "mobilenet_v2_xnnpack/mobilenet_v2_xnnpack";

nlohmann::json info_json(const std::string& path) {
  auto result = test::etinspect({"info", "--json", path});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out)[0];
}

TEST(XnnpackCli, InfoListsNodeTypesAndPortableNodes) {
  const auto mlp = info_json(test::corpus("upstream-runtime/xnn_mlp.pte"));
  ASSERT_EQ(mlp["delegate_payloads"].size(), 1u);
  const auto& payload = mlp["delegate_payloads"][0];
  EXPECT_EQ(payload["node_count"], 4);
  EXPECT_EQ(payload["node_types"][0]["kind"], "FullyConnected");
  EXPECT_EQ(payload["node_types"][0]["count"], 2);
  EXPECT_EQ(payload["node_types"][0]["runs_on"], "xnnpack");
  EXPECT_TRUE(payload["portable_nodes"].empty());
  // Upstream's partitioner moves the sample's NCHW input to NHWC and its
  // last feature map back: two transposes, which this XNNPACK lacks.
  const auto sample = info_json(test::sample(kXnnSample + ".pte"));
  const auto& portable = sample["delegate_payloads"][0]["portable_nodes"];
  ASSERT_EQ(portable.size(), 2u);
  for (const auto& node : portable) {
    EXPECT_EQ(node["kind"], "StaticTranspose");
    EXPECT_EQ(node["kernel"], "aten::permute_copy.out");
  }
}

TEST(XnnpackCli, DelegatedSampleVerifiesOnOneThreadAndAllCores) {
  const std::string nodes =
      std::to_string(info_json(test::sample(kXnnSample + ".pte"))["delegate_payloads"][0]["node_count"].get<int>());
  for (const char* threads : {"1", "0"}) {
    auto result =
        test::etinspect({"verify", "--threads", threads, "--atol", "1e-6", test::sample(kXnnSample + ".bpte")});
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    // The node split is said once, at load.
    EXPECT_NE(result.err.find("XnnpackBackend: method 'forward': " + nodes + " nodes"), std::string::npos)
        << result.err;
  }
  EXPECT_EQ(test::etinspect({"verify", "--threads", "-1", test::sample(kXnnSample + ".bpte")}).exit_code, 2);
}

// The largest |a - b| of two float32 [1, 100] outputs written by `run --output-dir`.
double max_abs_difference(const std::string& a_path, const std::string& b_path) {
  auto a = test::checked(inspector::read_npy(a_path), a_path);
  auto b = test::checked(inspector::read_npy(b_path), b_path);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.numel(), 100);
  if (a.numel() != 100 || b.numel() != 100) return INFINITY;
  std::vector<float> x(100), y(100);
  std::memcpy(x.data(), a.data.data(), 400);
  std::memcpy(y.data(), b.data.data(), 400);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, double(std::abs(x[i] - y[i])));
  return worst;
}

TEST(XnnpackCli, DelegatedSampleComputesWhatThePortableSampleComputes) {
  const std::string xnn_dir = test::temp("xnn-out"), portable_dir = test::temp("portable-out");
  for (const auto& [program, dir] : {std::pair{test::sample(kXnnSample + ".pte"), xnn_dir},
                                     std::pair{test::sample("mobilenet_v2/mobilenet_v2.pte"), portable_dir}}) {
    auto result = test::etinspect({"run", program, "--fill", "random", "--seed", "5", "--output-dir", dir});
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  const double worst = max_abs_difference(xnn_dir + "/output_0.npy", portable_dir + "/output_0.npy");
  // Batch norms folded into the convolutions and XNNPACK's summation order:
  // float32 rounding apart, nothing more.
  EXPECT_LT(worst, 1e-5);
}

TEST(XnnpackCli, EveryDelegatedRowHasOpTypesAndAModule) {
  const std::string trace = test::temp("xnn.etdp");
  auto ran = test::etinspect({"run", test::sample(kXnnSample + ".pte"), "--iterations", "2", "--etdump", trace});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  auto table = test::etinspect({"table", trace, "--etrecord", test::sample(kXnnSample + ".etrecord"),
                                "--program", test::sample(kXnnSample + ".pte"), "--format", "json"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  // Upstream's partitioner leaves its two layout transposes without a debug
  // handle (65535 in the payload): the only rows without a graph node, said.
  const auto info = info_json(test::sample(kXnnSample + ".pte"));
  size_t unhandled = 0;
  for (const auto& node : info["delegate_payloads"][0]["portable_nodes"]) unhandled += node["debug_handle"] == 65535;
  ASSERT_EQ(unhandled, 2u);
  EXPECT_NE(table.err.find("2 event(s) with an instruction id have no graph node"), std::string::npos) << table.err;
  size_t delegated = 0;
  for (const auto& row : nlohmann::json::parse(table.out)) {
    if (!row["is_delegated_op"].get<bool>()) continue;
    ++delegated;
    EXPECT_EQ(row["delegate_backend_name"], "XnnpackBackend") << row["event_name"];
    if (row["event_name"].get<std::string>().rfind("StaticTranspose", 0) == 0) continue;
    EXPECT_FALSE(row["op_types"].empty()) << row["event_name"];
    EXPECT_FALSE(row["module_hierarchy"].empty()) << row["event_name"];
  }
  // One row per XNNGraph node (upstream fuses each relu6 into its
  // convolution's output range: no Clamp nodes are left to keep apart).
  EXPECT_EQ(delegated, size_t(info["delegate_payloads"][0]["node_count"].get<int>()));
}

// The 8da4w sample (torchao's 8da4w, upstream's XNNPACK partitioner): its
// bundle's expected outputs are upstream's runtime's, so this checks etkit's
// integer kernels against an independent computation.
TEST(XnnpackCli, DynamicallyQuantizedSampleVerifiesAndReportsItsValueKinds) {
  const std::string stem = "transformer_8da4w/transformer_8da4w";
  auto result = test::etinspect({"verify", "--atol", "0.005", test::sample(stem + ".bpte")});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.err.find("on etkit's dynamic quantization kernels (qd8)"), std::string::npos) << result.err;
  // At the default tolerance a per-token rounding flip shows: not hidden (samples/README.md).
  EXPECT_EQ(test::etinspect({"verify", test::sample(stem + ".bpte")}).exit_code, 1);
  const auto info = info_json(test::sample(stem + ".pte"));
  std::set<std::string> kinds, runners;
  size_t quantized_linears = 0;
  for (const auto& payload : info["delegate_payloads"]) {
    for (const auto& kind : payload["value_kinds"]) kinds.insert(kind["kind"].get<std::string>());
    for (const auto& type : payload["node_types"]) {
      runners.insert(type["runs_on"].get<std::string>());
      if (type["kind"] == "FullyConnected" && type["runs_on"] == "etkit-qd8") quantized_linears += type["count"].get<size_t>();
    }
  }
  EXPECT_EQ(quantized_linears, 4u);  // the block's four linears
  EXPECT_TRUE(kinds.count("fp32") && kinds.count("qd8") && kinds.count("qb4w")) << info.dump();
  // Attention and the rest stay on XNNPACK; the quantized nodes run on etkit's kernels.
  EXPECT_TRUE(runners.count("etkit-qd8") && runners.count("xnnpack")) << info.dump();
}

// A traced run of a delegated method also times untraced runs, and the
// trace says what tracing cost: the ratio `info` reads from the trace is the
// ratio of the medians `table` shows for the two blocks' Method::execute.
TEST(XnnpackCli, TracedRunRecordsUntracedRunsAndTheRatio) {
  const std::string trace = test::temp("overhead.etdp");
  auto ran = test::etinspect({"run", test::sample(kXnnSample + ".pte"), "--iterations", "5", "--warmup", "1",
                              "--etdump", trace, "--json"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const auto report = nlohmann::json::parse(ran.out);
  ASSERT_TRUE(report.contains("tracing_overhead")) << ran.out;
  EXPECT_GT(report["tracing_overhead"]["ratio"].get<double>(), 0);
  const auto info = info_json(trace);
  ASSERT_TRUE(info.contains("tracing_overhead")) << info.dump();
  EXPECT_EQ(info["tracing_overhead"]["runs"], 5);
  auto table = test::etinspect({"table", trace, "--format", "json"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  std::vector<double> traced, untraced;
  for (const auto& row : nlohmann::json::parse(table.out)) {
    if (row["event_name"] != "Method::execute") continue;
    const auto raw = row["raw"].get<std::vector<double>>();
    if (row["event_block_name"] == "Untraced") untraced = raw;
    if (row["event_block_name"] == "Execute") traced.assign(raw.end() - 5, raw.end());  // after the warm-up
  }
  ASSERT_EQ(untraced.size(), 5u);
  ASSERT_EQ(traced.size(), 5u);
  EXPECT_NEAR(info["tracing_overhead"]["ratio"].get<double>(), median(traced) / median(untraced), 1e-9);
  // A program without delegate calls runs the same traced or not: no untraced runs.
  const std::string portable = test::temp("portable.etdp");
  auto plain = test::etinspect({"run", test::sample("tutorial_cnn/tutorial_cnn.pte"), "--etdump", portable, "--json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("tracing_overhead"));
  EXPECT_FALSE(info_json(portable).contains("tracing_overhead"));
}

const std::string kInt8Sample = "mobilenet_v2_xnnpack_int8/mobilenet_v2_xnnpack_int8";

// The int8 MobileNetV2 sample's expected outputs come from upstream's
// runtime running the program (samples/export/upstream/export_samples.py).
TEST(XnnpackCli, StaticInt8SampleVerifiesAndReportsItsValueKinds) {
  auto result = test::etinspect({"verify", "--threads", "1", test::sample(kInt8Sample + ".bpte")});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto info = info_json(test::sample(kInt8Sample + ".pte"));
  ASSERT_EQ(info["delegate_payloads"].size(), 1u);  // the whole network in one call
  const auto& payload = info["delegate_payloads"][0];
  std::set<std::string> kinds, runners;
  for (const auto& kind : payload["value_kinds"]) kinds.insert(kind["kind"].get<std::string>());
  for (const auto& type : payload["node_types"]) runners.insert(type["runs_on"].get<std::string>());
  EXPECT_TRUE(kinds.count("qs8") && kinds.count("qc8w") && kinds.count("fp32")) << payload["value_kinds"].dump();
  // Only the layout transposes in and out run on a portable kernel.
  EXPECT_EQ(runners, (std::set<std::string>{"portable", "xnnpack"}));
  ASSERT_EQ(payload["portable_nodes"].size(), 2u);
  for (const auto& node : payload["portable_nodes"]) EXPECT_EQ(node["kind"], "StaticTranspose");
}

// #41's must-show: the float XNNPACK export against the float portable one
// (both made by upstream's exporter from one model, run on one input) is
// no divergence. XNNPACK folds each batch norm, and the ReLU6 after it,
// into the convolution: that convolution's value is compared with the
// portable program's value after them, not before; its activations are
// NHWC, compared in logical (NCHW) order.
TEST(XnnpackCli, GapOfTheFloatDelegatedSampleAgainstThePortableOneIsNoDivergence) {
  const std::string dir = test::temp("float-gap");
  std::filesystem::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"mobilenet_v2_xnnpack/mobilenet_v2_xnnpack", dir + "/xnnpack"}, {"mobilenet_v2/mobilenet_v2", dir + "/portable"}};
  for (const auto& [sample, stem] : runs) {
    auto ran = test::etinspect({"run", test::sample(sample + ".pte"), "--fill", "random", "--seed", "7",
                                "--debug-level", "intermediates", "--debug-buffer", stem + ".bin", "--etdump",
                                stem + ".etdp"});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }
  auto gap = test::etinspect(
      {"gap", dir + "/xnnpack.etdp", "--debug-buffer", dir + "/xnnpack.bin", "--etrecord",
       test::sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.etrecord"), "--program",
       test::sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte"), "--reference", dir + "/portable.etdp",
       "--reference-debug-buffer", dir + "/portable.bin", "--reference-etrecord",
       test::sample("mobilenet_v2/mobilenet_v2.etrecord"), "--json"});
  ASSERT_EQ(gap.exit_code, 0) << gap.err;
  const auto report = nlohmann::json::parse(gap.out);
  EXPECT_TRUE(report["first_divergence"].is_null());
  EXPECT_GE(report["compared"].get<int>(), 60);  // 52 convolutions, the adds, pooling and the classifier
  EXPECT_EQ(report["shape_mismatches"], 0);
  size_t folded = 0;
  for (const auto& row : report["rows"]) {
    if (row["status"] != "ok" || row["op"] != "aten.convolution.default") continue;
    EXPECT_LT(row["max_abs"].get<double>(), 1e-5) << row.dump();
    ++folded;
  }
  EXPECT_EQ(folded, 52u);
}

// The question a user asks of a quantized export: where does it part from
// the float model? Both samples come from one model, exported by upstream's
// tools: ops are matched by graph node name (a convolution whose batch norm
// PT2E folded in against the float program's batch norm; the int8 linear,
// which the float program runs as a transpose and an addmm, by its module);
// the int8 delegate's values are dequantized with the payload's parameters
// and read as NHWC.
TEST(XnnpackCli, GapOfTheInt8SampleAgainstTheFloatSampleNamesWhereTheErrorGrows) {
  const std::string dir = test::temp("int8-gap");
  std::filesystem::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> runs = {
      {test::sample(kInt8Sample + ".pte"), dir + "/int8"}, {test::sample("mobilenet_v2/mobilenet_v2.pte"), dir + "/float"}};
  for (const auto& [program, stem] : runs) {
    auto ran = test::etinspect({"run", program, "--fill", "random", "--seed", "5", "--debug-level", "intermediates",
                                "--debug-buffer", stem + ".bin", "--etdump", stem + ".etdp", "--output-dir", stem});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }
  auto gap = test::etinspect({"gap", dir + "/int8.etdp", "--debug-buffer", dir + "/int8.bin", "--etrecord",
                              test::sample(kInt8Sample + ".etrecord"), "--program", test::sample(kInt8Sample + ".pte"),
                              "--reference", dir + "/float.etdp", "--reference-debug-buffer", dir + "/float.bin",
                              "--reference-etrecord", test::sample("mobilenet_v2/mobilenet_v2.etrecord"), "--json"});
  ASSERT_EQ(gap.exit_code, 1) << gap.err;  // int8 is not float: it diverges, and says so
  const auto report = nlohmann::json::parse(gap.out);
  size_t delegate_rows = 0;
  double first_conv_error = -1, output_max_abs = -1;
  for (const auto& row : report["rows"]) {
    if (row["delegate_debug_id"].is_null()) continue;
    // The input's quantization has no counterpart in the float program, nor
    // do the layout transposes upstream's partitioner adds (no graph node);
    // the flatten before the classifier is a memory alias there, which
    // records no value.
    const std::string op = row["op"].get<std::string>();
    if (op.rfind("quantized_decomposed.", 0) == 0 || row["node"] == "" || op == "aten.view_copy.default") continue;
    ++delegate_rows;
    ASSERT_NE(row["status"], "shape mismatch") << row.dump();
    ASSERT_NE(row["status"], "no reference") << row.dump();
    if (row["status"] == "compared later") continue;
    // Dequantized and permuted right, every op stays near the float model;
    // a wrong layout or a raw int8 value would be off by ~100%.
    EXPECT_LT(row["rel_error"].get<double>(), 0.35) << row.dump();
    if (first_conv_error < 0) first_conv_error = row["rel_error"].get<double>();
    output_max_abs = row["max_abs"].get<double>();  // the last compared row: the classifier
  }
  EXPECT_GE(delegate_rows, 52u);  // every convolution at least
  EXPECT_LT(first_conv_error, 0.02) << "input quantization and one int8 convolution";
  // The last op's gap is the gap of the two programs' outputs, computed here
  // from their .npy files.
  EXPECT_NEAR(output_max_abs, max_abs_difference(dir + "/int8/output_0.npy", dir + "/float/output_0.npy"), 1e-6);
  // In quantization steps (--quanta): each dequantized row says its step
  // (the value's scale) and its error in steps; judged in steps, no int8 row
  // diverges at a bound no int8 error reaches, and what still diverges is a
  // float value (the classifier's dequantized output, judged by atol/rtol).
  auto in_quanta = test::etinspect({"gap", dir + "/int8.etdp", "--debug-buffer", dir + "/int8.bin", "--etrecord",
                                    test::sample(kInt8Sample + ".etrecord"), "--program",
                                    test::sample(kInt8Sample + ".pte"), "--reference", dir + "/float.etdp",
                                    "--reference-debug-buffer", dir + "/float.bin", "--reference-etrecord",
                                    test::sample("mobilenet_v2/mobilenet_v2.etrecord"), "--quanta", "1000", "--json"});
  const auto quanta_report = nlohmann::json::parse(in_quanta.out);
  size_t quantized_rows = 0;
  for (const auto& row : quanta_report["rows"]) {
    if (!row["error_quanta"].is_number()) continue;
    ++quantized_rows;
    EXPECT_GT(row["quantum"].get<double>(), 0) << row.dump();
    EXPECT_NEAR(row["error_quanta"].get<double>() * row["quantum"].get<double>(), row["max_abs"].get<double>(), 1e-9);
    EXPECT_EQ(row["status"], "ok") << row.dump();
  }
  EXPECT_GE(quantized_rows, 52u);
  // The op that adds the most error is named, with its growth the largest.
  const auto& growth = report["largest_error_growth"];
  ASSERT_TRUE(growth.is_object()) << gap.out;
  EXPECT_FALSE(growth["node"].get<std::string>().empty());
  for (const auto& row : report["rows"]) {
    if (row["growth"].is_number()) {
      EXPECT_LE(row["growth"].get<double>(), growth["growth"].get<double>());
    }
  }
}

}  // namespace
}  // namespace etkit
