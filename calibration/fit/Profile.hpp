#pragma once
// Fitted parameters -> a hardware profile (calibration/profiles/*.yaml format, every value with its
// source) and a human-readable fit report.
#include <string>
#include <vector>

#include "Fit.hpp"
#include "RawSamples.hpp"

namespace gtw::calib {

/// The bundled profile closest to the recorded device (by name and memory size): H200-141GB,
/// H100-80GB-SXM, A100-80GB or A100-40GB; H100-80GB-SXM when nothing matches.
std::string base_profile_for(const RawRecording& r);

struct ProfileOptions {
  std::string name;       // metadata.name of the new profile
  std::string base_file;  // the profile whose unmeasured fields (MIG table, datasheet peaks, CC) are kept
  std::string raw_file;   // where the raw samples are kept (HDF5), named in every source
};

/// Writes the profile YAML text into `out`. Fields not measured keep the base profile's value and
/// source; measured ones say "(measured)" (or "(synthetic)" for a synthetic recording) with the
/// method, device, host, time and raw file. `notes` receives what was kept and why.
bool make_profile_yaml(const FitResult& fit, const RawRecording& r, const std::string& base_text,
                       const ProfileOptions& options, std::string& out, std::vector<std::string>& notes,
                       std::string& error);

/// Markdown report of every fitted parameter with its spread and goodness of fit.
std::string fit_report_markdown(const FitResult& fit, const RawRecording& r);

/// "2.57TB/s", "35.0GB/s"; "989.4TFLOP/s"; "50.0MiB"; "35.2us".
std::string format_bandwidth_si(double bytes_per_s);
std::string format_flops_si(double flops);
std::string format_bytes_iec(double bytes);
std::string format_seconds_si(double s);

}  // namespace gtw::calib
