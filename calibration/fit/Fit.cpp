#include "Fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace gtw::calib {

namespace {

Estimate from_summary(const std::vector<double>& v, double scale_num, const std::string& method, bool invert) {
  Estimate e;
  const Summary s = summarize(v);
  if (s.n == 0 || s.median <= 0) return e;
  e.value = invert ? scale_num / s.median : s.median * scale_num;
  e.spread = s.rel_iqr();
  e.n = s.n;
  e.method = method;
  return e;
}

// Rate from a sweep: y = t0 + x / rate (x = work per launch, y = median seconds). One point: x / t.
Estimate rate_from_sweep(const std::vector<const RawExperiment*>& exps, const std::string& work_key,
                         const std::string& what) {
  Estimate e;
  std::vector<double> x, y;
  double spread = 0;
  for (const auto* ex : exps) {
    const auto* t = ex->get("t");
    const double w = ex->param(work_key, NaN);
    if (!t || t->empty() || !std::isfinite(w) || w <= 0) continue;
    const Summary s = summarize(*t);
    x.push_back(w);
    y.push_back(s.median);
    spread = std::max(spread, s.rel_iqr());
  }
  if (x.empty()) return e;
  e.spread = spread;
  e.n = x.size();
  const LinearFit f = fit_linear(x, y);
  if (f.ok && f.slope > 0 && x.size() >= 3) {
    e.value = 1.0 / f.slope;
    e.r2 = f.r2;
    e.rms = f.rms_residual;
    std::ostringstream m;
    m << what << ": least squares t = t0 + work / rate over " << x.size() << " sizes (t0 = " << f.intercept * 1e6
      << " us)";
    e.method = m.str();
  } else {
    // Too few sizes for a line: the largest size's work over its median time.
    const size_t k = static_cast<size_t>(std::max_element(x.begin(), x.end()) - x.begin());
    e.value = x[k] / y[k];
    e.method = what + ": work / median time of the largest size";
  }
  return e;
}

Estimate intercept_from_sweep(const std::vector<const RawExperiment*>& exps, const std::string& work_key) {
  Estimate e;
  std::vector<double> x, y;
  for (const auto* ex : exps) {
    const auto* t = ex->get("t");
    if (!t || t->empty()) continue;
    x.push_back(ex->param(work_key));
    y.push_back(median(*t));
  }
  const LinearFit f = fit_linear(x, y);
  if (!f.ok || x.size() < 3) return e;
  e.value = std::max(0.0, f.intercept);
  e.r2 = f.r2;
  e.rms = f.rms_residual;
  e.n = x.size();
  e.method = "intercept of t = t0 + bytes / bandwidth";
  return e;
}

double crossing(const std::vector<double>& fp, const std::vector<double>& cyc, size_t from, double level) {
  for (size_t k = std::max<size_t>(from, 1); k < cyc.size(); ++k) {
    if (cyc[k] > level && cyc[k - 1] <= level) {
      const double x0 = std::log2(fp[k - 1]), x1 = std::log2(fp[k]);
      const double f = (level - cyc[k - 1]) / (cyc[k] - cyc[k - 1]);
      return std::exp2(x0 + f * (x1 - x0));
    }
  }
  return NaN;
}

}  // namespace

PairTimes roofline_pair(double fa, double ba, double fb, double bb, double rate, double bandwidth, double c) {
  double rf[2] = {fa, fb}, rb[2] = {ba, bb};
  double u[2];
  for (int i = 0; i < 2; ++i) {
    const double tb = rb[i] / bandwidth, tf = rf[i] / rate;
    u[i] = (tb <= 0) ? 0 : tb / std::max(tb, tf);
  }
  bool done[2] = {rf[0] <= 0 && rb[0] <= 0, rf[1] <= 0 && rb[1] <= 0};
  double end[2] = {0, 0};
  double t = 0;
  for (int step = 0; step < 8 && !(done[0] && done[1]); ++step) {
    int nc = 0, nm = 0;
    double sum_u = 0, max_u = 0;
    for (int i = 0; i < 2; ++i) {
      if (done[i]) continue;
      nc += rf[i] > 0;
      nm += rb[i] > 0;
      sum_u += u[i];
      max_u = std::max(max_u, u[i]);
    }
    const double pressure = std::clamp(sum_u - max_u, 0.0, 1.0);
    const double w = bandwidth / (1.0 + c * pressure);
    double dt = INFINITY;
    int which = -1;
    bool is_bytes = false;
    for (int i = 0; i < 2; ++i) {
      if (done[i]) continue;
      if (rf[i] > 0 && rf[i] / (rate / nc) < dt) {
        dt = rf[i] / (rate / nc);
        which = i;
        is_bytes = false;
      }
      if (rb[i] > 0 && rb[i] / (w / nm) < dt) {
        dt = rb[i] / (w / nm);
        which = i;
        is_bytes = true;
      }
    }
    if (which < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (done[i]) continue;
      if (rf[i] > 0) rf[i] = std::max(0.0, rf[i] - dt * rate / nc);
      if (rb[i] > 0) rb[i] = std::max(0.0, rb[i] - dt * w / nm);
    }
    (is_bytes ? rb : rf)[which] = 0;
    t += dt;
    for (int i = 0; i < 2; ++i) {
      if (!done[i] && rf[i] <= 1e-12 * std::max(fa + fb, 1.0) && rb[i] <= 1e-12 * std::max(ba + bb, 1.0)) {
        rf[i] = rb[i] = 0;
        done[i] = true;
        end[i] = t;
      }
    }
  }
  return {end[0], end[1]};
}

void anchor_kernel(double& flops, double& bytes, double alone_s, double rate, double bandwidth) {
  const double model = std::max(flops / rate, bytes / bandwidth);
  if (model <= 0 || !(alone_s > 0)) return;
  const double s = alone_s / model;
  flops *= s;
  bytes *= s;
}

Estimate fit_l2_contention(const std::vector<CorunPair>& pairs, double rate, double bandwidth) {
  Estimate e;
  struct P {
    double fa, ba, fb, bb, ma, mb;
  };
  std::vector<P> ps;
  bool informative = false;
  for (const auto& p : pairs) {
    if (p.a.alone.n == 0 || p.b.alone.n == 0 || p.a.pair.n == 0 || p.b.pair.n == 0) continue;
    P q{p.a.flops, p.a.bytes, p.b.flops, p.b.bytes, p.a.pair.median, p.b.pair.median};
    anchor_kernel(q.fa, q.ba, p.a.alone.median, rate, bandwidth);
    anchor_kernel(q.fb, q.bb, p.b.alone.median, rate, bandwidth);
    if (q.ba > 0 && q.bb > 0) informative = true;
    ps.push_back(q);
  }
  if (ps.empty() || !informative) return e;
  auto cost = [&](double c) {
    double s = 0;
    for (const auto& q : ps) {
      const PairTimes t = roofline_pair(q.fa, q.ba, q.fb, q.bb, rate, bandwidth, c);
      s += std::pow((t.a - q.ma) / q.ma, 2) + std::pow((t.b - q.mb) / q.mb, 2);
    }
    return s;
  };
  // Golden-section search on [0, 5] (the cost is unimodal in c for these pairs), then refine.
  double lo = 0, hi = 5;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = cost(x1), f2 = cost(x2);
  for (int it = 0; it < 80; ++it) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = cost(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = cost(x2);
    }
  }
  double c = (lo + hi) / 2;
  if (cost(0) <= cost(c)) c = 0;
  // Goodness of fit over all pair times.
  std::vector<double> meas, pred;
  for (const auto& q : ps) {
    const PairTimes t = roofline_pair(q.fa, q.ba, q.fb, q.bb, rate, bandwidth, c);
    meas.push_back(q.ma);
    meas.push_back(q.mb);
    pred.push_back(t.a);
    pred.push_back(t.b);
  }
  const double mm = mean(meas);
  double ss_res = 0, ss_tot = 0, rel = 0;
  for (size_t i = 0; i < meas.size(); ++i) {
    ss_res += std::pow(meas[i] - pred[i], 2);
    ss_tot += std::pow(meas[i] - mm, 2);
    rel += std::pow((pred[i] - meas[i]) / meas[i], 2);
  }
  e.value = c;
  e.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : NaN;
  e.rms = std::sqrt(rel / static_cast<double>(meas.size()));  // relative
  e.n = ps.size();
  e.method =
      "least squares (relative) of the MPS roofline-pair model against the co-run pair times, kernels "
      "anchored to their measured time alone; rms is the relative residual";
  return e;
}

LevelFit fit_levels(const std::vector<double>& footprint, const std::vector<double>& cycles) {
  LevelFit out;
  const size_t n = cycles.size();
  if (n < 3 || footprint.size() != n) return out;
  // Prefix sums for O(1) segment SSE around the segment mean.
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    s1[i + 1] = s1[i] + cycles[i];
    s2[i + 1] = s2[i] + cycles[i] * cycles[i];
  }
  auto sse = [&](size_t a, size_t b) {
    const double m = static_cast<double>(b - a);
    const double sum = s1[b] - s1[a];
    return (s2[b] - s2[a]) - sum * sum / m;
  };
  double best = INFINITY;
  size_t bi = 1, bj = 2;
  for (size_t i = 1; i + 1 < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const double c = sse(0, i) + sse(i, j) + sse(j, n);
      if (c < best) {
        best = c;
        bi = i;
        bj = j;
      }
    }
  auto seg_median = [&](size_t a, size_t b) {
    return median(std::vector<double>(cycles.begin() + static_cast<long>(a), cycles.begin() + static_cast<long>(b)));
  };
  out.l1 = seg_median(0, bi);
  out.l2 = seg_median(bi, bj);
  out.hbm = seg_median(bj, n);
  out.fitted.resize(n);
  for (size_t k = 0; k < n; ++k) out.fitted[k] = k < bi ? out.l1 : (k < bj ? out.l2 : out.hbm);
  const double m = mean(cycles);
  double ss_res = 0, ss_tot = 0;
  for (size_t k = 0; k < n; ++k) {
    ss_res += std::pow(cycles[k] - out.fitted[k], 2);
    ss_tot += std::pow(cycles[k] - m, 2);
  }
  out.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : NaN;
  out.rms = std::sqrt(ss_res / static_cast<double>(n));
  out.l1_bytes = crossing(footprint, cycles, 1, (out.l1 + out.l2) / 2);
  out.l2_bytes = crossing(footprint, cycles, bi, (out.l2 + out.hbm) / 2);
  return out;
}

SwitchFit fit_context_switch(const std::vector<double>& a_gap_start, const std::vector<double>& a_gap_end,
                             const std::vector<double>& b_span, const std::vector<double>& b_gap_start,
                             const std::vector<double>& b_gap_end, double min_gap_ns) {
  SwitchFit out;
  if (b_span.size() < 2 || a_gap_start.size() != a_gap_end.size() || b_gap_start.size() != b_gap_end.size()) return out;
  std::vector<double> slices, costs;
  for (size_t i = 0; i < a_gap_start.size(); ++i) {
    const double s = a_gap_start[i], e = a_gap_end[i];
    if (e - s < min_gap_ns || s < b_span[0] || e > b_span[1]) continue;
    double b_idle = 0;
    for (size_t k = 0; k < b_gap_start.size(); ++k) {
      const double lo = std::max(s, b_gap_start[k]), hi = std::min(e, b_gap_end[k]);
      if (hi > lo) b_idle += hi - lo;
    }
    const double b_active = (e - s) - b_idle;
    if (b_active <= 0) continue;  // a gap of A that B did not use (another tenant, or a driver pause)
    slices.push_back(b_active * 1e-9);
    costs.push_back(b_idle * 1e-9 / 2);  // switched out of A, and back
  }
  if (slices.empty()) return out;
  const Summary ss = summarize(slices), sc = summarize(costs);
  out.slice.value = ss.median;
  out.slice.spread = ss.rel_iqr();
  out.slice.n = ss.n;
  out.slice.method = "median time the other process ran inside a gap of the first";
  out.cost.value = sc.median;
  out.cost.spread = sc.median > 0 ? sc.rel_iqr() : NaN;
  out.cost.n = sc.n;
  out.cost.method = "median over the first process's gaps of (gap - time the other process ran) / 2 switches";
  return out;
}

FitResult fit_recording(const RawRecording& r) {
  FitResult f;
  // Clock
  if (auto cl = r.all("clock.sm"); !cl.empty() && cl[0]->get("hz"))
    f.sm_clock_hz = from_summary(*cl[0]->get("hz"), 1.0, "clock64 cycles over %globaltimer ns", false);
  double clock = f.sm_clock_hz.ok() ? f.sm_clock_hz.value : r.meta_num("sm_clock_measured_mhz", 0) * 1e6;

  // Roofline ceilings
  f.hbm_read = rate_from_sweep(r.all("hbm.read"), "traffic_bytes", "HBM read");
  f.hbm_write = rate_from_sweep(r.all("hbm.write"), "traffic_bytes", "HBM write");
  f.hbm_copy = rate_from_sweep(r.all("hbm.copy"), "traffic_bytes", "HBM copy (bytes read + written)");
  f.fp32 = rate_from_sweep(r.all("compute.fp32"), "flops", "FP32 FMA chains");
  f.fp16_fma = rate_from_sweep(r.all("compute.fp16"), "flops", "FP16 (half2) FMA chains");
  f.bf16_fma = rate_from_sweep(r.all("compute.bf16"), "flops", "BF16 (bfloat162) FMA chains");
  for (const auto& [name, est] : {std::pair<const char*, Estimate*>{"gemm.fp16", &f.gemm_fp16},
                                  std::pair<const char*, Estimate*>{"gemm.bf16", &f.gemm_bf16}}) {
    auto g = r.all(name);
    if (g.empty() || !g.back()->get("t")) continue;
    const auto* ex = g.back();
    *est = from_summary(*ex->get("t"), ex->param("flops"), std::string(name) + ": flops / median time", true);
    f.gemm_impl = ex->str("impl");
    if (ex->param("check_max_rel_error", 0) > 5e-2)
      f.notes.push_back(std::string(name) + ": result check failed (max relative error " +
                        std::to_string(ex->param("check_max_rel_error")) + "); rate not trusted");
  }

  // Latency levels and the L2 size
  {
    std::vector<std::pair<double, std::pair<double, double>>> pts;
    for (const auto* ex : r.all("latency.chase")) {
      const auto* cyc = ex->get("cycles");
      const auto* ns = ex->get("ns");
      if (!cyc || cyc->empty()) continue;
      pts.push_back({ex->param("footprint_bytes"), {median(*cyc), ns && !ns->empty() ? median(*ns) : NaN}});
    }
    std::sort(pts.begin(), pts.end());
    for (const auto& p : pts) {
      f.curve.footprint.push_back(p.first);
      f.curve.cycles.push_back(p.second.first);
      f.curve.ns.push_back(p.second.second);
    }
    const LevelFit lv = fit_levels(f.curve.footprint, f.curve.cycles);
    f.curve.fitted = lv.fitted;
    auto level = [&](double v, const char* what) {
      Estimate e;
      e.value = v;
      e.r2 = lv.r2;
      e.rms = lv.rms;
      e.n = pts.size();
      e.method = std::string(what) + " level of a three-level piecewise-constant least-squares fit of the chase curve";
      return e;
    };
    if (std::isfinite(lv.l1)) {
      f.l1_cycles = level(lv.l1, "L1");
      f.l2_cycles = level(lv.l2, "L2");
      f.hbm_cycles = level(lv.hbm, "HBM");
      if (clock > 0) {
        f.l1_ns = f.l1_cycles, f.l1_ns.value = lv.l1 / clock * 1e9;
        f.l2_ns = f.l2_cycles, f.l2_ns.value = lv.l2 / clock * 1e9;
        f.hbm_ns = f.hbm_cycles, f.hbm_ns.value = lv.hbm / clock * 1e9;
      }
      f.l1_bytes = level(lv.l1_bytes, "L1 capacity: footprint where the curve crosses the L1/L2 midpoint;");
      f.l2_bytes = level(lv.l2_bytes, "L2 capacity: footprint where the curve crosses the L2/HBM midpoint;");
    }
  }

  // Host-device copies and launch overhead
  f.h2d_pinned = rate_from_sweep(r.all("pcie.h2d.pinned"), "bytes", "H2D pinned");
  f.d2h_pinned = rate_from_sweep(r.all("pcie.d2h.pinned"), "bytes", "D2H pinned");
  f.h2d_pageable = rate_from_sweep(r.all("pcie.h2d.pageable"), "bytes", "H2D pageable");
  f.d2h_pageable = rate_from_sweep(r.all("pcie.d2h.pageable"), "bytes", "D2H pageable");
  f.pcie_latency = intercept_from_sweep(r.all("pcie.h2d.pinned"), "bytes");
  if (auto l = r.all("launch.throughput"); !l.empty() && l[0]->get("t"))
    f.launch_overhead =
        from_summary(*l[0]->get("t"), 1.0, "median per-launch time of back-to-back empty kernels", false);
  if (auto l = r.all("launch.latency"); !l.empty() && l[0]->get("t"))
    f.launch_latency = from_summary(*l[0]->get("t"), 1.0, "median launch + synchronize of an empty kernel", false);
  if (auto p = r.all("p2p.copy"); !p.empty() && p[0]->get("t"))
    f.p2p = from_summary(*p[0]->get("t"), p[0]->param("bytes"), "bytes / median cudaMemcpyPeerAsync time", true);
  else
    f.notes.push_back("peer-to-peer: not measured (" +
                      std::string(r.meta_num("device_count", 1) > 1 ? "no peer access" : "one GPU") + ")");

  // Co-run pairs and the L2 contention coefficient
  for (const char* mode : {"stream", "process"}) {
    for (const auto* ex : r.all(std::string("corun.") + mode)) {
      CorunPair p;
      p.mode = mode;
      p.iters = ex->param("iters", 1);
      p.a = {ex->str("a"), ex->param("a_flops"), ex->param("a_bytes"), {}, {}, NaN};
      p.b = {ex->str("b"), ex->param("b_flops"), ex->param("b_bytes"), {}, {}, NaN};
      if (const auto* s = ex->get("a_alone")) p.a.alone = summarize(*s);
      if (const auto* s = ex->get("b_alone")) p.b.alone = summarize(*s);
      if (const auto* s = ex->get("a_pair")) p.a.pair = summarize(*s);
      if (const auto* s = ex->get("b_pair")) p.b.pair = summarize(*s);
      if (const auto* s = ex->get("a_total"); s && !s->empty()) p.a.total_pair = median(*s);
      if (const auto* s = ex->get("b_total"); s && !s->empty()) p.b.total_pair = median(*s);
      (p.mode == "stream" ? f.stream_pairs : f.process_pairs).push_back(p);
    }
  }
  if (f.fp32.ok() && f.hbm_copy.ok() && !f.stream_pairs.empty())
    f.l2_contention = fit_l2_contention(f.stream_pairs, f.fp32.value, f.hbm_copy.value);

  // Time slice and context switch
  if (auto tl = r.all("ctxswitch.timeline"); !tl.empty()) {
    const auto* ex = tl[0];
    auto get = [&](const char* k) { return ex->get(k) ? *ex->get(k) : std::vector<double>{}; };
    const double min_gap = std::max(10000.0, 2 * ex->param("threshold_ns", 4000));
    SwitchFit sa = fit_context_switch(get("a_gap_start"), get("a_gap_end"), get("b_span"), get("b_gap_start"),
                                      get("b_gap_end"), min_gap);
    SwitchFit sb = fit_context_switch(get("b_gap_start"), get("b_gap_end"), get("a_span"), get("a_gap_start"),
                                      get("a_gap_end"), min_gap);
    // Both directions: the median of the two (each is a median over its gaps).
    if (sa.cost.ok() && sb.cost.ok()) {
      f.context_switch = sa.cost;
      f.context_switch.value = (sa.cost.value + sb.cost.value) / 2;
      f.context_switch.n = sa.cost.n + sb.cost.n;
      f.time_slice = sa.slice;
      f.time_slice.value = (sa.slice.value + sb.slice.value) / 2;
      f.time_slice.n = sa.slice.n + sb.slice.n;
    } else if (sa.cost.ok() || sb.cost.ok()) {
      f.context_switch = sa.cost.ok() ? sa.cost : sb.cost;
      f.time_slice = sa.cost.ok() ? sa.slice : sb.slice;
    } else {
      f.notes.push_back(
          "context switch: the two processes' timelines did not interleave (no gap of one filled by "
          "the other); not fitted");
    }
    if (const auto* step = ex->get("a_max_step"); step && !step->empty())
      f.notes.push_back("context switch: timer resolution (largest ordinary step of the spinning thread) " +
                        std::to_string((*step)[0]) + " ns");
  }

  // L2 prime+probe channel
  if (auto pp = r.all("primeprobe.l2"); !pp.empty()) {
    std::vector<double> idle, active;
    for (const auto* ex : pp) {
      if (const auto* s = ex->get("idle")) idle.insert(idle.end(), s->begin(), s->end());
      if (const auto* s = ex->get("active")) active.insert(active.end(), s->begin(), s->end());
    }
    const double hz = pp[0]->param("sm_clock_hz", clock);
    if (!idle.empty() && !active.empty() && hz > 0) {
      const double mi = median(idle), ma = median(active);
      const double si = mad_sigma(idle), sa = mad_sigma(active);
      const double noise = std::sqrt((si * si + sa * sa) / 2);
      std::vector<double> all = idle;
      all.insert(all.end(), active.begin(), active.end());
      f.probe_rate.value = hz / median(all);
      f.probe_rate.n = all.size();
      f.probe_rate.method = "SM clock / median probe cycles";
      f.probe_signal.value = (ma - mi) / hz;
      f.probe_signal.n = all.size();
      f.probe_signal.spread = noise > 0 ? noise / std::max(ma - mi, 1e-30) : 0;
      f.probe_signal.method = "median probe time with the victim active minus idle";
      f.probe_noise.value = noise / hz;
      f.probe_noise.n = all.size();
      f.probe_noise.method = "pooled robust standard deviation (1.4826 MAD) of the two probe distributions";
      const double mid = (mi + ma) / 2;
      size_t wrong = 0;
      for (double v : idle) wrong += v > mid;
      for (double v : active) wrong += v <= mid;
      f.probe_error.value = static_cast<double>(wrong) / static_cast<double>(all.size());
      f.probe_error.n = all.size();
      f.probe_error.method =
          "empirical error of a threshold halfway between the medians (the leakage model uses "
          "Q(signal / 2 noise) = " +
          std::to_string(noise > 0 ? normal_q((ma - mi) / (2 * noise)) : 0.0) + ")";
    }
  }
  for (const auto& s : r.skipped) f.notes.push_back("skipped on the GPU: " + s);
  return f;
}

}  // namespace gtw::calib
