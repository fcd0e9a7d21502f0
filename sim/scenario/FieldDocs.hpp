#pragma once
// The scenario schema as a table: every accepted key, its type and its meaning. The loader takes
// the set of known keys of each mapping from this table (so an undocumented key cannot be
// accepted), and `gputwin explain` prints it.
#include <string>
#include <string_view>
#include <vector>

namespace gtw {

struct FieldDoc {
  std::string_view path;  // normalised: list items are written "[]", e.g. spec.tenants[].slos[].window
  std::string_view type;  // "string", "int", "duration", "bandwidth", "enum: a|b", "mapping", "list", ...
  std::string_view help;
};

const std::vector<FieldDoc>& field_docs();

/// The valid range of a numeric field, in the unit's base (seconds, bytes, bytes/s, 1/s, FLOP, or the
/// number itself), both ends included. Every int, number, count, duration, size, rate, bandwidth and
/// flops field of the schema has one; the loader refuses values outside it with the range in the message.
struct FieldRange {
  std::string_view path;
  double min = 0;
  double max = 0;
};

const std::vector<FieldRange>& field_ranges();
/// The range of normalised path `path`, or nullptr.
const FieldRange* field_range(std::string_view path);
/// "1ms..366d", "1..48", "0B..1PiB": the range written in the field's own unit (for messages and explain).
std::string format_field_range(const FieldRange& range, std::string_view type);
/// One end of a range in the field's unit ("1ms", "16.0 TiB", "1e-09").
std::string format_field_value(double value, std::string_view type);
/// The documented type of normalised path `path` ("" when undocumented).
std::string_view field_type(std::string_view path);
/// Whether a field of this documented type is numeric (and so must have a range).
bool numeric_field_type(std::string_view type);
/// Known child keys of the mapping at `pattern` (normalised path).
std::vector<std::string> known_keys(std::string_view pattern);
/// Entries at or below `path` (prefix match on the normalised path).
std::vector<const FieldDoc*> explain(std::string_view path);
/// The documented field closest to `path` (for did-you-mean), or empty when nothing is close.
std::string closest_field(std::string_view path);
/// "spec.workloads[3].arrival" -> "spec.workloads[].arrival"; "[chat]" selectors too.
std::string normalise_path(std::string_view path);

}  // namespace gtw
