#include "Csv.hpp"

#include <algorithm>
#include <charconv>

#include "Errors.hpp"
#include "InputFile.hpp"

namespace gtw {

std::vector<CsvField> split_csv_line(const std::string& line) {
  std::vector<CsvField> out;
  size_t i = 0;
  while (true) {
    CsvField field;
    field.column = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (i < line.size()) {
        if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          field.text += '"';
          i += 2;
        } else if (line[i] == '"') {
          ++i;
          break;
        } else {
          field.text += line[i++];
        }
      }
      while (i < line.size() && line[i] != ',') field.text += line[i++];
    } else {
      while (i < line.size() && line[i] != ',') field.text += line[i++];
    }
    out.push_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return out;
}

CsvTable::CsvTable(const std::string& path, Diagnostics& diags) : path_(path), diags_(diags) {
  // Regular files within the trace cap only (a FIFO or /dev/zero would never end); throws InputError.
  const std::string text = read_input_file_or_throw(path, InputKind::TRACE_CSV);
  std::string line;
  int number = 0;
  bool have_header = false;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    line.assign(text, start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 && line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (line.empty()) continue;  // blank lines (a trailing newline) carry nothing
    if (!have_header) {
      header_line_ = number;
      for (const auto& f : split_csv_line(line)) header_.push_back(f.text);
      have_header = true;
      continue;
    }
    CsvRow row{number, split_csv_line(line)};
    if (row.fields.size() != header_.size()) {
      diags_.error(loc(number, 1), "",
                   "expected " + std::to_string(header_.size()) + " comma-separated fields as in the header, got " +
                       std::to_string(row.fields.size()));
      continue;
    }
    if (rows_.size() == MAX_CSV_ROWS) {
      // Each row costs ~250 bytes parsed: a bound on rows is a bound on memory and time.
      diags_.error(loc(number, 1), "",
                   "more than " + std::to_string(MAX_CSV_ROWS) + " rows; a trace file holds at most " +
                       std::to_string(MAX_CSV_ROWS) + " (cut it, or replay a window of it)");
      break;
    }
    rows_.push_back(std::move(row));
  }
  if (!have_header) diags_.error(loc(1, 1), "", "empty file: expected a header line and rows");
}

int CsvTable::column(const std::string& name, bool required) {
  for (size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return static_cast<int>(i);
  if (required && header_line_ > 0) {
    std::string have;
    for (const auto& h : header_) have += (have.empty() ? "" : ",") + h;
    diags_.error(loc(header_line_, 1), name, "missing column '" + name + "' in the header (found: " + have + ")");
  }
  return -1;
}

int64_t CsvTable::integer(const CsvRow& row, int col, const std::string& name, int64_t max) {
  const CsvField& f = row.fields[static_cast<size_t>(col)];
  int64_t value = 0;
  const char* begin = f.text.data();
  const char* end = begin + f.text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (f.text.empty() || ec != std::errc() || ptr != end || value < 0 || value > max) {
    diags_.error(loc(row.line, f.column), name,
                 "expected an integer in [0, " + std::to_string(max) + "], got '" + f.text + "'");
    return 0;
  }
  return value;
}

}  // namespace gtw
