// The logits processors of one request, built before generation so that an invalid schema or
// tool grammar is a request error before the first token:
//   logit_bias → penalties → thinking budget → grammar (JSON schema, or the tool-call grammar
//   of the request's tool parser family), the grammar inside the thinking processor when
//   reasoning is on, so that it governs the final answer only.
// Engines without a vocabulary (the mock) get no processors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crux/base/byte_lru.h"
#include "crux/base/error.h"
#include "crux/constrain/matcher.h"
#include "crux/engine/engine.h"
#include "crux/logits/processor.h"
#include "crux/logits/tool_calls.h"
#include "crux/protocol/request.h"

namespace crux::pipeline {

struct ProcessorInputs {
  std::string reasoning_parser;  // the family that runs ("" : none)
  std::string tool_parser;       // the family that runs ("" : none; "auto": no grammar)
  bool prompt_opened = false;    // the rendered prompt opened the reasoning block
  std::optional<int> default_thinking_budget;
  std::optional<uint32_t> grammar_precompute_us{};  // unset: GrammarOptions' default
};

// Whitespace inside generated JSON: at most this many blanks in a row (llama.cpp's grammars
// allow a newline or two and 20 blanks), so that a model cannot fill its answer with blanks.
inline constexpr uint32_t kMaxWhitespace = 20;

// Compiled `response_format` grammars, shared by every request of the process and keyed by
// vocabulary, schema text and options: an agent that sends the same schema every turn
// compiles it once, and the token sets of pattern states that its first request made serve
// the next ones. The least recently used of kCachedResponseFormats goes first.
inline constexpr size_t kCachedResponseFormats = 32;
constrain::GrammarCache& ResponseFormatGrammars();

// Compiled tool-call grammars, shared the same way and keyed by vocabulary, tool parser
// family, options and the tools (name, type, parameters, schema): the argument grammars a
// request compiles when the model names a tool serve every later request with the same
// tools. The least recently used of kCachedToolGrammars goes first; errors are not kept.
inline constexpr size_t kCachedToolGrammars = 32;
using ToolGrammarCache = ByteLru<std::string, std::shared_ptr<const logits::ToolCallGrammar>>;
ToolGrammarCache& ToolGrammars();

// The request's reasoning budget: thinking_token_budget (or Anthropic's budget_tokens), else
// reasoning_effort's, else the server's default.
std::optional<int> ThinkingBudget(const protocol::ChatRequest& request,
                                  const ProcessorInputs& inputs);

struct RequestProcessors {
  std::shared_ptr<logits::ProcessorChain> chain;  // null when nothing applies
  // The chain's grammar holds the output to all that the request constrains (its response
  // format, or its tool calls): false where there is no grammar (a family the mask cannot
  // follow) or it admits more (a pattern on a raw string value), so crux validates the output.
  bool exact = false;
};

// Errors: kInvalidArgument naming the field (a schema that does not compile, a tool whose
// parameters do not compile).
Expected<RequestProcessors> BuildProcessors(const protocol::ChatRequest& request,
                                            const ProcessorInputs& inputs,
                                            const engine::Engine& engine);

}  // namespace crux::pipeline
