#pragma once
// What `etinspect modules` reports: the module tree of a trace
// (module_totals.h) as one table, printed as text or JSON by one function.

#include <cstddef>
#include <string>

#include "etkit/inspector/module_totals.h"
#include "etkit/report/printer.h"

namespace etkit::inspector {

struct ModulesReport {
  ModuleTree tree;
  std::string time_unit;  ///< of the totals
  std::string stat;       ///< the statistic summed (min, p50, avg)
  bool by_total = false;  ///< flat, largest first; else the tree in depth-first order
  size_t depth = 0;       ///< modules shallower than this only; 0 for all
  size_t top = 0;         ///< the first rows only; 0 for all
};

/// A module's share of the run: of Method::execute when the trace has it,
/// else of the time attributed or not.
double run_share(const ModuleTree& tree, double total);

/// Text: each module indented by depth with its type, total, share and
/// operator events (a shared module says its call sites); JSON: {time_unit,
/// stat, sort, modules: [{path, type, depth, total, share, op_events,
/// call_sites, all_sites_total, children (row numbers)}], run_total,
/// attributed, attributed_share, unattributed}.
void print(report::Printer& out, const ModulesReport& modules);

}  // namespace etkit::inspector
