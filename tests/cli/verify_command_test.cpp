// etinspect verify and bundle as CI uses them: exit codes, messages,
// JUnit XML (checked by Python's XML parser), JSON, traces.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "etkit/bundled/bundled_writer.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/npy.h"
#include "support/cli.h"
#include "support/program_builder.h"
#include "support/tampered_bundle.h"

namespace etkit {
namespace {

const std::string kBundle = test::corpus("upstream/bundled/add_mul_int.bpte");

using test::etinspect;

TEST(VerifyCommand, UpstreamBundlePassesWithExitZero) {
  auto result = etinspect({"verify", kBundle});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("summary: 10 passed, 0 failed of 10 cases (rtol 1e-05, atol 1e-08)"),
            std::string::npos);
}

TEST(VerifyCommand, FailingCaseExitsOneWithJunitAndJson) {
  const auto bytes = test::tampered_corpus_bundle();
  const std::string bad = test::write_temp("bad.bpte", bytes);
  const std::string junit = bad + ".xml", json = bad + ".json";
  auto result = etinspect({"verify", bad, "--junit", junit, "--json-file", json});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("FAIL"), std::string::npos);
  EXPECT_NE(result.out.find("output 0 int32[2, 2]: 1 of 4 elements (25%) differ"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("[0, 0]: expected 9, actual 2"), std::string::npos) << result.out;
  // Well-formed XML with the fields CI tools read, by an independent parser.
  auto check = test::run_command(
      {"/usr/bin/python3", "-c",
       "import sys, xml.etree.ElementTree as E\n"
       "root = E.parse(sys.argv[1]).getroot()\n"
       "assert root.tag == 'testsuites' and root.get('tests') == '10' and root.get('failures') == '1'\n"
       "suites = root.findall('testsuite'); assert len(suites) == 1\n"
       "cases = suites[0].findall('testcase'); assert len(cases) == 10\n"
       "failed = [c for c in cases if c.find('failure') is not None]; assert len(failed) == 1\n"
       "assert 'differ' in failed[0].find('failure').get('message')\n"
       "print('ok', failed[0].get('name'))\n",
       junit});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out.rfind("ok case ", 0), 0u) << check.out;
  const auto report = nlohmann::json::parse(test::read_file(json));
  EXPECT_EQ(report["summary"]["failed"], 1);
  size_t failures = 0;
  for (const auto& c : report["cases"]) {
    EXPECT_TRUE(c.contains("method") && c.contains("case") && c.contains("status"));
    if (c["status"] == "fail") {
      ++failures;
      EXPECT_EQ(c["outputs"][0]["mismatched"], 1);
      EXPECT_EQ(c["outputs"][0]["max_abs_error"], 7.0);
      EXPECT_EQ(c["outputs"][0]["max_abs_position"], nlohmann::json::array({0, 0}));
    }
  }
  EXPECT_EQ(failures, 1u);
}

// A failing float bundle says which tolerances would pass it: verifying
// again at them passes, and at half the atol still fails (the figures are
// the smallest that pass, printed no smaller than they are).
std::string exact_text(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

TEST(VerifyCommand, AFailingRunNamesTheTolerancesThatWouldPass) {
  const std::string bundle = test::sample("deeplab_head/deeplab_head.bpte");
  const std::string json = test::temp("deeplab.json");
  auto failed = etinspect({"verify", bundle, "--json-file", json});
  ASSERT_EQ(failed.exit_code, 1) << failed.out;
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(json));
  double atol = 0, rtol = 0;
  for (const auto& c : report["cases"]) {
    for (const auto& o : c["outputs"]) {
      atol = std::max(atol, o["atol_to_pass"].get<double>());
      rtol = std::max(rtol, o["rtol_to_pass"].get<double>());
    }
  }
  ASSERT_GT(atol, 1e-8);
  const std::string hint = "would pass with --atol ";
  const size_t at = failed.out.find(hint);
  ASSERT_NE(at, std::string::npos) << failed.out;
  const std::string printed_atol = failed.out.substr(at + hint.size(), failed.out.find(' ', at + hint.size()) - at - hint.size());
  EXPECT_GE(std::stod(printed_atol), atol);
  EXPECT_EQ(etinspect({"verify", bundle, "--atol", printed_atol}).exit_code, 0);
  EXPECT_EQ(etinspect({"verify", bundle, "--atol", exact_text(atol / 2)}).exit_code, 1);
  EXPECT_EQ(etinspect({"verify", bundle, "--rtol", exact_text(rtol * (1 + 1e-12))}).exit_code, 0);
}

TEST(VerifyCommand, UnreadableBundlesExitTwo) {
  auto bytes = test::read_file(kBundle);
  auto truncated = bytes;
  truncated.resize(bytes.size() / 2);
  const std::string cut = test::write_temp("cut.bpte", truncated);
  auto result = etinspect({"verify", cut});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err.rfind("etinspect: error: " + cut + ": ", 0), 0u) << result.err;
  bytes[5] = 'X';
  const std::string wrong = test::write_temp("wrong.bpte", bytes);
  result = etinspect({"verify", wrong});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("not a program or bundled program"), std::string::npos) << result.err;
  result = etinspect({"verify", kBundle, "--method", "backward"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("no test suite for method 'backward'"), std::string::npos);
}

TEST(VerifyCommand, ThousandCasesLoadTheProgramOnceAndTraceEachCase) {
  test::ProgramBuilder b;
  const int32_t x = b.tensor({4}, 0), y = b.tensor({4}, 16), one = b.integer(1), out = b.tensor({4}, 32);
  b.kernel_call("aten::add", "out", {x, y, one, out, out});
  b.inputs({x, y});
  b.outputs({out});
  b.arena(48);
  const auto program = b.build();
  bundled::OwnedTestSuite suite{"forward", {}};
  for (int c = 0; c < 1000; ++c) {
    bundled::OwnedValue xv, yv, sum;
    for (auto* v : {&xv, &yv, &sum}) {
      v->sizes = {4};
      v->data.resize(16);
    }
    for (int i = 0; i < 4; ++i) {
      const float a = float(c), bb = float(i), s = a + bb;
      std::memcpy(xv.data.data() + 4 * i, &a, 4);
      std::memcpy(yv.data.data() + 4 * i, &bb, 4);
      std::memcpy(sum.data.data() + 4 * i, &s, 4);
    }
    suite.cases.push_back({{xv, yv}, {sum}});
  }
  auto bytes = bundled::write_bundled_program(ByteSpan{program.data(), program.size()}, {suite});
  ASSERT_TRUE(bytes.ok());
  const std::string path = test::write_temp("thousand.bpte", *bytes);
  const std::string trace_path = path + ".etdp";
  auto result = etinspect({"verify", path, "--etdump", trace_path});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("summary: 1000 passed, 0 failed of 1000 cases"), std::string::npos);
  auto trace = etdump::ETDump::load_file(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.error().message();
  size_t loads = 0, executes = 0;
  for (size_t blk = 0; blk < trace->block_count(); ++blk) {
    etdump::RunBlock block = trace->block(blk);
    if (block.name() == "Execute") {
      EXPECT_EQ(block.bundled_input_index(), int32_t(executes));
      ++executes;
    }
    for (size_t e = 0; e < block.event_count(); ++e) {
      loads += block.event(e).profile.name == "Program::load_method";
    }
  }
  EXPECT_EQ(loads, 1u);
  EXPECT_EQ(executes, 1000u);
}

TEST(BundleCommand, NpyCasesBecomeABundleThatVerifies) {
  const std::string program = test::corpus("upstream/pte/module_linear_inline_constants.pte");
  // y = 3x + 2 (corpus README), so the expected output is hand-derived.
  std::vector<float> x = {1, -2, 0.5f, 4}, y = {5, -4, 3.5f, 14};
  std::vector<int64_t> sizes = {2, 2};
  auto xt = Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 2), {}, x.data(), 16);
  auto yt = Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 2), {}, y.data(), 16);
  const std::string in = test::write_temp("in.npy", {}), expected = test::write_temp("out.npy", {});
  ASSERT_TRUE(inspector::write_npy(in, *xt).ok());
  ASSERT_TRUE(inspector::write_npy(expected, *yt).ok());
  const std::string bundle = in + ".bpte";
  auto made = etinspect({"bundle", program, "--add-case", in + "=" + expected, "--add-case", in + "=" + expected,
                         "-o", bundle});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto verified = etinspect({"verify", bundle});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("summary: 2 passed"), std::string::npos);
  auto bad = etinspect({"bundle", program, "--add-case", in + "," + in + "=" + expected, "-o", bundle});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("case 0 has 2 inputs and 1 outputs; method 'forward' takes 1"), std::string::npos)
      << bad.err;
}

// A stateful bundle (successive steps of a running sum, initially 10, 20,
// 30, 40, each adding ones) verifies as upstream's runtime verifies it: the
// cases in order on one loaded method, state carried. One case alone runs
// on a freshly loaded method, so a later step fails alone.
TEST(BundleCommand, StatefulCasesVerifyInOrderOnOneMethod) {
  const std::string program = test::write_temp("running_sum.pte", test::running_sum_program().build());
  std::vector<int64_t> sizes = {4};
  auto npy = [&](const std::string& name, std::vector<float> values) {
    auto t = Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 1), {}, values.data(), 16);
    const std::string path = test::write_temp(name, {});
    EXPECT_TRUE(t.ok() && inspector::write_npy(path, *t).ok());
    return path;
  };
  const std::string ones = npy("ones.npy", {1, 1, 1, 1});
  const std::string step1 = npy("step1.npy", {11, 21, 31, 41}), step2 = npy("step2.npy", {12, 22, 32, 42}),
                    step3 = npy("step3.npy", {13, 23, 33, 43});
  const std::string bundle = ones + ".bpte";
  auto made = etinspect({"bundle", program, "--add-case", ones + "=" + step1, "--add-case", ones + "=" + step2, "--add-case",
                         ones + "=" + step3, "-o", bundle});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto verified = etinspect({"verify", bundle});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("summary: 3 passed"), std::string::npos) << verified.out;
  EXPECT_EQ(etinspect({"verify", bundle, "--case", "0"}).exit_code, 0);
  EXPECT_EQ(etinspect({"verify", bundle, "--case", "2"}).exit_code, 1);
}

// bundle --extract, then bundle again from what it wrote: the same cases
// (verify passes, `info` reports the same suites), and each extracted input,
// run as a plain .npy input, gives what the extracted expected output says
// (a second path to the same numbers: the .npy reader and run --input).
TEST(BundleCommand, ExtractedCasesBundleAgainAndRunAsTheirExpectedOutputs) {
  const std::string bundle = test::sample("tutorial_cnn/tutorial_cnn.bpte");
  const std::string dir = test::temp("extracted");
  auto extracted = etinspect({"bundle", bundle, "--extract", dir, "--json"});
  ASSERT_EQ(extracted.exit_code, 0) << extracted.err;
  const auto report = nlohmann::json::parse(extracted.out);
  // The program, then one input and one expected output per case.
  EXPECT_EQ(report["files"], 1 + 3 * 2);
  ASSERT_EQ(report["methods"].size(), 1u);
  EXPECT_EQ(report["methods"][0]["method"], "forward");
  EXPECT_EQ(report["methods"][0]["cases"], 3);
  // The command it prints bundles the cases again (paths have no spaces here).
  std::vector<std::string> again;
  std::istringstream words(report["methods"][0]["bundle_again"].get<std::string>());
  for (std::string word; words >> word;) again.push_back(word);
  ASSERT_GE(again.size(), 2u);
  ASSERT_EQ(again.front(), "etinspect");
  ASSERT_EQ(again.back(), "OUT.bpte");
  again.erase(again.begin());
  again.pop_back();
  EXPECT_EQ(std::count(again.begin(), again.end(), "--add-case"), 3);
  for (int c = 0; c < 3; ++c) {
    const std::string folder = dir + "/forward/case" + std::to_string(c);
    const std::string out = test::temp("extracted_run" + std::to_string(c));
    auto ran = etinspect({"run", dir + "/program.pte", "--input", folder + "/input_0.npy", "--output-dir", out});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    auto expected = inspector::read_npy(folder + "/expected_0.npy");
    auto actual = inspector::read_npy(out + "/output_0.npy");
    ASSERT_TRUE(expected.ok() && actual.ok());
    ASSERT_EQ(expected->shape, actual->shape);
    ASSERT_EQ(expected->data.size(), actual->data.size());
    const float* e = reinterpret_cast<const float*>(expected->data.data());
    const float* a = reinterpret_cast<const float*>(actual->data.data());
    for (int64_t i = 0; i < expected->numel(); ++i) EXPECT_NEAR(a[i], e[i], 1e-5) << i;
  }
  const std::string rebuilt = test::temp("rebuilt.bpte");
  again.push_back(rebuilt);
  auto rebundled = etinspect(again);
  ASSERT_EQ(rebundled.exit_code, 0) << rebundled.err;
  EXPECT_NE(rebundled.out.find("cases: 3"), std::string::npos) << rebundled.out;
  auto rebundled_json = etinspect([&] {
    auto args = again;
    args.back() = test::temp("rebuilt_json.bpte");
    args.push_back("--json");
    return args;
  }());
  ASSERT_EQ(rebundled_json.exit_code, 0) << rebundled_json.err;
  EXPECT_EQ(nlohmann::json::parse(rebundled_json.out)["bytes"],
            int64_t(std::filesystem::file_size(test::temp("rebuilt_json.bpte"))));
  EXPECT_EQ(etinspect({"verify", rebuilt}).exit_code, 0);
  auto info_of = [](const std::string& file) {
    auto json = nlohmann::json::parse(etinspect({"info", file, "--json"}).out);
    json[0].erase("path");
    json[0].erase("size");  // the two writers lay the flatbuffer out differently
    return json;
  };
  EXPECT_EQ(info_of(rebuilt)[0]["test_suites"], info_of(bundle)[0]["test_suites"]);
  EXPECT_EQ(etinspect({"bundle", bundle, "--extract", dir, "-o", rebuilt}).exit_code, 2);  // read or write, not both
}

}  // namespace
}  // namespace etkit
