#include "etkit/inspector/modules_report.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace etkit::inspector {
namespace {

using report::Cell;

std::string short_type(const std::string& type) {
  const size_t dot = type.rfind('.');
  return dot == std::string::npos ? type : type.substr(dot + 1);
}

// The module indices printed, in order (--depth, --sort total, --top).
std::vector<size_t> shown_modules(const ModulesReport& modules) {
  const ModuleTree& tree = modules.tree;
  std::vector<size_t> shown;
  for (size_t i = 0; i < tree.modules.size(); ++i) {
    if (modules.depth == 0 || tree.modules[i].depth < modules.depth) shown.push_back(i);
  }
  if (modules.by_total) {
    std::stable_sort(shown.begin(), shown.end(),
                     [&](size_t a, size_t b) { return tree.modules[a].total > tree.modules[b].total; });
  }
  if (modules.top > 0 && shown.size() > modules.top) shown.resize(modules.top);
  return shown;
}

std::string label_of(const ModuleTotal& m, bool flat) {
  std::string label = std::string(flat ? 0 : 2 * m.depth, ' ') + (m.path.empty() ? "<root>" : m.path) + " (" +
                      short_type(m.type) + ")";
  if (m.call_sites > 1) {
    char shared[96];
    std::snprintf(shared, sizeof shared, " [shared: %zu call sites, %.6f in all]", m.call_sites, m.all_sites_total);
    label += shared;
  }
  return label;
}

}  // namespace

double run_share(const ModuleTree& tree, double total) {
  const double whole = tree.run_total > 0 ? tree.run_total : tree.attributed + tree.unattributed;
  return whole > 0 ? total / whole : 0.0;
}

void print(report::Printer& out, const ModulesReport& modules) {
  const ModuleTree& tree = modules.tree;
  const std::vector<size_t> shown = shown_modules(modules);
  // Children are row numbers of the printed rows (depth and top leave some out).
  std::vector<int64_t> row_of(tree.modules.size(), -1);
  for (size_t r = 0; r < shown.size(); ++r) row_of[shown[r]] = int64_t(r);
  std::vector<std::vector<Cell>> rows;
  for (size_t i : shown) {
    const ModuleTotal& m = tree.modules[i];
    std::vector<int64_t> children;
    for (size_t child : m.children) {
      if (row_of[child] >= 0) children.push_back(row_of[child]);
    }
    rows.push_back({Cell::of(m.path).shown_as(label_of(m, modules.by_total)), Cell::of(m.type),
                    Cell::of(int64_t(m.depth)), Cell::of(m.total), Cell::of(run_share(tree, m.total)),
                    Cell::of(int64_t(m.op_events)), Cell::of(int64_t(m.call_sites)), Cell::of(m.all_sites_total),
                    Cell::of(std::move(children))});
  }
  out.begin_object("");
  out.field("time_unit", modules.time_unit);
  out.field("stat", modules.stat);
  out.field("sort", std::string(modules.by_total ? "total" : "tree"));
  out.table("modules",
            {{"path"}, {"type", 0, true}, {"depth", 0, true}, {"total", 6}, {"share", 4}, {"op_events", 0},
             {"call_sites", 0, true}, {"all_sites_total", 6, true}, {"children", 0, true}},
            rows);
  out.field("run_total", tree.run_total);
  out.field("attributed", tree.attributed);
  out.field("attributed_share", run_share(tree, tree.attributed));
  out.field("unattributed", tree.unattributed);
  out.end_object();
  out.finish();
}

}  // namespace etkit::inspector
