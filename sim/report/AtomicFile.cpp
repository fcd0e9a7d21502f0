#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sim/core/Errors.hpp"
#include "sim/report/Writers.hpp"

namespace gtw {

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  const std::string tmp =
      (target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()))).string();
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw RuntimeError("cannot write " + tmp + ": " + std::strerror(errno));
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fflush(f) == 0 &&
                  ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::remove(tmp.c_str());
    throw RuntimeError("cannot write " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw RuntimeError("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
}

}  // namespace gtw
