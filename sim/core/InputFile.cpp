#include "InputFile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "Errors.hpp"
#include "Units.hpp"

namespace gtw {

namespace {

constexpr uintmax_t KIB = 1024, MIB = KIB * KIB;

// Pseudo file systems whose files report a size of 0 (or 4096) and are produced while read.
constexpr long PROC_SUPER_MAGIC_ = 0x9fa0, SYSFS_MAGIC_ = 0x62656572, DEBUGFS_MAGIC_ = 0x64626720,
               CGROUP2_MAGIC_ = 0x63677270, CGROUP_MAGIC_ = 0x27e0eb, SECURITYFS_MAGIC_ = 0x73636673,
               TRACEFS_MAGIC_ = 0x74726163;

bool pseudo_filesystem(long type) {
  for (long t : {PROC_SUPER_MAGIC_, SYSFS_MAGIC_, DEBUGFS_MAGIC_, CGROUP2_MAGIC_, CGROUP_MAGIC_, SECURITYFS_MAGIC_,
                 TRACEFS_MAGIC_})
    if (type == t) return true;
  return false;
}

std::string hex_byte(unsigned char c) {
  return std::string(1, "0123456789abcdef"[c >> 4]) + std::string(1, "0123456789abcdef"[c & 15]);
}

std::string file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory, not a file";
  if (S_ISFIFO(mode)) return "it is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(mode)) return "it is a character device, not a regular file";
  if (S_ISBLK(mode)) return "it is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens and checks `path`; on success returns the descriptor and its size.
std::optional<std::string> open_checked(const std::string& path, const InputLimits& limits, Fd& out, uintmax_t& size) {
  if (path.empty()) return std::string("no file name given");
  if (path.find('\0') != std::string::npos) return std::string("the file name contains a NUL byte");
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  out.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (out.fd < 0) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) return std::string("no such file");
    if (e == ENAMETOOLONG) return std::string("the file name is too long");
    return std::string(std::strerror(e));
  }
  struct stat st {};
  if (::fstat(out.fd, &st) != 0) return std::string(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return file_type_name(st.st_mode);
  struct statfs fs {};
  if (::fstatfs(out.fd, &fs) == 0 && pseudo_filesystem(static_cast<long>(fs.f_type)))
    return std::string("it is a kernel pseudo-file (/proc, /sys), not a regular file");
  size = static_cast<uintmax_t>(st.st_size);
  if (size > limits.max_bytes) {
    std::string have = format_bytes(Bytes(static_cast<double>(size)));
    const std::string cap = format_bytes(Bytes(static_cast<double>(limits.max_bytes)));
    if (have == cap) have = std::to_string(size) + " bytes";  // rounding would hide the difference
    return "file is " + have + "; " + std::string(limits.what) + "s are limited to " + cap;
  }
  return std::nullopt;
}

std::string located_message(const std::string& path, const std::string& problem) {
  return "cannot read '" + path + "': " + problem;
}

}  // namespace

InputLimits input_limits(InputKind kind) {
  switch (kind) {
    case InputKind::SCENARIO:
      return {8 * MIB, true, "scenario file"};
    case InputKind::PROFILE:
      return {1 * MIB, true, "hardware profile"};
    case InputKind::TRACE_CSV:
      return {64 * MIB, true, "trace file"};
    case InputKind::NVIDIA_SMI:
      return {1 * MIB, true, "nvidia-smi listing"};
    case InputKind::TEST_YAML:
      return {1 * MIB, true, "test or sweep file"};
    case InputKind::REPORT_JSON:
      return {256 * MIB, true, "report file"};
    case InputKind::AUDIT_LOG:
      return {256 * MIB, true, "audit log"};
    case InputKind::CALIBRATION:
      return {64 * MIB, true, "calibration recording"};
    case InputKind::BINARY:
      return {4096 * MIB, false, "result file"};
  }
  return {1 * MIB, true, "input file"};
}

size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto b = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  const unsigned c = b(i);
  size_t n = 0;
  unsigned lo = 0x80, hi = 0xbf;  // allowed range of the second byte (no overlongs, surrogates, > U+10FFFF)
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xbf) return 0;
  return n;
}

bool check_text_bytes(std::string_view text, const std::string& file, std::string_view what, Diagnostics& diags) {
  int line = 1, col = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) {
      diags.error(SourceLoc{file, line, col}, "",
                  "file is not " + std::string(what) + " (control byte 0x" + hex_byte(c) + " at byte offset " +
                      std::to_string(i) + ")");
      return false;
    }
    if (c >= 0x80) {
      const size_t n = utf8_sequence_length(text, i);
      if (n == 0) {
        diags.error(SourceLoc{file, line, col}, "",
                    "file is not valid UTF-8 (byte 0x" + hex_byte(c) + " at byte offset " + std::to_string(i) + ")");
        return false;
      }
      i += n - 1;
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return true;
}

bool check_yaml_item_count(std::string_view text, const std::string& file, Diagnostics& diags) {
  size_t items = 0;
  for (const char ch : text) items += ch == '\n' || ch == ',';
  if (items <= MAX_YAML_ITEMS) return true;
  diags.error(SourceLoc{file, 0, 0}, "",
              "file has " + std::to_string(items) + " lines and list separators; a YAML input holds at most " +
                  std::to_string(MAX_YAML_ITEMS) + " (put bulk data in a trace file)");
  return false;
}

bool check_input_file(const std::string& path, InputKind kind, Diagnostics& diags, const SourceLoc& from,
                      const std::string& field) {
  Fd fd{-1};
  uintmax_t size = 0;
  if (auto problem = open_checked(path, input_limits(kind), fd, size)) {
    diags.error(from.file.empty() ? SourceLoc{path, 0, 0} : from, field, located_message(path, *problem));
    return false;
  }
  return true;
}

std::optional<std::string> read_input_file(const std::string& path, InputKind kind, Diagnostics& diags,
                                           const SourceLoc& from, const std::string& field) {
  const InputLimits limits = input_limits(kind);
  const SourceLoc at = from.file.empty() ? SourceLoc{path, 0, 0} : from;
  Fd fd{-1};
  uintmax_t size = 0;
  if (auto problem = open_checked(path, limits, fd, size)) {
    diags.error(at, field, located_message(path, *problem));
    return std::nullopt;
  }
  std::string text;
  text.resize(static_cast<size_t>(size));
  size_t have = 0;
  while (true) {
    if (have == text.size()) {
      // The file grew since fstat: read on, within the cap.
      if (text.size() > limits.max_bytes) {
        diags.error(at, field,
                    located_message(path, "file grows past the limit of " +
                                              format_bytes(Bytes(static_cast<double>(limits.max_bytes))) + " for " +
                                              std::string(limits.what) + "s"));
        return std::nullopt;
      }
      text.resize(std::min<uintmax_t>(limits.max_bytes + 1, text.size() + 64 * KIB));
    }
    const ssize_t n = ::read(fd.fd, text.data() + have, text.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      diags.error(at, field, located_message(path, std::strerror(errno)));
      return std::nullopt;
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  text.resize(have);
  if (limits.text) {
    const std::string what = kind == InputKind::SCENARIO || kind == InputKind::PROFILE || kind == InputKind::TEST_YAML
                                 ? "YAML text"
                                 : "text";
    if (!check_text_bytes(text, path, what, diags)) return std::nullopt;
  }
  return text;
}

std::string read_input_file_or_throw(const std::string& path, InputKind kind) {
  Diagnostics diags;
  auto text = read_input_file(path, kind, diags);
  if (!text) {
    // "file[:line:col]: error: message", as the trace readers format their own InputErrors.
    throw InputError(diags.all().front().format());
  }
  return *text;
}

}  // namespace gtw
