#include "RawSamples.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "AtomicFile.hpp"
#include "Errors.hpp"
#include "H5Handle.hpp"
#include "InputFile.hpp"
#include "Sha256.hpp"

namespace gtw::calib {

using nlohmann::json;

const std::vector<double>* RawExperiment::get(const std::string& series_name) const {
  for (const auto& [k, v] : series)
    if (k == series_name) return &v;
  return nullptr;
}
double RawExperiment::param(const std::string& key, double fallback) const {
  auto it = num.find(key);
  return it == num.end() ? fallback : it->second;
}
std::string RawExperiment::str(const std::string& key) const {
  auto it = text.find(key);
  return it == text.end() ? std::string() : it->second;
}
std::vector<double>& RawExperiment::add(const std::string& series_name) {
  series.emplace_back(series_name, std::vector<double>{});
  return series.back().second;
}

std::vector<const RawExperiment*> RawRecording::all(const std::string& name) const {
  std::vector<const RawExperiment*> out;
  for (const auto& e : experiments)
    if (e.name == name) out.push_back(&e);
  return out;
}
double RawRecording::meta_num(const std::string& key, double fallback) const {
  auto it = metadata.find(key);
  if (it == metadata.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  return end == it->second.c_str() ? fallback : v;
}
std::string RawRecording::meta(const std::string& key, const std::string& fallback) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? fallback : it->second;
}
RawExperiment& RawRecording::add(const std::string& name, const std::string& unit) {
  experiments.push_back(RawExperiment{name, unit, {}, {}, {}});
  return experiments.back();
}

bool parse_raw(const std::string& text, const std::string& file, RawRecording& out, std::string& error) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    error = file + ": not JSON: " + e.what();
    return false;
  }
  if (!j.is_object() || j.value("format", "") != "gputwin-calibration-raw") {
    error = file + ": not a gputwin calibration recording (expected \"format\": \"gputwin-calibration-raw\")";
    return false;
  }
  out = RawRecording{};
  out.file = file;
  out.sha256 = sha256_hex(text);
  out.version = j.value("version", 0);
  if (out.version != 1) {
    error = file + ": unsupported recording version " + std::to_string(out.version) + " (this gputwin reads 1)";
    return false;
  }
  out.synthetic = j.value("synthetic", false);
  out.synthetic_note = j.value("synthetic_note", "");
  if (j.contains("metadata") && j["metadata"].is_object()) {
    for (const auto& [k, v] : j["metadata"].items()) out.metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (j.contains("skipped") && j["skipped"].is_array())
    for (const auto& s : j["skipped"])
      if (s.is_string()) out.skipped.push_back(s.get<std::string>());
  if (!j.contains("experiments") || !j["experiments"].is_array()) {
    error = file + ": no \"experiments\" list";
    return false;
  }
  size_t i = 0;
  for (const auto& e : j["experiments"]) {
    const std::string where = file + ": experiments[" + std::to_string(i++) + "]";
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) {
      error = where + ": expected {name, unit, params, series}";
      return false;
    }
    RawExperiment x;
    x.name = e["name"].get<std::string>();
    x.unit = e.value("unit", "");
    if (e.contains("params") && e["params"].is_object()) {
      for (const auto& [k, v] : e["params"].items()) {
        if (v.is_number())
          x.num[k] = v.get<double>();
        else if (v.is_string())
          x.text[k] = v.get<std::string>();
        else if (v.is_boolean())
          x.num[k] = v.get<bool>() ? 1 : 0;
      }
    }
    if (e.contains("series") && e["series"].is_object()) {
      for (const auto& [k, v] : e["series"].items()) {
        if (!v.is_array()) {
          error = where + ".series." + k + ": expected a list of numbers";
          return false;
        }
        auto& s = x.add(k);
        for (const auto& n : v) s.push_back(n.is_number() ? n.get<double>() : std::numeric_limits<double>::quiet_NaN());
      }
    }
    out.experiments.push_back(std::move(x));
  }
  return true;
}

bool load_raw(const std::string& path, RawRecording& out, std::string& error) {
  Diagnostics diags;
  const auto text = read_input_file(path, InputKind::CALIBRATION, diags);
  if (!text) {
    error = diags.all().front().message;
    return false;
  }
  return parse_raw(*text, path, out, error);
}

std::string raw_to_json(const RawRecording& r) {
  // ordered_json keeps the insertion order: series in the order they were recorded.
  nlohmann::ordered_json j;
  j["format"] = "gputwin-calibration-raw";
  j["version"] = r.version;
  j["synthetic"] = r.synthetic;
  if (!r.synthetic_note.empty()) j["synthetic_note"] = r.synthetic_note;
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.metadata) meta[k] = v;
  j["metadata"] = meta;
  j["skipped"] = r.skipped;
  j["experiments"] = nlohmann::ordered_json::array();
  for (const auto& e : r.experiments) {
    nlohmann::ordered_json x;
    x["name"] = e.name;
    x["unit"] = e.unit;
    nlohmann::ordered_json p = nlohmann::ordered_json::object();
    for (const auto& [k, v] : e.num) p[k] = v;
    for (const auto& [k, v] : e.text) p[k] = v;
    x["params"] = p;
    nlohmann::ordered_json s = nlohmann::ordered_json::object();
    for (const auto& [k, v] : e.series) s[k] = v;
    x["series"] = s;
    j["experiments"].push_back(x);
  }
  return j.dump(1) + "\n";
}

namespace {

using H5 = h5::H5Id;  // the project's HDF5 handle (sim/core/H5Handle.hpp)

bool attr_string(hid_t obj, const std::string& name, const std::string& value) {
  H5 type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.empty() ? 1 : value.size());
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  H5 space(H5Screate(H5S_SCALAR), H5Sclose);
  H5 a(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (a.get() < 0) return false;
  const std::string v = value.empty() ? std::string(1, '\0') : value;
  return H5Awrite(a.get(), type.get(), v.data()) >= 0;
}

bool attr_double(hid_t obj, const std::string& name, double value) {
  H5 space(H5Screate(H5S_SCALAR), H5Sclose);
  H5 a(H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return a.get() >= 0 && H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value) >= 0;
}

// Writes the whole recording at `tmp`; false with `error` on failure.
bool write_raw_h5_at(const std::string& tmp, const RawRecording& r, std::string& error) {
  {
    H5 file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (file.get() < 0) {
      error = "cannot create " + tmp;
      return false;
    }
    bool ok = true;
    {
      H5 meta(H5Gcreate2(file.get(), "/metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      ok = ok && attr_string(meta.get(), "format", "gputwin-calibration-raw");
      ok = ok && attr_double(meta.get(), "version", r.version);
      ok = ok && attr_string(meta.get(), "synthetic", r.synthetic ? "true" : "false");
      if (!r.synthetic_note.empty()) ok = ok && attr_string(meta.get(), "synthetic_note", r.synthetic_note);
      ok = ok && attr_string(meta.get(), "source_file", r.file);
      ok = ok && attr_string(meta.get(), "source_sha256", r.sha256);
      for (const auto& [k, v] : r.metadata) ok = ok && attr_string(meta.get(), k, v);
      std::string skipped;
      for (const auto& s : r.skipped) skipped += s + "\n";
      ok = ok && attr_string(meta.get(), "skipped", skipped);
    }
    H5 exps(H5Gcreate2(file.get(), "/experiments", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    for (size_t i = 0; ok && i < r.experiments.size(); ++i) {
      const auto& e = r.experiments[i];
      char name[32];
      std::snprintf(name, sizeof name, "%04zu_", i);
      H5 g(H5Gcreate2(exps.get(), (name + e.name).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      if (g.get() < 0) {
        ok = false;
        break;
      }
      ok = ok && attr_string(g.get(), "name", e.name) && attr_string(g.get(), "unit", e.unit);
      for (const auto& [k, v] : e.num) ok = ok && attr_double(g.get(), k, v);
      for (const auto& [k, v] : e.text) ok = ok && attr_string(g.get(), k, v);
      for (const auto& [k, v] : e.series) {
        const hsize_t n = v.size();
        H5 space(H5Screate_simple(1, &n, nullptr), H5Sclose);
        H5 d(H5Dcreate2(g.get(), k.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
             H5Dclose);
        ok = ok && d.get() >= 0 &&
             (n == 0 || H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
        if (ok) ok = attr_string(d.get(), "unit", e.unit);
      }
    }
    if (!ok) {
      error = "cannot write HDF5 " + tmp;
      return false;
    }
  }
  return true;
}

}  // namespace

bool write_raw_h5(const std::string& path, const RawRecording& r, std::string& error) {
  try {
    produce_file_atomic(path, [&](const std::string& tmp) {
      const h5::QuietHdf5Errors quiet;
      std::string why;
      if (!write_raw_h5_at(tmp, r, why)) throw RuntimeError(why);
    });
    return true;
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

}  // namespace gtw::calib
