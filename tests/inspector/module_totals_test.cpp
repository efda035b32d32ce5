// Module totals against sums done by hand.

#include "etkit/inspector/module_totals.h"

#include <gtest/gtest.h>

namespace etkit::inspector {
namespace {

Event op(const std::string& name, int32_t instruction, double avg,
         std::vector<std::vector<etrecord::ModuleFrame>> stacks) {
  Event event;
  event.name = name;
  event.instruction_id = instruction;
  event.perf_data = PerfData{};
  event.perf_data->avg = avg;
  for (size_t i = 0; i < stacks.size(); ++i) {
    event.module_hierarchy.emplace_back(name + "_node" + std::to_string(i), stacks[i]);
  }
  return event;
}

TEST(ModuleTotals, InclusiveTotalsOfASmallHierarchy) {
  const etrecord::ModuleFrame root{"L__self__", "", "M"}, block{"L__self___b", "b", "Block"},
      conv{"L__self___b_conv", "b.conv", "Conv2d"}, relu{"L__self___b_relu", "b.relu", "ReLU"},
      fc{"L__self___fc", "fc", "Linear"};
  EventBlock execute;
  execute.name = "Execute";
  Event total;
  total.name = "Method::execute";
  total.perf_data = PerfData{};
  total.perf_data->avg = 10.0;
  execute.events.push_back(total);
  execute.events.push_back(op("OPERATOR_CALL", 0, 4.5, {{root, block, conv}}));  // wrapper: not counted
  execute.events.push_back(op("native_call_convolution.out", 0, 4.0, {{root, block, conv}}));
  execute.events.push_back(op("native_call_relu.out", 1, 1.0, {{root, block, relu}}));
  // One event fused from two nodes shares its 3.0 between them.
  execute.events.push_back(op("native_call_addmm.out", 2, 3.0, {{root, fc}, {root, block, relu}}));
  execute.events.push_back(op("native_call_clone.out", 3, 0.5, {}));  // no module stack
  const ModuleTree tree = module_totals({execute});
  // Hand sums: conv 4; relu 1 + 1.5; block 4 + 2.5 = 6.5; fc 1.5; root 4 + 1 + 3 = 8.
  EXPECT_DOUBLE_EQ(tree.run_total, 10.0);
  EXPECT_DOUBLE_EQ(tree.attributed, 8.0);
  EXPECT_DOUBLE_EQ(tree.unattributed, 0.5);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, ""), 8.0);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, "b"), 6.5);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, "b.conv"), 4.0);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, "b.relu"), 2.5);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, "fc"), 1.5);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, "missing"), 0.0);
  // Depth-first, children in first-seen order.
  ASSERT_EQ(tree.modules.size(), 5u);
  const std::vector<std::string> order = {"", "b", "b.conv", "b.relu", "fc"};
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(tree.modules[i].path, order[i]);
  EXPECT_EQ(tree.modules[0].children, (std::vector<size_t>{1, 4}));
  EXPECT_EQ(tree.modules[1].children, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(tree.modules[1].depth, 1u);
  // Op events, each counted once per module however many of its nodes the
  // module holds: the fused addmm is one event of the root, of b and of fc.
  EXPECT_EQ(tree.modules[0].op_events, 3u);  // convolution, relu, addmm
  EXPECT_EQ(tree.modules[1].op_events, 3u);
  EXPECT_EQ(tree.modules[4].op_events, 1u);
}

// Upstream's ETRecords give a linear's weight transpose and its matmul one
// debug handle: one event of two nodes in the same module counts once there.
TEST(ModuleTotals, AnEventOfTwoNodesOfOneModuleCountsOnce) {
  const etrecord::ModuleFrame root{"L__self__", "", "M"}, fc{"L__self___fc", "fc", "Linear"};
  EventBlock execute;
  execute.name = "Execute";
  execute.events.push_back(op("native_call_addmm.out", 0, 2.0, {{root, fc}, {root, fc}}));
  const ModuleTree tree = module_totals({execute});
  ASSERT_EQ(tree.modules.size(), 2u);
  EXPECT_EQ(tree.modules[0].op_events, 1u);
  EXPECT_EQ(tree.modules[1].op_events, 1u);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, "fc"), 2.0);
}

// One rotary-embedding instance shared by two attention layers: its nodes'
// stacks name it with one path under either layer. Each call site is a
// node of the tree under the layer that called it (it sat under the first
// layer only, with both layers' time, before), and the module's total over
// its call sites is what exact_module_total gives.
TEST(ModuleTotals, ASharedModuleIsCountedAtEachCallSite) {
  const etrecord::ModuleFrame root{"L__self__", "", "Model"}, layer0{"a0", "layers.0", "Attention"},
      layer1{"a1", "layers.1", "Attention"}, rope{"r", "rope", "Rope"};
  EventBlock execute;
  execute.name = "Execute";
  execute.events.push_back(op("native_call_mul.out", 0, 2.0, {{root, layer0, rope}}));
  execute.events.push_back(op("native_call_bmm.out", 1, 5.0, {{root, layer0}}));
  execute.events.push_back(op("native_call_mul.out", 2, 3.0, {{root, layer1, rope}}));
  execute.events.push_back(op("native_call_bmm.out", 3, 7.0, {{root, layer1}}));
  const ModuleTree tree = module_totals({execute});
  // Depth-first: root, layers.0, its rope, layers.1, its rope.
  ASSERT_EQ(tree.modules.size(), 5u);
  const std::vector<std::string> order = {"", "layers.0", "rope", "layers.1", "rope"};
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(tree.modules[i].path, order[i]);
  EXPECT_EQ(tree.modules[1].children, (std::vector<size_t>{2}));
  EXPECT_EQ(tree.modules[3].children, (std::vector<size_t>{4}));
  EXPECT_DOUBLE_EQ(tree.modules[1].total, 7.0);  // 5 + its rope's 2
  EXPECT_DOUBLE_EQ(tree.modules[2].total, 2.0);
  EXPECT_DOUBLE_EQ(tree.modules[3].total, 10.0);  // 7 + 3
  EXPECT_DOUBLE_EQ(tree.modules[4].total, 3.0);
  EXPECT_EQ(tree.modules[2].call_sites, 2u);
  EXPECT_DOUBLE_EQ(tree.modules[2].all_sites_total, 5.0);
  EXPECT_DOUBLE_EQ(exact_module_total(tree, "rope"), 5.0);
  EXPECT_EQ(tree.modules[1].call_sites, 1u);
}

// The statistic summed: one outlier run moves an average, not a median.
TEST(ModuleTotals, TheStatisticIsChosen) {
  const etrecord::ModuleFrame root{"L__self__", "", "Model"}, w3{"w", "w3", "Linear"};
  EventBlock execute;
  execute.name = "Execute";
  Event event = op("native_call_linear.out", 0, 0, {{root, w3}});
  event.perf_data->raw = {1.0, 1.0, 1.0, 1.0, 21.0};
  event.perf_data->avg = 5.0;
  event.perf_data->p50 = 1.0;
  event.perf_data->min = 1.0;
  execute.events.push_back(event);
  EXPECT_DOUBLE_EQ(exact_module_total(module_totals({execute}, "Execute", Stat::kAvg), "w3"), 5.0);
  EXPECT_DOUBLE_EQ(exact_module_total(module_totals({execute}, "Execute", Stat::kP50), "w3"), 1.0);
  EXPECT_DOUBLE_EQ(exact_module_total(module_totals({execute}, "Execute", Stat::kMin), "w3"), 1.0);
}

// Upstream's rule matches module-stack keys by substring: features_1's name
// also takes features_10's events; an event of two nodes counts once, an
// OPERATOR_CALL wrapper not at all. Sums by hand: 1 + 2 + 4 = 7 for
// "features_1", 4 for "features_10", 8 (every op) for "L__self__".
TEST(ModuleTotals, UpstreamsRuleIsASubstringMatchOnStackKeys) {
  const etrecord::ModuleFrame root{"L__self__", "", "Model"}, f1{"L__self___features_1", "features.1", "Conv"},
      f10{"L__self___features_10", "features.10", "Conv"}, f2{"L__self___features_2", "features.2", "ReLU"};
  EventBlock execute;
  execute.name = "Execute";
  execute.events.push_back(op("native_call_convolution.out", 0, 1.0, {{root, f1}}));
  execute.events.push_back(op("native_call_addmm.out", 1, 2.0, {{root, f1}, {root, f1}}));
  execute.events.push_back(op("native_call_relu.out", 2, 1.0, {{root, f2}}));
  execute.events.push_back(op("native_call_convolution.out", 3, 4.0, {{root, f10}}));
  execute.events.push_back(op("OPERATOR_CALL", 3, 16.0, {{root, f10}}));
  EXPECT_DOUBLE_EQ(upstream_module_total(execute, "features_1"), 7.0);
  EXPECT_DOUBLE_EQ(upstream_module_total(execute, "features_10"), 4.0);
  EXPECT_DOUBLE_EQ(upstream_module_total(execute, "L__self__"), 8.0);
  EXPECT_DOUBLE_EQ(upstream_module_total(execute, "classifier"), 0.0);
  // The exact rule tells features.1 and features.10 apart.
  EXPECT_DOUBLE_EQ(exact_module_total(module_totals({execute}), "features.1"), 3.0);
}

}  // namespace
}  // namespace etkit::inspector
