#include "Profile.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace gtw::calib {

namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
}  // namespace

std::string format_bandwidth_si(double b) {
  return b >= 1e12 ? fmt("%.3fTB/s", b / 1e12) : fmt("%.2fGB/s", b / 1e9);
}
std::string format_flops_si(double f) {
  return fmt("%.1fTFLOP/s", f / 1e12);
}
std::string format_bytes_iec(double b) {
  return fmt("%.1fMiB", b / (1024.0 * 1024.0));
}
std::string format_seconds_si(double s) {
  if (s < 1e-6) return fmt("%.0fns", s * 1e9);
  if (s < 1e-3) return fmt("%.2fus", s * 1e6);
  return fmt("%.3fms", s * 1e3);
}

std::string base_profile_for(const RawRecording& r) {
  const std::string dev = r.meta("device");
  const double mem_gb = r.meta_num("memory_bytes", 0) / 1e9;
  if (dev.find("H200") != std::string::npos) return "H200-141GB";
  if (dev.find("H100") != std::string::npos) return "H100-80GB-SXM";
  if (dev.find("A100") != std::string::npos) return mem_gb > 50 ? "A100-80GB" : "A100-40GB";
  return "H100-80GB-SXM";
}

bool make_profile_yaml(const FitResult& fit, const RawRecording& r, const std::string& base_text,
                       const ProfileOptions& options, std::string& out, std::vector<std::string>& notes,
                       std::string& error) {
  YAML::Node root;
  try {
    root = YAML::Load(base_text);
  } catch (const YAML::Exception& e) {
    error = "base profile: " + e.msg;
    return false;
  }
  if (!root["spec"] || !root["spec"].IsMap()) {
    error = "base profile has no spec";
    return false;
  }
  YAML::Node spec = root["spec"];
  const std::string marker = r.synthetic ? "(synthetic)" : "(measured)";
  std::ostringstream where;
  where << "gputwin calibrate" << (r.meta("quick") == "true" ? " --quick" : "") << " on " << r.meta("device", "?")
        << " (" << r.meta("uuid", "?") << ", driver " << r.meta("driver_version", "?") << ", runtime "
        << r.meta("runtime_version", "?") << "), host " << r.meta("host", "?") << ", " << r.meta("started_utc", "?")
        << "; raw samples " << options.raw_file << " (sha256 " << r.sha256.substr(0, 16) << ")";
  if (r.synthetic) where << "; SYNTHETIC recording, not a measurement (calibration.syntheticNote)";
  const std::string prov = where.str();
  auto set = [&](const std::string& key, const std::string& value, const std::string& how) {
    YAML::Node f;
    f["value"] = value;
    f["source"] = marker + " " + how + "; " + prov;
    spec[key] = f;
  };
  auto value_of = [&](const std::string& key) {
    return spec[key] && spec[key]["value"] ? spec[key]["value"].as<std::string>() : std::string();
  };
  auto parse_num = [](const std::string& s) { return std::strtod(s.c_str(), nullptr); };
  auto spread = [](const Estimate& e) {
    std::string s;
    if (std::isfinite(e.spread)) s += fmt(", spread (IQR/median) %.1f%%", 100 * e.spread);
    if (std::isfinite(e.r2)) s += fmt(", R2 %.4f", e.r2);
    if (e.n) s += ", n " + std::to_string(e.n);
    return s;
  };

  if (const double sms = r.meta_num("sms", 0); sms > 0) set("sms", fmt("%.0f", sms), "cudaGetDeviceProperties");
  if (const double mem = r.meta_num("memory_bytes", 0); mem > 0)
    set("memory", fmt("%.2fGiB", mem / 1073741824.0), "cudaGetDeviceProperties totalGlobalMem");
  if (fit.hbm_copy.ok()) {
    set("hbmAchievable", format_bandwidth_si(fit.hbm_copy.value),
        "HBM copy kernel (16-byte loads, bytes read + written), " + fit.hbm_copy.method + spread(fit.hbm_copy) +
            (fit.hbm_read.ok() ? "; read alone " + format_bandwidth_si(fit.hbm_read.value) : "") +
            (fit.hbm_write.ok() ? ", write alone " + format_bandwidth_si(fit.hbm_write.value) : ""));
    // hbmBandwidth is the datasheet peak; a measurement above it means the base profile is wrong.
    double peak = 0;
    {
      // Parse "4.8TB/s" or "3350GB/s" roughly: enough for the comparison.
      const std::string v = value_of("hbmBandwidth");
      peak = parse_num(v) * (v.find("TB/s") != std::string::npos   ? 1e12
                             : v.find("GB/s") != std::string::npos ? 1e9
                                                                   : 1);
    }
    if (peak > 0 && fit.hbm_copy.value > peak) {
      set("hbmBandwidth", format_bandwidth_si(fit.hbm_copy.value),
          "raised to the measured copy bandwidth, which exceeded the base profile's datasheet value " +
              value_of("hbmBandwidth"));
      notes.push_back("hbmBandwidth raised to the measured value (the base profile's datasheet value was lower)");
    } else if (peak > 0) {
      notes.push_back(
          fmt("HBM copy bandwidth is %.1f%% of the datasheet hbmBandwidth", 100 * fit.hbm_copy.value / peak));
    }
  } else {
    notes.push_back("hbmAchievable: not measured, kept from the base profile");
  }
  double efficiency = parse_num(value_of("computeEfficiency"));
  const std::string fp16_peak_text = value_of("fp16Tensor");
  const double fp16_peak = parse_num(fp16_peak_text) * (fp16_peak_text.find("TFLOP") != std::string::npos ? 1e12 : 1);
  const Estimate& gemm = fit.gemm_fp16.ok() ? fit.gemm_fp16 : fit.gemm_bf16;
  if (gemm.ok() && fp16_peak > 0) {
    efficiency = std::clamp(gemm.value / fp16_peak, 0.01, 1.0);
    set("computeEfficiency", fmt("%.3f", efficiency),
        "dense GEMM " + format_flops_si(gemm.value) + " (" + fit.gemm_impl + ", " + gemm.method + spread(gemm) +
            ") over the datasheet fp16Tensor " + fp16_peak_text +
            (fit.gemm_bf16.ok() ? "; BF16 GEMM " + format_flops_si(fit.gemm_bf16.value) : ""));
    notes.push_back(fmt("GEMM rate is %.1f%% of the datasheet dense FP16 tensor peak", 100 * gemm.value / fp16_peak));
  } else {
    notes.push_back("computeEfficiency: no GEMM measured, kept from the base profile");
  }
  if (fit.fp32.ok() && efficiency > 0) {
    set("fp32", format_flops_si(fit.fp32.value / efficiency),
        "FP32 FMA chains " + format_flops_si(fit.fp32.value) + " (" + fit.fp32.method + spread(fit.fp32) +
            ") divided by computeEfficiency, so that the model's achievable FP32 rate (fp32 x computeEfficiency) "
            "equals the measured rate");
  }
  if (fit.l2_bytes.ok())
    set("l2", format_bytes_iec(fit.l2_bytes.value),
        "effective L2 capacity: " + fit.l2_bytes.method +
            fmt(" (device reports %.1f MiB)", r.meta_num("l2_bytes", 0) / 1048576.0));
  if (fit.h2d_pinned.ok())
    set("pcieH2DAchievable", format_bandwidth_si(fit.h2d_pinned.value),
        "cudaMemcpyAsync host-to-device from pinned memory, " + fit.h2d_pinned.method + spread(fit.h2d_pinned));
  if (fit.d2h_pinned.ok())
    set("pcieD2HAchievable", format_bandwidth_si(fit.d2h_pinned.value),
        "cudaMemcpyAsync device-to-host to pinned memory, " + fit.d2h_pinned.method + spread(fit.d2h_pinned));
  if (fit.p2p.ok() && value_of("nvlinkTopology") == "none") {
    // The peer copies crossed PCIe: the profile has no NVLink fields to hold them (the model takes the PCIe
    // path's measured rates instead).
    notes.push_back(fmt("peer copies measured %.1f GB/s over PCIe; no nvlink field written (nvlinkTopology: none)",
                        fit.p2p.value / 1e9));
  } else if (fit.p2p.ok()) {
    set("nvlinkAchievable", format_bandwidth_si(fit.p2p.value),
        "cudaMemcpyPeerAsync, " + fit.p2p.method + spread(fit.p2p));
    // nvlinkPerDirection is the nominal link rate; the loader refuses an achievable rate above it.
    const std::string v = value_of("nvlinkPerDirection");
    const double peak = parse_num(v) * (v.find("TB/s") != std::string::npos   ? 1e12
                                        : v.find("GB/s") != std::string::npos ? 1e9
                                                                              : 1);
    if (peak > 0 && fit.p2p.value > peak) {
      set("nvlinkPerDirection", format_bandwidth_si(fit.p2p.value),
          "raised to the measured peer copy bandwidth, which exceeded the base profile's value " + v);
      notes.push_back("nvlinkPerDirection raised to the measured peer-to-peer bandwidth");
    }
  } else {
    notes.push_back("nvlinkAchievable: not measured (one GPU), kept from the base profile");
  }
  if (fit.context_switch.ok())
    set("contextSwitch", format_seconds_si(fit.context_switch.value),
        "two processes time-sliced on one GPU, " + fit.context_switch.method + spread(fit.context_switch) +
            (fit.time_slice.ok() ? "; observed slice " + format_seconds_si(fit.time_slice.value) : ""));
  else
    notes.push_back("contextSwitch: not measured, kept from the base profile");
  if (fit.l2_contention.ok())
    set("l2Contention", fmt("%.3f", std::min(fit.l2_contention.value, 10.0)),
        "co-run kernel pairs in two streams of one process, " + fit.l2_contention.method +
            fmt(" (%.1f%%)", 100 * fit.l2_contention.rms) + spread(fit.l2_contention));
  else
    notes.push_back("l2Contention: no co-run pairs measured, kept from the base profile");

  // The L2 prime+probe channel (models/threat, docs/models/leakage.md): concurrent kernels of one
  // process share SMs and L2 as MPS clients do, so it calibrates the (l2, mps) channel.
  if (fit.probe_rate.ok() && fit.probe_signal.ok() && fit.probe_noise.ok() && fit.probe_signal.value > 0) {
    YAML::Node ch;
    ch["resource"] = "l2";
    ch["mode"] = "mps";
    ch["probeRate"] = fmt("%.0f/s", fit.probe_rate.value);
    ch["signal"] = format_seconds_si(fit.probe_signal.value);
    ch["noise"] = format_seconds_si(std::max(fit.probe_noise.value, 1e-9));
    ch["source"] = marker +
                   " L2 prime+probe: one block re-reads an L2-resident set while a victim kernel streams "
                   "memory (active) or not (idle); " +
                   fit.probe_signal.method + "; " + fit.probe_noise.method +
                   fmt("; empirical threshold error %.4f", fit.probe_error.value) + "; " + prov;
    YAML::Node list;
    list.push_back(ch);
    spec["channels"] = list;
  }
  if (!options.name.empty()) root["metadata"]["name"] = options.name;
  if (!r.meta("device").empty())
    root["metadata"]["product"] = r.meta("device") + (r.synthetic ? " (synthetic calibration)" : " (calibrated)");

  // Everything measured that the models do not read yet, for the record.
  YAML::Node cal;
  cal["tool"] = "gputwin calibrate";
  cal["synthetic"] = r.synthetic;
  if (r.synthetic) cal["syntheticNote"] = r.synthetic_note;
  cal["device"] = r.meta("device");
  cal["uuid"] = r.meta("uuid");
  cal["driver"] = r.meta("driver_version");
  cal["runtime"] = r.meta("runtime_version");
  cal["host"] = r.meta("host");
  cal["measuredUtc"] = r.meta("started_utc");
  cal["rawSamples"] = options.raw_file;
  cal["rawSha256"] = r.sha256;
  cal["baseProfile"] = options.base_file;
  auto put = [&](const char* key, const Estimate& e, const std::string& text) {
    if (e.ok()) cal["measured"][key] = text;
  };
  put("smClockUnderLoad", fit.sm_clock_hz, fmt("%.0fMHz", fit.sm_clock_hz.value / 1e6));
  put("hbmRead", fit.hbm_read, format_bandwidth_si(fit.hbm_read.value));
  put("hbmWrite", fit.hbm_write, format_bandwidth_si(fit.hbm_write.value));
  put("hbmCopy", fit.hbm_copy, format_bandwidth_si(fit.hbm_copy.value));
  put("fp32Fma", fit.fp32, format_flops_si(fit.fp32.value));
  put("fp16Fma", fit.fp16_fma, format_flops_si(fit.fp16_fma.value));
  put("bf16Fma", fit.bf16_fma, format_flops_si(fit.bf16_fma.value));
  put("gemmFp16", fit.gemm_fp16, format_flops_si(fit.gemm_fp16.value));
  put("gemmBf16", fit.gemm_bf16, format_flops_si(fit.gemm_bf16.value));
  put("latencyL1", fit.l1_cycles,
      fmt("%.0f cycles", fit.l1_cycles.value) + " = " + format_seconds_si(fit.l1_ns.value * 1e-9));
  put("latencyL2", fit.l2_cycles,
      fmt("%.0f cycles", fit.l2_cycles.value) + " = " + format_seconds_si(fit.l2_ns.value * 1e-9));
  put("latencyHbm", fit.hbm_cycles,
      fmt("%.0f cycles", fit.hbm_cycles.value) + " = " + format_seconds_si(fit.hbm_ns.value * 1e-9));
  put("l1Capacity", fit.l1_bytes, format_bytes_iec(fit.l1_bytes.value));
  put("h2dPageable", fit.h2d_pageable, format_bandwidth_si(fit.h2d_pageable.value));
  put("d2hPageable", fit.d2h_pageable, format_bandwidth_si(fit.d2h_pageable.value));
  put("pcieLatency", fit.pcie_latency, format_seconds_si(fit.pcie_latency.value));
  put("launchOverhead", fit.launch_overhead, format_seconds_si(fit.launch_overhead.value));
  put("launchLatency", fit.launch_latency, format_seconds_si(fit.launch_latency.value));
  put("timeSlice", fit.time_slice, format_seconds_si(fit.time_slice.value));
  put("probeErrorEmpirical", fit.probe_error, fmt("%.4f", fit.probe_error.value));
  root["calibration"] = cal;

  YAML::Emitter em;
  em << root;
  std::ostringstream o;
  o << "# " << (r.synthetic ? "SYNTHETIC calibration (not a measurement)" : "Calibrated")
    << " hardware profile written by "
    << "`gputwin calibrate` from " << options.raw_file << ".\n"
    << "# Measured fields say (measured) in their source; the others are kept from " << options.base_file << ".\n"
    << em.c_str() << "\n";
  out = o.str();
  return true;
}

std::string fit_report_markdown(const FitResult& f, const RawRecording& r) {
  std::ostringstream o;
  o << "# Calibration fit: " << r.meta("device", "?") << (r.synthetic ? " (SYNTHETIC recording)" : "") << "\n\n";
  o << "Recording: `" << r.file << "` (sha256 " << r.sha256.substr(0, 16) << "), host " << r.meta("host", "?") << ", "
    << r.meta("started_utc", "?") << ", driver " << r.meta("driver_version", "?") << ", runtime "
    << r.meta("runtime_version", "?") << ", SM clock under load " << fmt("%.0f MHz", f.sm_clock_hz.value / 1e6)
    << ".\n\n";
  o << "| parameter | value | spread (IQR/median) | R2 | n | method |\n|---|---|---|---|---|---|\n";
  auto row = [&](const char* name, const Estimate& e, const std::string& v) {
    if (!e.ok()) {
      o << "| " << name << " | not measured | | | | |\n";
      return;
    }
    o << "| " << name << " | " << v << " | " << (std::isfinite(e.spread) ? fmt("%.2f%%", 100 * e.spread) : "") << " | "
      << (std::isfinite(e.r2) ? fmt("%.4f", e.r2) : "") << " | " << e.n << " | " << e.method << " |\n";
  };
  row("HBM read", f.hbm_read, format_bandwidth_si(f.hbm_read.value));
  row("HBM write", f.hbm_write, format_bandwidth_si(f.hbm_write.value));
  row("HBM copy", f.hbm_copy, format_bandwidth_si(f.hbm_copy.value));
  row("FP32 FMA", f.fp32, format_flops_si(f.fp32.value));
  row("FP16 FMA", f.fp16_fma, format_flops_si(f.fp16_fma.value));
  row("BF16 FMA", f.bf16_fma, format_flops_si(f.bf16_fma.value));
  row("GEMM FP16", f.gemm_fp16, format_flops_si(f.gemm_fp16.value) + " (" + f.gemm_impl + ")");
  row("GEMM BF16", f.gemm_bf16, format_flops_si(f.gemm_bf16.value));
  row("L1 latency", f.l1_cycles, fmt("%.1f cycles", f.l1_cycles.value) + fmt(" (%.1f ns)", f.l1_ns.value));
  row("L2 latency", f.l2_cycles, fmt("%.1f cycles", f.l2_cycles.value) + fmt(" (%.1f ns)", f.l2_ns.value));
  row("HBM latency", f.hbm_cycles, fmt("%.1f cycles", f.hbm_cycles.value) + fmt(" (%.1f ns)", f.hbm_ns.value));
  row("L1 capacity", f.l1_bytes, format_bytes_iec(f.l1_bytes.value));
  row("L2 capacity", f.l2_bytes, format_bytes_iec(f.l2_bytes.value));
  row("H2D pinned", f.h2d_pinned, format_bandwidth_si(f.h2d_pinned.value));
  row("D2H pinned", f.d2h_pinned, format_bandwidth_si(f.d2h_pinned.value));
  row("H2D pageable", f.h2d_pageable, format_bandwidth_si(f.h2d_pageable.value));
  row("D2H pageable", f.d2h_pageable, format_bandwidth_si(f.d2h_pageable.value));
  row("PCIe latency", f.pcie_latency, format_seconds_si(f.pcie_latency.value));
  row("launch overhead", f.launch_overhead, format_seconds_si(f.launch_overhead.value));
  row("launch + sync", f.launch_latency, format_seconds_si(f.launch_latency.value));
  row("peer-to-peer", f.p2p, format_bandwidth_si(f.p2p.value));
  row("l2Contention", f.l2_contention,
      fmt("%.3f", f.l2_contention.value) + fmt(" (rms rel. residual %.1f%%)", 100 * f.l2_contention.rms));
  row("time slice", f.time_slice, format_seconds_si(f.time_slice.value));
  row("context switch", f.context_switch, format_seconds_si(f.context_switch.value));
  row("L2 probe rate", f.probe_rate, fmt("%.0f /s", f.probe_rate.value));
  row("L2 probe signal", f.probe_signal, format_seconds_si(f.probe_signal.value));
  row("L2 probe noise", f.probe_noise, format_seconds_si(f.probe_noise.value));
  row("L2 probe error", f.probe_error, fmt("%.4f", f.probe_error.value));
  if (!f.curve.footprint.empty()) {
    o << "\n## Pointer-chase curve\n\n| footprint | cycles/load | ns/load | fitted level |\n|---|---|---|---|\n";
    for (size_t i = 0; i < f.curve.footprint.size(); ++i)
      o << "| " << format_bytes_iec(f.curve.footprint[i]) << " | " << fmt("%.1f", f.curve.cycles[i]) << " | "
        << fmt("%.1f", f.curve.ns[i]) << " | " << (i < f.curve.fitted.size() ? fmt("%.1f", f.curve.fitted[i]) : "")
        << " |\n";
  }
  if (!f.stream_pairs.empty() || !f.process_pairs.empty()) {
    o << "\n## Co-run pairs (median seconds per launch)\n\n| mode | a | b | a alone | b alone | a together | b "
         "together |\n|---|---|---|---|---|---|---|\n";
    for (const auto* list : {&f.stream_pairs, &f.process_pairs})
      for (const auto& p : *list)
        o << "| " << p.mode << " | " << p.a.name << " | " << p.b.name << " | " << fmt("%.6f", p.a.alone.median) << " | "
          << fmt("%.6f", p.b.alone.median) << " | " << fmt("%.6f", p.a.pair.median) << " | "
          << fmt("%.6f", p.b.pair.median) << " |\n";
  }
  if (!f.notes.empty()) {
    o << "\n## Notes\n\n";
    for (const auto& n : f.notes) o << "- " << n << "\n";
  }
  return o.str();
}

}  // namespace gtw::calib
