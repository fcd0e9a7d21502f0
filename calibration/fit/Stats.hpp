#pragma once
// Robust statistics and least squares for the calibration fitter (CPU only).
#include <cstddef>
#include <vector>

namespace gtw::calib {

double median(std::vector<double> v);
/// Linear-interpolated quantile, q in [0, 1]; 0 for an empty vector.
double quantile(std::vector<double> v, double q);
double mean(const std::vector<double>& v);
double stddev(const std::vector<double>& v);  // sample standard deviation (n - 1)
/// Median absolute deviation scaled by 1.4826 (a standard deviation for Gaussian data).
double mad_sigma(const std::vector<double>& v);

/// Spread of repeated samples: median, interquartile range, relative IQR (IQR / median).
struct Summary {
  size_t n = 0;
  double median = 0;
  double p25 = 0;
  double p75 = 0;
  double min = 0;
  double max = 0;
  double rel_iqr() const { return median != 0 ? (p75 - p25) / median : 0; }
};
Summary summarize(const std::vector<double>& v);

/// y = intercept + slope x by ordinary least squares, with the goodness of fit.
struct LinearFit {
  double slope = 0;
  double intercept = 0;
  double r2 = 0;            // coefficient of determination (1 when every point is on the line)
  double slope_stderr = 0;  // standard error of the slope
  double rms_residual = 0;  // root mean square of the residuals, in y units
  std::vector<double> residuals;
  size_t n = 0;
  bool ok = false;  // at least 2 points with distinct x
};
LinearFit fit_linear(const std::vector<double>& x, const std::vector<double>& y);
/// y = slope x (through the origin).
LinearFit fit_proportional(const std::vector<double>& x, const std::vector<double>& y);

/// Standard normal upper tail Q(z) = P(Z > z).
double normal_q(double z);

}  // namespace gtw::calib
