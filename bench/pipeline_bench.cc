// crux_pipeline_bench: per-token overhead of the serving path without a model — engine update
// → reasoning parser → tool parser → protocol encoder → SSE chunk written to a socket (a
// reader thread drains the other end). Streams a 32,000-token output with reasoning and 50 tool
// calls and prints, per protocol, the cost of each token (percentiles over all tokens of 9
// runs) three ways: in user space only (pipeline + encoder, frames discarded), with one
// write(2) per token (the worst case), and with one write per 8 tokens (the server writes
// whatever accumulated since its last write, so under load several tokens share a write).
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench_text.h"
#include "crux/engine/mock_engine.h"
#include "crux/pipeline/pipeline.h"
#include "crux/protocol/codec.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace crux;

std::string MakeBody(protocol::Api api) {
  switch (api) {
    case protocol::Api::kChatCompletions:
      return R"({"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],
        "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]})";
    case protocol::Api::kAnthropicMessages:
      return R"({"model":"m","stream":true,"max_tokens":100000,"messages":[{"role":"user","content":"hi"}],
        "tools":[{"name":"get_weather","input_schema":{"type":"object"}}]})";
    case protocol::Api::kResponses:
      return R"({"model":"m","stream":true,"input":"hi",
        "tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}}]})";
    case protocol::Api::kCompletions:
      return R"({"model":"m","stream":true,"prompt":"hi"})";
  }
  return "";
}

// Writes `data` as one HTTP/1.1 chunk (size line, data, CRLF), as the server does.
void WriteChunk(int fd, const std::string& data, std::string& frame) {
  char size[32];
  const int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  frame.assign(size, static_cast<size_t>(n));
  frame += data;
  frame += "\r\n";
  size_t off = 0;
  while (off < frame.size()) {
    const ssize_t w = ::write(fd, frame.data() + off, frame.size() - off);
    if (w <= 0) return;
    off += static_cast<size_t>(w);
  }
}

// Streams `tokens`; appends each token's cost (ns) to `per_token`; returns the mean.
double RunOnce(protocol::Api api, const std::vector<std::string>& tokens, engine::Engine& eng,
               int fd, int write_every, std::vector<double>& per_token) {
  auto request = protocol::DecodeRequest(api, MakeBody(api));
  if (!request.ok()) {
    std::fprintf(stderr, "bad request: %s\n", request.error().message().c_str());
    std::exit(1);
  }
  pipeline::PipelineConfig config;
  config.reasoning_parser = "qwen3";
  config.tool_parser = "hermes";
  protocol::ResponseMeta meta{"id", 0, "m"};
  auto pipe = std::move(*pipeline::RequestPipeline::Create(*request, config, meta, eng));
  std::string out, frame;
  const auto t0 = Clock::now();
  pipe->Begin(out);
  WriteChunk(fd, out, frame);
  std::string pending;
  pending.reserve(1 << 16);
  engine::GenerationUpdate u;
  u.prompt_tokens = 10;
  u.tokens = 1;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto s0 = Clock::now();
    out.clear();
    u.text = tokens[i];
    u.finished = i + 1 == tokens.size();
    pipe->OnUpdate(u, out);
    if (write_every > 0) {
      pending += out;
      if ((i + 1) % static_cast<size_t>(write_every) == 0 || u.finished) {
        if (!pending.empty()) WriteChunk(fd, pending, frame);
        pending.clear();
      }
    }
    per_token.push_back(std::chrono::duration<double, std::nano>(Clock::now() - s0).count());
  }
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
         static_cast<double>(tokens.size());
}

}  // namespace

int main() {
  bench::TokenStream stream = bench::ReasoningStream("think", 28000, 2000);
  // 50 hermes tool calls at the end of the answer.
  for (int c = 0; c < 50; ++c) {
    const std::string call =
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo " +
        std::to_string(c) + "\", \"days\": 3}}\n</tool_call>\n";
    for (size_t pos = 0; pos < call.size(); pos += 4)
      stream.Add(call.substr(pos, 4));
  }
  engine::MockEngineOptions options;
  options.scripts.push_back({"m", {"x"}});
  auto eng = engine::MakeMockEngine(options);

  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return 1;
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    std::vector<char> buf(1 << 16);
    while (::read(fds[1], buf.data(), buf.size()) > 0) {
    }
  });

  std::printf("%-18s %-14s %8s | %10s %10s %10s | %12s\n", "protocol", "write", "tokens", "p50 ns",
              "p99 ns", "p99.9 ns", "mean ns/token");
  for (int write_every : {0, 1, 8})
    for (auto api : {protocol::Api::kChatCompletions, protocol::Api::kAnthropicMessages,
                     protocol::Api::kResponses}) {
      std::vector<double> runs, per_token, warmup;
      RunOnce(api, stream.pieces, *eng, fds[0], write_every, warmup);
      for (int r = 0; r < 9; ++r) {
        runs.push_back(RunOnce(api, stream.pieces, *eng, fds[0], write_every, per_token));
      }
      std::sort(runs.begin(), runs.end());
      std::sort(per_token.begin(), per_token.end());
      auto pct = [&](double p) {
        return per_token[static_cast<size_t>(p * (per_token.size() - 1))];
      };
      std::printf("%-18s %-14s %8zu | %10.0f %10.0f %10.0f | %12.0f\n",
                  std::string(protocol::ApiName(api)).c_str(),
                  write_every == 0   ? "none"
                  : write_every == 1 ? "every token"
                                     : "every 8 tokens",
                  stream.pieces.size(), pct(0.5), pct(0.99), pct(0.999), runs[runs.size() / 2]);
    }
  stop = true;
  ::shutdown(fds[0], SHUT_RDWR);
  ::close(fds[0]);
  reader.join();
  eng->Shutdown();
  return 0;
}
