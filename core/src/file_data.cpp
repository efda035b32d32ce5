#include "etkit/core/file_data.h"

#if defined(__unix__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

namespace etkit {
namespace {

// Buffers we allocate ourselves are aligned like a mapping would be for the
// purposes of flatbuffers (which checks scalar alignment) and SIMD kernels.
constexpr std::align_val_t kAlignment{64};

// Files smaller than this are read rather than mapped: a mapping costs a
// page table entry and a fault, more than copying a few KiB.
constexpr size_t kMapThreshold = 16 * 1024;

uint8_t* allocate_aligned(size_t size) {
  return static_cast<uint8_t*>(
      ::operator new(size == 0 ? 1 : size, kAlignment, std::nothrow));
}

#if defined(__unix__)
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};
#endif

}  // namespace

FileData::~FileData() {
  if (mapped_) {
#if defined(__unix__)
    ::munmap(const_cast<uint8_t*>(data_), size_);
#endif
  } else {
    ::operator delete(const_cast<uint8_t*>(data_), kAlignment);
  }
}

std::shared_ptr<const FileData> FileData::copy_of(ByteSpan bytes,
                                                  std::string name) {
  std::shared_ptr<FileData> file(new FileData());
  file->path_ = std::move(name);
  uint8_t* copy = allocate_aligned(bytes.size);
  if (copy != nullptr && bytes.size > 0) {
    std::memcpy(copy, bytes.data, bytes.size);
  }
  file->data_ = copy;
  file->size_ = copy != nullptr ? bytes.size : 0;
  return file;
}

#if defined(__unix__)
Result<std::shared_ptr<const FileData>> FileData::load(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Error::make(ErrorCode::kIo, "%s: cannot open: %s", path.c_str(),
                       std::strerror(errno));
  }
  FdCloser closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return Error::make(ErrorCode::kIo, "%s: cannot stat: %s", path.c_str(),
                       std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    return Error::make(ErrorCode::kIo, "%s: is a directory", path.c_str());
  }
  std::shared_ptr<FileData> file(new FileData());
  file->path_ = path;
  const bool regular = S_ISREG(info.st_mode);
  const size_t size = regular ? static_cast<size_t>(info.st_size) : 0;
  if (regular && size >= kMapThreshold) {
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping != MAP_FAILED) {
      file->data_ = static_cast<const uint8_t*>(mapping);
      file->size_ = size;
      file->mapped_ = true;
      return std::shared_ptr<const FileData>(std::move(file));
    }
  }
  // Read path: small files, pipes and anything mmap refused. Read until EOF
  // rather than trusting st_size, which is 0 for pipes.
  std::vector<uint8_t> bytes;
  bytes.reserve(size);
  uint8_t chunk[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return Error::make(ErrorCode::kIo, "%s: read failed: %s", path.c_str(),
                         std::strerror(errno));
    }
    if (n == 0) {
      break;
    }
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  uint8_t* copy = allocate_aligned(bytes.size());
  if (copy == nullptr) {
    return Error::make(ErrorCode::kOutOfMemory, "%s: cannot allocate %zu bytes",
                       path.c_str(), bytes.size());
  }
  if (!bytes.empty()) {
    std::memcpy(copy, bytes.data(), bytes.size());
  }
  file->data_ = copy;
  file->size_ = bytes.size();
  return std::shared_ptr<const FileData>(std::move(file));
}

#else
// Devices without mmap (bare metal, files through semihosting): one read
// of the whole file into one aligned buffer, so a large program is never
// held twice.
Result<std::shared_ptr<const FileData>> FileData::load(
    const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return Error::make(ErrorCode::kIo, "%s: cannot open: %s", path.c_str(),
                       std::strerror(errno));
  }
  long size = -1;
  if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
  if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) {
    std::fclose(f);
    return Error::make(ErrorCode::kIo, "%s: cannot find the file's size", path.c_str());
  }
  uint8_t* copy = allocate_aligned(static_cast<size_t>(size));
  if (copy == nullptr) {
    std::fclose(f);
    return Error::make(ErrorCode::kOutOfMemory, "%s: cannot allocate %ld bytes",
                       path.c_str(), size);
  }
  const size_t read = std::fread(copy, 1, static_cast<size_t>(size), f);
  std::fclose(f);
  std::shared_ptr<FileData> file(new FileData());
  file->path_ = path;
  file->data_ = copy;
  file->size_ = read;
  if (read != static_cast<size_t>(size)) {
    return Error::make(ErrorCode::kIo, "%s: read %zu of %ld bytes", path.c_str(), read, size);
  }
  return std::shared_ptr<const FileData>(std::move(file));
}
#endif

}  // namespace etkit
