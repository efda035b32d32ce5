#include "etkit/core/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <utility>
#if defined(__unix__)
#include <unistd.h>
#endif

namespace etkit {
namespace {

// A sibling of `path`, so the rename stays within one file system; the
// process id keeps two writers of the same name apart. Bare-metal boards
// write through semihosting, which cannot rename: there the file is
// written in place (the host that reads it back puts it in place
// atomically, cli/src/device_target.cpp).
std::string temporary_name(const std::string& path) {
#if defined(__unix__)
  return path + ".partial-" + std::to_string(::getpid());
#else
  return path;
#endif
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  AtomicFile f;
  f.path_ = path;
  f.temporary_ = temporary_name(path);
  f.file_ = std::fopen(f.temporary_.c_str(), "wb");
  if (f.file_ == nullptr) {
    return Error::make(ErrorCode::kIo, "%s: cannot write: %s", path.c_str(), std::strerror(errno));
  }
  return f;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)), temporary_(std::move(other.temporary_)), file_(other.file_) {
  other.file_ = nullptr;
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temporary_ = std::move(other.temporary_);
    file_ = other.file_;
    other.file_ = nullptr;
  }
  return *this;
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  file_ = nullptr;
  std::remove(temporary_.c_str());
}

Status AtomicFile::commit() {
  if (file_ == nullptr) return Error::make(ErrorCode::kInternal, "%s: already written", path_.c_str());
  const bool flushed = std::fflush(file_) == 0 && !std::ferror(file_);
  const int flush_errno = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    std::remove(temporary_.c_str());
    return Error::make(ErrorCode::kIo, "%s: cannot write: %s", path_.c_str(), std::strerror(flushed ? errno : flush_errno));
  }
  if (temporary_ != path_ && std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(temporary_.c_str());
    return Error::make(ErrorCode::kIo, "%s: cannot write: %s", path_.c_str(), std::strerror(rename_errno));
  }
  return Ok{};
}

Status write_file_atomically(const std::string& path, ByteSpan bytes) {
  ETKIT_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::create(path));
  if (bytes.size > 0 && std::fwrite(bytes.data, 1, bytes.size, f.file()) != bytes.size) {
    return Error::make(ErrorCode::kIo, "%s: cannot write: %s", path.c_str(), std::strerror(errno));
  }
  return f.commit();
}

}  // namespace etkit
