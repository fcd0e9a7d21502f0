#include "Stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gtw::calib {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double median(std::vector<double> v) {
  return quantile(std::move(v), 0.5);
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double stddev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

double mad_sigma(const std::vector<double>& v) {
  if (v.empty()) return 0;
  const double m = median(v);
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::fabs(x - m));
  return 1.4826 * median(std::move(d));
}

Summary summarize(const std::vector<double>& v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  s.median = quantile(v, 0.5);
  s.p25 = quantile(v, 0.25);
  s.p75 = quantile(v, 0.75);
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  return s;
}

namespace {
void finish(LinearFit& f, const std::vector<double>& x, const std::vector<double>& y, size_t params) {
  const double my = mean(y);
  double ss_res = 0, ss_tot = 0;
  f.residuals.clear();
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (f.intercept + f.slope * x[i]);
    f.residuals.push_back(r);
    ss_res += r * r;
    ss_tot += (y[i] - my) * (y[i] - my);
  }
  f.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
  f.rms_residual = std::sqrt(ss_res / static_cast<double>(x.size()));
  f.n = x.size();
  const double mx = mean(x);
  double sxx = 0;
  for (double xi : x) sxx += params == 2 ? (xi - mx) * (xi - mx) : xi * xi;
  f.slope_stderr =
      (x.size() > params && sxx > 0) ? std::sqrt(ss_res / static_cast<double>(x.size() - params) / sxx) : 0;
}
}  // namespace

LinearFit fit_linear(const std::vector<double>& x, const std::vector<double>& y) {
  LinearFit f;
  if (x.size() != y.size() || x.size() < 2) return f;
  const double mx = mean(x), my = mean(y);
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.ok = true;
  finish(f, x, y, 2);
  return f;
}

LinearFit fit_proportional(const std::vector<double>& x, const std::vector<double>& y) {
  LinearFit f;
  if (x.size() != y.size() || x.empty()) return f;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += x[i] * y[i];
    sxx += x[i] * x[i];
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.ok = true;
  finish(f, x, y, 1);
  return f;
}

double normal_q(double z) {
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

}  // namespace gtw::calib
