// The openb CSV readers: good files parse, every problem of a bad file is reported at once with its
// file:line:col, the column and what was expected.
#include <gtest/gtest.h>

#include <string>

#include "Errors.hpp"
#include "OpenbCsv.hpp"

using namespace gtw;
using namespace gtw::trace;

namespace {

const std::string FIXTURES = std::string(GTW_SOURCE_DIR) + "/tests/trace/fixtures/";

// The InputError's message (fails the test when the call does not throw one).
template <class Fn>
std::string input_error(Fn&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

size_t count_lines(const std::string& text) {
  size_t n = text.empty() ? 0 : 1;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST(OpenbCsv, ReadsPodsWithModelConstraints) {
  const auto pods = read_openb_pods(FIXTURES + "pods-good.csv");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].name, "pod-0");
  EXPECT_EQ(pods[0].cpu_milli, 4000);
  EXPECT_EQ(pods[0].memory_mib, 1024);
  EXPECT_EQ(pods[0].num_gpu, 1);
  EXPECT_EQ(pods[0].gpu_milli, 500);
  EXPECT_EQ(pods[0].gpu_spec, (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ(pods[0].qos, "LS");
  EXPECT_TRUE(pods[1].gpu_spec.empty());
}

TEST(OpenbCsv, ReadsTheVendoredTrace) {
  const std::string dir = std::string(GTW_SOURCE_DIR) + "/data/openb/";
  const auto nodes = read_openb_nodes(dir + "openb_node_list_gpu_node.csv");
  const auto pods = read_openb_pods(dir + "openb_pod_list_default.csv");
  const auto arrivals = read_openb_arrivals(dir + "arrivals_default_tune1.3_seed42.csv", pods);
  EXPECT_EQ(nodes.size(), 1213u);
  int gpus = 0;
  for (const auto& n : nodes) gpus += n.gpus;
  EXPECT_EQ(gpus, 6212);
  EXPECT_EQ(pods.size(), 8152u);
  ASSERT_EQ(arrivals.size(), 10866u);
  EXPECT_EQ(pods[static_cast<size_t>(arrivals[0])].name, "openb-pod-0255");
  EXPECT_EQ(pods[static_cast<size_t>(arrivals.back())].name, "openb-pod-5877");
}

TEST(OpenbCsv, QuotedFieldKeepsItsCommaAndIsReportedWhole) {
  const std::string file = FIXTURES + "nodes-quoted.csv";
  const std::string msg = input_error([&] { read_openb_nodes(file); });
  EXPECT_EQ(msg, file + ":3:8: error: cpu_milli: expected an integer in [0, 1099511627776], got 'V100,M32'");
}

TEST(OpenbCsv, MissingColumnNamesTheColumnAndTheHeader) {
  const std::string file = FIXTURES + "nodes-missing-column.csv";
  const std::string msg = input_error([&] { read_openb_nodes(file); });
  EXPECT_EQ(msg,
            file + ":1:1: error: model: missing column 'model' in the header (found: sn,cpu_milli,memory_mib,gpu)");
}

TEST(OpenbCsv, EveryBadNodeValueIsReportedAtOnce) {
  const std::string file = FIXTURES + "nodes-bad-values.csv";
  const std::string msg = input_error([&] { read_openb_nodes(file); });
  EXPECT_NE(msg.find(file + ":3:8: error: cpu_milli: expected an integer in [0, 1099511627776], got '12x'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":4:14: error: memory_mib: expected an integer in [0, 1099511627776], got '-5'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":5:21: error: model: expected the GPU model of a node with 4 GPU(s), got an empty field"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":6:1: error: sn: duplicate node 'node-a' (first on line 2)"), std::string::npos) << msg;
  EXPECT_EQ(count_lines(msg), 4u) << msg;
}

TEST(OpenbCsv, EveryBadPodValueIsReportedAtOnce) {
  const std::string file = FIXTURES + "pods-bad-values.csv";
  const std::string msg = input_error([&] { read_openb_pods(file); });
  EXPECT_NE(msg.find(file + ":2:19: error: gpu_milli: expected 1000 (whole GPUs) for a pod with 2 GPUs, got 500"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":3:19: error: gpu_milli: expected an integer in [0, 1000], got '1200'"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":4:19: error: gpu_milli: expected 0 for a pod without GPUs (num_gpu 0), got 300"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":5:1: error: expected 7 comma-separated fields as in the header, got 3"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":6:1: error: name: duplicate pod 'pod-0' (first on line 2)"), std::string::npos) << msg;
  EXPECT_EQ(count_lines(msg), 5u) << msg;  // the unparsable 1200 is not reported a second time as inconsistent
}

TEST(OpenbCsv, ArrivalsMustCountInOrderAndNameKnownPods) {
  const auto pods = read_openb_pods(FIXTURES + "pods-good.csv");
  const std::string file = FIXTURES + "arrivals-bad.csv";
  const std::string msg = input_error([&] { read_openb_arrivals(file, pods); });
  EXPECT_NE(msg.find(file + ":3:1: error: seq: expected 1 (arrivals numbered 0, 1, 2, ... in order), got '2'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(file + ":4:6: error: base_pod: expected the name of a pod of the pod list, got 'pod-9'"),
            std::string::npos)
      << msg;
  EXPECT_EQ(count_lines(msg), 2u) << msg;
}

TEST(OpenbCsv, EmptyAndMissingFilesAreInputErrors) {
  const std::string empty = FIXTURES + "empty.csv";
  EXPECT_EQ(input_error([&] { read_openb_nodes(empty); }),
            empty + ":1:1: error: empty file: expected a header line and rows");
  const std::string missing = FIXTURES + "no-such-file.csv";
  EXPECT_EQ(input_error([&] { read_openb_pods(missing); }),
            missing + ": error: cannot read '" + missing + "': no such file");
}
