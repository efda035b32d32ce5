#pragma once
/// @file
/// Time per module of the model hierarchy: each operator event's duration
/// (a statistic of its runs: upstream's find_total_for_module sums the
/// average) is added to every module on its graph node's nn_module_stack
/// (inclusive totals). A module called from several places (one instance
/// shared by two layers) is a node of the tree at each call site, under the
/// module that called it there, and also totalled over its call sites.

#include <string>
#include <vector>

#include "etkit/inspector/event_blocks.h"

namespace etkit::inspector {

struct ModuleTotal {
  std::string path;   ///< "" for the root module
  std::string type;   ///< Python type of the module
  size_t depth = 0;   ///< 0 for the root
  double total = 0;   ///< inclusive, target unit, per run (ModuleTotalsOptions::stat)
  size_t op_events = 0;
  std::vector<size_t> children;  ///< indices into the result, first-seen order
  size_t call_sites = 1;         ///< tree nodes of this path (a shared module's call sites)
  double all_sites_total = 0;    ///< total summed over those call sites
};


struct ModuleTree {
  std::vector<ModuleTotal> modules;  ///< depth-first, parents before children
  double run_total = 0;        ///< Method::execute average, target unit (0 if absent)
  double attributed = 0;       ///< sum over events that had a module stack
  double unattributed = 0;     ///< operator events without one
};

/// Builds the tree from the events of blocks named `block` (after
/// link_etrecord). Operator events are the kernel and delegated-op events;
/// OPERATOR_CALL and DELEGATE_CALL wrappers are not counted twice.
ModuleTree module_totals(const std::vector<EventBlock>& blocks, const std::string& block = "Execute",
                         Stat stat = Stat::kAvg);

/// The exact rule (`etinspect modules`): the inclusive total of the module
/// whose qualified path is `path`, over all its call sites (0 when absent).
double exact_module_total(const ModuleTree& tree, const std::string& path);

/// Upstream's rule (its Inspector's find_total_for_module), for one block:
/// the summed average of the block's events (OPERATOR_CALL wrappers left
/// out), each counted once when any of its graph nodes has a module-stack
/// key containing `name`. A substring match: "L__self___features_1" also
/// counts the events of "L__self___features_10". Upstream sums it over
/// every block it holds.
double upstream_module_total(const EventBlock& block, const std::string& name);

}  // namespace etkit::inspector
