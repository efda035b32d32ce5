#include "etkit/gui/module_groups.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace etkit::gui {
namespace {

// The module `node` is drawn inside at `depth` with `open` modules opened:
// its frame at that depth, or deeper while that frame is open; none (-1)
// when its modules run out first.
int64_t group_level(const OpNode& node, size_t depth, const std::set<std::string>& open) {
  size_t level = depth;
  while (level <= node.modules.size() && open.count(node.modules[level - 1])) ++level;
  return level <= node.modules.size() ? int64_t(level) - 1 : -1;
}

double add_known(double a, double b) {
  if (std::isnan(a)) return b;
  return std::isnan(b) ? a : a + b;
}

// Folds op `op` into group node `group`.
void absorb(OpNode& group, const OpNode& op) {
  group.members += op.members;
  group.handles.insert(group.handles.end(), op.handles.begin(), op.handles.end());
  if (!op.group_instructions.empty()) {
    group.group_instructions.insert(group.group_instructions.end(), op.group_instructions.begin(),
                                    op.group_instructions.end());
  } else if (op.instruction >= 0) {
    group.group_instructions.push_back(op.instruction);
  }
  group.latency_ms = add_known(group.latency_ms, op.latency_ms);
  group.phase_latency_ms.resize(std::max(group.phase_latency_ms.size(), op.phase_latency_ms.size()),
                                std::numeric_limits<double>::quiet_NaN());
  for (size_t p = 0; p < op.phase_latency_ms.size(); ++p) {
    group.phase_latency_ms[p] = add_known(group.phase_latency_ms[p], op.phase_latency_ms[p]);
  }
  if (!std::isnan(op.output_bytes)) group.output_bytes = op.output_bytes;  // the last op's output leaves the module
  group.constant_bytes = add_known(group.constant_bytes, op.constant_bytes);
  if (!std::isnan(op.gap)) group.gap = std::isnan(group.gap) ? op.gap : std::max(group.gap, op.gap);
}

OpNode group_node(const OpNode& first, size_t level) {
  OpNode group;
  group.module_group = first.modules[level];
  group.modules.assign(first.modules.begin(), first.modules.begin() + long(level) + 1);
  group.module_types.assign(first.module_types.begin(), first.module_types.begin() + long(level) + 1);
  const std::string& type = first.module_types[level];
  const size_t dot = type.rfind('.');
  group.label = group.module_group + " · " + (dot == std::string::npos ? type : type.substr(dot + 1));
  group.name = group.module_group;
  group.members = 0;
  return group;
}

}  // namespace

OpGraph group_by_module(const OpGraph& graph, size_t depth, const std::set<std::string>& open) {
  if (depth == 0) return graph;
  // Which module each op is drawn in, and how many ops each holds.
  std::vector<int64_t> level(graph.nodes.size());
  std::map<std::string, size_t> ops_in;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    level[i] = group_level(graph.nodes[i], depth, open);
    if (level[i] >= 0) ++ops_in[graph.nodes[i].modules[size_t(level[i])]];
  }
  OpGraph out;
  out.source = graph.source;
  out.latency_block = graph.latency_block;
  out.phases = graph.phases;
  out.delegates_collapsed = graph.delegates_collapsed;
  std::vector<size_t> new_index(graph.nodes.size());
  std::unordered_map<std::string, size_t> group_index;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const OpNode& op = graph.nodes[i];
    const std::string* module = level[i] >= 0 ? &op.modules[size_t(level[i])] : nullptr;
    if (module == nullptr || ops_in[*module] == 1) {
      new_index[i] = out.nodes.size();
      out.nodes.push_back(op);
      continue;
    }
    auto [at, fresh] = group_index.emplace(*module, out.nodes.size());
    if (fresh) out.nodes.push_back(group_node(op, size_t(level[i])));
    absorb(out.nodes[at->second], op);
    new_index[i] = at->second;
  }
  for (OpNode& node : out.nodes) {
    if (node.module_group.empty()) continue;
    node.detail = "module " + node.module_group + " (" + node.module_types.back() + ")\n" +
                  std::to_string(node.members) + " ops; double-click to open";
  }
  std::set<std::pair<size_t, size_t>> seen;
  for (const OpEdge& e : graph.edges) {
    const size_t from = new_index[e.from], to = new_index[e.to];
    if (from == to || !seen.insert({from, to}).second) continue;
    out.edges.push_back({from, to, {}, false, e.shape});
  }
  return out;
}

size_t module_depth(const OpGraph& graph) {
  size_t depth = 0;
  for (const OpNode& node : graph.nodes) depth = std::max(depth, node.modules.size());
  return depth;
}

}  // namespace etkit::gui
