#include "RequestTrace.hpp"

#include "Csv.hpp"
#include "Errors.hpp"
#include "InputFile.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>

namespace gtw {

const std::vector<std::string>& request_trace_format_names() {
  static const std::vector<std::string> names{"azure-llm", "seconds"};
  return names;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long days_from_civil(long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

bool parse_fixed(const std::string& s, size_t pos, size_t len, long& out) {
  if (pos + len > s.size()) return false;
  const char* b = s.data() + pos;
  auto [p, ec] = std::from_chars(b, b + len, out);
  return ec == std::errc() && p == b + len;
}

bool parse_count(const std::string& s, int& out) {
  // Some exports write counts as floats ("374.0").
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // !(0 <= v <= 1e7) before the cast: "nan" parses, fails every comparison, and casting it is undefined.
  if (ec != std::errc() || p != s.data() + s.size() || !(v >= 0 && v <= 1e7) || v != std::floor(v)) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace

bool parse_trace_timestamp(const std::string& text, double& seconds) {
  long y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') || text[13] != ':' ||
      text[16] != ':')
    return false;
  if (!parse_fixed(text, 0, 4, y) || !parse_fixed(text, 5, 2, mo) || !parse_fixed(text, 8, 2, d) ||
      !parse_fixed(text, 11, 2, h) || !parse_fixed(text, 14, 2, mi) || !parse_fixed(text, 17, 2, s))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return false;
  double fraction = 0;
  if (text.size() > 19) {
    if (text[19] != '.' || text.size() == 20) return false;
    double scale = 0.1;
    for (size_t i = 20; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      fraction += (text[i] - '0') * scale;
      scale /= 10;
    }
  }
  seconds = static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) * 86400.0 +
            static_cast<double>(h * 3600 + mi * 60 + s) + fraction;
  return true;
}

bool read_request_trace(const std::string& path, const std::string& format, RequestTrace& out, Diagnostics& diags,
                        const SourceLoc& referenced_at, const std::string& yaml_path) {
  out.file = path;
  out.requests.clear();
  // Checked here so that the error points at the scenario's `file:` field (CsvTable reports the file itself).
  if (!check_input_file(path, InputKind::TRACE_CSV, diags, referenced_at, yaml_path)) return false;
  const bool azure = format == "azure-llm";
  const std::vector<std::string> names = azure
                                             ? std::vector<std::string>{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}
                                             : std::vector<std::string>{"time", "promptTokens", "outputTokens"};
  const size_t errors_before = diags.error_count();
  std::optional<CsvTable> loaded;
  try {
    loaded.emplace(path, diags);
  } catch (const InputError& e) {  // binary or oversized content: the reader's located message
    diags.error(referenced_at, yaml_path, e.what());
    return false;
  }
  CsvTable& table = *loaded;
  int col[3];
  for (int k = 0; k < 3; ++k) col[k] = table.column(names[static_cast<size_t>(k)], true);
  if (diags.error_count() > errors_before) return false;
  std::vector<double> raw_times;
  for (const auto& row : table.rows()) {
    const auto field = [&](int k) -> const CsvField& { return row.fields[static_cast<size_t>(col[k])]; };
    TraceRequest r;
    double t = 0;
    bool ok = true;
    const std::string& when = field(0).text;
    if (azure) {
      if (!parse_trace_timestamp(when, t)) {
        diags.error(table.loc(row.line, field(0).column), yaml_path,
                    names[0] + ": expected a timestamp 'YYYY-MM-DD hh:mm:ss[.fraction]', got '" + when + "'");
        ok = false;
      }
    } else {
      auto [p, ec] = std::from_chars(when.data(), when.data() + when.size(), t);
      if (ec != std::errc() || p != when.data() + when.size() || !(t >= 0)) {
        diags.error(table.loc(row.line, field(0).column), yaml_path,
                    names[0] + ": expected seconds (a number >= 0), got '" + when + "'");
        ok = false;
      }
    }
    for (int k = 1; k <= 2; ++k) {
      if (!parse_count(field(k).text, k == 1 ? r.prompt_tokens : r.output_tokens)) {
        diags.error(
            table.loc(row.line, field(k).column), yaml_path,
            names[static_cast<size_t>(k)] + ": expected a token count (an integer >= 0), got '" + field(k).text + "'");
        ok = false;
      }
    }
    if (!ok) continue;
    raw_times.push_back(t);
    out.requests.push_back(r);
  }
  if (diags.error_count() > errors_before) return false;
  if (out.requests.empty()) {
    diags.error(referenced_at, yaml_path, "request trace '" + path + "' has no requests");
    return false;
  }
  std::vector<size_t> order(out.requests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return raw_times[a] < raw_times[b]; });
  const double first = raw_times[order[0]];
  std::vector<TraceRequest> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) {
    TraceRequest r = out.requests[i];
    r.time = raw_times[i] - first;
    sorted.push_back(r);
  }
  out.requests = std::move(sorted);
  return true;
}

}  // namespace gtw
