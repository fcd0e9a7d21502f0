#pragma once
// Shared by the fuzz targets (tests/fuzz/Fuzz*.cpp): a scratch directory made once per process, for the
// readers that take a path rather than text.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace gtw::fuzz {

class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = (tmp && *tmp) ? tmp : "/tmp";
    std::string tmpl = base + "/gtw-fuzz-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) {
      std::perror("gtw fuzz: mkdtemp");
      std::abort();  // a harness failure, not a finding
    }
    path_ = buf.data();
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// The process's scratch directory (removed at normal exit; a crashed run leaves it in $TMPDIR).
inline const ScratchDir& scratch_dir() {
  static const ScratchDir dir;
  return dir;
}

/// Writes the bytes to <scratch>/<name>, replacing what was there, and returns the path.
inline std::string write_scratch(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = scratch_dir().path() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (size > 0) out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "gtw fuzz: cannot write %s\n", path.c_str());
    std::abort();  // a harness failure, not a finding
  }
  return path;
}

/// Whether a check is switched off with GTW_FUZZ_SKIP=name[,name...]: for fuzzing on past a known finding
/// that every input hits, until it is fixed (the replay tests and CI leave it on).
inline bool skipped(const char* check) {
  static const std::string list = [] {
    const char* v = std::getenv("GTW_FUZZ_SKIP");
    return "," + std::string(v ? v : "") + ",";
  }();
  return list.find("," + std::string(check) + ",") != std::string::npos;
}

/// A failed harness invariant: a finding, reported like a crash.
[[noreturn]] inline void invariant_failed(const char* what) {
  std::fprintf(stderr, "gtw fuzz: invariant failed: %s\n", what);
  std::abort();
}

}  // namespace gtw::fuzz

#define GTW_FUZZ_CHECK(cond)                                             \
  do {                                                                   \
    if (!(cond)) ::gtw::fuzz::invariant_failed(#cond " (" __FILE__ ")"); \
  } while (0)
