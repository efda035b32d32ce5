#pragma once
/// @file
/// A loaded, ready-to-run method of a program. Everything is prepared at
/// load: values, planned memory, constants, kernels and delegates, so
/// execute() allocates nothing, throws nothing and does no I/O.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/parallel.h"
#include "etkit/core/result.h"
#include "etkit/core/span.h"
#include "etkit/core/value.h"

namespace etkit {

class BackendRegistry;
class EventTracer;
class FlatTensor;
class KernelRegistry;
class Program;

struct MethodOptions {
  /// Kernels to resolve operators with (etkit/kernels/all_kernels.h has
  /// every op set); null for none, so any kernel call is reported missing.
  const KernelRegistry* kernels = nullptr;
  /// Delegate backends; a program with delegates fails to load without one.
  const BackendRegistry* backends = nullptr;
  /// Receives events; null for no tracing (a predictable branch per step).
  EventTracer* tracer = nullptr;
  /// External constant files searched by fully qualified name, in order.
  std::vector<const FlatTensor*> data_files;
  /// Caller-supplied planned memory by memory id (index 0 unused). When
  /// empty, the method allocates its arenas itself.
  std::vector<Span<uint8_t>> arenas;
  /// Caller-supplied kernel scratch (kKernelScratchBytes per worker, 64-byte
  /// aligned), which methods that never run at once may share; when empty
  /// or too small the method allocates its own.
  Span<uint8_t> kernel_scratch;
  /// Worker threads for the kernels (borrowed; must outlive the method);
  /// null runs every kernel on the calling thread. Results are the same
  /// for every worker count (etkit/core/parallel.h).
  const ParallelRunner* parallel = nullptr;
  /// Most bytes the method may allocate itself (arenas it plans, kernel
  /// scratch, float16/bfloat16 staging); 0 for no limit. Bounds what a
  /// file can make a device, or a fuzzer, allocate: loading fails with
  /// kOutOfMemory naming the need and the limit instead.
  size_t memory_limit = 0;
  /// The memory this machine has, in bytes (0: unknown). Planned arenas
  /// that need more are bad input (a corrupted size), refused naming the
  /// arena before anything is allocated, rather than an allocation failure.
  size_t available_memory = 0;
};

namespace detail {
struct MethodState;
}

class Method {
 public:
  /// Loads method `name`. On failure the error lists every missing kernel,
  /// or names the missing backend, the bad argument or the missing
  /// external constant key.
  static Result<std::unique_ptr<Method>> load(const Program& program, const std::string& name,
                                              const MethodOptions& options = {});
  ~Method();
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;

  const std::string& name() const;
  size_t input_count() const;
  size_t output_count() const;
  size_t instruction_count() const;
  /// Events one execute() reports to a tracer: Method::execute, two per
  /// kernel call and one per delegate call, plus, when values are logged,
  /// one per out argument and per output. Delegate-internal events are the
  /// backend's and not counted. Lets callers size a tracer's buffer.
  size_t trace_events_per_execute(bool with_values) const;

  /// The value an input or output index refers to. A tensor input's sizes
  /// are its upper bound when it is not static.
  const Value& input(size_t index) const;
  /// Whether tensor input `index` has a static shape (set_input refuses
  /// other sizes); false for dynamic inputs and non-tensors.
  bool input_is_static(size_t index) const;
  const Value& output(size_t index) const;

  /// Sets tensor input `index`: copies into its planned memory, or borrows
  /// `tensor`'s data when the input has none (it must outlive execute()).
  /// Dtype must match; sizes must match, or fit the bound of a dynamic
  /// input.
  Status set_input(size_t index, const Tensor& tensor);
  /// Sets a scalar input (Int, Double or Bool) of a method.
  Status set_input(size_t index, const Value& scalar);

  /// Runs every instruction. Errors name the instruction and operator.
  /// Planned memory is not cleared between executions: a mutable buffer
  /// (a KV cache) keeps what the last execute wrote, as upstream's runtime.
  Status execute();

  /// Puts planned memory back as load left it: zeroed, with every mutable
  /// buffer's initial state copied in again (inputs must be set again).
  void reset_state();
  /// Takes the planned memory of `other`, a copy of this method loaded from
  /// the same program (e.g. one loaded with a tracer): what its executions
  /// left in mutable buffers (a KV cache) continues here. Fails, changing
  /// nothing, when the two are not copies of one method.
  Status copy_state_from(const Method& other);
  /// Value indices of the mutable buffers that carry an initial state.
  std::vector<size_t> initial_state_values() const;

  /// Sets the tracer for later executions (e.g. a fresh trace per run).
  void set_tracer(EventTracer* tracer);

 private:
  Method();
  std::unique_ptr<detail::MethodState> state_;
};

}  // namespace etkit
