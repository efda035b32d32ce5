// One vocabulary across subcommands (#41): one meaning per option name
// (renamed options refused naming the new one), --json behaving the same
// everywhere, JSON values typed, `help SUBCOMMAND`, typos answered with the
// nearest subcommand, range errors in plain numbers.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"

namespace etkit {
namespace {

using test::etinspect;
using test::sample;
using test::temp;

using test::contains;

TEST(Vocabulary, HelpNamesASubcommand) {
  auto help = etinspect({"help", "verify"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_TRUE(contains(help.out, "Usage: verify") && contains(help.out, "--json-file")) << help.out;
  auto all = etinspect({"help"});
  EXPECT_EQ(all.exit_code, 0);
  EXPECT_TRUE(contains(all.out, "diff-program")) << all.out;
  auto unknown = etinspect({"help", "verfy"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "did you mean 'verify'")) << unknown.err;
}

TEST(Vocabulary, ATypoNamesTheNearestSubcommand) {
  for (const auto& [typed, meant] : {std::pair{"verfy", "verify"}, {"tabel", "table"}, {"dif", "diff"},
                                     {"generat", "generate"}, {"diff-progam", "diff-program"}}) {
    auto result = etinspect({typed});
    EXPECT_EQ(result.exit_code, 2) << typed;
    EXPECT_TRUE(contains(result.err, std::string("'") + typed + "' is not a subcommand; did you mean '" + meant + "'"))
        << result.err;
  }
  auto far = etinspect({"compile"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_TRUE(contains(far.err, "'compile' is not a subcommand") && !contains(far.err, "did you mean")) << far.err;
}

// The old spellings of options that meant another thing elsewhere.
TEST(Vocabulary, RenamedOptionsAreRefusedNamingTheNewName) {
  struct Renamed {
    std::vector<std::string> call;
    std::string message;
  };
  const std::string pte = sample("tutorial_cnn/tutorial_cnn.pte");
  for (const Renamed& r : std::vector<Renamed>{
           {{"diff-program", pte, pte, "--fail-above", "10"}, "diff-program --fail-above is now --fail-above-bytes"},
           {{"gap", "t.etdp", "--debug-buffer", "b", "--reference", "r", "--block", "1"},
            "gap --block is now --run-block"},
           {{"bundle", pte, "--case", "a.npy=b.npy", "-o", temp("x.bpte")}, "bundle --case is now --add-case"}}) {
    auto result = etinspect(r.call);
    EXPECT_EQ(result.exit_code, 2) << r.message;
    EXPECT_TRUE(contains(result.err, "etinspect: error: " + r.message)) << result.err;
  }
  EXPECT_EQ(etinspect({"diff-program", pte, pte, "--fail-above-bytes", "0"}).exit_code, 0);
}

TEST(Vocabulary, RangeErrorsSpeakInPlainNumbers) {
  auto top_p = etinspect({"generate", sample("tiny_llama/tiny_llama.pte"), "--prompt-tokens", "1", "--top-p", "2"});
  EXPECT_EQ(top_p.exit_code, 2);
  EXPECT_TRUE(contains(top_p.err, "--top-p: '2' is not allowed (allowed: a number from 0 to 1)")) << top_p.err;
}

// --json prints the report on stdout in every command that has a report;
// verify's file-writing form is --json-file, and the old `--json FILE`
// (now a second "bundle") is refused saying so.
TEST(Vocabulary, JsonIsAFlagPrintingOnStdout) {
  const std::string bundle = sample("tutorial_cnn/tutorial_cnn.bpte");
  auto verify = etinspect({"verify", bundle, "--json"});
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  const auto report = nlohmann::json::parse(verify.out);
  EXPECT_EQ(report["file"], bundle);
  EXPECT_EQ(report["summary"]["passed"], report["summary"]["cases"]);
  auto old = etinspect({"verify", bundle, "--json", temp("report.json")});
  EXPECT_EQ(old.exit_code, 2);
  EXPECT_TRUE(contains(old.err, "--json is a flag") && contains(old.err, "--json-file FILE")) << old.err;

  const std::string trace = temp("vocabulary.etdp");
  ASSERT_EQ(etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--etdump", trace}).exit_code, 0);
  auto table_json = etinspect({"table", trace, "--json"});
  auto table_format = etinspect({"table", trace, "--format", "json"});
  ASSERT_EQ(table_json.exit_code, 0) << table_json.err;
  EXPECT_EQ(table_json.out, table_format.out);
  EXPECT_EQ(etinspect({"table", trace, "--json", "--format", "csv"}).exit_code, 2);
}

// Several bundles in one call: each verified, one summary, one exit code;
// JSON gains a `bundles` list; a bundle that cannot be read is an error
// for it while the others still run.
TEST(Vocabulary, VerifyTakesSeveralBundles) {
  const std::string cnn = sample("tutorial_cnn/tutorial_cnn.bpte");
  const std::string tiny = sample("tiny_llama/tiny_llama.bpte");
  auto both = etinspect({"verify", cnn, tiny, "--atol", "1e-5"});
  EXPECT_EQ(both.exit_code, 0) << both.out << both.err;
  EXPECT_TRUE(contains(both.out, "all bundles:") && contains(both.out, "in 2 bundles")) << both.out;
  const std::string missing = temp("missing.bpte");
  auto json = etinspect({"verify", cnn, missing, "--json"});
  EXPECT_EQ(json.exit_code, 1) << json.err;
  const auto report = nlohmann::json::parse(json.out);
  ASSERT_EQ(report["bundles"].size(), 2u);
  EXPECT_EQ(report["summary"]["bundles"], 2);
  EXPECT_EQ(report["bundles"][0]["file"], cnn);
  EXPECT_TRUE(report["bundles"][1]["error"].is_string());
  EXPECT_TRUE(contains(json.err, "etinspect: check failed:")) << json.err;
  EXPECT_EQ(etinspect({"verify", cnn, tiny, "--etdump", temp("two.etdp")}).exit_code, 2);
}

TEST(Vocabulary, GapSizesAreAnArrayOfNumbers) {
  const std::string trace = temp("gap_sizes.etdp"), buffer = temp("gap_sizes.bin");
  ASSERT_EQ(etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--etdump", trace, "--debug-level",
                       "intermediates", "--debug-buffer", buffer})
                .exit_code,
            0);
  auto gap = etinspect({"gap", trace, "--debug-buffer", buffer, "--reference", trace, "--reference-debug-buffer",
                        buffer, "--json"});
  ASSERT_EQ(gap.exit_code, 0) << gap.err;
  const auto rows = nlohmann::json::parse(gap.out)["rows"];
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(rows[0]["sizes"].is_array()) << rows[0].dump();
  EXPECT_TRUE(rows[0]["sizes"][0].is_number_integer()) << rows[0].dump();
}

}  // namespace
}  // namespace etkit
