// Every command's text and JSON output come from the same values: for each
// command, values read from its JSON are found, formatted as the text
// formats them, in its text output.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "support/cli.h"

namespace etkit {
namespace {

using test::etinspect;
using test::sample;
using test::temp;


// Text and JSON of one command line.
struct Both {
  std::string text;
  nlohmann::json json;
};
Both both(std::vector<std::string> args) {
  auto text = etinspect(args);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  args.push_back("--json");
  auto json = etinspect(args);
  EXPECT_EQ(json.exit_code, 0) << json.err;
  return {text.out, nlohmann::json::parse(json.out)};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
// The line of `text` holding `part`.
std::string line_with(const std::string& text, const std::string& part) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (has(line, part)) return line;
  }
  return {};
}

// The line of `text` whose words hold `words` one after another (a table
// row, whatever its column widths).
std::string line_with_words(const std::string& text, const std::vector<std::string>& words) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream split(line);
    std::vector<std::string> found;
    for (std::string word; split >> word;) found.push_back(word);
    for (size_t i = 0; i + words.size() <= found.size(); ++i) {
      if (std::equal(words.begin(), words.end(), found.begin() + ptrdiff_t(i))) return line;
    }
  }
  return {};
}

class TextJsonAgree : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* tag : {"a", "b"}) {
      ASSERT_EQ(etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "3", "--etdump",
                           trace(tag), "--debug-level", "intermediates", "--debug-buffer", buffer(tag)})
                    .exit_code,
                0);
    }
  }
  static std::string trace(const std::string& tag) { return temp(tag + ".etdp"); }
  static std::string buffer(const std::string& tag) { return temp(tag + ".bin"); }
};

TEST_F(TextJsonAgree, Info) {
  const Both out = both({"info", sample("tutorial_cnn/tutorial_cnn.pte")});
  const auto& method = out.json[0]["methods"][0];
  EXPECT_TRUE(has(out.text, "instruction_count: " + std::to_string(method["instruction_count"].get<int>())));
  EXPECT_TRUE(has(out.text, "kind: " + out.json[0]["kind"].get<std::string>()));
  EXPECT_TRUE(has(out.text, "size: " + std::to_string(out.json[0]["size"].get<int64_t>())));
}

TEST_F(TextJsonAgree, Run) {
  // One iteration of a program without inputs of its own varies in time, so
  // compare the outputs (deterministic) and the structure.
  const Both out = both({"run", sample("tiny/affine.pte"), "--print-outputs"});
  EXPECT_TRUE(has(out.text, "dtype: " + out.json["outputs"][0]["dtype"].get<std::string>()));
  std::string values = "values: [";
  for (size_t i = 0; i < out.json["outputs"][0]["values"].size(); ++i) {
    values += (i ? ", " : "") + fmt::format("{:.6g}", out.json["outputs"][0]["values"][i].get<double>());
  }
  EXPECT_TRUE(has(out.text, values + "]")) << values << "\n" << out.text;
}

TEST_F(TextJsonAgree, Diff) {
  const Both out = both({"diff", trace("a"), trace("b")});
  ASSERT_FALSE(out.json["events"].empty());
  for (const auto& row : out.json["events"]) {
    if (row["before"].is_null()) continue;
    const std::string line = line_with(out.text, row["event"].get<std::string>() + " ");
    ASSERT_FALSE(line.empty()) << row["event"];
    // The same event name can repeat (occurrence); some line shows these numbers.
    EXPECT_TRUE(has(out.text, fmt::format("{:.6f}", row["before"].get<double>()))) << row.dump();
    EXPECT_TRUE(has(out.text, fmt::format("{:.6f}", row["after"].get<double>()))) << row.dump();
  }
}

TEST_F(TextJsonAgree, Gap) {
  const Both out = both({"gap", trace("a"), "--debug-buffer", buffer("a"), "--reference", trace("b"),
                         "--reference-debug-buffer", buffer("b")});
  EXPECT_TRUE(has(out.text, "compared: " + std::to_string(out.json["compared"].get<int>())));
  for (const auto& row : out.json["rows"]) {
    std::string sizes = "[";  // the text shows the JSON list as [1, 16, 64, 64]
    for (size_t i = 0; i < row["sizes"].size(); ++i) sizes += (i ? ", " : "") + std::to_string(row["sizes"][i].get<int64_t>());
    const std::string line = line_with(out.text, " " + sizes + "]");
    EXPECT_TRUE(has(line, row["status"].get<std::string>())) << line;
  }
}

TEST_F(TextJsonAgree, Modules) {
  const Both out = both({"modules", trace("a"), "--etrecord", sample("tutorial_cnn/tutorial_cnn.etrecord")});
  for (const auto& module : out.json["modules"]) {
    EXPECT_TRUE(has(out.text, fmt::format("{:.6f}", module["total"].get<double>()))) << module.dump();
    EXPECT_TRUE(has(out.text, fmt::format("{:.4f}", module["share"].get<double>()))) << module.dump();
  }
}

TEST_F(TextJsonAgree, Table) {
  auto text = etinspect({"table", trace("a")});
  auto json = etinspect({"table", trace("a"), "--format", "json"});
  ASSERT_EQ(text.exit_code, 0);
  ASSERT_EQ(json.exit_code, 0);
  const auto rows = nlohmann::json::parse(json.out);
  std::istringstream lines(text.out);
  std::string line;
  std::getline(lines, line);  // header
  for (const auto& row : rows) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_TRUE(has(line, row["event_name"].get<std::string>())) << line;
    EXPECT_TRUE(has(line, fmt::format("{:.6f}", row["p50"].get<double>()))) << line;
    EXPECT_TRUE(has(line, fmt::format("{:.6f}", row["max"].get<double>()))) << line;
  }
}

TEST_F(TextJsonAgree, Size) {
  const Both out = both({"size", sample("tutorial_cnn/tutorial_cnn.bpte"), "--top", "3", "--depth", "1"});
  EXPECT_TRUE(has(out.text, "file_bytes: " + std::to_string(out.json["file_bytes"].get<uint64_t>())));
  ASSERT_FALSE(out.json["parts"].empty());
  for (const auto& part : out.json["parts"]) {
    const std::string line = line_with(out.text, "%  " + part["name"].get<std::string>());
    EXPECT_TRUE(has(line, std::to_string(part["bytes"].get<uint64_t>()))) << line;
    EXPECT_TRUE(has(line, fmt::format("{:.1f}%", part["share"].get<double>()))) << line;
    // --depth 1: the text stops at the top level, JSON has every level.
    for (const auto& sub : part["parts"]) EXPECT_FALSE(has(out.text, "%    " + sub["name"].get<std::string>())) << sub;
  }
  ASSERT_EQ(out.json["largest"].size(), 3u);
  for (const auto& leaf : out.json["largest"]) {
    const std::string line = line_with(out.text, leaf["path"].get<std::string>());
    EXPECT_TRUE(has(line, std::to_string(leaf["bytes"].get<uint64_t>()))) << line;
  }
}

TEST_F(TextJsonAgree, DiffProgram) {
  const Both out = both({"diff-program", sample("mobilenet_v2/mobilenet_v2.pte"),
                         sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte"), "--top", "2"});
  EXPECT_TRUE(has(out.text, "file_change: " + std::to_string(out.json["file_change"].get<int64_t>())));
  for (const auto& size : out.json["sizes"]) {
    const std::string line = line_with(out.text, size["category"].get<std::string>() + " ");
    EXPECT_TRUE(has(line, std::to_string(size["change"].get<int64_t>()))) << line;
  }
  const auto& operators = out.json["methods"][0]["operators"];
  ASSERT_GT(operators.size(), 2u);  // the text shows two, says how many more
  EXPECT_TRUE(has(out.text, fmt::format("... {} more (--json has all)", operators.size() - 2))) << out.text;
  EXPECT_FALSE(line_with(out.text, operators[0]["name"].get<std::string>()).empty());
}

TEST_F(TextJsonAgree, Memory) {
  const Both out = both({"memory", sample("tutorial_cnn/tutorial_cnn.pte")});
  const auto& method = out.json["methods"][0];
  EXPECT_TRUE(has(out.text, "instructions: " + std::to_string(method["instructions"].get<int>())));
  for (const auto& arena : method["arenas"]) {
    EXPECT_FALSE(line_with_words(out.text, {std::to_string(arena["id"].get<int>()),
                                            std::to_string(arena["size"].get<int64_t>()),
                                            std::to_string(arena["peak_live_bytes"].get<int64_t>())})
                     .empty())
        << arena.dump() << "\n" << out.text;
  }
  ASSERT_FALSE(method["tensors"].empty());
  for (const auto& tensor : method["tensors"]) {
    // A tensor's row: value, arena, offset, bytes, first and last step.
    const std::string line = line_with_words(
        out.text, {std::to_string(tensor["value"].get<int>()), std::to_string(tensor["arena"].get<int>()),
                   std::to_string(tensor["offset"].get<int64_t>()), std::to_string(tensor["bytes"].get<int64_t>())});
    ASSERT_FALSE(line.empty()) << tensor.dump() << "\n" << out.text;
    if (tensor["producer"].is_string()) {
      EXPECT_TRUE(has(line, tensor["producer"].get<std::string>())) << line;
    }
  }
}

// trace's report against the file it wrote (a second path: the Chrome
// trace parsed back), and text against JSON.
TEST_F(TextJsonAgree, Trace) {
  const std::string written = temp("agree_trace.json");
  const Both out = both({"trace", trace("a"), "-o", written});
  std::ifstream file(written);
  const auto chrome = nlohmann::json::parse(file);
  size_t complete = 0;
  std::set<int> tracks;
  for (const auto& event : chrome["traceEvents"]) {
    if (event["ph"] != "X") continue;
    ++complete;
    tracks.insert(event["tid"].get<int>());
  }
  EXPECT_EQ(out.json["events"], complete);
  EXPECT_EQ(out.json["tracks"], tracks.size());
  // run --iterations 3: the load block and three runs, a track each.
  EXPECT_EQ(out.json["run_blocks"], 4);
  EXPECT_EQ(out.json["bytes"], std::filesystem::file_size(written));
  for (const char* key : {"events", "tracks", "run_blocks", "bytes"}) {
    EXPECT_TRUE(has(out.text, std::string(key) + ": " + std::to_string(out.json[key].get<uint64_t>()))) << out.text;
  }
}

TEST_F(TextJsonAgree, BundleExtract) {
  const Both out = both({"bundle", sample("tutorial_cnn/tutorial_cnn.bpte"), "--extract", temp("agree_extract")});
  EXPECT_TRUE(has(out.text, "files: " + std::to_string(out.json["files"].get<uint64_t>())));
  ASSERT_FALSE(out.json["methods"].empty());
  for (const auto& method : out.json["methods"]) {
    EXPECT_TRUE(has(out.text, "bundle_again: " + method["bundle_again"].get<std::string>())) << out.text;
  }
}

// One generation's text and JSON: the tokens are deterministic (greedy),
// the steps' phases and contexts too; times differ between two runs, so
// steps compares one trace's text and JSON.
TEST_F(TextJsonAgree, GenerateAndSteps) {
  const std::string llama = sample("tiny_llama/tiny_llama.pte");
  const Both generated = both({"generate", llama, "--prompt-tokens", "1,2,3", "--max-new", "4", "--etdump",
                               temp("agree_generate.etdp")});
  std::string ids = "generated_token_ids: [";
  for (size_t i = 0; i < generated.json["generated_token_ids"].size(); ++i) {
    ids += (i ? ", " : "") + std::to_string(generated.json["generated_token_ids"][i].get<int64_t>());
  }
  EXPECT_TRUE(has(generated.text, ids + "]")) << ids << "\n" << generated.text;
  EXPECT_TRUE(has(generated.text, "prefill_calls: " + std::to_string(generated.json["prefill_calls"].get<int>())));

  const Both steps = both({"steps", temp("agree_generate.etdp")});
  for (const char* phase : {"prefill", "decode"}) {
    EXPECT_TRUE(has(steps.text, fmt::format("total_ms: {:.6g}", steps.json[phase]["total_ms"].get<double>())))
        << phase << "\n" << steps.text;
  }
  for (const auto& step : steps.json["steps"]) {
    const std::string line = line_with(steps.text, fmt::format("{:.3f}", step["start_ms"].get<double>()));
    EXPECT_TRUE(has(line, step["phase"].get<std::string>())) << line;
    EXPECT_TRUE(has(line, fmt::format("{:.4f}", step["latency_ms"].get<double>()))) << line;
  }
}

TEST_F(TextJsonAgree, Verify) {
  const std::string report = temp("verify.json");
  auto text = etinspect({"verify", sample("tutorial_cnn/tutorial_cnn.bpte"), "--json-file", report});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::ifstream in(report);
  const auto json = nlohmann::json::parse(in);
  const auto& summary = json["summary"];
  EXPECT_TRUE(has(text.out, fmt::format("{} passed, {} failed of {} cases", summary["passed"].get<int>(),
                                        summary["failed"].get<int>(), summary["cases"].get<int>())))
      << text.out;
  for (const auto& c : json["cases"]) {
    const std::string line = line_with(text.out, "case " + std::to_string(c["case"].get<int>()) + ":");
    EXPECT_TRUE(has(line, c["status"] == "pass" ? "PASS" : "FAIL")) << line;
    const auto& error = c["outputs"][0]["max_abs_error"];
    if (!error.is_null()) {
      EXPECT_TRUE(has(line, fmt::format("max abs error {:.6g}", error.get<double>()))) << line;
    }
  }
}

}  // namespace
}  // namespace etkit
