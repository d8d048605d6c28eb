// Google Benchmark microbenchmarks: marker scanning and complete-text reasoning parsing.
#include <benchmark/benchmark.h>

#include "bench_text.h"
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

}  // namespace
}  // namespace crux::bench
