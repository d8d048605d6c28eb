// Google Benchmark microbenchmarks: marker scanning, complete-text reasoning parsing, and
// sampling one token from a Qwen-sized vocabulary (the engine's per-step sampler).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "bench_text.h"
#include "crux/engine/sampler.h"
#include "crux/parse/parser.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/text/marker_set.h"

namespace crux::bench {
namespace {

void BM_MarkerScan(benchmark::State& state) {
  TokenStream s;
  AddProse(s, 32000, 3);
  const text::MarkerSet set{"<think>", "</think>", "<tool_call>"};
  for (auto _ : state) {
    size_t pos = 0;
    while (pos < s.text.size()) {
      auto r = set.Scan(std::string_view(s.text).substr(pos), true);
      pos += r.pos + (r.status == text::ScanStatus::kFound ? r.length : 0);
      if (r.status != text::ScanStatus::kFound) break;
    }
    benchmark::DoNotOptimize(pos);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.text.size()));
}
BENCHMARK(BM_MarkerScan);

void BM_CompleteReasoning(benchmark::State& state, const char* parser_name, const char* format) {
  const TokenStream s = ReasoningStream(format, 30000, 2000);
  auto parser = std::move(*parse::CreateReasoningParser(parser_name));
  for (auto _ : state) {
    auto result = parse::ParseComplete(*parser, s.text);
    benchmark::DoNotOptimize(result);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.text.size()));
}
BENCHMARK_CAPTURE(BM_CompleteReasoning, qwen3, "qwen3", "think");
BENCHMARK_CAPTURE(BM_CompleteReasoning, gemma4, "gemma4", "gemma4");
BENCHMARK_CAPTURE(BM_CompleteReasoning, gpt_oss, "gpt_oss", "harmony");

// 151,936 logits shaped like a model's (normal, a few tokens far above the rest), llama-server's
// default sampling; arg 1 adds a grammar mask allowing one token in eight.
void BM_SampleToken(benchmark::State& state) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> logits(151936);
  for (float& l : logits)
    l = normal(rng);
  for (int i = 0; i < 20; ++i)
    logits[rng() % logits.size()] += 12.0f;
  std::vector<uint32_t> mask;
  if (state.range(0) == 1) mask.assign((logits.size() + 31) / 32, 0x01010101u);
  engine::Sampler sampler(engine::SamplingParams{});
  for (auto _ : state)
    benchmark::DoNotOptimize(sampler.Sample(logits, mask));
}
BENCHMARK(BM_SampleToken)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// A flat distribution (every logit within 1 of the others, as a random-weight model gives):
// thousands of tokens within min_p of the best.
void BM_SampleTokenFlat(benchmark::State& state) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> logits(151936);
  for (float& l : logits)
    l = uniform(rng);
  engine::Sampler sampler(engine::SamplingParams{});
  for (auto _ : state)
    benchmark::DoNotOptimize(sampler.Sample(logits, {}));
}
BENCHMARK(BM_SampleTokenFlat)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace crux::bench
