#include "etkit/inspector/memory_plan.h"

#include <algorithm>
#include <map>

namespace etkit::inspector {
namespace {

constexpr uint64_t kAlignment = 16;

uint64_t align_up(uint64_t value) { return (value + kAlignment - 1) / kAlignment * kAlignment; }

bool lifetimes_overlap(const TensorLifetime& a, const TensorLifetime& b) {
  return a.first && b.first && *a.first <= *b.last && *b.first <= *a.last;
}

bool bytes_overlap(const TensorLifetime& a, const TensorLifetime& b) {
  return a.planned.bytes > 0 && b.planned.bytes > 0 && a.planned.offset < b.planned.offset + b.planned.bytes &&
         b.planned.offset < a.planned.offset + a.planned.bytes;
}

// Lifetimes, producers and consumers from the instructions' references.
void trace_lifetimes(const MethodSummary& method, std::vector<TensorLifetime>& tensors) {
  std::map<int32_t, size_t> by_value;
  for (size_t t = 0; t < tensors.size(); ++t) by_value[tensors[t].planned.value] = t;
  for (size_t step = 0; step < method.instructions.size(); ++step) {
    const InstructionSummary& instruction = method.instructions[step];
    for (int32_t value : instruction.references) {
      auto it = by_value.find(value);
      if (it == by_value.end()) continue;
      TensorLifetime& tensor = tensors[it->second];
      if (!tensor.first) tensor.first = step;
      tensor.last = std::max(tensor.last.value_or(step), step);
      // The first instruction to reference a tensor that is no input writes
      // it (nothing can read it before); the others consume it.
      if (*tensor.first == step && !tensor.producer) tensor.producer = instruction.target;
      else if (*tensor.first != step && (tensor.consumers.empty() || tensor.consumers.back() != instruction.target)) {
        tensor.consumers.push_back(instruction.target);
      }
    }
  }
  const size_t last_step = method.instructions.empty() ? 0 : method.instructions.size() - 1;
  for (const ValueSummary& input : method.inputs) {
    auto it = by_value.find(input.index);
    if (it == by_value.end()) continue;
    TensorLifetime& tensor = tensors[it->second];
    // An input is the caller's: its first referencing instruction reads it.
    if (tensor.producer) {
      tensor.consumers.insert(tensor.consumers.begin(), *tensor.producer);
      tensor.producer.reset();
    }
    tensor.first = 0;
    tensor.last = std::max(tensor.last.value_or(0), size_t(0));
  }
  for (const ValueSummary& output : method.outputs) {
    auto it = by_value.find(output.index);
    if (it == by_value.end()) continue;
    TensorLifetime& tensor = tensors[it->second];
    if (!tensor.first) tensor.first = last_step;
    tensor.last = last_step;
  }
  // A mutable buffer's state lives from load to load: every step of every
  // execution. Nothing else may share its bytes.
  for (TensorLifetime& tensor : tensors) {
    if (!tensor.planned.initial_state) continue;
    tensor.first = 0;
    tensor.last = last_step;
  }
}

ArenaUse arena_use(uint32_t id, uint64_t size, const std::vector<TensorLifetime>& tensors, size_t steps) {
  ArenaUse use;
  use.id = id;
  use.size = size;
  std::vector<uint64_t> live(std::max<size_t>(steps, 1), 0);
  for (const TensorLifetime& t : tensors) {
    if (!t.first) continue;
    for (size_t step = *t.first; step <= *t.last && step < live.size(); ++step) live[step] += t.planned.bytes;
  }
  for (size_t step = 0; step < live.size(); ++step) {
    if (live[step] > use.peak_live_bytes) {
      use.peak_live_bytes = live[step];
      use.peak_step = step;
    }
  }
  use.utilization = size > 0 ? double(use.peak_live_bytes) / double(size) : 0;
  use.best_fit_bytes = best_fit_size(tensors);
  return use;
}

// Values that name the same bytes on purpose: a view (upstream's
// executorch_prim::et_view, what remove_view_copy leaves of every reshape)
// and its input, transitively. Maps each value to the first of its group.
std::map<int32_t, int32_t> alias_roots(const MethodSummary& method) {
  std::map<int32_t, int32_t> root;
  const auto find = [&root](int32_t v) {
    while (root.count(v) != 0 && root[v] != v) v = root[v];
    return v;
  };
  for (const InstructionSummary& instruction : method.instructions) {
    if (instruction.kind != "kernel" || instruction.target.rfind("executorch_prim::et_view", 0) != 0 ||
        instruction.references.size() < 2) {
      continue;
    }
    const int32_t input = find(instruction.references.front()), view = find(instruction.references.back());
    root[input] = input;
    root[view] = input;
  }
  for (auto& [value, first] : root) first = find(value);
  return root;
}

void find_errors(const std::vector<TensorLifetime>& tensors, const std::vector<int64_t>& arena_sizes,
                 const std::map<int32_t, int32_t>& aliases, std::vector<std::string>& errors) {
  const auto same_bytes_on_purpose = [&aliases](int32_t a, int32_t b) {
    auto ia = aliases.find(a), ib = aliases.find(b);
    return ia != aliases.end() && ib != aliases.end() && ia->second == ib->second;
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    const PlannedTensorSummary& a = tensors[i].planned;
    const uint64_t arena_size = a.arena < arena_sizes.size() ? uint64_t(std::max<int64_t>(arena_sizes[a.arena], 0)) : 0;
    if (a.offset + a.bytes > arena_size) {
      errors.push_back("value " + std::to_string(a.value) + " (" + std::to_string(a.bytes) + " bytes at offset " +
                       std::to_string(a.offset) + ") lies past the end of arena " + std::to_string(a.arena) + " (" +
                       std::to_string(arena_size) + " bytes)");
    }
    for (size_t j = i + 1; j < tensors.size(); ++j) {
      const PlannedTensorSummary& b = tensors[j].planned;
      if (a.arena != b.arena || !lifetimes_overlap(tensors[i], tensors[j]) || !bytes_overlap(tensors[i], tensors[j]) ||
          same_bytes_on_purpose(a.value, b.value)) {
        continue;
      }
      errors.push_back("values " + std::to_string(a.value) + " and " + std::to_string(b.value) +
                       " are alive together (steps " + std::to_string(std::max(*tensors[i].first, *tensors[j].first)) +
                       "-" + std::to_string(std::min(*tensors[i].last, *tensors[j].last)) + ") and share bytes of arena " +
                       std::to_string(a.arena));
    }
  }
}

}  // namespace

std::vector<std::optional<uint64_t>> best_fit_offsets(const std::vector<TensorLifetime>& tensors) {
  std::vector<size_t> order;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].first && tensors[i].planned.bytes > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return tensors[a].planned.bytes > tensors[b].planned.bytes; });
  std::vector<std::optional<uint64_t>> offsets(tensors.size());
  std::vector<size_t> placed;
  for (size_t i : order) {
    const TensorLifetime& t = tensors[i];
    // Byte ranges taken by placed tensors alive at the same time.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t p : placed) {
      if (lifetimes_overlap(tensors[p], t)) taken.push_back({*offsets[p], *offsets[p] + tensors[p].planned.bytes});
    }
    std::sort(taken.begin(), taken.end());
    uint64_t best = UINT64_MAX, best_gap = UINT64_MAX, cursor = 0;
    for (const auto& [begin, end] : taken) {
      const uint64_t start = align_up(cursor);
      if (begin > start && begin - start >= t.planned.bytes && begin - start < best_gap) {
        best_gap = begin - start;
        best = start;
      }
      cursor = std::max(cursor, end);
    }
    if (best == UINT64_MAX) best = align_up(cursor);
    offsets[i] = best;
    placed.push_back(i);
  }
  return offsets;
}

uint64_t best_fit_size(const std::vector<TensorLifetime>& tensors) {
  const std::vector<std::optional<uint64_t>> offsets = best_fit_offsets(tensors);
  uint64_t size = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (offsets[i]) size = std::max(size, *offsets[i] + tensors[i].planned.bytes);
  }
  return size;
}

MethodMemory analyze_memory(const MethodSummary& method) {
  MethodMemory memory;
  memory.name = method.name;
  memory.instructions = method.instructions.size();
  for (const PlannedTensorSummary& planned : method.planned_tensors) memory.tensors.push_back({planned, {}, {}, {}, {}});
  trace_lifetimes(method, memory.tensors);
  for (size_t id = 1; id < method.planned_buffer_sizes.size(); ++id) {
    std::vector<TensorLifetime> in_arena;
    for (const TensorLifetime& t : memory.tensors) {
      if (t.planned.arena == id) in_arena.push_back(t);
    }
    memory.arenas.push_back(arena_use(uint32_t(id), uint64_t(std::max<int64_t>(method.planned_buffer_sizes[id], 0)),
                                      in_arena, method.instructions.size()));
  }
  find_errors(memory.tensors, method.planned_buffer_sizes, alias_roots(method), memory.errors);
  return memory;
}

}  // namespace etkit::inspector
