// Arrival processes beyond Poisson: diurnal modulation and replayed request traces.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "Arrivals.hpp"
#include "RequestTrace.hpp"

namespace gtw {
namespace {

TEST(Diurnal, ArrivalsFollowTheModulatedRateAndAverageToTheMean) {
  ArrivalSpec a;
  a.process = ArrivalProcess::DIURNAL;
  a.rate = PerSecond(50);
  a.amplitude = 0.8;
  a.period = Seconds(100);
  a.peak_at = Seconds(25);
  ArrivalGenerator gen(a, make_stream(7, "diurnal"), 0);
  // Count arrivals in 10 phase bins over 200 periods.
  std::vector<double> bins(10, 0);
  double t = 0;
  long total = 0;
  const double horizon = 200 * a.period.value;
  while ((t = gen.next()) < horizon) {
    bins[static_cast<size_t>(std::fmod(t, a.period.value) / 10.0)] += 1;
    ++total;
  }
  EXPECT_NEAR(total / horizon, 50.0, 50.0 * 0.02) << "the mean over whole periods is `rate`";
  for (size_t b = 0; b < bins.size(); ++b) {
    // Expected count in the bin: the integral of rate(t) over it, times the number of periods.
    const double t0 = b * 10.0, t1 = t0 + 10.0, w = 2 * std::numbers::pi / a.period.value;
    const double integral = 50.0 * ((t1 - t0) + 0.8 / w * (std::sin(w * (t1 - 25)) - std::sin(w * (t0 - 25))));
    EXPECT_NEAR(bins[b], 200 * integral, 200 * integral * 0.05 + 30) << "phase bin " << b;
  }
  EXPECT_NEAR(diurnal_rate(a, 25), 90, 1e-9);
  EXPECT_NEAR(diurnal_rate(a, 75), 10, 1e-9);
}

TEST(RequestTrace, TimestampsParseToSecondsSinceTheEpoch) {
  double s = 0;
  ASSERT_TRUE(parse_trace_timestamp("2023-11-16 18:15:46.6805900", s));
  EXPECT_NEAR(s, 1700158546.68059, 1e-5);
  ASSERT_TRUE(parse_trace_timestamp("1970-01-02T00:00:01", s));
  EXPECT_DOUBLE_EQ(s, 86401);
  EXPECT_FALSE(parse_trace_timestamp("2023-13-16 18:15:46", s));
  EXPECT_FALSE(parse_trace_timestamp("2023-11-16 18:15", s));
  EXPECT_FALSE(parse_trace_timestamp("2023-11-16 18:15:46.", s));
  EXPECT_FALSE(parse_trace_timestamp("2023-11-16 18:15:4x", s));
}

TEST(RequestTrace, TheVendoredAzureConversationTraceReadsWhole) {
  RequestTrace trace;
  Diagnostics d;
  ASSERT_TRUE(read_request_trace(std::string(GTW_SOURCE_DIR) + "/data/azure-llm-2023/AzureLLMInferenceTrace_conv.csv",
                                 "azure-llm", trace, d, {}, "arrival.file"))
      << d.format_all();
  ASSERT_EQ(trace.requests.size(), 19366u);
  EXPECT_EQ(trace.requests[0].time, 0.0);
  EXPECT_EQ(trace.requests[0].prompt_tokens, 374);
  EXPECT_EQ(trace.requests[0].output_tokens, 44);
  EXPECT_NEAR(trace.requests[1].time, 50.9951690 - 46.6805900, 1e-5);
  EXPECT_GT(trace.span(), 3500);
  EXPECT_LT(trace.span(), 3700) << "one hour of requests";
  for (size_t i = 1; i < trace.requests.size(); ++i) ASSERT_LE(trace.requests[i - 1].time, trace.requests[i].time);
}

TEST(RequestTrace, MalformedRowsAreLocatedAtTheirCsvLineAndColumn) {
  const std::string path = ::testing::TempDir() + "/bad-trace.csv";
  std::ofstream(path) << "time,promptTokens,outputTokens\n0.5,10,3\nsoon,10,3\n1.5,ten,3\n";
  RequestTrace trace;
  Diagnostics d;
  EXPECT_FALSE(read_request_trace(path, "seconds", trace, d, {}, "spec.workloads[0].arrival.file"));
  ASSERT_EQ(d.error_count(), 2u) << d.format_all();
  EXPECT_NE(d.format_all().find(path + ":3:1: error: spec.workloads[0].arrival.file: time: expected seconds"),
            std::string::npos)
      << d.format_all();
  EXPECT_NE(d.format_all().find(path + ":4:5: error"), std::string::npos) << d.format_all();
  Diagnostics header;
  EXPECT_FALSE(read_request_trace(path, "azure-llm", trace, header, {}, "f"));
  EXPECT_NE(
      header.format_all().find("missing column 'TIMESTAMP' in the header (found: time,promptTokens,outputTokens)"),
      std::string::npos)
      << header.format_all();
}

TEST(RequestTrace, ReplayCompressesTimeSkipsTheOffsetAndCarriesTokens) {
  auto trace = std::make_shared<RequestTrace>();
  trace->requests = {{0, 100, 10}, {30, 200, 20}, {60, 300, 30}, {60, 400, 40}, {120, 500, 50}};
  ArrivalSpec a;
  a.process = ArrivalProcess::TRACE;
  a.trace = trace;
  a.speedup = 60;
  a.trace_offset = Seconds(30);
  ArrivalGenerator gen(a, make_stream(1, "t"), 5.0);
  EXPECT_DOUBLE_EQ(gen.next(), 5.0);  // the row at 30 s, at the start
  EXPECT_EQ(gen.prompt_tokens(1), 200);
  EXPECT_EQ(gen.output_tokens(1), 20);
  EXPECT_DOUBLE_EQ(gen.next(), 5.5);
  EXPECT_DOUBLE_EQ(gen.next(), 5.5);
  EXPECT_EQ(gen.prompt_tokens(1), 400) << "equal times keep file order";
  EXPECT_DOUBLE_EQ(gen.next(), 6.5);
  EXPECT_TRUE(std::isinf(gen.next())) << "the trace ends";
  EXPECT_DOUBLE_EQ(mean_rate(a), 4.0 / 90.0 * 60.0);
  // Other processes report the workload's own tokens.
  ArrivalSpec p;
  p.rate = PerSecond(1);
  ArrivalGenerator poisson(p, make_stream(1, "p"), 0);
  poisson.next();
  EXPECT_EQ(poisson.prompt_tokens(512), 512);
}

}  // namespace
}  // namespace gtw
