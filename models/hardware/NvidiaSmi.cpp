#include "NvidiaSmi.hpp"

#include "InputFile.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

namespace gtw::fabric {

namespace {

// Terminal escapes (nvidia-smi underlines the header and row labels when it writes to a terminal, and
// a capture through `script` or a pasted terminal keeps them) are dropped; columns stay in place
// otherwise, so error columns refer to the text as saved minus the escapes.
std::string strip_escapes(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && !std::isalpha(static_cast<unsigned char>(line[j]))) ++j;
      i = j;
      continue;
    }
    out += line[i];
  }
  return out;
}

// Bounds of a listing: nvidia-smi prints at most 16 GPUs and a few dozen NICs per node, and lines of a
// few hundred characters; a file beyond these is not a listing (and std::regex recurses per character).
constexpr size_t MAX_DEVICES = 256;
constexpr size_t MAX_LINE = 16 * 1024;
constexpr int MAX_NVLINKS = 64;  // NV# counts links between two GPUs (18 on an H100 SXM)
constexpr int MAX_GPU_INDEX = 63;

// A decimal integer in [min, max]; nullopt when not digits or out of range (std::stoi would throw).
std::optional<int> bounded_int(const std::string& s, int min, int max) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const int v = std::stoi(s);
  if (v < min || v > max) return std::nullopt;
  return v;
}

// Reports the first line longer than MAX_LINE; false when there is one.
bool lines_fit(const std::vector<std::string>& lines, const std::string& file, Diagnostics& diags) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].size() > MAX_LINE) {
      diags.error(SourceLoc{file, static_cast<int>(i) + 1, 1}, "",
                  "line of " + std::to_string(lines[i].size()) + " characters; nvidia-smi lines are at most " +
                      std::to_string(MAX_LINE));
      return false;
    }
  }
  return true;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line.find('\x1b') == std::string::npos ? line : strip_escapes(line));
  }
  return lines;
}

// Whitespace-separated tokens with their 1-based columns.
std::vector<std::pair<std::string, int>> tokens(const std::string& line) {
  std::vector<std::pair<std::string, int>> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    out.emplace_back(line.substr(start, i - start), static_cast<int>(start) + 1);
  }
  return out;
}

bool valid_entry(const std::string& s) {
  static const std::vector<std::string> kinds{"X", "SYS", "NODE", "PHB", "PXB", "PIX", "SOC"};
  if (std::find(kinds.begin(), kinds.end(), s) != kinds.end()) return true;
  if (s.size() > 2 && s.compare(0, 2, "NV") == 0) return bounded_int(s.substr(2), 1, MAX_NVLINKS).has_value();
  return false;
}

// A cell nvidia-smi printed without the space before the next one: on nodes with many NICs a column
// overflows its width and two entries touch ("NODENODE", "SYSSYS", "PIXNODE"; seen in captures of
// 8-GPU nodes with 36 NICs). Returns the entries it is made of, or nothing when it is not such a run.
std::vector<std::string> split_run(const std::string& s) {
  static const std::vector<std::string> codes{"NODE", "SYS", "PHB", "PXB", "PIX", "SOC", "X"};
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 2, "NV") == 0) {
      size_t j = i + 2;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j == i + 2) return {};
      out.push_back(s.substr(i, j - i));
      i = j;
      continue;
    }
    const auto code =
        std::find_if(codes.begin(), codes.end(), [&](const std::string& c) { return s.compare(i, c.size(), c) == 0; });
    if (code == codes.end()) return {};
    out.push_back(*code);
    i += code->size();
  }
  if (out.size() < 2) return {};
  return out;
}

// The same for the header: device names that touch ("NIC28NIC29").
std::vector<std::string> split_device_run(const std::string& s) {
  static const std::regex device(R"((GPU|NIC)\d+)");
  std::vector<std::string> out;
  size_t consumed = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), device); it != std::sregex_iterator(); ++it) {
    if (static_cast<size_t>(it->position()) != consumed) return {};
    out.push_back(it->str());
    consumed += static_cast<size_t>(it->length());
  }
  if (consumed != s.size() || out.size() < 2) return {};
  return out;
}

// The first `n` cells of a row after its label, with runs split; the tokens that follow (affinities).
std::vector<std::pair<std::string, int>> row_cells(const std::vector<std::pair<std::string, int>>& t, size_t n,
                                                   size_t& next) {
  std::vector<std::pair<std::string, int>> cells;
  next = 1;
  while (next < t.size() && cells.size() < n) {
    const auto& [tok, col] = t[next++];
    const auto parts = valid_entry(tok) ? std::vector<std::string>{} : split_run(tok);
    if (parts.empty()) {
      cells.emplace_back(tok, col);
      continue;
    }
    int offset = 0;
    for (const auto& part : parts) {
      cells.emplace_back(part, col + offset);
      offset += static_cast<int>(part.size());
    }
  }
  return cells;
}

}  // namespace

std::optional<std::string> read_saved_output(const std::string& file, Diagnostics& diags, const SourceLoc& from,
                                             const std::string& field) {
  return read_input_file(file, InputKind::NVIDIA_SMI, diags, from, field);
}

std::string SmiTopo::device_name(size_t i) const {
  return i < legend_names.size() && !legend_names[i].empty() ? legend_names[i] : devices[i];
}

int SmiTopo::nvlinks(size_t a, size_t b) const {
  const std::string& s = matrix[a][b];
  if (s.size() > 2 && s.compare(0, 2, "NV") == 0) return bounded_int(s.substr(2), 1, MAX_NVLINKS).value_or(0);
  return 0;
}

std::optional<SmiTopo> parse_topo(const std::string& text, const std::string& file, Diagnostics& diags) {
  const auto lines = split_lines(text);
  if (!lines_fit(lines, file, diags)) return std::nullopt;
  SmiTopo topo;
  size_t header = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto t = tokens(lines[i]);
    // The header names the devices (GPU0 GPU1 ... NIC0 or mlx5_0 ... CPU Affinity); a row has X or a
    // connection after its label.
    if (!t.empty() && t[0].first == "GPU0" && (t.size() < 2 || !valid_entry(t[1].first))) {
      header = i;
      for (const auto& [tok, col] : t) {
        if (tok == "CPU" || tok == "NUMA") break;
        const auto parts = split_device_run(tok);
        if (parts.empty())
          topo.devices.push_back(tok);
        else
          topo.devices.insert(topo.devices.end(), parts.begin(), parts.end());
      }
      break;
    }
  }
  if (header == lines.size() || topo.devices.empty()) {
    diags.error(SourceLoc{file, 1, 1}, "",
                "not an `nvidia-smi topo -m` output: no header line of device names (GPU0 GPU1 ... CPU Affinity)");
    return std::nullopt;
  }
  if (topo.devices.size() > MAX_DEVICES) {
    diags.error(SourceLoc{file, static_cast<int>(header) + 1, 1}, "",
                "the header names " + std::to_string(topo.devices.size()) + " devices; a node has at most " +
                    std::to_string(MAX_DEVICES));
    return std::nullopt;
  }
  for (size_t a = 0; a < topo.devices.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      if (topo.devices[a] == topo.devices[b]) {
        diags.error(SourceLoc{file, static_cast<int>(header) + 1, 1}, "",
                    "the header names device " + topo.devices[a] + " twice");
        return std::nullopt;
      }
    }
  }
  const size_t n = topo.devices.size();
  topo.matrix.assign(n, std::vector<std::string>(n));
  std::vector<int> row_line(n, 0);
  topo.cpu_affinity.assign(n, "");
  topo.numa_affinity.assign(n, "N/A");
  std::vector<bool> seen(n, false);
  bool ok = true;
  for (size_t i = header + 1; i < lines.size(); ++i) {
    const auto t = tokens(lines[i]);
    if (t.empty()) {
      // A blank line ends the matrix (the legend follows).
      if (std::all_of(seen.begin(), seen.end(), [](bool b) { return b; })) break;
      continue;
    }
    if (t[0].first == "Legend:") break;
    auto it = std::find(topo.devices.begin(), topo.devices.end(), t[0].first);
    if (it == topo.devices.end()) {
      diags.error(SourceLoc{file, static_cast<int>(i) + 1, t[0].second}, "",
                  "row '" + t[0].first + "' is not one of the devices of the header line");
      ok = false;
      continue;
    }
    const size_t row = static_cast<size_t>(it - topo.devices.begin());
    size_t rest = 0;
    const auto cells = row_cells(t, n, rest);
    if (cells.size() < n) {
      diags.error(
          SourceLoc{file, static_cast<int>(i) + 1, t.back().second}, "",
          "row " + t[0].first + " has " + std::to_string(cells.size()) + " entries, expected " + std::to_string(n));
      ok = false;
      continue;
    }
    for (size_t c = 0; c < n; ++c) {
      const auto& [tok, col] = cells[c];
      if (!valid_entry(tok)) {
        diags.error(SourceLoc{file, static_cast<int>(i) + 1, col}, "",
                    "unknown connection '" + tok + "' (expected X, NV#, PIX, PXB, PHB, NODE or SYS)");
        ok = false;
      }
      topo.matrix[row][c] = tok == "SOC" ? "SYS" : tok;
    }
    if (topo.matrix[row][row] != "X") {
      diags.error(SourceLoc{file, static_cast<int>(i) + 1, cells[row].second}, "",
                  "the diagonal entry of " + t[0].first + " must be X");
      ok = false;
    }
    if (seen[row]) {
      diags.error(SourceLoc{file, static_cast<int>(i) + 1, t[0].second}, "",
                  "a second row for device " + t[0].first + " (first at line " + std::to_string(row_line[row]) + ")");
      ok = false;
      continue;
    }
    row_line[row] = static_cast<int>(i) + 1;
    if (t.size() > rest) topo.cpu_affinity[row] = t[rest].first;
    if (t.size() > rest + 1) topo.numa_affinity[row] = t[rest + 1].first;
    seen[row] = true;
  }
  // "NIC Legend:" names the NIC columns by device (NIC0: mlx5_0); newer drivers print it.
  static const std::regex legend_row(R"(^\s*(NIC\d+):\s*(\S+)\s*$)");
  topo.legend_names.assign(n, "");
  bool in_legend = false;
  for (size_t i = header + 1; i < lines.size(); ++i) {
    if (lines[i].find("NIC Legend:") != std::string::npos) {
      in_legend = true;
      continue;
    }
    std::smatch m;
    if (!in_legend || !std::regex_match(lines[i], m, legend_row)) continue;
    const auto dev = std::find(topo.devices.begin(), topo.devices.end(), m[1].str());
    if (dev != topo.devices.end()) topo.legend_names[static_cast<size_t>(dev - topo.devices.begin())] = m[2];
  }
  for (size_t r = 0; r < n; ++r) {
    if (!seen[r]) {
      diags.error(SourceLoc{file, static_cast<int>(header) + 1, 1}, "", "no row for device " + topo.devices[r]);
      ok = false;
    }
  }
  // A link is one link seen from both ends: nvidia-smi prints the matrix symmetric.
  for (size_t a = 0; ok && a < n; ++a) {
    for (size_t b = a + 1; b < n; ++b) {
      if (topo.matrix[a][b] != topo.matrix[b][a]) {
        diags.error(SourceLoc{file, row_line[b], 1}, "",
                    "the matrix is not symmetric: " + topo.devices[a] + " -> " + topo.devices[b] + " is " +
                        topo.matrix[a][b] + ", " + topo.devices[b] + " -> " + topo.devices[a] + " is " +
                        topo.matrix[b][a]);
        ok = false;
        break;
      }
    }
  }
  if (!ok) return std::nullopt;
  return topo;
}

std::optional<std::vector<SmiGpuInstance>> parse_mig_lgi(const std::string& text, const std::string& file,
                                                         Diagnostics& diags) {
  const auto lines = split_lines(text);
  if (text.find("GPU instances:") == std::string::npos) {
    diags.error(SourceLoc{file, 1, 1}, "", "not an `nvidia-smi mig -lgi` output (no \"GPU instances:\" table)");
    return std::nullopt;
  }
  if (!lines_fit(lines, file, diags)) return std::nullopt;
  static const std::regex row(R"(^\|\s+(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+):(\d+)\s+\|\s*$)");
  std::vector<SmiGpuInstance> out;
  std::vector<int> out_line;
  const size_t errors_before = diags.error_count();
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, row)) {
      if (lines[i].find(" MIG ") != std::string::npos)
        diags.error(SourceLoc{file, static_cast<int>(i) + 1, 1}, "",
                    "cannot read this GPU-instance row (expected: | GPU  MIG <profile>  <profile id>  <instance id>  "
                    "<start>:<size> |)");
      continue;
    }
    const auto gpu = bounded_int(m[1], 0, MAX_GPU_INDEX);
    const auto profile_id = bounded_int(m[3], 0, 1000), instance_id = bounded_int(m[4], 0, 1000);
    const auto start = bounded_int(m[5], 0, 7), size = bounded_int(m[6], 1, 8);
    const SourceLoc at{file, static_cast<int>(i) + 1, 1};
    if (!gpu || !profile_id || !instance_id || !start || !size) {
      diags.error(at, "",
                  "GPU-instance row out of range (GPU 0.." + std::to_string(MAX_GPU_INDEX) +
                      ", placement start 0..7 and size 1..8 memory slices)");
      continue;
    }
    const SmiGpuInstance gi{*gpu, m[2], *profile_id, *instance_id, *start, *size};
    if (gi.start + gi.size > 8) {
      diags.error(at, "", "placement " + m[5].str() + ":" + m[6].str() + " ends past the GPU's 8 memory slices");
      continue;
    }
    // Instances of one GPU occupy disjoint slices and have distinct ids: anything else is no real listing.
    for (size_t k = 0; k < out.size(); ++k) {
      if (out[k].gpu != gi.gpu) continue;
      if (out[k].instance_id == gi.instance_id)
        diags.error(at, "",
                    "GPU " + std::to_string(gi.gpu) + " lists GPU instance " + std::to_string(gi.instance_id) +
                        " twice (first at line " + std::to_string(out_line[k]) + ")");
      else if (gi.start < out[k].start + out[k].size && out[k].start < gi.start + gi.size)
        diags.error(at, "",
                    "placement " + m[5].str() + ":" + m[6].str() + " overlaps GPU instance " +
                        std::to_string(out[k].instance_id) + " of GPU " + std::to_string(gi.gpu) + " (line " +
                        std::to_string(out_line[k]) + ")");
    }
    out.push_back(gi);
    out_line.push_back(at.line);
  }
  if (diags.error_count() > errors_before) return std::nullopt;
  if (out.empty()) {
    diags.error(SourceLoc{file, 1, 1}, "", "no GPU instances listed");
    return std::nullopt;
  }
  return out;
}

std::optional<std::vector<SmiComputeInstance>> parse_mig_lci(const std::string& text, const std::string& file,
                                                             Diagnostics& diags) {
  const auto lines = split_lines(text);
  if (text.find("Compute instances:") == std::string::npos) {
    diags.error(SourceLoc{file, 1, 1}, "", "not an `nvidia-smi mig -lci` output (no \"Compute instances:\" table)");
    return std::nullopt;
  }
  if (!lines_fit(lines, file, diags)) return std::nullopt;
  static const std::regex row(R"(^\|\s+(\d+)\s+(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+):(\d+)\s+\|\s*$)");
  // Drivers before the Placement column (R450): GPU, GPU instance, name, profile id, instance id.
  static const std::regex old_row(R"(^\|\s+(\d+)\s+(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)\s+\|\s*$)");
  static const std::regex slices_of_name(R"(^(\d+)c\.)");
  std::vector<SmiComputeInstance> out;
  const size_t errors_before = diags.error_count();
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    const bool placed = std::regex_match(lines[i], m, row);
    if (!placed && !std::regex_match(lines[i], m, old_row)) {
      if (lines[i].find(" MIG ") != std::string::npos)
        diags.error(SourceLoc{file, static_cast<int>(i) + 1, 1}, "",
                    "cannot read this compute-instance row (expected: | GPU  <GPU instance>  MIG <profile>  <profile "
                    "id>  <instance id>  [<start>:<size>] |)");
      continue;
    }
    int v[6] = {0, 0, 0, 0, -1, -1};
    bool in_range = true;
    const int max[6] = {MAX_GPU_INDEX, 1000, 1000, 1000, 7, 8};
    for (int k = 0; k < (placed ? 6 : 4); ++k) {
      const auto x = bounded_int(m[k < 2 ? k + 1 : k + 2], 0, max[k]);
      in_range = in_range && x.has_value();
      v[k] = x.value_or(0);
    }
    if (!placed) {  // the size from the name: "1c.3g.40gb" is one compute slice, "3g.40gb" the whole instance
      const std::string name = m[3];
      std::smatch c;
      if (std::regex_search(name, c, slices_of_name)) {
        const auto slices = bounded_int(c[1], 1, 8);
        in_range = in_range && slices.has_value();
        v[5] = slices.value_or(0);
      }
    }
    if (!in_range) {
      diags.error(SourceLoc{file, static_cast<int>(i) + 1, 1}, "",
                  "compute-instance row out of range (GPU 0.." + std::to_string(MAX_GPU_INDEX) +
                      ", ids 0..1000, placement start 0..7 and size 0..8 slices)");
      continue;
    }
    out.push_back(SmiComputeInstance{v[0], v[1], m[3], v[2], v[3], v[4], v[5], static_cast<int>(i) + 1});
  }
  if (diags.error_count() > errors_before) return std::nullopt;
  if (out.empty()) {
    diags.error(SourceLoc{file, 1, 1}, "", "no compute instances listed");
    return std::nullopt;
  }
  return out;
}

std::vector<std::string> mig_layout_of_gpu(const std::vector<SmiGpuInstance>& instances, int gpu) {
  std::vector<SmiGpuInstance> mine;
  for (const auto& gi : instances)
    if (gi.gpu == gpu) mine.push_back(gi);
  std::stable_sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  std::vector<std::string> layout;
  for (const auto& gi : mine) layout.push_back(gi.profile);
  return layout;
}

std::map<int, std::vector<std::string>> mig_layouts_by_gpu(const std::vector<SmiGpuInstance>& instances) {
  std::map<int, std::vector<std::string>> out;
  for (const auto& gi : instances)
    if (!out.count(gi.gpu)) out[gi.gpu] = mig_layout_of_gpu(instances, gi.gpu);
  return out;
}

ComputeInstanceCheck check_compute_instances(const std::vector<SmiGpuInstance>& gpu_instances,
                                             const std::vector<SmiComputeInstance>& compute_instances,
                                             const MigGeometry& geometry) {
  // Compute slices of a GPU-instance profile, from the product's table; 0 when it is not there.
  const auto compute_slices = [&](const std::string& profile) {
    const MigProfile* mp = geometry.find(profile);
    return mp ? mp->compute_slices : 0;
  };
  ComputeInstanceCheck out;
  std::map<std::pair<int, int>, std::vector<const SmiComputeInstance*>> by_gi;
  std::map<int, bool> listed_gpu;
  for (const auto& ci : compute_instances) {
    listed_gpu[ci.gpu] = true;
    const auto gi = std::find_if(gpu_instances.begin(), gpu_instances.end(), [&](const SmiGpuInstance& g) {
      return g.gpu == ci.gpu && g.instance_id == ci.gpu_instance;
    });
    const std::string what = "compute instance " + std::to_string(ci.instance_id) + " (" + ci.profile + ") of GPU " +
                             std::to_string(ci.gpu) + " GPU instance " + std::to_string(ci.gpu_instance);
    if (gi == gpu_instances.end()) {
      out.errors.push_back({ci.line, what + ": the -lgi listing has no such GPU instance"});
      continue;
    }
    const int slices = compute_slices(gi->profile);
    const int size = ci.size < 0 ? slices : ci.size;  // listed without placement: its name's slices
    if (slices > 0 && std::max(ci.start, 0) + size > slices) {
      out.errors.push_back({ci.line, what + ": compute slices " +
                                         (ci.start >= 0 ? std::to_string(ci.start) + ":" : std::string()) +
                                         std::to_string(size) + " do not fit its " + gi->profile + " (" +
                                         std::to_string(slices) + " slices)"});
      continue;
    }
    by_gi[{ci.gpu, ci.gpu_instance}].push_back(&ci);
  }
  for (const auto& gi : gpu_instances) {
    if (!listed_gpu.count(gi.gpu)) continue;
    const std::string what =
        "GPU " + std::to_string(gi.gpu) + " GPU instance " + std::to_string(gi.instance_id) + " (" + gi.profile + ")";
    const auto it = by_gi.find({gi.gpu, gi.instance_id});
    if (it == by_gi.end()) {
      out.notes.push_back(what + " has no compute instance: nothing can run on it, the twin still offers it");
      continue;
    }
    const int slices = compute_slices(gi.profile);
    const auto& cis = it->second;
    // The instances' slices must add up to at most the GPU instance's, and placed ones must not overlap.
    int listed = 0;
    for (const auto* ci : cis) listed += ci->size < 0 ? slices : ci->size;
    if (slices > 0 && listed > slices) {
      out.errors.push_back({cis.back()->line, what + ": its compute instances take " + std::to_string(listed) +
                                                  " compute slices of " + std::to_string(slices)});
      continue;
    }
    bool overlap = false;
    for (size_t a = 0; a < cis.size() && !overlap; ++a)
      for (size_t b = a + 1; b < cis.size() && !overlap; ++b)
        overlap = cis[a]->start >= 0 && cis[b]->start >= 0 && cis[a]->start < cis[b]->start + cis[b]->size &&
                  cis[b]->start < cis[a]->start + cis[a]->size;
    if (overlap) {
      out.errors.push_back({cis.back()->line, what + ": its compute instances overlap"});
      continue;
    }
    const bool whole = cis[0]->size < 0 || (slices > 0 && cis[0]->size == slices) || slices == 0;
    if (cis.size() == 1 && cis[0]->start <= 0 && whole) continue;
    out.notes.push_back(what + " is split into " + std::to_string(cis.size()) +
                        " compute instance(s); the twin runs it as one device (they share its memory, L2 and "
                        "bandwidth; the SM split between them is not modelled)");
  }
  return out;
}

}  // namespace gtw::fabric
