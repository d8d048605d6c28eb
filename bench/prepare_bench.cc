// What crux does with a long conversation before tokenizing it: decoding a 500 KB Chat
// Completions body, and rendering the model's chat template over it (the template's variables
// built from the decoded request, then Qwen3's template from llama.cpp's models/ tree). The
// conversation is the one bench/engine/compare.mjs sends to `crux serve`: question and answer
// turns of about 1 KB each, then a user turn. Tokenizing the rendered prompt is
// crux_prompt_bench's.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "crux/chat_template/template.h"
#include "crux/pipeline/pipeline.h"
#include "crux/protocol/codec.h"

namespace {

std::filesystem::path TemplatesDir() {
  if (const char* dir = std::getenv("CRUX_LLAMA_CPP_DIR"); dir && *dir)
    return std::filesystem::path(dir) / "models" / "templates";
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = cache && *cache
                                         ? std::filesystem::path(cache)
                                         : std::filesystem::path(home ? home : ".") / ".cache";
  return base / "crux" / "llama.cpp" / "models" / "templates";
}

std::shared_ptr<const crux::chat_template::Template> Qwen3() {
  static const auto parsed = []() -> std::shared_ptr<const crux::chat_template::Template> {
    std::ifstream in(TemplatesDir() / "Qwen-Qwen3-0.6B.jinja", std::ios::binary);
    if (!in) return nullptr;
    std::stringstream text;
    text << in.rdbuf();
    auto t = crux::chat_template::Template::Parse(text.str());
    return t.ok() ? *t : nullptr;
  }();
  return parsed;
}

// A JSON string's characters (the conversation's text needs no escapes).
std::string Body(size_t kb) {
  std::string question, answer;
  for (int k = 0; k < 20; ++k) {
    question += "Where do the ships go when the harbour closes? ";
    answer += "They sail north along the coast to the next port. ";
  }
  std::string body = R"({"model":"tiny","stream":true,"messages":[)";
  for (int i = 0; body.size() < kb * 1024; ++i) {
    const std::string n = std::to_string(i);
    body += R"({"role":"user","content":"Question )" + n + ": " + question + R"("},)";
    body += R"({"role":"assistant","content":"Answer )" + n + ": " + answer + R"("},)";
  }
  return body + R"({"role":"user","content":"And then?"}]})";
}

void KeepLargeBlocksInTheHeap() {
  // As `crux serve` does.
  static const bool done = [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    return true;
  }();
  (void)done;
}

void BM_DecodeBody(benchmark::State& state) {
  KeepLargeBlocksInTheHeap();
  const std::string body = Body(static_cast<size_t>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(crux::protocol::DecodeChatCompletions(body));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_DecodeBody)->Arg(50)->Arg(500)->Unit(benchmark::kMicrosecond);

void BM_RenderTemplate(benchmark::State& state) {
  KeepLargeBlocksInTheHeap();
  if (!Qwen3()) return state.SkipWithError("llama.cpp's templates are absent");
  const auto request = crux::protocol::DecodeChatCompletions(Body(state.range(0)));
  if (!request.ok()) return state.SkipWithError("the body does not decode");
  size_t bytes = 0;
  for (auto _ : state) {
    auto prompt = crux::pipeline::RenderChatTemplate(*Qwen3(), *request);
    bytes = prompt.ok() ? prompt->size() : 0;
    benchmark::DoNotOptimize(prompt);
  }
  if (bytes == 0) return state.SkipWithError("the template failed");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_RenderTemplate)->Arg(50)->Arg(500)->Unit(benchmark::kMicrosecond);

}  // namespace
