// Upstream's portable and prim op lists (kernels/op_lists/, names read
// from one upstream commit) against etkit's kernels: every op has a kernel
// and a test, so a program upstream's portable runtime runs, etkit runs.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "dtype_cases.h"
#include "etkit/kernels/op_sets.h"
#include "etkit/kernels/upstream_op_sets.h"
#include "support/kernels.h"

namespace etkit {
namespace {

// Backward ops of training graphs: upstream lists them, inference programs
// never hold them, and etkit does not register them.
const std::set<std::string> kBackwardOps = {"aten::convolution_backward.out",
                                            "aten::max_pool2d_with_indices_backward.grad_input"};

// Every test source's text, to find ops tested by name outside the dtype cases.
std::string test_sources() {
  std::string all;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(ETKIT_SOURCE_DIR) + "/tests")) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".cpp" || path.find("op_lists_test.cpp") != std::string::npos) continue;
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    all += text.str();
  }
  return all;
}

// Each op set registers every name once, and no two sets share a name (a
// later registration would silently replace an earlier one).
TEST(OpSets, NoNameIsRegisteredTwice) {
  size_t total = 0;
  for (void (*register_set)(KernelRegistry&) :
       {register_portable_kernels, register_prim_kernels, register_quantized_kernels, register_cortex_m_kernels,
        register_llm_kernels}) {
    KernelRegistry registry;
    register_set(registry);
    EXPECT_EQ(registry.additions(), registry.size());
    total += registry.size();
  }
  EXPECT_EQ(total, all_kernels().size());
}

TEST(OpLists, UpstreamListsAreComplete) {
  EXPECT_EQ(upstream_ops("portable").size(), 209u);
  EXPECT_EQ(upstream_ops("prim").size(), 28u);
  EXPECT_EQ(upstream_ops("quantized").size(), 19u);
  EXPECT_EQ(upstream_ops("cortex_m").size(), 18u);
  EXPECT_EQ(upstream_ops("llm").size(), 6u);
}

TEST(OpLists, EveryOpOfTheFiveSetsHasAKernelAndATest) {
  std::mt19937_64 rng(test::kernel_test_seed());
  std::set<std::string> dtype_cases;
  for (const test::DtypeCase& c : test::dtype_cases(rng)) dtype_cases.insert(c.op);
  const std::string sources = test_sources();
  for (const std::string& set :
       {std::string("portable"), std::string("prim"), std::string("quantized"), std::string("cortex_m"),
        std::string("llm")}) {
    for (const std::string& op : upstream_ops(set)) {
      if (kBackwardOps.count(op)) {
        EXPECT_EQ(all_kernels().find(op), nullptr) << op << " is a backward op, listed as not registered";
        continue;
      }
      EXPECT_NE(all_kernels().find(op), nullptr) << op << " (" << set << ") has no kernel";
      const bool tested = dtype_cases.count(op) > 0 || sources.find('"' + op + '"') != std::string::npos;
      EXPECT_TRUE(tested) << op << " (" << set << ") has no test";
    }
  }
}

TEST(OpLists, MissingOpsAreExplainedByTheirUpstreamLibrary) {
  EXPECT_EQ(upstream_provider("aten::add.out"), "upstream's portable kernels (kernels/portable)");
  EXPECT_EQ(upstream_provider("llama::custom_sdpa.out"), "upstream's LLM custom ops (extension/llm/custom_ops)");
  EXPECT_EQ(upstream_provider("llama::some_future_op.out"), "upstream's LLM custom ops (extension/llm/custom_ops)");
  EXPECT_EQ(upstream_provider("quantized_decomposed::embedding_4bit.out"),
            "upstream's quantized kernels (kernels/quantized)");
  EXPECT_EQ(upstream_provider("cortex_m::quantized_add.out"), "upstream's Cortex-M backend ops (backends/cortex_m)");
  EXPECT_EQ(upstream_provider("cadence::quantized_linear.out"), "the Cadence backend's ops (backends/cadence)");
  EXPECT_EQ(upstream_provider("executorch_prim::et_view.default"),
            "upstream's prim ops (kernels/prim_ops, linked with its runtime)");
  EXPECT_EQ(upstream_provider("aten::linalg_svd.U"),
            "not in upstream's portable kernels: a backend or an optimized/custom kernel library must provide it");
  EXPECT_EQ(upstream_provider("my_ops::fused.out"), "no upstream op library: a custom op library ('my_ops::')");
}

}  // namespace
}  // namespace etkit
