#pragma once
/// @file
/// Kernels by operator name ("namespace::name.overload"). Each kernel
/// declares its argument signature so a method is checked at load, not when
/// an instruction first runs.

#include <string>
#include <unordered_map>
#include <vector>

#include "etkit/core/parallel.h"
#include "etkit/core/result.h"
#include "etkit/core/span.h"
#include "etkit/core/value.h"

namespace etkit {

/// Passed to every kernel call. Kernels must not allocate: temporary
/// memory (GEMM packing, convolution tiles) comes from `scratch`, which the
/// method allocates once at load.
struct KernelContext {
  const char* op_name = "";  ///< "aten::add.out", for error messages.
  Span<uint8_t> scratch;     ///< 64-byte aligned, kKernelScratchBytes long: worker 0's.
  /// The runtime's workers (null: this thread only), and one scratch area
  /// of kKernelScratchBytes per worker, back to back (the first is
  /// `scratch`): etkit/kernels/parallel.h spreads a kernel's work over them.
  const ParallelRunner* parallel = nullptr;
  Span<uint8_t> worker_scratch;
};

/// Scratch bytes every kernel may use (enough for blocked GEMM panels and
/// convolution tiles).
constexpr size_t kKernelScratchBytes = 4u << 20;

/// A kernel reads and writes its arguments in place; out tensors are
/// resized by the kernel within their capacity.
using KernelFunction = Status (*)(KernelContext& context, Span<Value*> args);

/// One letter per argument, checked against value tags at method load:
///   T tensor            t optional tensor (tensor or None)
///   W out tensor (written by the kernel)
///   i int               n optional int       d double (or int)
///   e optional double   c optional bool      E optional double list
///   s scalar (int, double or bool)           o optional scalar
///   b bool              S string (or None)
///   I int list          J optional int list  D double list   B bool list
///   L tensor list (read) M tensor list (written) O optional tensor list
///   x anything
/// A trailing "W" for the returned out tensor is part of the signature, as
/// upstream programs pass it (e.g. add.out is "TTsWW").
struct KernelEntry {
  KernelFunction function = nullptr;
  std::string signature;
};

class KernelRegistry {
 public:
  /// Registers `name`; a second registration of a name replaces the first
  /// (so tests and integrations can override kernels).
  void add(const std::string& name, KernelFunction function, std::string signature);
  const KernelEntry* find(const std::string& name) const;
  size_t size() const { return kernels_.size(); }
  /// Calls of add() so far: more than size() when a name was registered twice.
  size_t additions() const { return additions_; }
  std::vector<std::string> names() const;

 private:
  std::unordered_map<std::string, KernelEntry> kernels_;
  size_t additions_ = 0;
};

// Kernels are registered by op set: etkit/kernels/op_sets.h, and
// etkit/kernels/all_kernels.h for every set.

}  // namespace etkit

/// Registers a kernel inside a register_* function:
///   ETKIT_REGISTER_KERNEL(registry, "aten::add.out", "TTsWW", add_out);
#define ETKIT_REGISTER_KERNEL(registry, name, signature, function) \
  (registry).add((name), (function), (signature))
