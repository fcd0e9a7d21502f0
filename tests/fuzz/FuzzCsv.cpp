// Fuzz target: the CSV readers. split_csv_line on every line of the input (in memory); then, with the
// input written to one file in a per-process scratch directory, CsvTable (sim/core/Csv.hpp), the request
// trace reader in each format (sim/scenario/RequestTrace.hpp; also with a Diagnostics already full, as
// the scenario loader's may be) and the openb node, pod and arrival lists
// (sim/apps/pack/OpenbCsv.hpp). Diagnostics and gtw::InputError are clean outcomes; any other exception
// escapes (a finding).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Csv.hpp"
#include "Diagnostics.hpp"
#include "Errors.hpp"
#include "FuzzSupport.hpp"
#include "OpenbCsv.hpp"
#include "RequestTrace.hpp"

namespace {

void split_lines_in_memory(const std::string& text) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    const auto fields = gtw::split_csv_line(line);
    GTW_FUZZ_CHECK(!fields.empty());
    int previous = 0;
    for (const auto& f : fields) {
      GTW_FUZZ_CHECK(f.column > previous);
      GTW_FUZZ_CHECK(static_cast<size_t>(f.column) <= line.size() + 1);
      GTW_FUZZ_CHECK(f.text.size() <= line.size());
      previous = f.column;
    }
    start = end + 1;
  }
}

void csv_table(const std::string& path) {
  gtw::Diagnostics diags;
  gtw::CsvTable table(path, diags);
  const size_t columns = table.header().size();
  for (const auto& name : table.header()) GTW_FUZZ_CHECK(table.column(name, true) >= 0);
  (void)table.column("no such column", true);
  for (const auto& row : table.rows()) {
    GTW_FUZZ_CHECK(row.fields.size() == columns);
    GTW_FUZZ_CHECK(row.line > 0);
    for (size_t c = 0; c < columns; ++c) {
      const int64_t v = table.integer(row, static_cast<int>(c), "field", std::numeric_limits<int64_t>::max());
      GTW_FUZZ_CHECK(v >= 0);
    }
  }
  (void)diags.format_all();
}

void request_traces(const std::string& path) {
  for (const auto& format : gtw::request_trace_format_names()) {
    gtw::Diagnostics diags;
    gtw::RequestTrace trace;
    const bool ok = gtw::read_request_trace(path, format, trace, diags, gtw::SourceLoc{"scenario.yaml", 1, 1},
                                            "spec.workloads[0].arrival.file");
    GTW_FUZZ_CHECK(ok == !diags.has_errors());
    if (ok) {
      GTW_FUZZ_CHECK(!trace.requests.empty());
      double previous = 0;
      for (const auto& r : trace.requests) {
        GTW_FUZZ_CHECK(std::isfinite(r.time));  // a NaN or infinite time breaks the arrival order
        GTW_FUZZ_CHECK(r.time >= previous);
        GTW_FUZZ_CHECK(r.prompt_tokens >= 0 && r.output_tokens >= 0);
        previous = r.time;
      }
      GTW_FUZZ_CHECK(std::isfinite(trace.span()) && trace.span() >= 0);
    }
    (void)diags.format_all();
  }
  // The scenario loader passes its own Diagnostics, which may already hold the most errors it keeps
  // (Diagnostics::MAX_ERRORS, after which error() records nothing): the reader must still not misread.
  if (gtw::fuzz::skipped("full-diagnostics")) return;
  for (const auto& format : gtw::request_trace_format_names()) {
    gtw::Diagnostics diags;
    for (size_t i = 0; i < gtw::Diagnostics::MAX_ERRORS; ++i)
      diags.error(gtw::SourceLoc{"scenario.yaml", 1, 1}, "", "x");
    gtw::RequestTrace trace;
    (void)gtw::read_request_trace(path, format, trace, diags, gtw::SourceLoc{"scenario.yaml", 1, 1},
                                  "spec.workloads[0].arrival.file");
  }
}

void openb_lists(const std::string& path) {
  try {
    const auto nodes = gtw::trace::read_openb_nodes(path);
    GTW_FUZZ_CHECK(!nodes.empty());
    for (const auto& n : nodes) GTW_FUZZ_CHECK(n.gpus >= 0 && n.gpus <= gtw::trace::MAX_GPUS);
  } catch (const gtw::InputError&) {
  }
  std::vector<gtw::trace::OpenbPod> pods;
  try {
    pods = gtw::trace::read_openb_pods(path);
    GTW_FUZZ_CHECK(!pods.empty());
    for (const auto& p : pods) {
      GTW_FUZZ_CHECK(p.num_gpu >= 0 && p.num_gpu <= gtw::trace::MAX_GPUS);
      GTW_FUZZ_CHECK(p.gpu_milli >= 0 && p.gpu_milli <= 1000);
    }
  } catch (const gtw::InputError&) {
  }
  if (pods.empty()) {
    // An arrival list names pods of a pod list: give it a few of the openb names.
    for (const char* name : {"openb-pod-0000", "openb-pod-0001", "openb-pod-0255", "a"}) {
      gtw::trace::OpenbPod p;
      p.name = name;
      pods.push_back(p);
    }
  }
  try {
    const auto arrivals = gtw::trace::read_openb_arrivals(path, pods);
    for (int i : arrivals) GTW_FUZZ_CHECK(i >= 0 && static_cast<size_t>(i) < pods.size());
  } catch (const gtw::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  split_lines_in_memory(text);
  const std::string path = gtw::fuzz::write_scratch("input.csv", data, size);
  try {
    csv_table(path);
  } catch (const gtw::InputError&) {
  }
  try {
    request_traces(path);
  } catch (const gtw::InputError&) {
  }
  openb_lists(path);
  return 0;
}
