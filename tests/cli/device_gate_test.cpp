// The on-device gate, as CI runs it: bundles verified inside the emulated
// Cortex-M55 board, aarch64 Linux and riscv64 Linux give the host's verdicts, case by
// case; a tampered bundle fails the same case there; a truncated one is
// refused as on the host; the board's trace opens in `etinspect table`;
// the Cortex-M keyword-spotting program computes the same bits on host,
// board and phone.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/cli.h"
#include "support/program_builder.h"
#include "support/tampered_bundle.h"
#include "support/upstream_generation.h"

namespace etkit {
namespace {

using test::etinspect;
using test::verify_verdicts;

const std::string kCorpusBundle = test::corpus("upstream/bundled/add_mul_int.bpte");

class DeviceGate : public ::testing::TestWithParam<std::string> {};

// The phone's runner links Debian's arm64 XNNPACK; the board's and the
// riscv64 runner have no XNNPACK backend.
bool has_xnnpack(const std::string& device) { return device == "qemu-aarch64"; }

// Host and device verdicts agree, with the same exit code.
void expect_host_verdicts(const std::string& device, const std::vector<std::string>& args) {
  std::vector<std::string> host_args{"verify"}, device_args{"verify", "--device", device};
  host_args.insert(host_args.end(), args.begin(), args.end());
  device_args.insert(device_args.end(), args.begin(), args.end());
  const auto host = etinspect(host_args);
  const auto on_device = etinspect(device_args);
  EXPECT_EQ(on_device.exit_code, host.exit_code) << on_device.err;
  EXPECT_FALSE(verify_verdicts(host.out).empty()) << host.out << host.err;
  EXPECT_EQ(verify_verdicts(on_device.out), verify_verdicts(host.out)) << on_device.out;
}

TEST_P(DeviceGate, CorpusBundleAndTutorialCnnVerifyWithTheHostsVerdicts) {
  expect_host_verdicts(GetParam(), {kCorpusBundle});
  expect_host_verdicts(GetParam(), {test::sample("tutorial_cnn/tutorial_cnn.bpte")});
}

TEST_P(DeviceGate, EverySampleVerifiesAtItsStatedTolerance) {
  // samples/README.md states each sample's tolerance.
  for (const auto& [sample, atol] : std::vector<std::pair<std::string, std::string>>{
           {"tiny/affine", "1e-8"}, {"mobilenet_v2/mobilenet_v2", "1e-6"}, {"resnet18/resnet18", "1e-6"},
           {"nano_gpt/nano_gpt", "1e-6"}, {"nano_gpt_bf16/nano_gpt_bf16", "0.02"},
           {"deeplab_head/deeplab_head", "1e-6"}}) {
    const auto result = etinspect({"verify", "--device", GetParam(), "--atol", atol, test::sample(sample + ".bpte")});
    EXPECT_EQ(result.exit_code, 0) << sample << ": " << result.out << result.err;
    EXPECT_NE(result.out.find("summary: 3 passed, 0 failed of 3 cases"), std::string::npos) << sample;
  }
}

// The int8 Cortex-M sample (a small ResNet on cortex_m:: ops, channels-last)
// computes its bundle's bits on the devices: its expected outputs come from
// the exporter's CMSIS-NN reference arithmetic, not from etkit.
TEST_P(DeviceGate, CortexMInt8ResNetVerifiesBitExactly) {
  const auto result = etinspect({"verify", "--device", GetParam(), "--atol", "0", "--rtol", "0",
                                 test::sample("resnet8_cortex_m_int8/resnet8_cortex_m_int8.bpte")});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("summary: 3 passed, 0 failed of 3 cases"), std::string::npos) << result.out;
}

// The Llama sample generates inside the devices what upstream's runtime
// generates (64 greedy tokens, KV caches in the devices' planned memory),
// traced too, with the prefill and decode steps apart in the trace.
TEST_P(DeviceGate, TheLlamaSampleGeneratesUpstreamsTokens) {
  const nlohmann::json eager = test::upstream_generation("tiny_llama");
  std::string prompt;
  for (const auto& t : eager["prompt_tokens"]) prompt += (prompt.empty() ? "" : ",") + std::to_string(t.get<int>());
  const std::string trace = test::temp("device_generate_" + GetParam() + ".etdp");
  const auto result = etinspect({"generate", test::sample("tiny_llama/tiny_llama.pte"), "--prompt-tokens", prompt,
                                 "--max-new", "64", "--device", GetParam(), "--etdump", trace, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json out = nlohmann::json::parse(result.out);
  EXPECT_EQ(out["generated_token_ids"], eager["generated_tokens"]);
  EXPECT_EQ(out["decode_latencies_ms"].size(), 63u);
  const auto table = etinspect({"table", trace, "--phase", "decode", "--format", "csv"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Decode,native_call_custom_sdpa.out"), std::string::npos) << table.out.substr(0, 400);
}

// The 8da4w Llama generates upstream's runtime's tokens inside the phone
// (XNNPACK and etkit's 4-bit kernels); the board has no XNNPACK and says so.
TEST_P(DeviceGate, The8da4wLlamaGeneratesOnThePhoneAndIsRefusedOnTheBoard) {
  const nlohmann::json eager = test::upstream_generation("tiny_llama_8da4w");
  std::string prompt;
  for (const auto& t : eager["prompt_tokens"]) prompt += (prompt.empty() ? "" : ",") + std::to_string(t.get<int>());
  const auto result = etinspect({"generate", test::sample("tiny_llama_8da4w/tiny_llama_8da4w.pte"), "--prompt-tokens",
                                 prompt, "--max-new", "64", "--device", GetParam(), "--json"});
  if (!has_xnnpack(GetParam())) {
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find("backend XnnpackBackend is not available"), std::string::npos) << result.err;
    return;
  }
  ASSERT_EQ(result.exit_code, 0) << result.err;
  test::expect_upstream_tokens(nlohmann::json::parse(result.out)["generated_token_ids"], eager);
}

// The dynamic-length Llamas (upstream's export_llm) prefill their 8-token
// prompt in one call inside the devices, then generate upstream's runtime's
// 64 greedy tokens: the portable one on both, the one with 8da4w XNNPACK
// linears (run on the call's row count) on the phone, which has XNNPACK.
TEST_P(DeviceGate, DynamicLengthLlamasPrefillInOneCallAndGenerateUpstreamsTokens) {
  std::vector<std::string> names = {"tiny_llama_dynamic"};
  if (has_xnnpack(GetParam())) names.push_back("tiny_llama_dynamic_8da4w");
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const nlohmann::json upstream = test::upstream_generation(name);
    std::string prompt;
    for (const auto& t : upstream["prompt_tokens"]) prompt += (prompt.empty() ? "" : ",") + std::to_string(t.get<int>());
    const auto result = etinspect({"generate", test::sample(name + "/" + name + ".pte"), "--prompt-tokens", prompt,
                                   "--max-new", "64", "--device", GetParam(), "--json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const nlohmann::json out = nlohmann::json::parse(result.out);
    EXPECT_EQ(out["prefill_calls"], 1);
    test::expect_upstream_tokens(out["generated_token_ids"], upstream);
  }
}

// The phone runs XNNPACK (Debian's arm64 build): the float and 8da4w
// samples verify inside it at the host's tolerances; the static int8 ones
// carry upstream's x86-64 runtime's outputs, which the detector meets
// bit-exactly there and MobileNetV2 within one output quantum (0.00124:
// the arm64 build rounds one requantization the other way). The board has
// no XNNPACK: a delegated program fails there as on a host without the
// backend, naming it.
TEST_P(DeviceGate, XnnpackSamplesVerifyOnThePhoneAndAreRefusedOnTheBoard) {
  const std::vector<std::vector<std::string>> samples = {
      {"mobilenet_v2_xnnpack/mobilenet_v2_xnnpack", "--atol", "1e-6"},
      {"mobilenet_v2_xnnpack_int8/mobilenet_v2_xnnpack_int8", "--atol", "0.0013", "--rtol", "0"},
      {"yolo_detector_xnnpack_int8/yolo_detector_xnnpack_int8", "--atol", "0", "--rtol", "0"},
      {"transformer_8da4w/transformer_8da4w", "--atol", "0.005"}};
  for (const auto& sample : samples) {
    std::vector<std::string> args = {"verify", "--device", GetParam(), test::sample(sample[0] + ".bpte")};
    args.insert(args.end(), sample.begin() + 1, sample.end());
    const auto result = etinspect(args);
    if (has_xnnpack(GetParam())) {
      EXPECT_EQ(result.exit_code, 0) << sample[0] << ": " << result.out << result.err;
      EXPECT_NE(result.out.find("summary: 3 passed, 0 failed of 3 cases"), std::string::npos) << sample[0];
    } else {
      EXPECT_EQ(result.exit_code, 2) << sample[0];
      EXPECT_NE(result.err.find("backend XnnpackBackend is not available"), std::string::npos) << result.err;
    }
  }
}

TEST_P(DeviceGate, TamperedBundleFailsTheSameCaseAndTruncatedIsRefused) {
  auto bytes = test::tampered_corpus_bundle();
  const std::string tampered = test::write_temp("device-tampered.bpte", bytes);
  expect_host_verdicts(GetParam(), {tampered});
  const std::string junit = test::temp("device-tampered.xml");
  const auto failed = etinspect({"verify", "--device", GetParam(), tampered, "--junit", junit});
  EXPECT_EQ(failed.exit_code, 1);
  std::ifstream report(junit);
  const std::string xml((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("<failure"), std::string::npos) << xml;
  // Every report names the device the cases ran on.
  EXPECT_NE(xml.find("hostname=\"" + GetParam() + "\""), std::string::npos) << xml;
  EXPECT_NE(failed.out.find(") on " + GetParam() + "\n"), std::string::npos) << failed.out;
  const std::string json = test::temp("device-tampered.json");
  etinspect({"verify", "--device", GetParam(), tampered, "--json-file", json});
  std::ifstream json_report(json);
  EXPECT_EQ(nlohmann::json::parse(json_report)["ran_on"], GetParam());

  bytes.resize(bytes.size() / 2);
  const std::string truncated = test::write_temp("device-truncated.bpte", bytes);
  const auto host = etinspect({"verify", truncated});
  const auto on_device = etinspect({"verify", "--device", GetParam(), truncated});
  EXPECT_EQ(host.exit_code, 2);
  EXPECT_EQ(on_device.exit_code, 2);
  EXPECT_EQ(on_device.err, host.err);
}

// Runs `program` on random inputs (`seed`) on the host and inside `device`;
// output 0's .npy bytes from each, after checking both runs succeeded.
std::pair<std::vector<uint8_t>, std::vector<uint8_t>> host_and_device_outputs(const std::string& program,
                                                                             const std::string& seed,
                                                                             const std::string& device,
                                                                             const std::string& name) {
  const std::string host_dir = test::temp(name + "-host"), device_dir = test::temp(name + "-" + device);
  for (const auto& [dir, on] : {std::pair{host_dir, std::string()}, std::pair{device_dir, device}}) {
    std::vector<std::string> args{"run", program, "--fill", "random", "--seed", seed, "--output-dir", dir};
    if (!on.empty()) args.insert(args.end(), {"--device", on});
    const auto result = etinspect(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }
  return {test::read_file(host_dir + "/output_0.npy"), test::read_file(device_dir + "/output_0.npy")};
}

TEST_P(DeviceGate, KeywordSpottingComputesTheHostsBits) {
  const auto [a, b] = host_and_device_outputs(test::corpus("upstream/pte/keyword_spotting_cortex_m.pte"), "11",
                                              GetParam(), "kws");
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b) << "outputs differ";
}

// A program chaining the cortex_m ops the corpus program lacks (quantize,
// max pool, activation table, add, mul, div, transposed conv, maximum with
// a broadcast constant, transpose, softmax, dequantize), run on the host
// and inside the device: the same bits out, as for keyword spotting.
std::string cortex_m_op_chain(const std::string& path) {
  using test::ProgramBuilder;
  ProgramBuilder b;
  const auto i8 = ScalarType::kChar;
  const auto bytes = [](std::vector<int32_t> values, size_t width) {
    std::vector<uint8_t> out;
    for (int32_t v : values) {
      for (size_t k = 0; k < width; ++k) out.push_back(uint8_t(uint32_t(v) >> (8 * k)));
    }
    return out;
  };
  const int32_t x = b.tensor({1, 4, 6, 6}, 0);
  const int32_t q = b.tensor({1, 4, 6, 6}, 640, false, i8);
  const int32_t mp = b.tensor({1, 4, 3, 3}, 800, false, i8), act = b.tensor({1, 4, 3, 3}, 864, false, i8);
  const int32_t add = b.tensor({1, 4, 3, 3}, 928, false, i8), mul = b.tensor({1, 4, 3, 3}, 992, false, i8);
  const int32_t div = b.tensor({1, 4, 3, 3}, 1056, false, i8);
  const int32_t tconv = b.tensor({1, 2, 6, 6}, 1120, false, i8), mx = b.tensor({1, 2, 6, 6}, 1216, false, i8);
  const int32_t tr = b.tensor({1, 6, 6, 2}, 1312, false, i8), sm = b.tensor({1, 6, 6, 2}, 1408, false, i8);
  const int32_t out = b.tensor({1, 6, 6, 2}, 1536);
  std::vector<int32_t> table(256), weights(72);
  for (int k = 0; k < 256; ++k) table[size_t(k)] = (k * 37) % 256 - 128;
  for (int k = 0; k < 72; ++k) weights[size_t(k)] = (k * 29) % 31 - 15;
  const int32_t lut = b.constant_tensor({256}, i8, bytes(table, 1));
  const int32_t w = b.constant_tensor({2, 3, 3, 4}, i8, bytes(weights, 1));  // OHWI
  const int32_t bias = b.constant_tensor({2}, ScalarType::kInt, bytes({100, -250}, 4));
  const int32_t mults = b.constant_tensor({2}, ScalarType::kInt, bytes({1 << 30, 1518500250}, 4));
  const int32_t shifts = b.constant_tensor({2}, ScalarType::kInt, bytes({-6, -7}, 4));
  const int32_t floor = b.constant_tensor({1, 2, 1, 1}, i8, bytes({-20, 5}, 1));
  const int32_t scratch = b.constant_tensor({1}, i8, bytes({0}, 1));
  const int32_t half = b.integer(1 << 30), zero = b.integer(0), lo = b.integer(-128), hi = b.integer(127);
  const int32_t int8_type = b.integer(int64_t(ScalarType::kChar));
  const int32_t pair1 = b.int_list({1, 1}), pair2 = b.int_list({2, 2}), pair0 = b.int_list({0, 0});
  b.kernel_call("cortex_m::quantize_per_tensor", "out", {x, b.real(0.05), zero, lo, hi, int8_type, q, q});
  b.kernel_call("cortex_m::quantized_max_pool2d", "out",
                {q, pair2, pair2, pair0, pair1, b.boolean(false), zero, zero, lo, hi, mp, mp});
  b.kernel_call("cortex_m::quantized_activation", "out", {mp, lut, act, act});
  b.kernel_call("cortex_m::quantized_add", "out",
                {act, zero, half, zero, mp, zero, half, zero, zero, half, b.integer(-18), lo, hi, add, add});
  b.kernel_call("cortex_m::quantized_mul", "out", {add, zero, act, zero, zero, half, b.integer(-6), mul, mul});
  b.kernel_call("cortex_m::quantized_div", "out", {mul, zero, add, b.integer(1), zero, b.real(4.0), div, div});
  b.kernel_call("cortex_m::quantized_transpose_conv2d", "out",
                {div, w, bias, pair2, pair1, pair1, pair1, zero, zero, mults, shifts, lo, hi, scratch, scratch,
                 tconv, tconv});
  b.kernel_call("cortex_m::maximum", "out", {tconv, floor, mx, mx});
  b.kernel_call("cortex_m::transpose", "out", {mx, b.int_list({0, 2, 3, 1}), tr, tr});
  b.kernel_call("cortex_m::softmax", "out", {tr, b.integer(-1), zero, lo, half, b.integer(23), b.integer(-255), sm, sm});
  b.kernel_call("cortex_m::dequantize_per_tensor", "out", {sm, b.real(1.0 / 256), lo, lo, hi, int8_type, out, out});
  b.inputs({x});
  b.outputs({out});
  b.arena(2048);
  const std::vector<uint8_t> program = b.build();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(program.data()),
                                               std::streamsize(program.size()));
  return path;
}

TEST_P(DeviceGate, CortexMOpSetComputesTheHostsBits) {
  const auto [a, b] =
      host_and_device_outputs(cortex_m_op_chain(test::temp("cortex_m_ops.pte")), "7", GetParam(), "cmops");
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b) << "outputs differ";
  // The last op is a softmax over pairs, dequantized: (q + 128) / 256, so
  // each pair sums to 1 within two output steps (an npy's data follows its
  // 128-byte header).
  ASSERT_EQ(a.size(), 128u + 72u * 4u);
  float values[72];
  std::memcpy(values, a.data() + 128, sizeof values);
  for (int p = 0; p < 36; ++p) EXPECT_NEAR(values[2 * p] + values[2 * p + 1], 1.0f, 2.0f / 256) << "pair " << p;
  EXPECT_GT(*std::max_element(values, values + 72) - *std::min_element(values, values + 72), 0.05f)
      << "outputs do not depend on the input";
}

// A mutable buffer's state carries from run to run on the devices as on the
// host (the runner loads the method once), and --reset-state reaches them.
TEST_P(DeviceGate, MutableBufferStateCarriesAcrossRuns) {
  const std::string program = test::write_temp("running_sum_device.pte", test::running_sum_program().build());
  auto last_output = [&](bool reset) {
    std::vector<std::string> args = {"run", program, "--device", GetParam(), "--fill", "ones", "--iterations", "3",
                                     "--json", "--print-outputs"};
    if (reset) args.push_back("--reset-state");
    const auto run = etinspect(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return nlohmann::json::parse(run.out)["outputs"][0]["values"];
  };
  EXPECT_EQ(last_output(false), nlohmann::json::parse("[13.0, 23.0, 33.0, 43.0]"));
  EXPECT_EQ(last_output(true), nlohmann::json::parse("[11.0, 21.0, 31.0, 41.0]"));
}

// The event names of a trace's table rows, in order.
std::vector<std::string> table_events(const std::string& trace) {
  const auto table = etinspect({"table", trace, "--format", "json"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  std::vector<std::string> names;
  for (const auto& row : nlohmann::json::parse(table.out)) {
    names.push_back(row["event_block_name"].get<std::string>() + "/" + row["event_name"].get<std::string>());
  }
  return names;
}

TEST_P(DeviceGate, TheDevicesTraceOpensInTableWithTheHostsEvents) {
  const std::string bundle = test::sample("tutorial_cnn/tutorial_cnn.bpte");
  const std::string device_trace = test::temp("device-" + GetParam() + ".etdp"), host_trace = test::temp("host.etdp");
  ASSERT_EQ(etinspect({"verify", "--device", GetParam(), bundle, "--etdump", device_trace}).exit_code, 0);
  ASSERT_EQ(etinspect({"verify", bundle, "--etdump", host_trace}).exit_code, 0);
  const auto events = table_events(device_trace);
  EXPECT_NE(std::find(events.begin(), events.end(), "Execute/native_call_convolution.out"), events.end());
  EXPECT_EQ(events, table_events(host_trace));
}

TEST_P(DeviceGate, RunPrintsTheHostsReport) {
  const std::string program = test::sample("tutorial_cnn/tutorial_cnn.pte");
  auto run = [&](const std::string& device) {
    std::vector<std::string> args{"run", program, "--json", "--iterations", "2", "--fill", "random", "--etdump",
                                  test::temp("run-" + (device.empty() ? std::string("host") : device) + ".etdp")};
    if (!device.empty()) args.insert(args.end(), {"--device", device});
    const auto result = etinspect(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return nlohmann::json::parse(result.out);
  };
  auto host = run(""), device = run(GetParam());
  for (auto* report : {&host, &device}) {
    (*report)["latency_ms"] = nullptr;  // timings differ, everything else must not
    (*report)["etdump"]["path"] = nullptr;
  }
  EXPECT_EQ(device, host);
}

TEST_P(DeviceGate, EmulatorFailuresAreErrorsNotHangs) {
  // A deadline too short for any run: exit 3 with the reason.
  const auto late = etinspect({"verify", "--device", GetParam(), "--device-timeout", "0.001", kCorpusBundle});
  EXPECT_EQ(late.exit_code, 3);
  EXPECT_NE(late.err.find("no answer within"), std::string::npos) << late.err;

  // No runner installed (a set-up problem: exit 2, naming the device and
  // how to install it), then a runner the emulator cannot start: exit 3.
  const std::string empty_dir = test::temp("no-runners-" + GetParam());
  std::filesystem::create_directories(empty_dir);
  ::setenv("ETKIT_RUNNER_DIR", empty_dir.c_str(), 1);
  const auto missing = etinspect({"verify", "--device", GetParam(), kCorpusBundle});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("device " + GetParam() + ": its runner"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("scripts/install-deps --device"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("ETKIT_RUNNER_DIR"), std::string::npos) << missing.err;
  for (const char* runner : {"etkit-runner-cortex-m55.elf", "etkit-runner-aarch64", "etkit-runner-riscv64"}) {
    std::ofstream(empty_dir + "/" + runner) << "not an ELF file";
  }
  const auto broken = etinspect({"verify", "--device", GetParam(), kCorpusBundle});
  ::unsetenv("ETKIT_RUNNER_DIR");
  EXPECT_EQ(broken.exit_code, 3);
  EXPECT_NE(broken.err.find(GetParam() + ": "), std::string::npos) << broken.err;
  EXPECT_LT(broken.err.size(), 400u) << "the emulator's first line, not its register dump";
}

// A fleet: every device at once, one JUnit file with a testsuite per
// device holding the host's verdicts, one JSON report; a device that cannot
// be reached fails its own suite while the others run.
TEST(DeviceFleet, OneJUnitFileWithASuitePerDevice) {
  const std::string junit = test::temp("fleet.xml"), json = test::temp("fleet.json");
  const std::vector<std::string> devices = {"qemu-cortex-m", "qemu-aarch64", "qemu-riscv64", "ssh://127.0.0.1:1"};
  std::vector<std::string> args = {"verify", kCorpusBundle, "--junit", junit, "--json-file", json};
  for (const std::string& device : devices) args.insert(args.end(), {"--device", device});
  const auto fleet = etinspect(args);
  const auto host = etinspect({"verify", kCorpusBundle});
  EXPECT_EQ(fleet.exit_code, 1) << "the unreachable device fails the run: " << fleet.err;
  EXPECT_NE(fleet.err.find("ssh://127.0.0.1:1: cannot reach the target"), std::string::npos) << fleet.err;
  std::ifstream in(junit);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::regex suite("<testsuite name=\"([^\"]+)\" hostname=\"([^\"]+)\" tests=\"([0-9]+)\" failures=\"([0-9]+)\" errors=\"([0-9]+)\"");
  std::vector<std::string> suites;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), suite); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    suites.push_back(m[1].str());
    EXPECT_EQ(m[1].str(), m[2].str()) << "each suite is named after its device";
    if (m[1].str().rfind("ssh://", 0) == 0) {
      EXPECT_EQ(m[5].str(), "1") << "the unreachable device has its own error";
    } else {
      EXPECT_EQ(m[3].str(), std::to_string(verify_verdicts(host.out).size())) << m[1];
      EXPECT_EQ(m[4].str(), "0") << m[1];
      EXPECT_EQ(m[5].str(), "0") << m[1];
    }
  }
  EXPECT_EQ(suites, devices) << xml;
  std::ifstream report(json);
  const nlohmann::json parsed = nlohmann::json::parse(report);
  EXPECT_EQ(parsed["summary"]["devices"], nlohmann::json(devices));
  EXPECT_EQ(parsed["summary"]["passed"], 3 * verify_verdicts(host.out).size());
  // Each emulated device's text report gives the host's verdicts.
  EXPECT_EQ(verify_verdicts(fleet.out).size(), 3 * verify_verdicts(host.out).size()) << fleet.out;
}

INSTANTIATE_TEST_SUITE_P(Emulated, DeviceGate, ::testing::Values("qemu-cortex-m", "qemu-aarch64", "qemu-riscv64"),
                         [](const auto& param) {
                           return param.param == "qemu-cortex-m" ? "CortexM55"
                                  : param.param == "qemu-aarch64" ? "Aarch64"
                                                                  : "Riscv64";
                         });

}  // namespace
}  // namespace etkit
