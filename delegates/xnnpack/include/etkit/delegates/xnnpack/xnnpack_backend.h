#pragma once
/// @file
/// The XNNPACK delegate backend ("XnnpackBackend"): runs upstream's XNNPACK
/// payloads on Debian's XNNPACK, nodes that XNNPACK lacks on etkit's
/// portable kernels inside the same call. Untraced, consecutive XNNPACK
/// nodes run as one fused runtime; with a tracer at load, every node gets
/// its own small runtime so each reports its own time (this XNNPACK has no
/// per-operator profiling), and the trace's events say so in their
/// metadata.

#include <memory>
#include <string>

#include "etkit/core/backend.h"

namespace etkit::xnnpack {

struct XnnpackOptions {
  /// Threads of XNNPACK's pool: 1 runs on the caller's thread, 0 uses
  /// every core.
  int threads = 1;
  /// A pthreadpool (pthreadpool_t) to run on instead, shared with the
  /// caller (borrowed: it must outlive the backend); `threads` is then unused.
  void* threadpool = nullptr;
  /// Receives one line per delegate at load (node split, fallbacks);
  /// null for silence.
  void (*log)(const std::string& line) = nullptr;
};

class XnnpackBackend final : public Backend {
 public:
  explicit XnnpackBackend(XnnpackOptions options = {});
  ~XnnpackBackend() override;
  XnnpackBackend(const XnnpackBackend&) = delete;
  XnnpackBackend& operator=(const XnnpackBackend&) = delete;

  bool is_available() const override;
  Result<void*> init(const BackendInitContext& context, ByteSpan processed,
                     Span<const CompileSpec> specs) override;
  Status execute(BackendExecutionContext& context, void* handle, Span<Value*> args) override;
  void destroy(void* handle) override;
  size_t trace_events_per_execute(void* handle, bool with_values) const override;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

/// The backend id programs name.
constexpr const char* kXnnpackBackendId = "XnnpackBackend";

}  // namespace etkit::xnnpack
