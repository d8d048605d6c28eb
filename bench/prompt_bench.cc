// Tokenizing a long conversation's prompt: a full pass, and the pass through the prompt cache
// when the previous request was all but the last 10 KB (what an agent resending its history
// costs); crux's chunk tokenizer beside llama.cpp's tokenizer alone. Qwen2's byte-level BPE
// vocabulary from llama.cpp's models/ tree, with the Qwen chat markup written directly (no
// template).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "bench_inputs.h"
#include "crux/engine/prompt_tokenizer.h"
#include "llama.h"

namespace {

const llama_model* Model() {
  static llama_model* model = [] {
    llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
    llama_model_params params = llama_model_default_params();
    params.vocab_only = true;
    const std::string path =
        (crux::bench::LlamaCppDir() / "models" / "ggml-vocab-qwen2.gguf").string();
    return llama_model_load_from_file(path.c_str(), params);
  }();
  return model;
}

std::string Turn(int i) {
  return "<|im_start|>user\n" + crux::bench::Question(i) + "<|im_end|>\n<|im_start|>assistant\n" +
         crux::bench::Answer(i) + "<|im_end|>\n";
}

// 10 KB of turns: what a new request adds.
std::string Tail() {
  std::string tail;
  for (int i = 0; i < 10 * 1024 / static_cast<int>(Turn(0).size()); ++i)
    tail += Turn(i);
  return tail;
}

// The previous request (all turns but the last 10 KB, then a question) and this one.
struct Conversation {
  std::string previous, current;
};
Conversation Make(size_t kb) {
  const size_t per_turn = Turn(0).size();
  const size_t turns = kb * 1024 / per_turn;
  const size_t earlier = turns - 10 * 1024 / per_turn;
  Conversation c;
  std::string history;
  for (size_t i = 0; i < earlier; ++i)
    history += Turn(static_cast<int>(i));
  const std::string ask = "<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n";
  c.previous = history + ask;
  for (size_t i = earlier; i < turns; ++i)
    history += Turn(static_cast<int>(i));
  c.current = history + ask;
  return c;
}

void BM_PromptFull(benchmark::State& state) {
  if (!Model()) return state.SkipWithError("llama.cpp's vocabularies are absent");
  const Conversation c = Make(static_cast<size_t>(state.range(0)));
  crux::engine::PromptTokenizer tokenizer(Model(), 4);
  for (auto _ : state)
    benchmark::DoNotOptimize(tokenizer.TokenizeText(c.current, true, true));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.current.size()));
}
BENCHMARK(BM_PromptFull)->Arg(50)->Arg(500)->Unit(benchmark::kMillisecond);

// The same through llama.cpp's tokenizer alone.
void BM_PromptFullLlamaCpp(benchmark::State& state) {
  if (!Model()) return state.SkipWithError("llama.cpp's vocabularies are absent");
  const Conversation c = Make(static_cast<size_t>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(
        crux::engine::LlamaTokenize(llama_model_get_vocab(Model()), c.current, true, true));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.current.size()));
}
BENCHMARK(BM_PromptFullLlamaCpp)->Arg(50)->Arg(500)->Unit(benchmark::kMillisecond);

// Each iteration: a cache primed with the previous request, then this one.
void BM_PromptThroughCache(benchmark::State& state) {
  if (!Model()) return state.SkipWithError("llama.cpp's vocabularies are absent");
  const Conversation c = Make(static_cast<size_t>(state.range(0)));
  size_t reused = 0, total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    crux::engine::PromptTokenizer tokenizer(Model(), 4);
    tokenizer.Tokenize(c.previous);
    state.ResumeTiming();
    const auto result = tokenizer.Tokenize(c.current);
    reused = result.reused;
    total = result.tokens.size();
  }
  state.counters["tokens"] = static_cast<double>(total);
  state.counters["tokenized"] = static_cast<double>(total - reused);
}
BENCHMARK(BM_PromptThroughCache)->Arg(50)->Arg(500)->Unit(benchmark::kMillisecond);

// The new tail alone, straight through llama.cpp's tokenizer.
void BM_PromptTail(benchmark::State& state) {
  if (!Model()) return state.SkipWithError("llama.cpp's vocabularies are absent");
  const std::string tail = Tail();
  crux::engine::PromptTokenizer tokenizer(Model(), 4);
  for (auto _ : state)
    benchmark::DoNotOptimize(tokenizer.TokenizeText(tail, false, true));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * tail.size()));
}
BENCHMARK(BM_PromptTail)->Unit(benchmark::kMicrosecond);

void BM_PromptTailLlamaCpp(benchmark::State& state) {
  if (!Model()) return state.SkipWithError("llama.cpp's vocabularies are absent");
  const std::string tail = Tail();
  for (auto _ : state)
    benchmark::DoNotOptimize(
        crux::engine::LlamaTokenize(llama_model_get_vocab(Model()), tail, false, true));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * tail.size()));
}
BENCHMARK(BM_PromptTailLlamaCpp)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// The worst case for the chunk cache: 100 KB of words that never repeat, each chunk a miss
// that llama.cpp tokenizes alone (a fresh tokenizer each iteration).
std::string UniqueWords() {
  std::string text;
  uint32_t x = 12345;
  while (text.size() < 100 * 1024) {
    text += ' ';
    const int length = 3 + static_cast<int>(x % 8);
    for (int i = 0; i < length; ++i) {
      x = x * 1103515245u + 12345u;
      text += static_cast<char>('a' + (x >> 16) % 26);
    }
  }
  return text;
}

void BM_UniqueWords(benchmark::State& state) {
  if (!Model()) return state.SkipWithError("llama.cpp's vocabularies are absent");
  const std::string text = UniqueWords();
  for (auto _ : state) {
    state.PauseTiming();
    crux::engine::PromptTokenizer tokenizer(Model(), 4);
    state.ResumeTiming();
    benchmark::DoNotOptimize(tokenizer.TokenizeText(text, false, true));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_UniqueWords)->Unit(benchmark::kMillisecond);

void BM_UniqueWordsLlamaCpp(benchmark::State& state) {
  if (!Model()) return state.SkipWithError("llama.cpp's vocabularies are absent");
  const std::string text = UniqueWords();
  for (auto _ : state)
    benchmark::DoNotOptimize(
        crux::engine::LlamaTokenize(llama_model_get_vocab(Model()), text, false, true));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_UniqueWordsLlamaCpp)->Unit(benchmark::kMillisecond);

}  // namespace
