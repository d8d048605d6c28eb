#include "server/metrics.h"

#include <gtest/gtest.h>

namespace crux::server {
namespace {

TEST(Metrics, ParserCountersAccumulateAcrossGenerations) {
  Metrics metrics;
  const std::string before = metrics.Render();
  EXPECT_NE(before.find("crux_reasoning_lone_end_markers_total 0\n"), std::string::npos);
  EXPECT_NE(before.find("crux_tool_calls_promoted_total 0\n"), std::string::npos);
  metrics.Parsed(1, 2);
  metrics.Parsed(2, 0);
  const std::string after = metrics.Render();
  EXPECT_NE(after.find("# TYPE crux_reasoning_lone_end_markers_total counter\n"),
            std::string::npos);
  EXPECT_NE(after.find("crux_reasoning_lone_end_markers_total 3\n"), std::string::npos);
  EXPECT_NE(after.find("crux_tool_calls_promoted_total 2\n"), std::string::npos);
}

}  // namespace
}  // namespace crux::server
