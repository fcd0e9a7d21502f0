#include "AtomicFile.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "Errors.hpp"

namespace gtw {

namespace {

std::string temporary_for(const std::string& path) {
  const std::filesystem::path target(path);
  return (target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()))).string();
}

bool fsync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

void rename_over(const std::string& tmp, const std::string& path) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw RuntimeError("cannot rename " + tmp + " to " + path + ": " + std::strerror(err));
  }
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = temporary_for(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw RuntimeError("cannot write " + tmp + ": " + std::strerror(errno));
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fflush(f) == 0 &&
                  ::fsync(::fileno(f)) == 0;
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::remove(tmp.c_str());
    throw RuntimeError("cannot write " + tmp + ": " + std::strerror(ok ? errno : err));
  }
  rename_over(tmp, path);
}

void produce_file_atomic(const std::string& path, const std::function<void(const std::string& temporary)>& produce) {
  const std::string tmp = temporary_for(path);
  try {
    produce(tmp);
  } catch (const std::exception& e) {
    // The producer's handles are closed by now (unwinding), so the partial file can go.
    std::remove(tmp.c_str());
    throw RuntimeError("cannot write " + path + ": " + e.what());
  }
  // A library writing by name may not sync (HDF5's sec2 driver does not): make the bytes durable before
  // the rename publishes them.
  if (!fsync_file(tmp)) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw RuntimeError("cannot sync " + tmp + ": " + std::strerror(err));
  }
  rename_over(tmp, path);
}

bool try_write_file_atomic(const std::string& path, const std::string& content, std::string& error) {
  try {
    write_file_atomic(path, content);
    return true;
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

}  // namespace gtw
