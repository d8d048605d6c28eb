// What crux does with a long conversation before tokenizing it: decoding a 500 KB Chat
// Completions body, and rendering the model's chat template over it (the template's variables
// built from the decoded request, then Qwen3's template from llama.cpp's models/ tree). The
// conversation is the one bench/engine/compare.mjs sends to `crux serve`: question and answer
// turns of about 1 KB each, then a user turn. Tokenizing the rendered prompt is
// crux_prompt_bench's.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "bench_inputs.h"
#include "crux/chat_template/template.h"
#include "crux/pipeline/pipeline.h"
#include "crux/protocol/codec.h"

namespace {

std::shared_ptr<const crux::chat_template::Template> Qwen3() {
  static const auto parsed = []() -> std::shared_ptr<const crux::chat_template::Template> {
    std::ifstream in(crux::bench::LlamaCppDir() / "models" / "templates" / "Qwen-Qwen3-0.6B.jinja",
                     std::ios::binary);
    if (!in) return nullptr;
    std::stringstream text;
    text << in.rdbuf();
    auto t = crux::chat_template::Template::Parse(text.str());
    return t.ok() ? *t : nullptr;
  }();
  return parsed;
}

// The conversation as a Chat Completions body, "messages" first as OpenAI's Python SDK writes
// it (its text needs no JSON escapes); `previous`: the request before it (all but the last
// 10 KB of turns).
std::string Body(size_t kb, bool previous = false) {
  std::string body = R"({"messages":[)";
  const auto messages =
      previous ? crux::bench::PreviousRequest(kb) : crux::bench::LongConversation(kb);
  for (const auto& m : messages)
    body += R"({"role":")" + m.role + R"(","content":")" + m.content + R"("},)";
  body.back() = ']';
  return body + R"(,"model":"tiny","stream":true,"max_tokens":256})";
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

std::shared_ptr<const crux::chat_template::Template> FreshQwen3() {
  std::ifstream in(crux::bench::LlamaCppDir() / "models" / "templates" / "Qwen-Qwen3-0.6B.jinja",
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  auto t = crux::chat_template::Template::Parse(text.str());
  return t.ok() ? *t : nullptr;
}

// The whole conversation rendered with nothing to replay: a template that has rendered nothing
// before (as the first request of a conversation finds it).
void BM_RenderTemplate(benchmark::State& state) {
  KeepLargeBlocksInTheHeap();
  if (!Qwen3()) return state.SkipWithError("llama.cpp's templates are absent");
  const auto request = crux::protocol::DecodeChatCompletions(Body(state.range(0)));
  if (!request.ok()) return state.SkipWithError("the body does not decode");
  size_t bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto fresh = FreshQwen3();
    state.ResumeTiming();
    auto prompt = crux::pipeline::RenderChatTemplate(*fresh, *request);
    bytes = prompt.ok() ? prompt->size() : 0;
    benchmark::DoNotOptimize(prompt);
  }
  if (bytes == 0) return state.SkipWithError("the template failed");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_RenderTemplate)->Arg(50)->Arg(500)->Unit(benchmark::kMicrosecond);

// The conversation rendered after its previous request (all but its last 10 KB of turns, each
// request decoded anew): what `crux serve` does for each turn of an agent's conversation. The
// template replays the iterations of the turns it has rendered; with the argument 0 it renders
// the whole conversation again (RenderOptions::reuse_loops off), as it did before.
void BM_RenderFollowUp(benchmark::State& state) {
  crux::chat_template::RenderOptions options;
  options.reuse_loops = state.range(1) != 0;
  KeepLargeBlocksInTheHeap();
  if (!Qwen3()) return state.SkipWithError("llama.cpp's templates are absent");
  const auto kb = static_cast<size_t>(state.range(0));
  const std::string previous_body = Body(kb, true);
  const std::string body = Body(kb);
  size_t bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto t = FreshQwen3();
    const auto previous = crux::protocol::DecodeChatCompletions(previous_body);
    const auto request = crux::protocol::DecodeChatCompletions(body);
    if (!previous.ok() || !request.ok() ||
        !crux::pipeline::RenderChatTemplate(*t, *previous, options).ok()) {
      return state.SkipWithError("the previous request does not render");
    }
    state.ResumeTiming();
    auto prompt = crux::pipeline::RenderChatTemplate(*t, *request, options);
    bytes = prompt.ok() ? prompt->size() : 0;
    benchmark::DoNotOptimize(prompt);
  }
  if (bytes == 0) return state.SkipWithError("the template failed");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_RenderFollowUp)
    ->Args({50, 0})
    ->Args({50, 1})
    ->Args({500, 0})
    ->Args({500, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
