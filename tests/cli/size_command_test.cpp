// etinspect size against independent truth: the file system's sizes, the
// constants flatc reads from the same program with our schema (a second
// path), shapes of the sample models, and the .pte a bundle embeds.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "support/cli.h"
#include "support/corpus.h"

namespace etkit {
namespace {

namespace fs = std::filesystem;
using test::etinspect;

nlohmann::json size_json(const std::string& path) {
  const auto result = etinspect({"size", path, "--json"});
  EXPECT_EQ(result.exit_code, 0) << path << ": " << result.err;
  return result.exit_code == 0 ? nlohmann::json::parse(result.out) : nlohmann::json{};
}

// Every node with parts: they add up to it. Returns the leaves' names and bytes.
void check_sums(const nlohmann::json& node, const std::string& path,
                std::vector<std::pair<std::string, uint64_t>>& leaves) {
  if (node["parts"].empty()) {
    leaves.emplace_back(node["name"].get<std::string>(), node["bytes"].get<uint64_t>());
    return;
  }
  uint64_t sum = 0;
  for (const auto& part : node["parts"]) {
    sum += part["bytes"].get<uint64_t>();
    check_sums(part, path + "/" + part["name"].get<std::string>(), leaves);
  }
  EXPECT_EQ(sum, node["bytes"].get<uint64_t>()) << path;
}

std::vector<std::string> every_program_file() {
  std::vector<std::string> files;
  for (const std::string& root : {test::corpus(""), std::string(ETKIT_SOURCE_DIR) + "/samples"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".pte" || ext == ".bpte" || ext == ".ptd") files.push_back(entry.path().string());
    }
  }
  return files;
}

TEST(SizeCommand, EveryPartOfEveryCorpusAndSampleFileAddsUpToTheFile) {
  const std::vector<std::string> files = every_program_file();
  ASSERT_GE(files.size(), 40u);
  for (const std::string& file : files) {
    const nlohmann::json out = size_json(file);
    if (out.is_null()) continue;
    EXPECT_EQ(out["file_bytes"].get<uint64_t>(), fs::file_size(file)) << file;
    std::vector<std::pair<std::string, uint64_t>> leaves;
    check_sums({{"name", file}, {"bytes", out["file_bytes"]}, {"parts", out["parts"]}}, file, leaves);
    for (const auto& [name, bytes] : leaves) EXPECT_GT(bytes, 0u) << file << ": " << name;  // no empty leaf
  }
}

TEST(SizeCommand, ConstantsAreTheTensorsFlatcReadsFromTheProgram) {
  // The constant tensors' bytes as flatc dumps the program (a second path):
  // each constant part is one of them, and they add up.
  const std::string pte = test::sample("tutorial_cnn/tutorial_cnn.pte");
  const nlohmann::json dump = nlohmann::json::parse(
      test::flatc_json(std::string(ETKIT_SCHEMA_DIR) + "/program.fbs", pte, false));
  uint64_t expected = 0;
  size_t count = 0;
  for (const auto& value : dump["execution_plan"][0]["values"]) {
    if (value["val_type"] != "Tensor" || !value["val"].contains("data_buffer_idx")) continue;
    if (value["val"].contains("allocation_info")) continue;
    uint64_t numel = 1;
    for (const auto& size : value["val"]["sizes"]) numel *= size.get<uint64_t>();
    expected += numel * 4;  // every constant of this sample is float32
    ++count;
  }
  ASSERT_GT(count, 5u);
  const nlohmann::json out = size_json(pte);
  uint64_t constants = 0;
  size_t parts = 0;
  for (const auto& part : out["parts"]) {
    if (part["name"] != "segments") continue;
    for (const auto& segment : part["parts"]) {
      if (segment["name"] != "constants") continue;
      for (const auto& constant : segment["parts"]) {
        if (constant["name"].get<std::string>().rfind("constant ", 0) != 0) continue;
        constants += constant["bytes"].get<uint64_t>();
        ++parts;
      }
    }
  }
  EXPECT_EQ(parts, count);
  EXPECT_EQ(constants, expected);
}

TEST(SizeCommand, XnnpackConstantsAreAttributedToTheNodesThatReadThem) {
  const auto result = etinspect({"size", test::sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte"), "--top", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // The last 1x1 convolution's filter, 1280 x 160 float32 (the model's
  // shape), and the classifier's 100 x 1280: the two largest parts, named
  // by the XNNGraph node that reads them and its debug handle.
  EXPECT_TRUE(std::regex_search(result.out, std::regex(R"(819200 +[\d.]+%  segments/named data: node \d+ Conv2d )"
                                                       R"(\(debug handle \d+\) input 1 \[1280, 1, 1, 160\])")))
      << result.out;
  EXPECT_TRUE(std::regex_search(result.out, std::regex(R"(512000 +[\d.]+%  segments/named data: node \d+ )"
                                                       R"(FullyConnected \(debug handle \d+\) input 1 \[100, 1280\])")))
      << result.out;
}

// MobileNetV2 at width 0.5 with 100 classes: its largest
// weights are the last 1x1 convolution (160 -> 1280, features.18.0), the
// classifier's Linear (1280 -> 100, classifier.1; the exporter transposes
// its weight at run time) and block 17's projection (480 -> 160).
TEST(SizeCommand, WithAnEtrecordConstantsNameTheOpModuleAndSourceThatReadThem) {
  const std::string sample = std::string(ETKIT_SOURCE_DIR) + "/samples/mobilenet_v2/mobilenet_v2";
  const auto result = etinspect({"size", sample + ".pte", "--etrecord", sample + ".etrecord", "--json", "--top", "3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  ASSERT_EQ(json["largest"].size(), 3u);
  const auto detail = [&](size_t i) { return json["largest"][i].value("detail", std::string()); };
  EXPECT_NE(detail(0).find("(aten.convolution.default) in features.18.0 (Conv2d), "), std::string::npos) << detail(0);
  EXPECT_NE(detail(1).find("(aten.permute_copy.default) in classifier.1 (Linear), "), std::string::npos) << detail(1);
  EXPECT_NE(detail(2).find("in features.17.conv.2 (Conv2d), "), std::string::npos) << detail(2);
  EXPECT_NE(detail(0).find("upstream/models.py:"), std::string::npos) << detail(0);  // the model's own line
  // The tree carries the same detail, and still adds up.
  std::vector<std::pair<std::string, uint64_t>> leaves;
  check_sums({{"name", "file"}, {"bytes", json["file_bytes"]}, {"parts", json["parts"]}}, "", leaves);
  size_t linked = 0;
  std::function<void(const nlohmann::json&)> count = [&](const nlohmann::json& node) {
    if (node.contains("detail")) ++linked;
    for (const auto& part : node["parts"]) count(part);
  };
  count(json);
  EXPECT_GT(linked, 100u);  // every weight, bias and batch-norm vector
  // Without the record: no details.
  EXPECT_EQ(size_json(sample + ".pte").dump().find("\"detail\""), std::string::npos);
}

TEST(SizeCommand, ABundleOpensTheProgramItEmbeds) {
  const std::string bpte = test::sample("tiny/affine.bpte");
  const nlohmann::json out = size_json(bpte);
  bool found = false;
  for (const auto& part : out["parts"]) {
    if (part["name"] != "program (embedded .pte)") continue;
    found = true;
    // The sample's .pte, byte for byte, plus the vector's 4-byte length.
    EXPECT_EQ(part["bytes"].get<uint64_t>(), fs::file_size(test::sample("tiny/affine.pte")) + 4);
    bool flatbuffer = false;
    for (const auto& sub : part["parts"]) flatbuffer |= sub["name"] == "program flatbuffer";
    EXPECT_TRUE(flatbuffer);
  }
  EXPECT_TRUE(found) << out.dump(1);
}

const nlohmann::json* part_named(const nlohmann::json& node, const std::string& name) {
  for (const auto& part : node["parts"]) {
    if (part["name"] == name) return &part;
  }
  return nullptr;
}

// The corpus README: tensors a = 3 and b = 2, 2x2 float32 each, stored by
// key in the .ptd's segments (16 bytes apiece). Its header (FH01) says the
// flatbuffer's tables run from byte 48 to 304 and the data from 304 to 336.
TEST(SizeCommand, ExternalDataIsListedByKey) {
  const auto result = etinspect({"size", test::corpus("upstream/ptd/add_mul_external.ptd"), "--depth", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("flat tensor header (FH01)"), std::string::npos) << result.out;
  const nlohmann::json out = size_json(test::corpus("upstream/ptd/add_mul_external.ptd"));
  const nlohmann::json* data = part_named(out, "named data");
  ASSERT_NE(data, nullptr) << out.dump(1);
  ASSERT_NE(part_named(*data, "a"), nullptr) << data->dump(1);
  ASSERT_NE(part_named(*data, "b"), nullptr) << data->dump(1);
  EXPECT_EQ((*part_named(*data, "a"))["bytes"], 16);
  EXPECT_EQ((*part_named(*data, "b"))["bytes"], 16);
  EXPECT_EQ((*data)["bytes"], 32);
  // The tables (bytes 48 to 304) are the keys' and the segments' entries.
  const nlohmann::json* tables = part_named(out, "flatbuffer tables");
  ASSERT_NE(tables, nullptr);
  EXPECT_EQ((*tables)["bytes"], 256);
  const nlohmann::json* keys = part_named(*tables, "named data table (keys, tensor layouts)");
  const nlohmann::json* segments = part_named(*tables, "segment table");
  ASSERT_TRUE(keys != nullptr && segments != nullptr) << tables->dump(1);
  // Two entries of each, each a table with its vtable: more than the
  // root table's own bytes.
  const nlohmann::json* root = part_named(*tables, "(itself)");
  ASSERT_NE(root, nullptr) << tables->dump(1);
  EXPECT_GT((*keys)["bytes"].get<uint64_t>(), (*root)["bytes"].get<uint64_t>()) << tables->dump(1);
  EXPECT_GT((*segments)["bytes"].get<uint64_t>(), (*root)["bytes"].get<uint64_t>()) << tables->dump(1);
}

// A name read from a damaged file that is not UTF-8 is printed with U+FFFD
// in the JSON (it used to end the command with an internal error).
TEST(SizeCommand, KeysThatAreNotUtf8AreReplacedInTheJson) {
  std::vector<uint8_t> bytes = test::read_file(test::corpus("upstream/ptd/add_mul_external.ptd"));
  // The key "a" is the only string of that one letter: a length-1 string
  // (u32 1) followed by 'a' and its terminating zero.
  const uint8_t key[] = {1, 0, 0, 0, 'a', 0};
  const auto at = std::search(bytes.begin(), bytes.end(), std::begin(key), std::end(key));
  ASSERT_NE(at, bytes.end());
  at[4] = 0xff;
  const std::string path = test::write_temp("key_not_utf8.ptd", bytes);
  const nlohmann::json out = size_json(path);
  const nlohmann::json* data = part_named(out, "named data");
  ASSERT_NE(data, nullptr) << out.dump(1);
  EXPECT_NE(part_named(*data, "\xEF\xBF\xBD"), nullptr) << data->dump(1);  // U+FFFD
}

TEST(SizeCommand, DamagedFilesAreRefusedNeverCrash) {
  const std::vector<uint8_t> good = test::read_file(test::sample("mobilenet_v2_xnnpack_int8/mobilenet_v2_xnnpack_int8.pte"));
  std::mt19937 rng(7);
  for (int trial = 0; trial < 24; ++trial) {
    std::vector<uint8_t> bytes = good;
    if (trial % 2 == 0) {
      bytes.resize(std::uniform_int_distribution<size_t>(0, good.size() - 1)(rng));
    } else {
      for (int k = 0; k < 16; ++k) bytes[std::uniform_int_distribution<size_t>(0, 20000)(rng)] ^= uint8_t(1 + k);
    }
    const std::string path = test::write_temp("damaged_size.pte", bytes);
    const auto result = etinspect({"size", path, "--json"});
    ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 2) << "trial " << trial << ": " << result.err;
    if (result.exit_code == 2) {
      EXPECT_NE(result.err.find("etinspect: error:"), std::string::npos) << result.err;
    } else {
      EXPECT_EQ(nlohmann::json::parse(result.out)["file_bytes"].get<uint64_t>(), bytes.size());
    }
  }
}

}  // namespace
}  // namespace etkit
