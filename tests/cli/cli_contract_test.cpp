// The CLI as a contract: contradictions and unknown names are usage errors
// listing what exists, no gate passes vacuously, reports are always
// written, and outputs have shapes scripts and people can use. Each test
// asserts the exit code and the message's key words.

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "etkit/core/file_data.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/npy.h"
#include "etkit/inspector/numeric_gap.h"
#include "support/cli.h"

namespace etkit {
namespace {

using test::etinspect;
using test::sample;
using test::temp;


using test::contains;

class CliContract : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto run = etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "3", "--etdump",
                          trace(), "--debug-level", "intermediates", "--debug-buffer", buffer()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  static std::string trace() { return temp("contract.etdp"); }
  static std::string buffer() { return temp("contract.bin"); }
};

TEST_F(CliContract, ContradictingOptionsAreUsageErrors) {
  auto both = etinspect({"run", sample("tiny/affine.pte"), "--input", "x.npy", "--fill", "random"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "--input") && contains(both.err, "--fill")) << both.err;
  auto filter = etinspect({"run", sample("tiny/affine.pte"), "--etdump", temp("f.etdp"), "--debug-filter", "add"});
  EXPECT_EQ(filter.exit_code, 2);
  EXPECT_TRUE(contains(filter.err, "--debug-filter") && contains(filter.err, "--debug-level intermediates"))
      << filter.err;
  auto plain = etinspect({"run", sample("tiny/affine.pte"), "--bundled-input", "0"});
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_TRUE(contains(plain.err, "needs a bundled program")) << plain.err;
}

TEST_F(CliContract, UnknownNamesListWhatExists) {
  auto block = etinspect({"table", trace(), "--block", "Exec"});
  EXPECT_EQ(block.exit_code, 2);
  EXPECT_TRUE(contains(block.err, "--block 'Exec'") && contains(block.err, "Default, Execute")) << block.err;
  auto modules = etinspect({"modules", trace(), "--etrecord", sample("tutorial_cnn/tutorial_cnn.etrecord"),
                            "--block", "nope"});
  EXPECT_EQ(modules.exit_code, 2);
  EXPECT_TRUE(contains(modules.err, "Default, Execute")) << modules.err;
  auto method = etinspect({"verify", sample("tutorial_cnn/tutorial_cnn.bpte"), "--method", "backward"});
  EXPECT_EQ(method.exit_code, 2);
  EXPECT_TRUE(contains(method.err, "'backward'") && contains(method.err, "suites: forward")) << method.err;
  auto record = etinspect({"table", trace(), "--etrecord", sample("tutorial_cnn/tutorial_cnn.etrecord"), "--method",
                           "backward"});
  EXPECT_EQ(record.exit_code, 2);
  EXPECT_TRUE(contains(record.err, "'backward'") && contains(record.err, "forward")) << record.err;
  auto case_index = etinspect({"verify", sample("tutorial_cnn/tutorial_cnn.bpte"), "--case", "3"});
  EXPECT_EQ(case_index.exit_code, 2);
  EXPECT_TRUE(contains(case_index.err, "3 test cases (allowed: 0 to 2)")) << case_index.err;
}

TEST_F(CliContract, AGapOverNothingIsAnError) {
  std::filesystem::create_directories(temp("empty_reference"));
  auto gap = etinspect({"gap", trace(), "--debug-buffer", buffer(), "--reference", temp("empty_reference")});
  EXPECT_EQ(gap.exit_code, 2);
  EXPECT_TRUE(contains(gap.err, "nothing to compare")) << gap.err;
}

TEST_F(CliContract, ARecordOfAnotherProgramIsAnErrorUnlessAllowed) {
  const std::string other = sample("mobilenet_v2/mobilenet_v2.etrecord");
  for (const std::string command : {"table", "modules", "trace"}) {
    std::vector<std::string> args = {command, trace(), "--etrecord", other};
    if (command == "trace") args.insert(args.end(), {"-o", temp("other.json")});
    auto refused = etinspect(args);
    EXPECT_EQ(refused.exit_code, 2) << command;
    EXPECT_TRUE(contains(refused.err, "does not belong to this trace") && contains(refused.err, "--allow-unlinked"))
        << command << ": " << refused.err;
    args.push_back("--allow-unlinked");
    auto allowed = etinspect(args);
    EXPECT_EQ(allowed.exit_code, 0) << command << ": " << allowed.err;
    EXPECT_TRUE(contains(allowed.err, "warning") && contains(allowed.err, "does not belong")) << allowed.err;
  }
}

TEST_F(CliContract, ADebugFilterMatchingNothingIsAWarning) {
  auto run = etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--etdump", temp("filtered.etdp"),
                        "--debug-level", "intermediates", "--debug-buffer", temp("filtered.bin"), "--debug-filter",
                        "softmax"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "warning") && contains(run.err, "--debug-filter softmax matched no operator"))
      << run.err;
}

TEST_F(CliContract, VerifyReportsAreWrittenWhenTheBundleCannotBeRead) {
  auto bytes = test::read_file(sample("tiny/affine.bpte"));
  bytes.resize(100);
  const std::string truncated = test::write_temp("truncated.bpte", bytes);
  const std::string json = temp("truncated.json"), junit = temp("truncated.xml");
  auto verify = etinspect({"verify", truncated, "--json-file", json, "--junit", junit});
  EXPECT_EQ(verify.exit_code, 2);
  const auto report = nlohmann::json::parse(std::ifstream(json));
  EXPECT_TRUE(contains(report["error"].get<std::string>(), "cut off")) << report.dump();
  EXPECT_EQ(report["summary"]["errors"], 1);
  EXPECT_EQ(report["summary"]["cases"], 0);
  std::stringstream xml;
  xml << std::ifstream(junit).rdbuf();
  EXPECT_TRUE(contains(xml.str(), "errors=\"1\"") && contains(xml.str(), "<error ")) << xml.str();
}

TEST_F(CliContract, OutputPathsAreCheckedBeforeAnyWork) {
  auto verify = etinspect({"verify", sample("tutorial_cnn/tutorial_cnn.bpte"), "--json-file", "/proc/no/such/r.json"});
  EXPECT_EQ(verify.exit_code, 2);
  EXPECT_TRUE(contains(verify.err, "--json-file") && contains(verify.err, "does not exist")) << verify.err;
  EXPECT_TRUE(verify.out.empty()) << "no case may run: " << verify.out;
  auto run = etinspect({"run", sample("tiny/affine.pte"), "--etdump", "/proc/version"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "--etdump") && contains(run.err, "cannot write")) << run.err;
  auto dir = etinspect({"trace", trace(), "-o", temp("")});
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_TRUE(contains(dir.err, "is a directory")) << dir.err;
}

TEST_F(CliContract, RunJsonValuesAreNumbers) {
  auto run = etinspect({"run", sample("tiny/affine.pte"), "--print-outputs", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  const auto& values = report["outputs"][0]["values"];
  ASSERT_TRUE(values.is_array());
  // ones in: 3 * 1 + 2 = 5 everywhere (the program is y = 3x + 2).
  EXPECT_EQ(values, nlohmann::json::parse("[5.0, 5.0, 5.0, 5.0]"));
  EXPECT_EQ(report["outputs"][0]["numel"], 4);
}

TEST_F(CliContract, InfoKeepsKindAndSizeOfFilesItCannotRead) {
  auto bytes = test::read_file(sample("tiny/affine.bpte"));
  bytes.resize(64);
  const std::string cut = test::write_temp("cut.bpte", bytes);
  auto info = etinspect({"info", "--json", cut});
  EXPECT_EQ(info.exit_code, 2);
  const auto entries = nlohmann::json::parse(info.out);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["path"], cut);
  EXPECT_EQ(entries[0]["kind"], "bundled_program");
  EXPECT_EQ(entries[0]["size"], 64);
  EXPECT_TRUE(entries[0].contains("error"));
}

TEST_F(CliContract, DiffPrintsWorstFirstAndSaysWhenNothingIsGated) {
  auto text = etinspect({"diff", trace(), trace()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "stat: p50") && contains(text.out, "threshold_percent: none")) << text.out;
  const std::string other = temp("contract_other.etdp");
  ASSERT_EQ(etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "3", "--etdump", other})
                .exit_code,
            0);
  auto json = etinspect({"diff", trace(), other, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto report = nlohmann::json::parse(json.out);
  EXPECT_TRUE(report["gate"]["threshold_percent"].is_null());
  double previous = 1e300;
  for (const auto& row : report["events"]) {
    if (row["percent"].is_null()) continue;
    EXPECT_LE(row["percent"].get<double>(), previous);
    previous = row["percent"].get<double>();
  }
  auto top = etinspect({"diff", trace(), other, "--json", "--top", "2", "--sort", "event"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const auto first_two = nlohmann::json::parse(top.out)["events"];
  ASSERT_EQ(first_two.size(), 2u);
  EXPECT_LE(first_two[0]["event"].get<std::string>(), first_two[1]["event"].get<std::string>());
}

TEST_F(CliContract, TableNumbersAreRightAlignedWithOnePrecision) {
  auto table = etinspect({"table", trace(), "--block", "Execute"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  std::istringstream lines(table.out);
  std::string header, line;
  std::getline(lines, header);
  const size_t p50_end = header.find("p50 (ms)") + std::string("p50 (ms)").size();
  size_t rows = 0;
  const std::regex six_decimals(R"(\d+\.\d{6})");
  while (std::getline(lines, line)) {
    ++rows;
    // The p50 cell ends where its header ends, with six decimals (ns in ms).
    const size_t start = line.rfind(' ', p50_end - 1) + 1;
    const std::string cell = line.substr(start, p50_end - start);
    EXPECT_TRUE(std::regex_match(cell, six_decimals)) << "'" << cell << "' in: " << line;
  }
  EXPECT_EQ(rows, 15u);  // the sample's 14 kernels and Method::execute
}

TEST_F(CliContract, SourcePathsAreShortUnlessAskedWhole) {
  const std::string record = sample("tutorial_cnn/tutorial_cnn.etrecord");
  auto short_paths = etinspect({"table", trace(), "--etrecord", record, "--source"});
  ASSERT_EQ(short_paths.exit_code, 0) << short_paths.err;
  EXPECT_TRUE(contains(short_paths.out, "…/upstream/models.py:")) << short_paths.out;
  auto full = etinspect({"table", trace(), "--etrecord", record, "--source", "--full-paths"});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_FALSE(contains(full.out, "…/")) << full.out;
  EXPECT_TRUE(contains(full.out, "samples/export/upstream/models.py:")) << full.out;
}

TEST_F(CliContract, RowsOfBundledCasesSayTheirCase) {
  const std::string verify_trace = temp("cases.etdp");
  ASSERT_EQ(etinspect({"verify", sample("tutorial_cnn/tutorial_cnn.bpte"), "--etdump", verify_trace}).exit_code, 0);
  auto table = etinspect({"table", verify_trace, "--format", "csv"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("event_block_name,bundled_input_index,event_name", 0), 0u) << table.out;
  for (const char* case_row : {"Execute,0,native_call_convolution.out", "Execute,1,native_call_convolution.out",
                               "Execute,2,native_call_convolution.out"}) {
    EXPECT_TRUE(contains(table.out, case_row)) << case_row;
  }
}

TEST_F(CliContract, ChromeTraceTimestampsHaveNoFloatNoise) {
  const std::string out = temp("contract_chrome.json");
  ASSERT_EQ(etinspect({"trace", trace(), "-o", out}).exit_code, 0);
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  // Nanoseconds in microseconds have at most three decimals.
  EXPECT_FALSE(std::regex_search(text.str(), std::regex(R"re("(ts|dur)": -?\d+\.\d{4,})re"))) << "float noise";
  const auto json = nlohmann::json::parse(text.str());
  size_t complete = 0;
  for (const auto& event : json["traceEvents"]) complete += event["ph"] == "X";
  // The load's two events; per run, Method::execute and the sample's 14
  // kernels, each an OPERATOR_CALL around its native call.
  EXPECT_EQ(complete, 2u + 3u * (1u + 2u * 14u));
}

TEST_F(CliContract, VersionPrintsAndExitsZero) {
  auto version = etinspect({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("etinspect ", 0), 0u) << version.out;
}

// Delegate events logged in microseconds (a backend's own unit) while the
// trace is in nanoseconds: only delegated rows are rescaled.
TEST_F(CliContract, DelegateTimeUnitRescalesOnlyDelegateEvents) {
  const std::string xnn = test::corpus("upstream-runtime/xnn_mlp.etdp");
  auto plain = etinspect({"table", xnn, "--format", "json", "--time-unit", "ns"});
  auto scaled = etinspect({"table", xnn, "--format", "json", "--time-unit", "ns", "--delegate-time-unit", "us"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(scaled.out);
  ASSERT_EQ(a.size(), b.size());
  size_t delegated = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]["p50"].is_null()) continue;
    const double factor = a[i]["is_delegated_op"] == true ? 1000.0 : 1.0;
    delegated += a[i]["is_delegated_op"] == true;
    EXPECT_DOUBLE_EQ(b[i]["p50"].get<double>(), a[i]["p50"].get<double>() * factor) << a[i]["event_name"];
  }
  EXPECT_EQ(delegated, 3u);
}

// A reference folder whose files are named by debug handles that are not
// instruction ids is read through its index.json.
TEST_F(CliContract, GapReadsAReferenceFolderByItsIndex) {
  const std::string folder = temp("indexed_reference");
  std::filesystem::remove_all(folder);  // a previous run's index
  std::filesystem::create_directories(folder);
  auto loaded_trace = etdump::ETDump::load_file(trace());
  auto loaded_buffer = FileData::load(buffer());
  ASSERT_TRUE(loaded_trace.ok() && loaded_buffer.ok());
  auto outputs = inspector::recorded_outputs(*loaded_trace, (*loaded_buffer)->bytes());
  ASSERT_TRUE(outputs.ok());
  nlohmann::json index = nlohmann::json::object();
  for (const inspector::RecordedOutput& output : *outputs) {
    if (output.output_index != 0) continue;
    const int64_t handle = 100 + output.instruction_id;
    std::vector<float> values(output.values.begin(), output.values.end());
    auto tensor = Tensor::make(ScalarType::kFloat, Span<const int64_t>(output.sizes.data(), output.sizes.size()),
                               {}, values.data(), values.size() * sizeof(float));
    ASSERT_TRUE(tensor.ok());
    ASSERT_TRUE(inspector::write_npy(folder + "/" + std::to_string(handle) + ".npy", *tensor).ok());
    index[std::to_string(handle)] = {{"instruction_id", output.instruction_id}};
  }
  auto without_index = etinspect({"gap", trace(), "--debug-buffer", buffer(), "--reference", folder});
  EXPECT_EQ(without_index.exit_code, 2);
  EXPECT_TRUE(contains(without_index.err, "nothing to compare")) << without_index.err;
  std::ofstream(folder + "/index.json") << index.dump();
  auto with_index = etinspect({"gap", trace(), "--debug-buffer", buffer(), "--reference", folder, "--json"});
  ASSERT_EQ(with_index.exit_code, 0) << with_index.err;
  const auto report = nlohmann::json::parse(with_index.out);
  EXPECT_EQ(report["compared"], index.size());  // every output the index names
  EXPECT_EQ(report["rows"][0]["status"], "ok");
}

}  // namespace
}  // namespace etkit
