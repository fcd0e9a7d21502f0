#pragma once
// The one way the project writes a file that someone may read while it is written: to a temporary file
// in the same folder (".<name>.tmp.<pid>"), flushed and fsync'ed, then renamed over the target, so a reader
// sees the old file or the whole new one and a failed write leaves nothing behind.
#include <functional>
#include <string>

namespace gtw {

/// Writes `content` to `path` atomically; throws RuntimeError on failure (the temporary is removed).
void write_file_atomic(const std::string& path, const std::string& content);

/// The same for a file a library writes by name (HDF5): `produce(temporary)` writes the whole file at
/// `temporary` and throws on failure; then it is fsync'ed and renamed to `path`. Throws RuntimeError
/// ("cannot write PATH: why"); the temporary is removed on every failure.
void produce_file_atomic(const std::string& path, const std::function<void(const std::string& temporary)>& produce);

/// write_file_atomic for callers that report failures as values: false and `error` set, never throws.
bool try_write_file_atomic(const std::string& path, const std::string& content, std::string& error);

}  // namespace gtw
