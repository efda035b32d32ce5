#include "etkit/inspector/module_totals.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace etkit::inspector {
namespace {

bool is_operator_event(const Event& event) {
  return event.instruction_id >= 0 && event.name != "OPERATOR_CALL" &&
         event.name != "DELEGATE_CALL";
}

// Modules by call site, in first-seen order, each with the key of its
// parent (keyed by the stack of paths down to it, so a shared module sits
// under each module that called it).
struct CallSites {
  std::map<std::string, size_t> index_of;  // call-site key -> index in found
  std::vector<ModuleTotal> found;
  std::vector<std::string> parent_of;

  // Adds `time` to every module of one node's stack; `counted` holds the
  // modules this event was counted in already.
  void add(const std::vector<etrecord::ModuleFrame>& stack, double time, std::vector<size_t>& counted) {
    std::string parent = "\x01";  // no parent
    std::string key;
    for (size_t depth = 0; depth < stack.size(); ++depth) {
      const etrecord::ModuleFrame& frame = stack[depth];
      key += frame.path + '\x1f';
      auto [it, inserted] = index_of.emplace(key, found.size());
      if (inserted) {
        found.push_back({frame.path, frame.type, depth, 0, 0, {}});
        parent_of.push_back(parent);
      }
      found[it->second].total += time;
      if (std::find(counted.begin(), counted.end(), it->second) == counted.end()) {
        counted.push_back(it->second);
        found[it->second].op_events += 1;
      }
      parent = key;
    }
  }
};

// The call sites as a tree in depth-first order, children in first-seen
// order, each with its path's call-site count and summed total.
std::vector<ModuleTotal> depth_first(const CallSites& sites) {
  const std::vector<ModuleTotal>& found = sites.found;
  std::vector<std::vector<size_t>> children(found.size());
  std::vector<size_t> roots;
  for (size_t i = 0; i < found.size(); ++i) {
    auto parent = sites.index_of.find(sites.parent_of[i]);
    if (parent == sites.index_of.end()) roots.push_back(i);
    else children[parent->second].push_back(i);
  }
  std::vector<size_t> order;
  std::vector<size_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    order.push_back(i);
    for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) stack.push_back(*it);
  }
  std::vector<size_t> position(found.size());
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  std::map<std::string, std::pair<size_t, double>> by_path;  // path -> call sites, summed total
  for (const ModuleTotal& module : found) {
    auto& site = by_path[module.path];
    site.first += 1;
    site.second += module.total;
  }
  std::vector<ModuleTotal> modules;
  for (size_t i : order) {
    ModuleTotal total = found[i];
    for (size_t child : children[i]) total.children.push_back(position[child]);
    total.call_sites = by_path[total.path].first;
    total.all_sites_total = by_path[total.path].second;
    modules.push_back(std::move(total));
  }
  return modules;
}

}  // namespace

ModuleTree module_totals(const std::vector<EventBlock>& blocks, const std::string& block, Stat stat) {
  ModuleTree tree;
  CallSites sites;
  for (const EventBlock& b : blocks) {
    if (b.name != block) continue;
    for (const Event& event : b.events) {
      if (event.name == "Method::execute" && event.perf_data) tree.run_total += stat_value(*event.perf_data, stat);
      if (!is_operator_event(event) || !event.perf_data) continue;
      const double time = stat_value(*event.perf_data, stat);
      if (event.module_hierarchy.empty()) {
        tree.unattributed += time;
        continue;
      }
      tree.attributed += time;
      // An event fused from several nodes shares its time among them, and
      // counts once in each module holding any of them (upstream's records
      // give a linear's weight transpose and its matmul one handle).
      const double share = time / double(event.module_hierarchy.size());
      std::vector<size_t> counted;
      for (const auto& [node, stack] : event.module_hierarchy) sites.add(stack, share, counted);
    }
  }
  tree.modules = depth_first(sites);
  return tree;
}

double exact_module_total(const ModuleTree& tree, const std::string& path) {
  for (const ModuleTotal& module : tree.modules) {
    if (module.path == path) return module.all_sites_total;
  }
  return 0;
}

double upstream_module_total(const EventBlock& block, const std::string& name) {
  double total = 0;
  for (const Event& event : block.events) {
    if (event.name == "OPERATOR_CALL" || !event.perf_data || std::isnan(event.perf_data->avg)) continue;
    const auto names_module = [&](const auto& node_stack) {
      for (const etrecord::ModuleFrame& frame : node_stack.second) {
        if (frame.key.find(name) != std::string::npos) return true;
      }
      return false;
    };
    if (std::any_of(event.module_hierarchy.begin(), event.module_hierarchy.end(), names_module)) {
      total += event.perf_data->avg;
    }
  }
  return total;
}

}  // namespace etkit::inspector
