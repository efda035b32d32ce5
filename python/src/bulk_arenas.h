#pragma once
// Faster first touch for calls that create millions of Python objects.
//
// CPython's small-object allocator takes 1 MiB arenas from mmap one at a
// time; every 4 KB page of them then costs the kernel a page fault on first
// write. Building a million-row dataframe touches ~0.5 GB that way, and the
// faults were 38% of to_dataframe()'s time (perf). While a BulkArenas guard
// lives, arenas are carved out of large regions the kernel is asked to back
// with transparent huge pages (one fault per 2 MiB instead of 512) when it
// allows them. Each arena is still its own mapping's slice that the default
// allocator's munmap releases, so arenas outliving the guard are freed as
// usual: that needs CPython's own arena allocator, mmap and munmap, which
// Linux builds use; the guard checks that it is the one installed, and does
// nothing otherwise (or off Linux). Only
// constructed with the GIL held (no other thread allocates Python objects
// meanwhile). Measured on the 1M-row bench trace: columns 2.1x the CLI's
// whole table without it, 1.3-1.6x with it (bench/python_inspector_bench.py).

#include <Python.h>

#include <cstddef>

namespace etkit::python {

class BulkArenas {
 public:
  BulkArenas();
  ~BulkArenas();
  BulkArenas(const BulkArenas&) = delete;
  BulkArenas& operator=(const BulkArenas&) = delete;

 private:
  static void* allocate(void* self, size_t size);
  static void release(void* self, void* pointer, size_t size);

  PyObjectArenaAllocator previous_{};
  bool engaged_ = false;  // only over CPython's own arena allocator
  char* next_ = nullptr;  // unused part of the current region
  size_t left_ = 0;
};

}  // namespace etkit::python
