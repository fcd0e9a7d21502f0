#include "Sweep.hpp"

#include <hdf5.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "AtomicFile.hpp"
#include "Errors.hpp"
#include "Expectation.hpp"
#include "H5Handle.hpp"
#include "Rng.hpp"
#include "Units.hpp"
#include "YamlInput.hpp"

namespace fs = std::filesystem;

namespace gtw::regress {
namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

const std::vector<std::string> SWEEP_KEYS = {"apiVersion", "kind",    "metadata", "name",   "description", "scenario",
                                             "seeds",      "timeout", "grid",     "random", "designs",     "metrics"};

SourceLoc loc_of(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null() || m.line < 0) return SourceLoc{file, 0, 0};
  return SourceLoc{file, m.line + 1, m.column + 1};
}

std::string flow_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

std::optional<double> number_of(const YAML::Node& n) {
  if (!n || !n.IsScalar()) return std::nullopt;
  try {
    size_t used = 0;
    const double v = std::stod(n.Scalar(), &used);
    if (used != n.Scalar().size() || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

class SweepParser {
 public:
  SweepParser(const std::string& file, Diagnostics& d) : file_(file), d_(d) {}

  void parse(const YAML::Node& root, SweepSpec& s) {
    s.file = file_;
    if (!root.IsMap()) {
      d_.error(loc_of(file_, root), "", "a sweep file is a YAML mapping with scenario: and grid:, random: or designs:");
      return;
    }
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (std::find(SWEEP_KEYS.begin(), SWEEP_KEYS.end(), key) == SWEEP_KEYS.end())
        d_.error(loc_of(file_, kv.first), key, "unknown key" + suggest(key, SWEEP_KEYS));
    }
    if (const auto kind = root["kind"]; kind && (!kind.IsScalar() || kind.Scalar() != "Sweep"))
      d_.error(loc_of(file_, kind), "kind", "expected 'Sweep'");
    s.name = fs::path(file_).stem().string();
    if (s.name.ends_with(".sweep")) s.name.resize(s.name.size() - 6);
    if (const auto md = root["metadata"]; md && md.IsMap() && md["name"] && md["name"].IsScalar())
      s.name = md["name"].Scalar();
    if (const auto n = root["name"]; n && n.IsScalar()) s.name = n.Scalar();

    if (const auto sc = root["scenario"]; sc && sc.IsScalar()) {
      fs::path p(sc.Scalar());
      if (p.is_relative()) p = fs::path(file_).parent_path() / p;
      s.scenario = p.lexically_normal().string();
      std::error_code ec;
      if (!fs::is_regular_file(s.scenario, ec))
        d_.error(loc_of(file_, sc), "scenario", "no scenario file '" + s.scenario + "' (relative to the sweep file)");
    } else {
      d_.error(sc ? loc_of(file_, sc) : SourceLoc{file_, 1, 1}, "scenario", "missing: the base scenario file");
    }
    read_seeds(root["seeds"], s);
    if (const auto t = root["timeout"]) {
      auto d = t.IsScalar() ? parse_duration(t.Scalar()) : ParseResult<Seconds>{};
      if (d && d.quantity->value > 0)
        s.timeout_seconds = d.quantity->value;
      else
        d_.error(loc_of(file_, t), "timeout", "expected a positive duration such as 120s");
    }

    std::vector<std::string> kinds;
    for (const char* k : {"grid", "random", "designs"})
      if (root[k]) kinds.push_back(k);
    if (kinds.size() != 1) {
      d_.error(SourceLoc{file_, 1, 1}, "",
               kinds.empty() ? "say what to vary: grid:, random: or designs:"
                             : "give one of grid:, random: and designs:, found " + kinds[0] + " and " + kinds[1]);
    } else if (kinds[0] == "grid") {
      s.kind = SweepSpec::Kind::GRID;
      read_grid(root["grid"], s);
    } else if (kinds[0] == "random") {
      s.kind = SweepSpec::Kind::RANDOM;
      read_random(root["random"], s);
    } else {
      s.kind = SweepSpec::Kind::DESIGNS;
      read_designs(root["designs"], s);
    }
    if (const auto m = root["metrics"]) read_metrics(m, s);
    const double points =
        static_cast<double>(s.designs.size()) * static_cast<double>(std::max<size_t>(1, s.seeds.size()));
    if (points > static_cast<double>(MAX_SWEEP_POINTS))
      d_.error(SourceLoc{file_, 1, 1}, "",
               std::to_string(s.designs.size()) + " designs x " + std::to_string(s.seeds.size()) + " seeds is " +
                   std::to_string(static_cast<long long>(points)) + " runs; a sweep runs at most " +
                   std::to_string(MAX_SWEEP_POINTS));
  }

 private:
  std::string file_;
  Diagnostics& d_;

  void read_seeds(const YAML::Node& n, SweepSpec& s) {
    if (!n) {
      s.seeds = {};  // the scenario's own seed (no --seed)
      return;
    }
    if (n.IsScalar()) {
      auto count = number_of(n);
      if (!count || *count < 1 || *count > 10000 || std::floor(*count) != *count) {
        d_.error(loc_of(file_, n), "seeds", "expected a count of seeds (1, 2, ...) or a list of seeds");
        return;
      }
      for (uint64_t i = 1; i <= static_cast<uint64_t>(*count); ++i) s.seeds.push_back(i);
      return;
    }
    if (!n.IsSequence() || n.size() == 0) {
      d_.error(loc_of(file_, n), "seeds", "expected a count of seeds or a non-empty list of seeds");
      return;
    }
    for (size_t i = 0; i < n.size(); ++i) {
      auto v = number_of(n[i]);
      // Seeds as exact integers: a double beyond 2^53 is no longer one, and beyond 2^64 no uint64 at all.
      if (!v || *v < 0 || std::floor(*v) != *v || *v > 9007199254740992.0)
        d_.error(loc_of(file_, n[i]), "seeds[" + std::to_string(i) + "]", "expected an integer 0..2^53");
      else
        s.seeds.push_back(static_cast<uint64_t>(*v));
    }
  }

  void read_grid(const YAML::Node& n, SweepSpec& s) {
    if (!n.IsMap() || n.size() == 0) {
      d_.error(loc_of(file_, n), "grid", "expected a mapping of scenario path: [values]");
      return;
    }
    for (const auto& kv : n) {
      SweepParameter p;
      p.path = kv.first.Scalar();
      if (!kv.second.IsSequence() || kv.second.size() == 0) {
        d_.error(loc_of(file_, kv.second), "grid." + p.path, "expected a non-empty list of values");
        continue;
      }
      for (const auto& v : kv.second) p.values.push_back(flow_text(v));
      s.parameters.push_back(p);
    }
    // Cartesian product, the first parameter varying slowest (nested loops in the order written).
    // Counted in floating point: an exact product of many lists overflows size_t (to 0, a silent empty grid).
    double total_designs = 1;
    for (const auto& p : s.parameters) total_designs *= static_cast<double>(p.values.size());
    if (total_designs > static_cast<double>(MAX_SWEEP_DESIGNS)) {
      char count[32];
      std::snprintf(count, sizeof count, "%.3g", total_designs);
      d_.error(loc_of(file_, n), "grid",
               std::string("the grid has ") + count + " designs; at most " + std::to_string(MAX_SWEEP_DESIGNS));
      return;
    }
    const auto total = static_cast<size_t>(total_designs);
    for (size_t i = 0; i < total && !s.parameters.empty(); ++i) {
      SweepDesign d;
      d.name = "d" + std::to_string(i);
      size_t rest = i;
      std::vector<size_t> index(s.parameters.size());
      for (size_t k = s.parameters.size(); k-- > 0;) {
        index[k] = rest % s.parameters[k].values.size();
        rest /= s.parameters[k].values.size();
      }
      for (size_t k = 0; k < s.parameters.size(); ++k)
        d.overrides.emplace_back(s.parameters[k].path, s.parameters[k].values[index[k]]);
      s.designs.push_back(d);
    }
  }

  void read_random(const YAML::Node& n, SweepSpec& s) {
    if (!n.IsMap()) {
      d_.error(loc_of(file_, n), "random", "expected samples:, seed: and parameters:");
      return;
    }
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (key != "samples" && key != "seed" && key != "parameters")
        d_.error(loc_of(file_, kv.first), "random." + key,
                 "unknown key" + suggest(key, {"samples", "seed", "parameters"}));
    }
    auto samples = number_of(n["samples"]);
    if (!samples || *samples < 1 || *samples > 100000 || std::floor(*samples) != *samples) {
      d_.error(n["samples"] ? loc_of(file_, n["samples"]) : loc_of(file_, n), "random.samples",
               "expected a number of samples between 1 and 100000");
      return;
    }
    s.samples = static_cast<size_t>(*samples);
    if (const auto seed = n["seed"]) {
      auto v = number_of(seed);
      if (!v || *v < 0 || std::floor(*v) != *v)
        d_.error(loc_of(file_, seed), "random.seed", "expected a non-negative integer");
      else
        s.random_seed = static_cast<uint64_t>(*v);
    }
    const auto params = n["parameters"];
    if (!params || !params.IsMap() || params.size() == 0) {
      d_.error(params ? loc_of(file_, params) : loc_of(file_, n), "random.parameters",
               "expected a mapping of scenario path: [choices] or {min:, max:, unit:, log:, integer:}");
      return;
    }
    for (const auto& kv : params) {
      SweepParameter p;
      p.path = kv.first.Scalar();
      const std::string where = "random.parameters." + p.path;
      if (kv.second.IsSequence() && kv.second.size() > 0) {
        for (const auto& v : kv.second) p.values.push_back(flow_text(v));
      } else if (kv.second.IsMap()) {
        p.range = true;
        for (const auto& field : kv.second) {
          const std::string key = field.first.Scalar();
          if (key != "min" && key != "max" && key != "unit" && key != "log" && key != "integer")
            d_.error(loc_of(file_, field.first), where,
                     "unknown key '" + key + "'" + suggest(key, {"min", "max", "unit", "log", "integer"}));
        }
        auto lo = number_of(kv.second["min"]), hi = number_of(kv.second["max"]);
        if (!lo || !hi || *lo > *hi) {
          d_.error(loc_of(file_, kv.second), where, "expected numbers min <= max");
          continue;
        }
        p.min = *lo;
        p.max = *hi;
        p.unit = kv.second["unit"] ? kv.second["unit"].Scalar() : "";
        p.log = kv.second["log"] && kv.second["log"].Scalar() == "true";
        p.integer = kv.second["integer"] && kv.second["integer"].Scalar() == "true";
        if (p.log && p.min <= 0) d_.error(loc_of(file_, kv.second), where, "log: true needs min > 0");
      } else {
        d_.error(loc_of(file_, kv.second), where, "expected a list of choices or {min:, max:}");
        continue;
      }
      s.parameters.push_back(p);
    }
    // One stream per sweep: the same file and seed always give the same designs.
    RngStream rng = make_stream(s.random_seed, "sweep/" + s.name);
    for (size_t i = 0; i < s.samples; ++i) {
      SweepDesign d;
      d.name = "r" + std::to_string(i);
      for (const auto& p : s.parameters) {
        const double u = rng.uniform();
        std::string value;
        if (!p.range) {
          value =
              p.values[std::min(p.values.size() - 1, static_cast<size_t>(u * static_cast<double>(p.values.size())))];
        } else {
          double x =
              p.log ? std::exp(std::log(p.min) + u * (std::log(p.max) - std::log(p.min))) : p.min + u * (p.max - p.min);
          char buf[64];
          if (p.integer) {
            x = std::min(p.max, std::floor(x + 0.5));
            std::snprintf(buf, sizeof buf, "%.0f", x);
          } else {
            std::snprintf(buf, sizeof buf, "%.4g", x);
          }
          value = buf + p.unit;
        }
        d.overrides.emplace_back(p.path, value);
      }
      s.designs.push_back(d);
    }
  }

  void read_designs(const YAML::Node& n, SweepSpec& s) {
    if (!n.IsSequence() || n.size() == 0) {
      d_.error(loc_of(file_, n), "designs", "expected a non-empty list of {name:, set: {path: value}}");
      return;
    }
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string where = "designs[" + std::to_string(i) + "]";
      const auto item = n[i];
      if (!item.IsMap()) {
        d_.error(loc_of(file_, item), where, "expected {name:, set: {path: value}}");
        continue;
      }
      for (const auto& kv : item) {
        const std::string key = kv.first.Scalar();
        if (key != "name" && key != "set")
          d_.error(loc_of(file_, kv.first), where, "unknown key '" + key + "'" + suggest(key, {"name", "set"}));
      }
      SweepDesign d;
      d.name = item["name"] && item["name"].IsScalar() ? item["name"].Scalar() : "d" + std::to_string(i);
      for (const auto& other : s.designs)
        if (other.name == d.name)
          d_.error(loc_of(file_, item), where + ".name", "duplicate design name '" + d.name + "'");
      if (const auto set = item["set"]) {
        if (!set.IsMap())
          d_.error(loc_of(file_, set), where + ".set", "expected a mapping of scenario path: value");
        else
          for (const auto& kv : set) d.overrides.emplace_back(kv.first.Scalar(), flow_text(kv.second));
      }
      s.designs.push_back(d);
    }
  }

  void read_metrics(const YAML::Node& n, SweepSpec& s) {
    if (!n.IsMap()) {
      d_.error(loc_of(file_, n), "metrics", "expected a mapping of column name: report path");
      return;
    }
    const auto& builtin = builtin_metric_names();
    for (const auto& kv : n) {
      const std::string name = kv.first.Scalar();
      if (std::find(builtin.begin(), builtin.end(), name) != builtin.end()) {
        d_.error(loc_of(file_, kv.first), "metrics." + name,
                 "'" + name + "' is a built-in column; choose another name");
        continue;
      }
      std::string error;
      int column = 0;
      auto path = kv.second.IsScalar() ? parse_report_path(kv.second.Scalar(), error, column) : std::nullopt;
      if (!path) {
        d_.error(loc_of(file_, kv.second), "metrics." + name,
                 error.empty() ? "expected a path into report.json" : error);
        continue;
      }
      s.metrics.emplace_back(name, *path);
    }
  }
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string metric_text(const std::optional<double>& v) {
  if (!v) return "";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", *v);
  return buf;
}

// Four significant digits for the tables of sweep.md (sweep.csv keeps ten).
std::string short_text(const std::optional<double>& v) {
  if (!v || std::isinf(*v)) return metric_text(v);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4g", *v);
  return buf;
}

const std::string* override_value(const SweepDesign& d, const std::string& path) {
  for (const auto& [p, v] : d.overrides)
    if (p == path) return &v;
  return nullptr;
}

enum BuiltinMetric {
  SLOS_MISSED,
  WORST_SLO_RATIO,
  MIN_SLO_COMPLIANCE,
  GPU_HOURS,
  COST,
  MEAN_UTILISATION,
  LEAKAGE_BITS,
  LEAKAGE_BYTES,
  BUILTIN_COUNT
};

// Per design, the worst value over its seeds of each metric; nullopt when a seed failed.
struct DesignSummary {
  bool ok = true;
  std::vector<std::optional<double>> worst;
};

std::vector<DesignSummary> summarise_designs(const SweepSpec& spec, const std::vector<PointResult>& results) {
  std::vector<DesignSummary> out(spec.designs.size());
  for (auto& d : out) d.worst.assign(BUILTIN_COUNT + spec.metrics.size(), std::nullopt);
  for (const auto& r : results) {
    auto& d = out[r.point.design];
    if (!r.ok) {
      d.ok = false;
      continue;
    }
    for (size_t m = 0; m < r.metrics.size() && m < d.worst.size(); ++m) {
      if (!r.metrics[m]) continue;
      // Worst case across seeds: the larger value, except compliance where smaller is worse.
      const double v = *r.metrics[m];
      if (!d.worst[m])
        d.worst[m] = v;
      else
        d.worst[m] = m == MIN_SLO_COMPLIANCE ? std::min(*d.worst[m], v) : std::max(*d.worst[m], v);
    }
  }
  return out;
}

// Cost objective: the report's cost where every design has one, else provisioned GPU-hours.
size_t cost_column(const std::vector<DesignSummary>& designs) {
  bool all_cost = !designs.empty();
  for (const auto& d : designs)
    if (d.ok && !d.worst[COST]) all_cost = false;
  return all_cost ? COST : GPU_HOURS;
}

bool leakage_objective(const std::vector<DesignSummary>& designs) {
  bool any_ok = false;
  for (const auto& d : designs) {
    if (!d.ok) continue;
    any_ok = true;
    if (!d.worst[LEAKAGE_BITS]) return false;
  }
  return any_ok;
}

std::string design_parameters(const SweepSpec& spec, const SweepDesign& d) {
  std::string out;
  for (const auto& [path, value] : d.overrides) {
    (void)spec;
    out += (out.empty() ? "" : ", ") + path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1) +
           "=" + value;
  }
  return out.empty() ? "(base scenario)" : out;
}

// 1-D dataset writers over the project's HDF5 handle (sim/core/H5Id.hpp).
using h5::H5Id;

void h5_check(bool ok, const std::string& what) {
  if (!ok) throw RuntimeError("sweep.h5: cannot write " + what);
}

void h5_numbers(hid_t loc, const std::string& name, const std::vector<double>& values) {
  const hsize_t n = values.size();
  H5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5Id set(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  h5_check(set.get() >= 0, name);
  if (n) h5_check(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0, name);
}

void h5_integers(hid_t loc, const std::string& name, const std::vector<int64_t>& values) {
  const hsize_t n = values.size();
  H5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5Id set(H5Dcreate2(loc, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  h5_check(set.get() >= 0, name);
  if (n) h5_check(H5Dwrite(set.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0, name);
}

void h5_strings(hid_t loc, const std::string& name, const std::vector<std::string>& values) {
  const hsize_t n = values.size();
  H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  H5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5Id set(H5Dcreate2(loc, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  h5_check(set.get() >= 0, name);
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  if (n) h5_check(H5Dwrite(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()) >= 0, name);
}

}  // namespace

const std::vector<std::string>& builtin_metric_names() {
  static const std::vector<std::string> names = {
      "slos_missed", "worst_slo_ratio",  "min_slo_compliance", "gpu_hours",
      "cost",        "mean_utilisation", "leakage_bits",       "leakage_bytes"};
  return names;
}

bool parse_sweep_text(const std::string& text, const std::string& path, SweepSpec& out, Diagnostics& diags) {
  const size_t before = diags.error_count();
  const auto root = parse_yaml_input(text, path, "scenario: and grid:, random: or designs:", diags);
  if (!root) return false;
  SweepParser(path, diags).parse(*root, out);
  return diags.error_count() == before;
}

bool load_sweep(const std::string& path, SweepSpec& out, Diagnostics& diags) {
  const auto text = read_yaml_input(path, diags);
  return text && parse_sweep_text(*text, path, out, diags);
}

std::vector<SweepPoint> sweep_points(const SweepSpec& spec) {
  std::vector<SweepPoint> points;
  const size_t seeds = std::max<size_t>(1, spec.seeds.size());
  for (size_t d = 0; d < spec.designs.size(); ++d)
    for (size_t s = 0; s < seeds; ++s) points.push_back({points.size(), d, spec.seeds.empty() ? 0 : spec.seeds[s]});
  return points;
}

std::vector<std::string> parameter_columns(const SweepSpec& spec) {
  std::vector<std::string> columns;
  for (const auto& d : spec.designs)
    for (const auto& [path, value] : d.overrides)
      if (std::find(columns.begin(), columns.end(), path) == columns.end()) columns.push_back(path);
  return columns;
}

std::vector<std::optional<double>> extract_metrics(const SweepSpec& spec, const Json& report) {
  std::vector<std::optional<double>> m(BUILTIN_COUNT + spec.metrics.size());
  const auto number = [](const Json& v) -> std::optional<double> {
    if (v.is_number()) return v.get<double>();
    if (v.is_null()) return INF;  // unbounded
    return std::nullopt;
  };
  if (report.contains("summary") && report["summary"].contains("slos_missed"))
    m[SLOS_MISSED] = number(report["summary"]["slos_missed"]);
  // Worst SLO ratio: the worst window's value against the threshold, > 1 means the objective was missed
  // in some window (threshold / value for throughput floors, where higher is better).
  double worst_ratio = 0, min_compliance = 1;
  bool any_slo = false;
  if (report.contains("tenants"))
    for (const auto& t : report["tenants"]) {
      if (!t.contains("slos")) continue;
      for (const auto& s : t["slos"]) {
        any_slo = true;
        const double threshold = s.value("threshold", 0.0);
        const bool higher = s.value("higher_is_better", false);
        double ratio = INF;
        if (s.contains("worst") && s["worst"].is_number() && threshold > 0) {
          const double w = s["worst"].get<double>();
          ratio = higher ? (w > 0 ? threshold / w : INF) : w / threshold;
        }
        worst_ratio = std::max(worst_ratio, ratio);
        if (s.contains("compliance") && s["compliance"].is_number())
          min_compliance = std::min(min_compliance, s["compliance"].get<double>());
      }
    }
  if (any_slo) {
    m[WORST_SLO_RATIO] = worst_ratio;
    m[MIN_SLO_COMPLIANCE] = min_compliance;
  }
  if (report.contains("summary") && report.contains("scenario")) {
    const double gpus = report["summary"].value("gpus", 0.0);
    const double duration = report["scenario"].value("duration_s", 0.0);
    m[GPU_HOURS] = gpus * duration / 3600.0;
  }
  // An unpriced design (every pool at price 0) has no cost: the Pareto front then uses GPU-hours.
  if (report.contains("cost") && report["cost"].is_object() && report["cost"].contains("total") &&
      number(report["cost"]["total"]) > 0)
    m[COST] = number(report["cost"]["total"]);
  double utilisation = 0;
  size_t gpus = 0;
  if (report.contains("gpus"))
    for (const auto& g : report["gpus"])
      if (g.contains("utilisation") && g["utilisation"].is_number()) {
        utilisation += g["utilisation"].get<double>();
        ++gpus;
      }
  if (gpus) m[MEAN_UTILISATION] = utilisation / static_cast<double>(gpus);
  if (report.contains("leakage") && report["leakage"].contains("totals")) {
    const auto& totals = report["leakage"]["totals"];
    if (totals.contains("bits")) m[LEAKAGE_BITS] = number(totals["bits"]);
    if (totals.contains("bytes")) m[LEAKAGE_BYTES] = number(totals["bytes"]);
  }
  for (size_t i = 0; i < spec.metrics.size(); ++i) {
    const auto r = resolve(spec.metrics[i].second, report);
    std::optional<double> worst;
    for (const auto& match : r.matches)
      if (auto v = number(*match.value)) worst = worst ? std::max(*worst, *v) : *v;
    m[BUILTIN_COUNT + i] = worst;
  }
  return m;
}

std::string sweep_csv(const SweepSpec& spec, const std::vector<PointResult>& results) {
  const auto params = parameter_columns(spec);
  std::string out = "point,design,seed,status";
  for (const auto& p : params) out += "," + csv_field(p);
  for (const auto& m : builtin_metric_names()) out += "," + m;
  for (const auto& [name, path] : spec.metrics) out += "," + csv_field(name);
  out += "\n";
  for (const auto& r : results) {
    const auto& design = spec.designs[r.point.design];
    out += std::to_string(r.point.id) + "," + csv_field(design.name) + "," +
           (spec.seeds.empty() ? std::string("") : std::to_string(r.point.seed)) + "," + (r.ok ? "ok" : "failed");
    for (const auto& p : params) {
      const std::string* v = override_value(design, p);
      out += "," + csv_field(v ? *v : "");
    }
    const size_t columns = builtin_metric_names().size() + spec.metrics.size();
    for (size_t m = 0; m < columns; ++m) out += "," + (r.ok && m < r.metrics.size() ? metric_text(r.metrics[m]) : "");
    out += "\n";
  }
  return out;
}

std::vector<size_t> pareto_front(const SweepSpec& spec, const std::vector<PointResult>& results) {
  const auto designs = summarise_designs(spec, results);
  std::vector<size_t> objectives = {cost_column(designs), WORST_SLO_RATIO};
  if (leakage_objective(designs)) objectives.push_back(LEAKAGE_BITS);
  const auto value = [&](size_t d, size_t m) { return designs[d].worst[m].value_or(INF); };
  std::vector<size_t> front;
  for (size_t a = 0; a < designs.size(); ++a) {
    if (!designs[a].ok) continue;
    bool dominated = false;
    for (size_t b = 0; b < designs.size() && !dominated; ++b) {
      if (a == b || !designs[b].ok) continue;
      bool no_worse = true, better = false;
      for (size_t m : objectives) {
        no_worse = no_worse && value(b, m) <= value(a, m);
        better = better || value(b, m) < value(a, m);
      }
      dominated = no_worse && better;
    }
    if (!dominated) front.push_back(a);
  }
  return front;
}

std::string sweep_markdown(const SweepSpec& spec, const std::vector<PointResult>& results) {
  const auto designs = summarise_designs(spec, results);
  const auto front = pareto_front(spec, results);
  const size_t cost = cost_column(designs);
  const bool leakage = leakage_objective(designs);
  size_t ok = 0;
  for (const auto& r : results) ok += r.ok ? 1 : 0;
  std::string md = "# Sweep " + spec.name + "\n\n";
  md += "Base scenario `" + spec.scenario + "`, " + std::to_string(spec.designs.size()) + " designs x " +
        std::to_string(std::max<size_t>(1, spec.seeds.size())) + " seeds = " + std::to_string(results.size()) +
        " points: " + std::to_string(ok) + " ok, " + std::to_string(results.size() - ok) + " failed.\n\n";
  md += "## Pareto front\n\n";
  md +=
      "Designs no other design beats on every objective, each judged by its worst seed. Objectives (all "
      "minimised): **" +
      std::string(cost == COST ? "cost" : "gpu_hours") + "** (" +
      (cost == COST ? "the report's cost.total" : "provisioned GPU-hours: GPUs x duration; no pool is priced") +
      "), **worst_slo_ratio** (worst window's value / threshold over every SLO; > 1 missed)" +
      (leakage ? ", **leakage_bits** (leakage.totals.bits)" : " (leakage bound: not in these reports)") + ".\n\n";
  md += "| design | parameters | " + std::string(cost == COST ? "cost" : "gpu_hours") +
        " | worst_slo_ratio | min_slo_compliance | slos_missed |" + (leakage ? " leakage_bits |" : "") + "\n";
  md += "|---|---|---:|---:|---:|---:|" + std::string(leakage ? "---:|" : "") + "\n";
  for (size_t d : front) {
    const auto& w = designs[d].worst;
    md += "| " + spec.designs[d].name + " | " + design_parameters(spec, spec.designs[d]) + " | " + short_text(w[cost]) +
          " | " + short_text(w[WORST_SLO_RATIO]) + " | " + short_text(w[MIN_SLO_COMPLIANCE]) + " | " +
          short_text(w[SLOS_MISSED]) + " |" + (leakage ? " " + short_text(w[LEAKAGE_BITS]) + " |" : "") + "\n";
  }
  md += "\n![cost vs worst SLO ratio](sweep.svg)\n\n## Every design (worst over seeds)\n\n";
  md += "| design | parameters | status | gpu_hours | worst_slo_ratio | min_slo_compliance | mean_utilisation |\n";
  md += "|---|---|---|---:|---:|---:|---:|\n";
  const size_t limit = 500;
  for (size_t d = 0; d < designs.size() && d < limit; ++d) {
    const auto& w = designs[d].worst;
    const bool on_front = std::find(front.begin(), front.end(), d) != front.end();
    md += "| " + spec.designs[d].name + " | " + design_parameters(spec, spec.designs[d]) + " | " +
          (designs[d].ok ? (on_front ? "ok, front" : "ok") : "failed") + " | " + short_text(w[GPU_HOURS]) + " | " +
          short_text(w[WORST_SLO_RATIO]) + " | " + short_text(w[MIN_SLO_COMPLIANCE]) + " | " +
          short_text(w[MEAN_UTILISATION]) + " |\n";
  }
  if (designs.size() > limit) md += "\n(" + std::to_string(designs.size() - limit) + " more in sweep.csv)\n";
  bool any_failed = false;
  for (const auto& r : results) {
    if (r.ok) continue;
    if (!any_failed) md += "\n## Failed points\n\n";
    any_failed = true;
    md += "- point " + std::to_string(r.point.id) + " (" + spec.designs[r.point.design].name + ", seed " +
          std::to_string(r.point.seed) + "): " + r.detail.substr(0, r.detail.find('\n')) + "\n";
  }
  return md;
}

std::string sweep_chart_svg(const SweepSpec& spec, const std::vector<PointResult>& results) {
  const auto designs = summarise_designs(spec, results);
  const auto front = pareto_front(spec, results);
  const size_t cost = cost_column(designs);
  const double width = 640, height = 420, left = 70, right = 20, top = 30, bottom = 50;
  double x_max = 0, y_max = 0;
  for (const auto& d : designs) {
    if (!d.ok) continue;
    if (d.worst[cost] && std::isfinite(*d.worst[cost])) x_max = std::max(x_max, *d.worst[cost]);
    if (d.worst[WORST_SLO_RATIO] && std::isfinite(*d.worst[WORST_SLO_RATIO]))
      y_max = std::max(y_max, *d.worst[WORST_SLO_RATIO]);
  }
  x_max = x_max > 0 ? x_max * 1.1 : 1;
  y_max = std::max(1.2, y_max * 1.1);
  const auto px = [&](double x) { return left + (width - left - right) * x / x_max; };
  const auto py = [&](double y) { return height - bottom - (height - top - bottom) * std::min(y, y_max) / y_max; };
  char buf[512];
  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"420\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"640\" height=\"420\" fill=\"white\"/>\n";
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s (max %.4g)</text>\n"
                "<text x=\"15\" y=\"%.1f\" transform=\"rotate(-90 15 %.1f)\" text-anchor=\"middle\">worst SLO ratio "
                "(&gt; 1 missed)</text>\n"
                "<text x=\"%.1f\" y=\"20\" text-anchor=\"middle\">Sweep %s: Pareto front in red</text>\n",
                left, height - bottom, width - right, height - bottom, left, top, left, height - bottom, left, py(1),
                width - right, py(1), (left + width - right) / 2, height - 15, cost == COST ? "cost" : "GPU-hours",
                x_max / 1.1, (top + height - bottom) / 2, (top + height - bottom) / 2, width / 2, spec.name.c_str());
  svg += buf;
  for (size_t d = 0; d < designs.size(); ++d) {
    if (!designs[d].ok || !designs[d].worst[cost] || !designs[d].worst[WORST_SLO_RATIO]) continue;
    const bool on_front = std::find(front.begin(), front.end(), d) != front.end();
    std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>%s</title></circle>\n",
                  px(*designs[d].worst[cost]), py(*designs[d].worst[WORST_SLO_RATIO]), on_front ? 5 : 3,
                  on_front ? "#c00" : "#888", spec.designs[d].name.c_str());
    svg += buf;
  }
  return svg + "</svg>\n";
}

void write_sweep_h5(const std::string& path, const SweepSpec& spec, const std::vector<PointResult>& results) {
  produce_file_atomic(path, [&](const std::string& tmp) {
    const h5::QuietHdf5Errors quiet;
    H5Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    H5Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose);
    h5_check(file.get() >= 0, tmp);
    std::vector<int64_t> ids, design, seed, ok;
    std::vector<std::string> design_names;
    for (const auto& r : results) {
      ids.push_back(static_cast<int64_t>(r.point.id));
      design.push_back(static_cast<int64_t>(r.point.design));
      seed.push_back(static_cast<int64_t>(r.point.seed));
      ok.push_back(r.ok ? 1 : 0);
      design_names.push_back(spec.designs[r.point.design].name);
    }
    {
      H5Id points(H5Gcreate2(file.get(), "points", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      h5_check(points.get() >= 0, "/points");
      h5_integers(points.get(), "id", ids);
      h5_integers(points.get(), "design", design);
      h5_integers(points.get(), "seed", seed);
      h5_integers(points.get(), "ok", ok);
      h5_strings(points.get(), "design_name", design_names);
    }
    {
      H5Id metrics(H5Gcreate2(file.get(), "metrics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      h5_check(metrics.get() >= 0, "/metrics");
      std::vector<std::string> names = builtin_metric_names();
      for (const auto& [name, p] : spec.metrics) names.push_back(name);
      for (size_t m = 0; m < names.size(); ++m) {
        std::vector<double> column;  // NaN where absent or the point failed
        for (const auto& r : results)
          column.push_back(r.ok && m < r.metrics.size() && r.metrics[m] ? *r.metrics[m]
                                                                        : std::numeric_limits<double>::quiet_NaN());
        h5_numbers(metrics.get(), names[m], column);
      }
    }
    {
      H5Id params(H5Gcreate2(file.get(), "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      h5_check(params.get() >= 0, "/parameters");
      // Dataset names cannot hold '/' or '.': the parameter paths are listed in /parameters/paths instead.
      const auto columns = parameter_columns(spec);
      h5_strings(params.get(), "paths", columns);
      for (size_t c = 0; c < columns.size(); ++c) {
        std::vector<std::string> values;
        for (const auto& r : results) {
          const std::string* v = override_value(spec.designs[r.point.design], columns[c]);
          values.push_back(v ? *v : "");
        }
        h5_strings(params.get(), "p" + std::to_string(c), values);
      }
    }
  });
}

void order_longest_first(std::vector<size_t>& ids, const std::vector<SweepPoint>& points,
                         const std::map<size_t, double>& cost_by_design) {
  const auto cost = [&](size_t id) {  // NaN would break the sort's ordering: it counts as 0
    const auto it = cost_by_design.find(points[id].design);
    return it == cost_by_design.end() || std::isnan(it->second) ? 0.0 : it->second;
  };
  std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) {
    if (cost(a) != cost(b)) return cost(a) > cost(b);
    return a < b;
  });
}

}  // namespace gtw::regress
