#pragma once
// One XNNPACK runtime for one plan step: the step's values and nodes
// defined into a subgraph, the runtime created, and its external values
// bound once to etkit's buffers (which never move, so execute only
// invokes).

#include <xnnpack.h>

#include <vector>

#include "etkit/core/result.h"
#include "execution_plan.h"

typedef struct pthreadpool* pthreadpool_t;

namespace etkit::xnnpack {

/// `buffers[v]` is the data of value v when boundary[v], else unused.
Result<xnn_runtime_t> create_step_runtime(const XnnGraph& graph, const PlanStep& step,
                                          const std::vector<uint8_t>& boundary,
                                          const std::vector<void*>& buffers,
                                          pthreadpool_t threadpool);

}  // namespace etkit::xnnpack
