// The Engine interface: submit a request, receive its output as a stream of updates on the
// engine's thread, cancel at any time. An immutable request (GenerateRequest) is separate from
// the engine's mutable per-request state, which never leaves the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"

namespace crux::engine {

struct SamplingParams {
  double temperature = 0.7;
  double top_p = 1.0;
  int top_k = 0;  // 0: disabled
  uint64_t seed = 0;
};

struct GenerateRequest {
  std::string prompt;  // the rendered prompt
  SamplingParams sampling;
  int max_tokens = 0;             // 0: the engine's default
  std::vector<std::string> stop;  // output ends before the first match
  std::string model;              // which model (engines serving several)
};

enum class StopReason : uint8_t {
  kEndOfGeneration,  // the model ended its turn
  kMaxTokens,
  kStopString,
  kCancelled,
  kError,
};

std::string_view StopReasonName(StopReason reason);

// One step of output, delivered in order; the last one has `finished` set.
struct GenerationUpdate {
  std::string text;       // new output text: whole UTF-8 characters, never part of a stop string
  int tokens = 0;         // tokens generated for this update
  int prompt_tokens = 0;  // the prompt's token count (every update carries it)
  bool finished = false;
  StopReason reason = StopReason::kEndOfGeneration;  // when finished
  std::string stop_string;                           // kStopString: what matched
  std::string error;                                 // kError: why
};

// Receives a generation's updates. Called on the engine's thread, one update at a time, in
// order; must not block. Kept alive by the engine until the final update has been delivered.
class GenerationSink {
 public:
  virtual ~GenerationSink() = default;
  virtual void OnUpdate(GenerationUpdate update) = 0;
  // Whether the sink takes more output now (thread-safe). An engine that can pause a
  // generation skips it while this is false, as when its client reads slower than the model
  // writes, and asks again on later steps; the generation keeps its place and its deadline.
  virtual bool Accepting() const { return true; }
};

// A running generation. Cancel() is thread-safe and idempotent; a final update with
// kCancelled follows unless the generation had already finished. Destroying the handle cancels.
class Generation {
 public:
  virtual ~Generation() = default;
  virtual void Cancel() = 0;
};

// Describes a model an engine serves.
struct ModelInfo {
  std::string id;
  int64_t created = 0;
  std::string owned_by = "crux";
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Models this engine serves (the first is the default).
  virtual std::vector<ModelInfo> Models() const = 0;
  // Tokens `text` would take for `model`.
  virtual int CountTokens(std::string_view model, std::string_view text) const = 0;
  // Starts generating. Errors: kNotFound (unknown model), kInvalidArgument, kUnavailable.
  virtual Expected<std::unique_ptr<Generation>> Submit(GenerateRequest request,
                                                       std::shared_ptr<GenerationSink> sink) = 0;
  // Stops the engine's threads; pending generations finish with kCancelled.
  virtual void Shutdown() = 0;
};

}  // namespace crux::engine
