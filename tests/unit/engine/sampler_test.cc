#include "crux/engine/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

namespace crux::engine {
namespace {

std::vector<uint32_t> MaskOf(size_t vocabulary, std::initializer_list<uint32_t> allowed) {
  std::vector<uint32_t> mask((vocabulary + 31) / 32, 0);
  for (uint32_t t : allowed)
    mask[t >> 5] |= uint32_t{1} << (t & 31);
  return mask;
}

SamplingParams Plain(double temperature) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = 0;
  p.top_p = 1.0;
  p.min_p = 0.0;
  p.seed = 11;
  return p;
}

TEST(Sampler, GreedyTakesTheLargestAllowedLogit) {
  std::vector<float> logits(100, 0.0f);
  logits[7] = 5.0f;
  logits[70] = 3.0f;
  Sampler greedy(Plain(0.0));
  EXPECT_EQ(greedy.Sample(logits, {}), 7);
  EXPECT_EQ(greedy.Sample(logits, MaskOf(100, {70, 3})), 70);
}

TEST(Sampler, NeverDrawsAMaskedToken) {
  std::vector<float> logits(1000);
  for (size_t i = 0; i < logits.size(); ++i)
    logits[i] = static_cast<float>(std::sin(static_cast<double>(i)) * 4);
  const std::vector<uint32_t> mask = MaskOf(1000, {5, 500, 999});
  Sampler sampler(Plain(1.5));
  for (int i = 0; i < 2000; ++i) {
    const int32_t t = sampler.Sample(logits, mask);
    EXPECT_TRUE(t == 5 || t == 500 || t == 999) << t;
  }
}

TEST(Sampler, NoAllowedTokenIsMinusOne) {
  std::vector<float> logits(64, 1.0f);
  Sampler sampler(Plain(1.0));
  EXPECT_EQ(sampler.Sample(logits, MaskOf(64, {})), -1);
  std::vector<float> banned(8, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(sampler.Sample(banned, {}), -1);
}

TEST(Sampler, DrawsInProportionToTheSoftmax) {
  // Logits log(1), log(2), log(7): probabilities 0.1, 0.2, 0.7 at temperature 1.
  std::vector<float> logits = {std::log(1.0f), std::log(2.0f), std::log(7.0f)};
  Sampler sampler(Plain(1.0));
  std::map<int32_t, int> counts;
  const int n = 20000;
  for (int i = 0; i < n; ++i)
    ++counts[sampler.Sample(logits, {})];
  EXPECT_NEAR(counts[0] / double(n), 0.1, 0.015);
  EXPECT_NEAR(counts[1] / double(n), 0.2, 0.015);
  EXPECT_NEAR(counts[2] / double(n), 0.7, 0.015);
}

TEST(Sampler, TopKTopPAndMinPCutTheTail) {
  std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  const auto seen = [&](SamplingParams p) {
    Sampler sampler(p);
    std::map<int32_t, int> counts;
    for (int i = 0; i < 5000; ++i)
      ++counts[sampler.Sample(logits, {})];
    return counts;
  };
  SamplingParams k = Plain(1.0);
  k.top_k = 2;
  EXPECT_EQ(seen(k).size(), 2u);
  SamplingParams p = Plain(1.0);
  p.top_p = 0.75;  // 0.5 + 0.3 reaches it
  EXPECT_EQ(seen(p).size(), 2u);
  SamplingParams m = Plain(1.0);
  m.min_p = 0.2;  // keeps p >= 0.1: the first three
  EXPECT_EQ(seen(m).size(), 3u);
}

TEST(Sampler, TheSameSeedDrawsTheSameTokens) {
  std::vector<float> logits(500);
  for (size_t i = 0; i < logits.size(); ++i)
    logits[i] = static_cast<float>(std::cos(static_cast<double>(i)));
  Sampler a(Plain(1.0));
  Sampler b(Plain(1.0));
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(a.Sample(logits, {}), b.Sample(logits, {}));
}

}  // namespace
}  // namespace crux::engine
