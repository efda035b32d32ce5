// etinspect info as a user runs it: exit codes, stderr format, JSON keys.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli.h"

namespace etkit {
namespace {

test::CommandResult info(std::vector<std::string> args) {
  args.insert(args.begin(), {ETINSPECT_PATH, "info"});
  return test::run_command(args);
}

TEST(InfoCommand, ReadsTheWholeCorpusInOneCall) {
  auto files = test::all_corpus_files();
  auto result = info(files);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  for (const auto& file : files) {
    EXPECT_NE(result.out.find("path: " + file), std::string::npos) << file;
  }
}

TEST(InfoCommand, JsonIsOneObjectPerFileWithStableKeys) {
  auto files = test::all_corpus_files();
  files.insert(files.begin(), "--json");
  auto result = info(files);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), files.size() - 1);
  for (const auto& file : json) {
    ASSERT_TRUE(file.contains("path"));
    ASSERT_TRUE(file.contains("kind"));
    ASSERT_TRUE(file.at("size").is_number_unsigned());
    const std::string kind = file["kind"];
    if (kind == "program") {
      for (const char* key : {"version", "methods", "constants", "segments", "named_data",
                              "external_tensors", "extended_header"}) {
        EXPECT_TRUE(file.contains(key)) << key;
      }
      for (const auto& method : file["methods"]) {
        for (const char* key : {"name", "inputs", "outputs", "operators", "delegates",
                                "instruction_count", "value_count", "planned_buffer_sizes"}) {
          EXPECT_TRUE(method.contains(key)) << key;
        }
      }
    } else if (kind == "etdump") {
      EXPECT_TRUE(file["run_blocks"].is_array());
    } else if (kind == "bundled_program") {
      EXPECT_TRUE(file["test_suites"].is_array());
      EXPECT_TRUE(file["program"]["methods"].is_array());
    } else if (kind == "zip") {
      EXPECT_EQ(file["layout"], "legacy");
    } else {
      EXPECT_EQ(kind, "flat_tensor");
      EXPECT_EQ(file["entries"].size(), 2u);
    }
  }
}

TEST(InfoCommand, MissingKernelsNameTheLibraryThatProvidesThem) {
  // The Cadence program needs cadence:: ops no etkit op set has; the add
  // program needs nothing etkit lacks.
  auto result = info({"--json", test::corpus("upstream/pte/cadence_conv2d_quantized.pte"),
                      test::corpus("upstream/pte/add.pte")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  const auto& missing = json[0]["methods"][0]["missing_kernels"];
  ASSERT_FALSE(missing.empty());
  for (const auto& entry : missing) {
    EXPECT_EQ(entry["operator"].get<std::string>().rfind("cadence::", 0), 0u) << entry;
    EXPECT_EQ(entry["provided_by"], "the Cadence backend's ops (backends/cadence)");
  }
  EXPECT_TRUE(json[1]["methods"][0]["missing_kernels"].empty());
  auto text = info({test::corpus("upstream/pte/cadence_conv2d_quantized.pte")});
  EXPECT_NE(text.out.find("provided_by: the Cadence backend's ops"), std::string::npos) << text.out;
}

TEST(InfoCommand, TensorShapesInJson) {
  auto result = info({"--json", test::corpus("upstream-runtime/xnn_mlp.pte")});
  ASSERT_EQ(result.exit_code, 0);
  const auto json = nlohmann::json::parse(result.out);
  const auto& input = json[0]["methods"][0]["inputs"][0];
  EXPECT_EQ(input["dtype"], "float32");
  EXPECT_EQ(input["sizes"], nlohmann::json::array({3, 16}));
  EXPECT_EQ(input["dim_order"], nlohmann::json::array({0, 1}));
}

TEST(InfoCommand, BadInputsExitTwoAfterReportingAll) {
  const std::string empty = test::write_temp("empty.pte", {});
  const std::string good = test::corpus("upstream/pte/add.pte");
  auto result = info({"/no/such/file.pte", good, empty, "/tmp"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.out.find("path: " + good), std::string::npos);
  EXPECT_EQ(result.err,
            "etinspect: error: /no/such/file.pte: cannot open: No such file or directory\n"
            "etinspect: error: " + empty + ": file is empty\n"
            "etinspect: error: /tmp: is a directory\n");
}

TEST(InfoCommand, JsonListsFailedFilesWithTheirError) {
  auto result = info({"--json", "/no/such/file.pte"});
  EXPECT_EQ(result.exit_code, 2);
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json[0]["error_kind"], "io");
  EXPECT_EQ(json[0]["path"], "/no/such/file.pte");
}

TEST(InfoCommand, CorruptFileGivesOneLineAndExitTwo) {
  auto bytes = test::read_file(test::corpus("upstream/pte/softmax.pte"));
  bytes.resize(bytes.size() / 3);
  const std::string path = test::write_temp("cut.pte", bytes);
  auto result = info({path});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.signal, 0);
  EXPECT_EQ(result.err.rfind("etinspect: error: " + path + ": ", 0), 0u) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);
}

TEST(InfoCommand, UsageErrorsExitTwo) {
  EXPECT_EQ(info({}).exit_code, 2);
  EXPECT_EQ(test::run_command({ETINSPECT_PATH, "no-such-command"}).exit_code, 2);
}

}  // namespace
}  // namespace etkit
