#include "etkit/session/runtime_threads.h"

#include <thread>

#ifdef ETKIT_HAS_PTHREADPOOL
#include <pthreadpool.h>
#endif

namespace etkit::session {

size_t machine_cores() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? cores : 1;
}

#ifdef ETKIT_HAS_PTHREADPOOL
namespace {

void run_on_pool(void* pool, size_t tasks, void (*task)(void*, size_t), void* context) {
  pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(pool), task, context, tasks, 0);
}

}  // namespace

RuntimeThreads::RuntimeThreads(int threads) {
  const size_t wanted = threads <= 0 ? machine_cores() : size_t(threads);
  if (wanted <= 1) return;
  pthreadpool_t pool = pthreadpool_create(wanted);
  if (pool == nullptr) return;  // no threads to be had: one thread, as asked for 1
  runner_.pool = pool;
  runner_.workers = pthreadpool_get_threads_count(pool);
  runner_.run = &run_on_pool;
}

RuntimeThreads::~RuntimeThreads() {
  if (runner_.pool != nullptr) pthreadpool_destroy(static_cast<pthreadpool_t>(runner_.pool));
}
#else
RuntimeThreads::RuntimeThreads(int) {}
RuntimeThreads::~RuntimeThreads() = default;
#endif

}  // namespace etkit::session
