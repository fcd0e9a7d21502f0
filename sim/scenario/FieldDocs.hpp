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
/// Known child keys of the mapping at `pattern` (normalised path).
std::vector<std::string> known_keys(std::string_view pattern);
/// Entries at or below `path` (prefix match on the normalised path).
std::vector<const FieldDoc*> explain(std::string_view path);
/// The documented field closest to `path` (for did-you-mean), or empty when nothing is close.
std::string closest_field(std::string_view path);
/// "spec.workloads[3].arrival" -> "spec.workloads[].arrival"; "[chat]" selectors too.
std::string normalise_path(std::string_view path);

}  // namespace gtw
