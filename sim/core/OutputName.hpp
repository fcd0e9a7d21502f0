#pragma once
// Output folders derived from a name in an input file (`out/<metadata.name>`, `out/sweeps/<name>`). The
// name is the file author's, so it must not choose where files go: `-o DIR` is the only way to do that.
#include <string>

namespace gtw {

/// Longest folder name derived from a name.
inline constexpr size_t MAX_OUTPUT_NAME = 64;

/// A single path component made from `name`: letters, digits, '.', '_' and '-' are kept, every other
/// run of characters (path separators, spaces, control characters, non-ASCII) becomes one '-', leading
/// dots and dashes are dropped (no "..", no hidden folders), at most MAX_OUTPUT_NAME characters.
/// `fallback` when nothing is left.
std::string output_name(const std::string& name, const std::string& fallback = "run");

}  // namespace gtw
