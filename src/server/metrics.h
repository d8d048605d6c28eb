// Prometheus metrics of the server: request counts, tokens, parser anomalies, latency
// histograms, active streams.
// Thread-safe (atomics); rendered in the Prometheus text format on GET /metrics.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace crux::server {

class Histogram {
 public:
  static constexpr std::array<double, 14> kBounds = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                     0.25,  0.5,    1,     2.5,  5,     10,   30};
  void Observe(double seconds);
  void Render(std::string& out, std::string_view name, std::string_view help) const;

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets_{};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_micros_{0};
};

class Metrics {
 public:
  // Endpoints counted separately.
  enum Endpoint : int { kChat = 0, kMessages, kResponses, kCompletions, kOther, kEndpointCount };

  void RequestDone(Endpoint endpoint, int status, double seconds);
  void FirstByte(double seconds) { ttfb_.Observe(seconds); }
  // Decoding the body, rendering and tokenizing the prompt: request to engine submission.
  void Prepared(double seconds) { prepare_.Observe(seconds); }
  void Tokens(int prompt, int completion) {
    prompt_tokens_ += static_cast<uint64_t>(prompt);
    completion_tokens_ += static_cast<uint64_t>(completion);
  }
  // What the parsers noticed in one generation: reasoning end markers kept as content for
  // want of a block to close, and tool-call blocks promoted from reasoning to the answer.
  void Parsed(int lone_end_markers, int promoted_tool_calls) {
    lone_end_markers_ += static_cast<uint64_t>(lone_end_markers);
    promoted_tool_calls_ += static_cast<uint64_t>(promoted_tool_calls);
  }
  void StreamStarted() { ++active_streams_; }
  void StreamEnded() { --active_streams_; }
  void GenerationStarted() { ++active_generations_; }
  void GenerationEnded() { --active_generations_; }
  int active_generations() const { return active_generations_.load(); }
  void Cancelled() { ++cancelled_; }
  void ClientCut() { ++clients_cut_; }
  void ConnectionOpened() { ++open_connections_; }
  void ConnectionClosed() { --open_connections_; }
  void ConnectionRefused() { ++connections_refused_; }
  // One MCP tool call (POST /v1/mcp/execute or the tool loop): refused or failed calls count
  // as errors; the time is the call's own.
  void McpCall(bool is_error, double seconds) {
    ++(is_error ? mcp_call_errors_ : mcp_calls_ok_);
    mcp_call_.Observe(seconds);
  }

  std::string Render() const;

 private:
  void RenderHistograms(std::string& out) const;
  void RenderMcp(std::string& out) const;
  static constexpr int kStatusClasses = 5;  // 1xx..5xx
  std::array<std::array<std::atomic<uint64_t>, kStatusClasses>, kEndpointCount> requests_{};
  std::atomic<uint64_t> prompt_tokens_{0};
  std::atomic<uint64_t> completion_tokens_{0};
  std::atomic<uint64_t> lone_end_markers_{0};
  std::atomic<uint64_t> promoted_tool_calls_{0};
  std::atomic<uint64_t> cancelled_{0};
  std::atomic<uint64_t> clients_cut_{0};
  std::atomic<uint64_t> connections_refused_{0};
  std::atomic<int64_t> open_connections_{0};
  std::atomic<int64_t> active_streams_{0};
  std::atomic<int> active_generations_{0};
  Histogram duration_;
  Histogram ttfb_;
  Histogram prepare_;
  std::atomic<uint64_t> mcp_calls_ok_{0};
  std::atomic<uint64_t> mcp_call_errors_{0};
  Histogram mcp_call_;
};

}  // namespace crux::server
