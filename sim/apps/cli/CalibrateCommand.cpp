// gputwin calibrate [-o PROFILE.yaml] [--device N] [--quick] [--validate] [--raw RAW.json]
//
// Runs the CUDA microkernels (the separate executable gputwin-calibrate-kernels, built by nvcc when
// it is present: this binary never links CUDA), keeps their raw samples (JSON as written, and HDF5
// with device, driver and clock metadata), fits the model parameters on the CPU, writes a hardware
// profile, and with --validate simulates the measured co-run pairs with that profile and reports
// the error per pair. --raw fits an existing recording instead of running the kernels (no GPU
// needed). Exit codes: 0 ok, 1 validation goal missed, 2 usage or invalid recording, 3 internal
// error (a kernel run failed), 4 no GPU or no calibration kernels (docs/calibration.md).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "AtomicFile.hpp"
#include "Commands.hpp"
#include "CorunValidation.hpp"
#include "Errors.hpp"
#include "Fit.hpp"
#include "HardwareProfile.hpp"
#include "InputFile.hpp"
#include "Process.hpp"
#include "Profile.hpp"
#include "RawSamples.hpp"

#ifndef GTW_CALIBRATE_KERNELS_PATH
#define GTW_CALIBRATE_KERNELS_PATH ""
#endif

namespace fs = std::filesystem;

namespace gtw::cli {
namespace {

struct CalibrateOptions {
  std::string output = "out/calibrate/calibrated.yaml";
  int device = 0;
  bool quick = false;
  bool validate = false;
  std::string raw;
  std::string kernels;
  std::string base;
  std::string suites;
  std::string work;
};

// Runs argv with the terminal's stdout/stderr (the kernels print their progress); exit code or
// 128 + signal, -1 when it could not start.
int run_inherit(const std::vector<std::string>& args) {
  ChildJob job;
  job.argv = args;
  job.timeout_seconds = NO_TIMEOUT;
  const ChildResult r = run_child(job);
  if (r.spawn_failed) return -1;
  return r.signal != 0 ? 128 + r.signal : r.exit_code;
}

// The kernels executable: --kernels, $GPUTWIN_CALIBRATE_KERNELS, the build tree's, or beside gputwin.
std::string find_kernels(const std::string& chosen, std::vector<std::string>& tried) {
  std::vector<std::string> candidates;
  if (!chosen.empty()) {
    candidates.push_back(chosen);
  } else {
    if (const char* env = std::getenv("GPUTWIN_CALIBRATE_KERNELS"); env && *env) candidates.push_back(env);
    if (*GTW_CALIBRATE_KERNELS_PATH) candidates.push_back(GTW_CALIBRATE_KERNELS_PATH);
    const fs::path self = fs::path(self_executable("gputwin")).parent_path();
    candidates.push_back((self / "gputwin-calibrate-kernels").string());
    candidates.push_back((self / ".." / ".." / "calibration" / "gputwin-calibrate-kernels").string());
  }
  for (const auto& c : candidates) {
    tried.push_back(c);
    if (::access(c.c_str(), X_OK) == 0) return c;
  }
  return "";
}

bool write_text(const std::string& path, const std::string& text) {
  std::string error;
  return try_write_file_atomic(path, text, error);
}

int run_calibrate(const CalibrateOptions& opt) {
  const fs::path out(opt.output);
  if (out.extension() != ".yaml") {
    std::cerr << "gputwin calibrate: error: -o must name a .yaml profile file, got '" << opt.output << "'\n";
    return EXIT_INVALID_INPUT;
  }
  const std::string name = out.stem().string();
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  const std::string stem = (dir / name).string();
  // Created only once there is something to write (exit 4 leaves nothing behind).
  auto make_dir = [&dir]() {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) std::cerr << "gputwin calibrate: error: cannot create " << dir.string() << ": " << ec.message() << "\n";
    return !ec;
  };

  // 1. The raw samples: an existing recording, or a run of the kernels on the GPU.
  std::string raw_path = opt.raw;
  if (raw_path.empty()) {
    std::vector<std::string> tried;
    const std::string kernels = find_kernels(opt.kernels, tried);
    if (kernels.empty()) {
      std::cerr << "gputwin calibrate: no calibration kernels: this gputwin was built without CUDA (nvcc not found "
                   "at configure time, or GPUTWIN_CUDA=OFF), or gputwin-calibrate-kernels was moved. Looked for:\n";
      for (const auto& t : tried) std::cerr << "  " << t << "\n";
      std::cerr << "Build them with nvcc (docs/calibration.md), point --kernels or $GPUTWIN_CALIBRATE_KERNELS at "
                   "them, or fit an existing recording with --raw RAW.json.\n";
      return EXIT_NO_GPU;
    }
    const int probe = run_inherit({kernels, "--probe", "--device", std::to_string(opt.device)});
    if (probe == 4) {
      std::cerr << "gputwin calibrate: no usable CUDA GPU on this machine (see the line above); nothing measured. "
                   "The simulator itself needs no GPU; fit an existing recording with --raw RAW.json.\n";
      return EXIT_NO_GPU;
    }
    if (probe != 0) {
      std::cerr << "gputwin calibrate: error: " << kernels << " --probe failed (exit " << probe << ")\n";
      return EXIT_INTERNAL;
    }
    if (!make_dir()) return EXIT_INTERNAL;
    raw_path = stem + ".raw.json";
    std::vector<std::string> args{kernels, "-o",        raw_path, "--device", std::to_string(opt.device),
                                  "--tmp", dir.string()};
    if (opt.quick) args.push_back("--quick");
    if (!opt.suites.empty()) {
      args.push_back("--suites");
      args.push_back(opt.suites);
    }
    std::cerr << "gputwin calibrate: running the " << (opt.quick ? "quick" : "full") << " suite on device "
              << opt.device << "\n";
    const int rc = run_inherit(args);
    if (rc == 4) return EXIT_NO_GPU;
    if (rc != 0) {
      std::cerr << "gputwin calibrate: error: the calibration kernels failed (exit " << rc << "); nothing written\n";
      return EXIT_INTERNAL;
    }
  }
  calib::RawRecording rec;
  std::string error;
  if (!calib::load_raw(raw_path, rec, error)) {
    std::cerr << "gputwin calibrate: error: " << error << "\n";
    return EXIT_INVALID_INPUT;
  }
  if (rec.synthetic)
    std::cerr << "gputwin calibrate: note: " << raw_path
              << " is a SYNTHETIC recording (generated, not measured); the profile says so in every source\n";

  if (!make_dir()) return EXIT_INTERNAL;
  // 2. Raw samples as HDF5, beside the profile.
  const std::string h5 = stem + ".samples.h5";
  if (!calib::write_raw_h5(h5, rec, error)) {
    std::cerr << "gputwin calibrate: error: " << error << "\n";
    return EXIT_INTERNAL;
  }

  // 3. Fit and write the profile.
  const calib::FitResult fit = calib::fit_recording(rec);
  // The base profile: the one whose product names include the device's, else the closest family.
  const std::string base_name =
      !opt.base.empty() ? opt.base : profile_for_product(rec.meta("device")).value_or(calib::base_profile_for(rec));
  HardwareProfile base;
  Diagnostics diags;
  if (!load_profile(base_name, SourceLoc{}, "--base", base, diags)) {
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  const auto base_read = read_input_file(base.file, InputKind::PROFILE, diags);
  if (!base_read) {
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  const std::string& base_text = *base_read;
  calib::ProfileOptions po;
  po.name = name;
  po.base_file = base.file;
  po.raw_file = h5;
  std::string yaml;
  std::vector<std::string> notes;
  if (!calib::make_profile_yaml(fit, rec, base_text, po, yaml, notes, error)) {
    std::cerr << "gputwin calibrate: error: " << error << "\n";
    return EXIT_INTERNAL;
  }
  HardwareProfile fitted;
  Diagnostics check;
  if (!load_profile_text(yaml, opt.output, fitted, check)) {
    std::cerr << check.format_all() << "gputwin calibrate: internal error: the fitted profile does not load\n";
    write_text(stem + ".rejected.yaml", yaml);
    return EXIT_INTERNAL;
  }
  if (!write_text(opt.output, yaml) || !write_text(stem + ".fit.md", calib::fit_report_markdown(fit, rec))) {
    std::cerr << "gputwin calibrate: error: cannot write " << opt.output << "\n";
    return EXIT_INTERNAL;
  }
  std::cout << "gputwin calibrate: " << rec.meta("device", "?") << (rec.synthetic ? " (SYNTHETIC)" : "") << "\n";
  auto line = [](const char* what, const calib::Estimate& e, const std::string& v) {
    std::cout << "  " << what << ": " << (e.ok() ? v : std::string("not measured")) << "\n";
  };
  line("HBM copy", fit.hbm_copy, calib::format_bandwidth_si(fit.hbm_copy.value));
  line("GEMM FP16", fit.gemm_fp16, calib::format_flops_si(fit.gemm_fp16.value));
  line("GEMM BF16", fit.gemm_bf16, calib::format_flops_si(fit.gemm_bf16.value));
  line("FP32 FMA", fit.fp32, calib::format_flops_si(fit.fp32.value));
  line("L2 capacity", fit.l2_bytes, calib::format_bytes_iec(fit.l2_bytes.value));
  line("latency L1/L2/HBM (cycles)", fit.hbm_cycles,
       std::to_string(static_cast<int>(fit.l1_cycles.value)) + " / " +
           std::to_string(static_cast<int>(fit.l2_cycles.value)) + " / " +
           std::to_string(static_cast<int>(fit.hbm_cycles.value)));
  line("l2Contention", fit.l2_contention, std::to_string(fit.l2_contention.value));
  line("context switch", fit.context_switch, calib::format_seconds_si(fit.context_switch.value));
  line("L2 probe signal / noise", fit.probe_signal,
       calib::format_seconds_si(fit.probe_signal.value) + " / " + calib::format_seconds_si(fit.probe_noise.value));
  for (const auto& n : notes) std::cout << "  note: " << n << "\n";
  std::cout << "gputwin calibrate: profile " << opt.output << " (base " << base_name << "), raw samples " << h5
            << ", fit report " << stem << ".fit.md\n";

  if (!opt.validate) return EXIT_OK;

  // 4. Validation: the measured co-run pairs, simulated with the fitted profile.
  calib::ValidationOptions vo;
  vo.gputwin = self_executable("gputwin");
  vo.work_dir = opt.work.empty() ? stem + ".validation" : opt.work;
  vo.profile_dir = fs::absolute(dir).string();
  vo.profile_name = name;
  vo.sim.fp16_achievable = fitted.achievable_rate(DType::FP16).value;
  vo.sim.hbm_achievable = fitted.hbm_achievable.value;
  vo.sim.time_slice = fit.time_slice.ok() ? fit.time_slice.value : 0;
  calib::ValidationReport rep = calib::run_validation(fit, vo, rec.synthetic);
  const std::string md = calib::validation_markdown(rep);
  write_text(stem + ".validation.md", md);
  write_text(stem + ".validation.json", calib::validation_json(rep));
  std::cout << md;
  if (rep.cases.empty()) {
    std::cerr << "gputwin calibrate: --validate: the recording has no co-run pairs to validate\n";
    return EXIT_EXPECTATION;
  }
  return rep.pass() ? EXIT_OK : EXIT_EXPECTATION;
}

}  // namespace

Subcommand register_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Measure this machine's GPU with CUDA microkernels and write a hardware profile (exit 4: no GPU)");
  cmd->add_option("-o,--output", o->output,
                  "Profile to write (default out/calibrate/calibrated.yaml); raw samples, fit and validation reports "
                  "go beside it");
  cmd->add_option("--device", o->device, "CUDA device index (default 0)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--quick", o->quick, "Smaller sizes and fewer repetitions (about 2 minutes on an H200)");
  cmd->add_flag("--validate", o->validate,
                "Also simulate the measured co-run pairs with the fitted profile and report the error per pair "
                "(exit 1 when the median error misses 10%)");
  cmd->add_option("--raw", o->raw,
                  "Fit this recording (RAW.json from gputwin-calibrate-kernels) instead of running "
                  "the kernels; needs no GPU");
  cmd->add_option("--kernels", o->kernels,
                  "The gputwin-calibrate-kernels executable (default: the one built with "
                  "gputwin, or $GPUTWIN_CALIBRATE_KERNELS)");
  cmd->add_option("--base", o->base, "Profile whose unmeasured fields are kept (default: by device name)");
  cmd->add_option("--suites", o->suites,
                  "Kernel suites to run: clock,memory,latency,compute,hostdevice,primeprobe,corun,process,ctxswitch");
  cmd->add_option("--work", o->work, "Folder for the validation scenarios and runs (default PROFILE.validation/)");
  return {cmd, [o] { return run_calibrate(*o); }};
}

}  // namespace gtw::cli
