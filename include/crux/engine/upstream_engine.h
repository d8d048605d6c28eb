// The upstream engine: crux in front of an engine that already runs (vLLM, SGLang, a fleet of
// llama-servers, another crux). crux renders the chat template and keeps parsing, the three
// APIs, validation and MCP; the upstream generates, through its OpenAI-compatible
// `/v1/completions` endpoint with `stream: true`.
//
// Per request: the rendered prompt goes to one upstream as a raw completion; the text that
// streams back feeds the same pipeline as local generation. Sampling fields pass through;
// constraints pass in the form the upstream kind understands (UpstreamKind below); stop strings
// are applied by crux itself (so a matched stop is reported exactly), and the upstream request
// is closed when one matches or the client goes away. Token counts come from the upstream's
// usage.
//
// Several upstreams: each request goes to the healthy upstream with the fewest requests in
// flight (ties in turn). A failure to connect, a 5xx answer or a stream cut mid-generation
// takes that upstream out; a request that had produced no output yet is retried on another
// one. Every upstream is probed every health_interval (its health path); one that answers
// rejoins. A request that no upstream can take ends at once with kError, error_status 503.
//
// Thread-safety: one I/O thread runs every upstream connection and probe; Submit, Cancel and
// the accessors may be called from any thread. Sinks are called on the I/O thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/engine/engine.h"

namespace crux::engine {

enum class UpstreamKind : uint8_t {
  kLlamaServer,        // llama.cpp's llama-server: `grammar`, `reasoning_budget_tokens`
  kVllm,               // `structured_outputs.grammar`, `thinking_token_budget`
  kSglang,             // `ebnf`
  kOpenAiCompletions,  // any other /v1/completions: nothing is constrained upstream
};

// "llama-server", "vllm", "sglang", "openai-completions".
std::string_view UpstreamKindName(UpstreamKind kind);
// Errors: kInvalidArgument naming the kinds there are.
Expected<UpstreamKind> ParseUpstreamKind(std::string_view name);

struct UpstreamOptions {
  std::vector<std::string> urls;  // http://host:port[/prefix], the prefix before /v1/…
  UpstreamKind kind = UpstreamKind::kLlamaServer;
  // The name the upstream serves its model under (the `model` field sent); "": the first id
  // of its /v1/models.
  std::string upstream_model;
  // The model id crux serves; "": upstream_model.
  std::string model_id;
  std::string api_key;  // sent as `Authorization: Bearer` to the upstreams ("": none)
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{600000};  // one generation, first byte to last
  std::chrono::milliseconds health_interval{2000};
  std::chrono::milliseconds probe_timeout{2000};  // one health probe
  // How long start-up waits for the first upstream to answer (llama-server answers 503 while
  // it loads its model).
  std::chrono::milliseconds startup_timeout{60000};
  size_t max_event_bytes = size_t{8} << 20;  // one SSE event from an upstream (kLimit above)
};

// One upstream as the balancer sees it (for /health and the metrics).
struct UpstreamStatus {
  std::string url;
  bool healthy = false;
  int in_flight = 0;
  uint64_t requests = 0;  // sent to it
  uint64_t failures = 0;  // requests it failed (connect, 5xx, a cut stream)
  std::string last_error;
};

class UpstreamEngine : public Engine {
 public:
  // The upstreams' status, in the order of UpstreamOptions::urls.
  virtual std::vector<UpstreamStatus> Upstreams() const = 0;
};

// Probes every upstream, reads the model (/v1/models) and, from a llama-server, its chat
// template, special tokens and context size (/props), and starts the I/O thread. Errors:
// kInvalidArgument (no URL, a malformed one), kUnavailable (no upstream answered within
// startup_timeout, naming each one's failure).
Expected<std::unique_ptr<UpstreamEngine>> MakeUpstreamEngine(UpstreamOptions options);

}  // namespace crux::engine
