#include "bulk_arenas.h"

#include <cstdint>
#include <cstring>

#if defined(__linux__)
#include <dlfcn.h>
#include <sys/mman.h>
#define ETKIT_BULK_ARENAS 1
#endif

namespace etkit::python {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kRegion = size_t(32) << 20;  // 32 arenas of 1 MiB per mmap

#if ETKIT_BULK_ARENAS
// Whether `allocator` is CPython's own (mmap/munmap on Linux): its
// functions live in the same file as the interpreter's PyObject_Malloc. A
// process that installed another arena allocator would free our slices
// with it, so then the guard stays out of the way.
bool is_cpythons_own(const PyObjectArenaAllocator& allocator) {
  Dl_info theirs{}, interpreter{};
  return dladdr(reinterpret_cast<void*>(allocator.alloc), &theirs) != 0 &&
         dladdr(reinterpret_cast<void*>(&PyObject_Malloc), &interpreter) != 0 && theirs.dli_fname != nullptr &&
         interpreter.dli_fname != nullptr && std::strcmp(theirs.dli_fname, interpreter.dli_fname) == 0;
}
#endif

}  // namespace

#if ETKIT_BULK_ARENAS

BulkArenas::BulkArenas() {
  PyObject_GetArenaAllocator(&previous_);
  engaged_ = is_cpythons_own(previous_);
  if (!engaged_) return;
  PyObjectArenaAllocator mine{this, &BulkArenas::allocate, &BulkArenas::release};
  PyObject_SetArenaAllocator(&mine);
}

BulkArenas::~BulkArenas() {
  if (!engaged_) return;
  PyObject_SetArenaAllocator(&previous_);
  if (left_ > 0) munmap(next_, left_);  // the region's unused tail
}

void* BulkArenas::allocate(void* self, size_t size) {
  auto* arenas = static_cast<BulkArenas*>(self);
  if (size > arenas->left_) {
    if (arenas->left_ > 0) munmap(arenas->next_, arenas->left_);
    arenas->left_ = 0;
    // Over-allocate by one huge page to align the region to one.
    const size_t mapped = kRegion + kHugePage;
    void* region = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) return arenas->previous_.alloc(arenas->previous_.ctx, size);
    char* begin = static_cast<char*>(region);
    char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(begin) + kHugePage - 1) & ~(kHugePage - 1));
    if (aligned > begin) munmap(begin, size_t(aligned - begin));
    const size_t tail = size_t(begin + mapped - (aligned + kRegion));
    if (tail > 0) munmap(aligned + kRegion, tail);
    madvise(aligned, kRegion, MADV_HUGEPAGE);  // a hint: ignored where THP is off
    arenas->next_ = aligned;
    arenas->left_ = kRegion;
    if (size > kRegion) return arenas->previous_.alloc(arenas->previous_.ctx, size);
  }
  void* arena = arenas->next_;
  arenas->next_ += size;
  arenas->left_ -= size;
  return arena;
}

void BulkArenas::release(void* self, void* pointer, size_t size) {
  // Ours and the previous allocator's arenas alike are mappings of their own
  // (CPython's default arena allocator is mmap/munmap on Linux).
  auto* arenas = static_cast<BulkArenas*>(self);
  arenas->previous_.free(arenas->previous_.ctx, pointer, size);
}

#else  // elsewhere CPython's arenas come from VirtualAlloc or malloc: left as they are

BulkArenas::BulkArenas() = default;
BulkArenas::~BulkArenas() = default;
void* BulkArenas::allocate(void*, size_t) { return nullptr; }
void BulkArenas::release(void*, void*, size_t) {}

#endif

}  // namespace etkit::python
