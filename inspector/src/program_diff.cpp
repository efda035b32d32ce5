#include "etkit/inspector/program_diff.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace etkit::inspector {
namespace {

std::vector<CountChange> count_changes(const std::map<std::string, int64_t>& a, const std::map<std::string, int64_t>& b) {
  std::map<std::string, CountChange> all;
  for (const auto& [name, count] : a) all[name] = {name, count, 0};
  for (const auto& [name, count] : b) {
    all.emplace(name, CountChange{name, 0, 0});
    all[name].new_count = count;
  }
  std::vector<CountChange> out;
  for (const auto& [name, change] : all) {
    if (change.old_count != change.new_count) out.push_back(change);
  }
  return out;
}

std::map<std::string, int64_t> calls(const MethodSummary& method, const char* kind) {
  std::map<std::string, int64_t> out;
  for (const InstructionSummary& i : method.instructions) {
    if (i.kind == kind) ++out[i.target];
  }
  return out;
}

// The size categories a diff compares: the headers, the flatbuffer, and
// each kind of segment content (a bundle's program counted as a program).
void categorize(const SizePart& part, std::map<std::string, int64_t>& out, bool top) {
  for (const SizePart& sub : part.parts) {
    const std::string& n = sub.name;
    if (n == "program (embedded .pte)") {
      categorize(sub, out, true);
    } else if (top && n == "segments") {
      for (const SizePart& segment : sub.parts) {
        const std::string& s = segment.name;
        const std::string category = s == "constants"                  ? "constants"
                                     : s.rfind("delegate ", 0) == 0     ? "delegate payloads"
                                     : s.rfind("named data", 0) == 0    ? "named data (delegate constants)"
                                     : s.rfind("mutable", 0) == 0       ? "mutable state"
                                     : s.rfind("alignment", 0) == 0     ? "segment padding"
                                                                        : "other segments";
        out[category] += int64_t(segment.bytes);
      }
    } else {
      out[n] += int64_t(sub.bytes);
    }
  }
}

std::string shape_text(const ProgramConstant& c) {
  std::string text = c.type + "[";
  for (size_t i = 0; i < c.sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(c.sizes[i]);
  return text + "]";
}

void diff_methods(const ProgramSummary& a, const ProgramSummary& b, ProgramDiff& diff) {
  std::map<std::string, const MethodSummary*> old_methods, new_methods;
  for (const auto& m : a.methods) old_methods[m.name] = &m;
  for (const auto& m : b.methods) new_methods[m.name] = &m;
  for (const auto& [name, m] : old_methods) {
    if (!new_methods.count(name)) diff.methods_removed.push_back(name);
  }
  for (const auto& [name, m] : new_methods) {
    const auto old = old_methods.find(name);
    if (old == old_methods.end()) {
      diff.methods_added.push_back(name);
      continue;
    }
    MethodChange change{name, int64_t(old->second->instruction_count), int64_t(m->instruction_count),
                        count_changes(calls(*old->second, "kernel"), calls(*m, "kernel")),
                        count_changes(calls(*old->second, "delegate"), calls(*m, "delegate"))};
    if (change.old_instructions != change.new_instructions || !change.operators.empty() || !change.delegates.empty()) {
      diff.methods.push_back(std::move(change));
    }
  }
}

// The largest |new - old| of two float32 constants of one size.
double max_abs_change(const ProgramConstant& o, const ProgramConstant& c) {
  double worst = 0;
  for (size_t i = 0; i + 4 <= o.data.size; i += 4) {
    float x, y;
    std::memcpy(&x, o.data.data + i, 4);
    std::memcpy(&y, c.data.data + i, 4);
    worst = std::max(worst, std::fabs(double(y) - double(x)));
  }
  return worst;
}

// Constants matched by key; unchanged ones only counted. What moved most
// first: changed constants by their largest change, then reshaped, added
// and removed ones by size.
void diff_constants(const std::vector<ProgramConstant>& a, const std::vector<ProgramConstant>& b, ProgramDiff& diff) {
  std::map<std::string, const ProgramConstant*> old_constants, new_constants;
  for (const auto& c : a) old_constants[c.key] = &c;
  for (const auto& c : b) new_constants[c.key] = &c;
  for (const auto& [key, c] : old_constants) {
    if (!new_constants.count(key)) diff.constants.push_back({key, "removed", shape_text(*c), "", c->data.size, 0});
  }
  for (const auto& [key, c] : new_constants) {
    const auto old = old_constants.find(key);
    if (old == old_constants.end()) {
      diff.constants.push_back({key, "added", "", shape_text(*c), 0, c->data.size});
      continue;
    }
    const ProgramConstant& o = *old->second;
    ConstantChange change{key, "changed", shape_text(o), shape_text(*c), o.data.size, c->data.size};
    if (o.type != c->type || o.sizes != c->sizes || o.data.size != c->data.size) {
      change.status = "reshaped";
    } else if (std::memcmp(o.data.data, c->data.data, o.data.size) == 0) {
      ++diff.constants_unchanged;
      continue;
    } else if (o.is_float32 && c->is_float32) {
      change.max_abs_change = max_abs_change(o, *c);
    }
    diff.constants.push_back(std::move(change));
  }
  const auto rank = [](const ConstantChange& c) {
    return c.status == "changed" ? 0 : c.status == "reshaped" ? 1 : c.status == "added" ? 2 : 3;
  };
  std::stable_sort(diff.constants.begin(), diff.constants.end(), [&](const ConstantChange& x, const ConstantChange& y) {
    if (rank(x) != rank(y)) return rank(x) < rank(y);
    const double cx = std::isnan(x.max_abs_change) ? -1 : x.max_abs_change;
    const double cy = std::isnan(y.max_abs_change) ? -1 : y.max_abs_change;
    if (cx != cy) return cx > cy;
    return std::max(x.old_bytes, x.new_bytes) > std::max(y.old_bytes, y.new_bytes);
  });
}

// Bytes per size category of either file, largest change first.
void diff_sizes(const SizePart& a, const SizePart& b, ProgramDiff& diff) {
  std::map<std::string, int64_t> old_sizes, new_sizes;
  categorize(a, old_sizes, true);
  categorize(b, new_sizes, true);
  std::map<std::string, SizeChange> sizes;
  for (const auto& [name, bytes] : old_sizes) sizes[name] = {name, bytes, 0};
  for (const auto& [name, bytes] : new_sizes) {
    sizes.emplace(name, SizeChange{name, 0, 0});
    sizes[name].new_bytes = bytes;
  }
  for (const auto& [name, change] : sizes) diff.sizes.push_back(change);
  std::stable_sort(diff.sizes.begin(), diff.sizes.end(), [](const SizeChange& x, const SizeChange& y) {
    return std::llabs(x.new_bytes - x.old_bytes) > std::llabs(y.new_bytes - y.old_bytes);
  });
}

}  // namespace

ProgramDiff diff_programs(const ProgramFacts& a, const ProgramFacts& b) {
  ProgramDiff diff;
  diff.old_file_bytes = int64_t(a.size->bytes);
  diff.new_file_bytes = int64_t(b.size->bytes);
  diff_methods(*a.summary, *b.summary, diff);
  diff_constants(*a.constants, *b.constants, diff);
  diff_sizes(*a.size, *b.size, diff);
  return diff;
}

}  // namespace etkit::inspector
