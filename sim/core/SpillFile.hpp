// An unnamed temporary file that large in-memory tables spill to (the event log's blocks, the analysis' busy
// intervals): appended to, read back at the offsets appends returned. Nothing is left on disk: the file has no
// name and goes with the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gtw {

/// A developer knob of the spilling tables (the event log's and the analysis' resident budgets and page sizes),
/// read from the environment: a whole number in [least, most]; unset, empty or anything else keeps `fallback`.
size_t spill_knob(const char* name, size_t fallback, size_t least, size_t most);

class SpillFile {
 public:
  SpillFile() = default;
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile();

  /// Makes the file in $TMPDIR (else /tmp): O_TMPFILE where the file system has it, else a named file unlinked at
  /// once. False when none can be made (callers then keep their data in memory).
  bool open(const std::string& name_prefix);
  bool is_open() const { return fd_ >= 0; }

  /// Appends `bytes` bytes; the offset they start at, or -1 when the write fails (then nothing is recorded and
  /// the next append writes over what was partly written).
  int64_t append(const void* data, size_t bytes);

  /// Reads `bytes` bytes at `offset` into `out`; throws std::system_error saying it could not read back `what`.
  void read(int64_t offset, void* out, size_t bytes, const std::string& what) const;

 private:
  int fd_ = -1;
  int64_t end_ = 0;  // bytes written
};

}  // namespace gtw
