#pragma once
// A CSV file with a header: columns by name, rows with their line numbers, fields with their columns,
// so every problem can be reported at file:line:col. Used by the trace readers (openb, request traces).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "Diagnostics.hpp"

namespace gtw {

/// Data rows of one CSV file at most (the Azure LLM traces have ~20,000; openb ~8,000).
inline constexpr size_t MAX_CSV_ROWS = 1'000'000;

struct CsvField {
  std::string text;
  int column = 0;  // 1-based column of the field's first character
};

struct CsvRow {
  int line = 0;
  std::vector<CsvField> fields;
};

/// Splits one CSV line; double-quoted fields may hold commas ("" is a literal quote).
std::vector<CsvField> split_csv_line(const std::string& line);

class CsvTable {
 public:
  /// Reads the whole file (throws InputError when it cannot be opened). A UTF-8 BOM, CR line ends and
  /// blank lines are ignored; a row whose field count differs from the header's is an error.
  CsvTable(const std::string& path, Diagnostics& diags);

  /// Index of a column; records an error (and returns -1) when a required one is missing.
  int column(const std::string& name, bool required);
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }
  SourceLoc loc(int line, int column) const { return SourceLoc{path_, line, column}; }
  /// A non-negative integer in [0, max]; records an error and returns 0 otherwise.
  int64_t integer(const CsvRow& row, int col, const std::string& name, int64_t max);
  Diagnostics& diags() { return diags_; }

 private:
  std::string path_;
  Diagnostics& diags_;
  std::vector<std::string> header_;
  int header_line_ = 0;
  std::vector<CsvRow> rows_;
};

}  // namespace gtw
