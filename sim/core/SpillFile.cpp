#include "SpillFile.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace gtw {

size_t spill_knob(const char* name, size_t fallback, size_t least, size_t most) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0' || *env == '-') return fallback;  // strtoull would take "-1" as its maximum
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(env, &end, 10);
  return *end == '\0' && errno == 0 && n >= least && n <= most ? static_cast<size_t>(n) : fallback;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool SpillFile::open(const std::string& name_prefix) {
  if (fd_ >= 0) return true;
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
#ifdef O_TMPFILE
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd_ < 0) {  // no O_TMPFILE on this file system: a named file, unlinked at once
    std::string path = dir + "/" + name_prefix + "-XXXXXX";
    fd_ = ::mkstemp(path.data());
    if (fd_ >= 0) ::unlink(path.c_str());
  }
  return fd_ >= 0;
}

int64_t SpillFile::append(const void* data, size_t bytes) {
  if (fd_ < 0) return -1;
  const char* p = static_cast<const char*>(data);
  size_t left = bytes;
  int64_t at = end_;
  while (left > 0) {
    const ssize_t n = ::pwrite(fd_, p, left, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    left -= static_cast<size_t>(n);
    at += n;
  }
  const int64_t start = end_;
  end_ = at;
  return start;
}

void SpillFile::read(int64_t offset, void* out, size_t bytes, const std::string& what) const {
  char* p = static_cast<char*>(out);
  size_t left = bytes;
  int64_t at = offset;
  while (left > 0) {
    const ssize_t n = ::pread(fd_, p, left, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::system_error(n < 0 ? errno : EIO, std::generic_category(), "cannot read back " + what);
    p += n;
    left -= static_cast<size_t>(n);
    at += n;
  }
}

}  // namespace gtw
