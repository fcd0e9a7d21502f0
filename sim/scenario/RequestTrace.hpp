#pragma once
// Request traces for replayed arrivals: one row per request with its arrival time and its prompt and
// output tokens (the Azure LLM inference trace of Splitwise, ISCA 2024, or a plain CSV of seconds).
#include <string>
#include <vector>

#include "Diagnostics.hpp"

namespace gtw {

struct TraceRequest {
  double time = 0;  // seconds after the trace's first request
  int prompt_tokens = 0;
  int output_tokens = 0;
};

struct RequestTrace {
  std::string file;
  std::vector<TraceRequest> requests;  // in arrival order (ties kept in file order)
  /// Seconds from the first to the last request.
  double span() const { return requests.empty() ? 0 : requests.back().time; }
};

/// Formats: `azure-llm` (TIMESTAMP,ContextTokens,GeneratedTokens; TIMESTAMP as
/// "YYYY-MM-DD hh:mm:ss[.fraction]") and `seconds` (time,promptTokens,outputTokens; time in seconds).
const std::vector<std::string>& request_trace_format_names();

/// Reads a trace; every malformed row is an error located at file:line:col of the CSV (at most the
/// diagnostics' limit). Rows out of time order are sorted (stable). Returns false on any error.
bool read_request_trace(const std::string& path, const std::string& format, RequestTrace& out, Diagnostics& diags,
                        const SourceLoc& referenced_at, const std::string& yaml_path);

/// Seconds since 1970-01-01 of "YYYY-MM-DD hh:mm:ss[.fraction]" (no time zone: the trace's own clock).
bool parse_trace_timestamp(const std::string& text, double& seconds);

}  // namespace gtw
