// The Engine interface: submit a request, receive its output as a stream of updates on the
// engine's thread, cancel at any time. An immutable request (GenerateRequest) is separate from
// the engine's mutable per-request state, which never leaves the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/base/error.h"

namespace crux::constrain {
class Vocabulary;
}
namespace crux::logits {
class ProcessorChain;
}

namespace crux::engine {

// Sampling of the next token from the processed logits. The defaults are llama-server's, so a
// request that sets nothing samples as it would there. Order: top_k, then the softmax at
// `temperature`, then top_p and min_p on the survivors; temperature 0 is greedy.
struct SamplingParams {
  double temperature = 0.8;
  double top_p = 0.95;
  int top_k = 40;       // 0: disabled
  double min_p = 0.05;  // 0: disabled
  uint64_t seed = 0;    // 0: a random seed
};

// What a request asks of its output, as text and numbers, for an engine that hands generation
// to another engine (the upstream engine) instead of running `processors` on token scores.
// Built only for engines whose Requirements() asks for it.
struct OutputRequirements {
  // GBNF (llama.cpp's grammar format) of the whole output, reasoning included; "": none.
  std::string grammar;
  // False: the grammar admits more than the request allows (a schema keyword it cannot
  // express, a family whose argument syntax it does not write); crux validates the result.
  // The same grammar with the reasoning markers matched as single tokens (llama.cpp's `<think>`
  // token syntax): a model that spells a marker in pieces does not open or close the block,
  // which is what an upstream's token-level reasoning budget counts on. "" when the markers
  // cannot be written so. The engine uses it only where every marker is one token.
  std::string token_grammar;
  bool grammar_exact = true;
  std::vector<std::string> loosened;  // what the grammar does not enforce, for the log
  // The reasoning family's markers ("": none) and the thinking budget in tokens.
  std::string reasoning_start;
  std::string reasoning_end;
  std::optional<int> thinking_budget;
  bool reasoning_opened = false;  // the rendered prompt ends inside the reasoning block
  // Marker texts of the request's families, which the upstream must render as text even when
  // they are special tokens.
  std::vector<std::string> markers;
  std::optional<double> presence_penalty;
  std::optional<double> frequency_penalty;
  std::optional<double> repetition_penalty;
  std::vector<std::pair<uint32_t, float>> logit_bias;  // token id, bias
};

struct GenerateRequest {
  std::string prompt;  // the rendered prompt
  SamplingParams sampling;
  int max_tokens = 0;             // 0: the engine's default
  std::vector<std::string> stop;  // output ends before the first match
  std::string model;              // which model (engines serving several)
  // Per-sequence logits processors (logit_bias, penalties, the thinking budget, grammar
  // masks), run on every step in their stage order; null: none. Engines that generate text
  // without token scores (the mock) do not run them.
  std::shared_ptr<logits::ProcessorChain> processors;
  // The same constraints as text, for engines that ask for them (null otherwise).
  std::shared_ptr<const OutputRequirements> requirements;
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
  int cached_tokens = 0;  // of those, tokens whose state was reused from the cache
  bool finished = false;
  StopReason reason = StopReason::kEndOfGeneration;  // when finished
  std::string stop_string;                           // kStopString: what matched
  std::string error;                                 // kError: why
  // kError: the HTTP status that describes the failure (502: an upstream engine failed, 503:
  // none could take the request, 504: it timed out, 4xx: the upstream refused the request);
  // 0: an internal error (500).
  int error_status = 0;
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
  // What a loaded model says about itself (empty or 0 when the engine has no model file).
  std::string chat_template;  // tokenizer.chat_template
  std::string bos_token;      // the text of its beginning-of-sequence token
  std::string eos_token;      // the text of its end-of-sequence token
  int context_length = 0;     // tokens one sequence may hold (prompt and output)
  int64_t vocabulary_size = 0;
  int64_t parameters = 0;
};

// /tokenize: a token and the text it renders to.
struct TokenPiece {
  int32_t id = 0;
  std::string piece;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Models this engine serves (the first is the default).
  virtual std::vector<ModelInfo> Models() const = 0;
  // Tokens `text` would take for `model`.
  virtual int CountTokens(std::string_view model, std::string_view text) const = 0;
  // Tokens the rendered `prompt` takes as Submit tokenizes it (the model's BOS included).
  // Default: CountTokens. An engine that caches prompt tokens answers from its cache, so
  // counting a prompt before submitting it costs what is new in it.
  virtual int CountPromptTokens(std::string_view model, std::string_view prompt) const {
    return CountTokens(model, prompt);
  }
  // Starts generating. Errors: kNotFound (unknown model), kInvalidArgument, kUnavailable.
  virtual Expected<std::unique_ptr<Generation>> Submit(GenerateRequest request,
                                                       std::shared_ptr<GenerationSink> sink) = 0;
  // Stops the engine's threads; pending generations finish with kCancelled.
  virtual void Shutdown() = 0;

  // The model's vocabulary, for token constraints; null when the engine has no tokenizer
  // (the mock).
  virtual std::shared_ptr<const constrain::Vocabulary> Vocabulary(std::string_view model) const;
  // The model's tokens for `text`: special tokens written as text are parsed as such when
  // `parse_special`; `add_special` adds the model's beginning-of-sequence token where it has
  // one. kUnsupported for engines without a tokenizer.
  virtual Expected<std::vector<TokenPiece>> Tokenize(std::string_view model, std::string_view text,
                                                     bool add_special, bool parse_special) const;
  // The text of `tokens` (special tokens rendered). kInvalidArgument for an id outside the
  // vocabulary; kUnsupported for engines without a tokenizer.
  virtual Expected<std::string> Detokenize(std::string_view model,
                                           const std::vector<int32_t>& tokens) const;
  // What the engine does with a request's constraints. Local engines run the logits
  // processors (the default). An engine that hands generation on asks for
  // GenerateRequest::requirements and says which of them it passes on.
  struct RequirementSupport {
    bool wants_requirements = false;  // fill GenerateRequest::requirements
    bool grammar = false;             // the grammar is enforced where generation runs
    bool thinking_budget = false;     // the budget is enforced where generation runs
  };
  virtual RequirementSupport Requirements() const { return {}; }
  // Appends the engine's own Prometheus metrics (samples with HELP/TYPE lines) to `out`.
  virtual void AppendMetrics(std::string& out) const;
};

}  // namespace crux::engine
