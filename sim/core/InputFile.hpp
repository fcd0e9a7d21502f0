#pragma once
// The one way gputwin reads an input file (scenario, $ref fragment, hardware profile, trace, CSV,
// nvidia-smi text, test and sweep files, reports, audit logs, calibration recordings).
//
// Files come from hand edits and from other systems, so every reader goes through here:
//   - only regular files: a FIFO would block forever, a device (/dev/zero) never ends, a directory
//     has no bytes; /proc and /sys pseudo-files report a size of 0 and change while read;
//   - a size cap per kind, checked before reading and again while reading (a file may grow);
//   - text kinds must be UTF-8 without NUL or other control bytes (tab, CR and LF allowed).
// A refused file gives one located error ("file:line:col: error: ...") and no content.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "Diagnostics.hpp"

namespace gtw {

enum class InputKind {
  SCENARIO,     // scenario YAML and its $ref fragments
  PROFILE,      // hardware profile YAML
  TRACE_CSV,    // request traces, openb node/pod/arrival lists
  NVIDIA_SMI,   // saved `nvidia-smi topo -m` / `mig -lgi` / `mig -lci` output
  TEST_YAML,    // *.test.yaml and sweep files
  REPORT_JSON,  // report.json read back by test, diff and the GUI
  AUDIT_LOG,    // audit.jsonl
  CALIBRATION,  // raw calibration samples (JSON)
  BINARY,       // files only checked for kind and size (HDF5)
};

struct InputLimits {
  uintmax_t max_bytes;
  bool text;              // UTF-8, no NUL or control bytes
  std::string_view what;  // "scenario file", used in messages
};

InputLimits input_limits(InputKind kind);

/// Reads `path` whole. On refusal records one error at `from` (the place that named the file; the
/// file itself when empty) under YAML path `field`, and returns nullopt.
std::optional<std::string> read_input_file(const std::string& path, InputKind kind, Diagnostics& diags,
                                           const SourceLoc& from = {}, const std::string& field = {});

/// The same, throwing gtw::InputError with the formatted diagnostic ("file:line:col: error: ...").
std::string read_input_file_or_throw(const std::string& path, InputKind kind);

/// Checks only what the file is (regular, not a pseudo-file, within the cap), for readers that open the
/// file themselves (HDF5). Returns false after recording an error.
bool check_input_file(const std::string& path, InputKind kind, Diagnostics& diags, const SourceLoc& from = {},
                      const std::string& field = {});

/// UTF-8 and control-byte check of text already in memory (e.g. a --set value); records an error at the
/// offending byte's line:col of `file` and returns false.
bool check_text_bytes(std::string_view text, const std::string& file, std::string_view what, Diagnostics& diags);

/// Most YAML nodes a text may hold, counted from above as one per line and one per ',' (a flow list):
/// yaml-cpp spends ~500 bytes and ~6 us per node, so an 8 MiB flow list would take 2 GB and 26 s.
inline constexpr size_t MAX_YAML_ITEMS = 400'000;

/// Records an error and returns false when `text` could hold more than MAX_YAML_ITEMS nodes.
bool check_yaml_item_count(std::string_view text, const std::string& file, Diagnostics& diags);

/// Length of the UTF-8 sequence starting at text[i] (1-4), or 0 when it is not valid UTF-8.
size_t utf8_sequence_length(std::string_view text, size_t i);

}  // namespace gtw
