// RequestPipeline: one request's path from engine output to wire frames —
// engine text → reasoning parser → tool parser → canonical events → protocol encoder.
// It also decides everything per request that depends on the request and the server's
// configuration: the prompt, which parsers run (none for `tool_choice: none` or a request
// without tools), stop strings, and the finish reason. Not thread-safe: one per request, used
// from the request's session.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/base/error.h"
#include "crux/chat_template/template.h"
#include "crux/constrain/schema_ir.h"
#include "crux/engine/engine.h"
#include "crux/parse/events.h"
#include "crux/parse/output_parser.h"
#include "crux/parse/result.h"
#include "crux/protocol/codec.h"
#include "crux/protocol/request.h"
#include "crux/protocol/response_store.h"

namespace crux::pipeline {

struct PipelineConfig {
  std::string reasoning_parser;  // server default; empty: no reasoning parsing
  std::string tool_parser;       // server default for requests with tools; empty: "auto"
  std::optional<int> default_thinking_budget;  // --default-thinking-token-budget
  uint64_t id_seed = 0;                        // 0: random tool-call ids (tests fix it)
  // Keeps finished Responses requests with `store` not false (nullptr: none). Shared by all
  // requests; thread-safe.
  std::shared_ptr<protocol::ResponseStore> response_store;
  // Closed tool-call blocks inside reasoning go to the tool parser (--no-tool-call-promotion
  // turns it off); only families whose registry row lists blocks promote.
  bool tool_call_promotion = true;
  // The model's chat template (--chat-template); null: the ChatML rendering of RenderPrompt.
  std::shared_ptr<const chat_template::Template> chat_template = nullptr;
  // The MCP tool loop: rounds of server-run tool calls per request (the MCP config's
  // max_tool_calls). A round past it returns its calls to the client as ordinary tool calls.
  int max_tool_rounds = 10;
  // --grammar-precompute-ms, in microseconds: what a response format's or tools' grammar
  // spends making pattern states' token sets ahead (constrain::GrammarOptions::precompute_us;
  // unset: its default).
  std::optional<uint32_t> grammar_precompute_us{};
};

// Renders the canonical request into prompt text. A plain ChatML rendering (system, user,
// assistant turns with tool calls, tool results; the tools' JSON in the system turn), used
// until a model's own chat template is available.
std::string RenderPrompt(const protocol::ChatRequest& request);

// Renders the canonical request with a chat template, as Hugging Face's apply_chat_template
// does: messages (tool calls with arguments as objects, tool results, reasoning_content),
// tools, add_generation_prompt = true, bos_token and eos_token ("" unless the request's
// chat_template_kwargs give them), enable_thinking when the request sets it, and the request's
// chat_template_kwargs. A template error (raise_exception included) is kInvalidArgument.
// `options` as Template::Render takes them (by default, a conversation's earlier turns are
// replayed from the template's previous renders).
Expected<std::string> RenderChatTemplate(const chat_template::Template& chat_template,
                                         const protocol::ChatRequest& request,
                                         const chat_template::RenderOptions& options = {});

// Whether the rendered generation prompt opened the reasoning block of family `parser`: the
// prompt, trailing whitespace removed, ends with one of the family's start markers
// (`<think>\n` of DeepSeek-R1 and Qwen3.5 templates; not Qwen3's `<think>\n\n</think>\n\n`
// with thinking off). Decided from the template's actual output, so every template and
// `enable_thinking` setting is read the same way. False for an unknown family.
bool PromptOpensReasoning(std::string_view parser, std::string_view prompt);

struct ProcessorInputs;  // src/pipeline/processors.h

class RequestPipeline {
 public:
  // Validates the request against the configuration (unknown parser names, the server's or
  // the request's own `reasoning_parser` / `tool_call_parser`; a named tool_choice that is not
  // declared) and prepares the engine request. The pipeline keeps the request: move it in
  // (a long conversation is then not copied).
  static Expected<std::unique_ptr<RequestPipeline>> Create(protocol::ChatRequest request,
                                                           const PipelineConfig& config,
                                                           const protocol::ResponseMeta& meta,
                                                           const engine::Engine& engine);

  const engine::GenerateRequest& generate_request() const { return generate_; }
  const protocol::ChatRequest& request() const { return request_; }

  // Streaming: the frames before any output.
  void Begin(std::string& out);
  // Streaming: the frames for one engine update (the final update adds the terminal frames).
  // Non-streaming: accumulates.
  void OnUpdate(const engine::GenerationUpdate& update, std::string& out);
  // Streaming: the protocol's keep-alive frame for an idle stream (the encoder's KeepAlive():
  // an SSE comment, Anthropic's ping event), appended to `out`.
  void KeepAlive(std::string& out) const;
  // Streaming: a failure after the first byte (deadline, engine error): in-stream error and
  // terminal frames. Marks the pipeline finished.
  void Fail(const Error& error, std::string& out);

  bool finished() const { return finished_; }
  // Non-streaming: the response body, once finished.
  const std::string& Body() const { return body_; }
  const parse::Completion& completion() const { return completion_; }
  const parse::ParseResult& result() const { return result_; }
  // Time-to-first-output bookkeeping for metrics: true once any frame with model output was
  // produced.
  bool produced_output() const { return produced_output_; }
  // Why the final answer fails the request's response format (json_object / json_schema),
  // once finished: the answer was checked after generation and holds no JSON value, or one
  // that does not validate. Non-streaming: the server answers 422 with it instead of Body();
  // streaming: the stream ends with the protocol's error event carrying it. Unset when the
  // answer passed (its content is then the JSON value alone) or when there is no format to
  // check (text, or the answer is tool calls).
  const std::optional<std::string>& output_error() const { return output_error_; }
  // Who enforces the request's constraints (the x-crux-constraint header): "enforced" (the
  // logits processors, token by token, all of it), "upstream" (the upstream engine's grammar),
  // "validated" (nobody before crux enforces all of it, so crux checks the finished output:
  // output_error() when it fails, tool calls included); "" when the request constrains
  // nothing.
  const std::string& constraint() const { return constraint_; }
  // The engine's failure (a final update with kError): the HTTP status that describes it (0:
  // an internal error) and its message; unset otherwise.
  const std::optional<std::pair<int, std::string>>& engine_error() const { return engine_error_; }
  // What the parsers noticed so far (lone reasoning end markers, promoted tool calls).
  parse::OutputParserStats parse_stats() const { return parser_->stats(); }

  // The MCP tool loop (a request whose mcp_tool_names the server filled). Calls to those
  // tools are not streamed as tool calls. A round that ends with some leaves the pipeline
  // awaiting them (not finished): the server runs pending_tool_calls() and hands the results,
  // in the same order, to ContinueWithResults(), which reports each (stream frames into
  // `out`; non-streaming: the body's record), appends the round's assistant turn and the
  // results to the conversation, and prepares the next round's generate_request() — or, when
  // the round also called tools of the client's, ends the response with those calls. From
  // round PipelineConfig::max_tool_rounds on, MCP calls are returned like any other call.
  bool awaiting_tools() const { return !pending_.empty(); }
  const std::vector<parse::ToolCall>& pending_tool_calls() const { return pending_; }
  Status ContinueWithResults(std::vector<protocol::ExecutedToolCall> results, std::string& out);

 private:
  RequestPipeline() = default;
  void Route(const std::vector<parse::Event>& events, std::string& out);
  void Complete(const engine::GenerationUpdate& update, std::string& out);
  Status StartRound();
  bool Diverting() const;
  bool IsMcpTool(std::string_view name) const;
  int ForwardedIndex(const parse::Event& event);
  bool TakeMcpCalls();
  void MergeRounds();
  void Finish(engine::StopReason reason, const std::string& stop_string, const std::string& error,
              std::string& out);
  void Store(const std::string& response_json);
  void CheckAnswer();
  void CheckToolCalls();
  Status PassRequirements(const ProcessorInputs& inputs);

  const engine::Engine* engine_ = nullptr;  // counts reasoning tokens
  PipelineConfig config_;
  std::shared_ptr<protocol::ResponseStore> store_;
  protocol::ChatRequest request_;
  protocol::ResponseMeta meta_;
  engine::GenerateRequest generate_;
  std::unique_ptr<parse::OutputParser> parser_;
  std::unique_ptr<protocol::StreamEncoder> encoder_;
  parse::EventSink sink_;
  parse::ResultBuilder builder_;
  parse::ParseResult result_;
  parse::Completion completion_;
  std::string body_;
  std::shared_ptr<const constrain::SchemaIr> answer_schema_;  // json_schema; null otherwise
  std::optional<std::string> output_error_;
  std::string constraint_;
  bool grammar_exact_ = false;  // the logits processors enforce all the request constrains
  std::optional<std::pair<int, std::string>> engine_error_;
  int completion_tokens_ = 0;
  int prompt_tokens_ = 0;
  int cached_tokens_ = 0;
  int prompt_tokens_total_ = 0;  // over the rounds
  int cached_tokens_total_ = 0;
  // The tool loop.
  int rounds_ = 0;                        // rounds whose calls the server ran
  std::vector<bool> call_is_mcp_;         // this round's live calls
  std::vector<parse::ToolCall> pending_;  // awaiting results
  std::vector<std::pair<std::string, std::string>> rounds_text_;  // reasoning, content
  std::vector<protocol::ExecutedToolCall> executed_;
  struct RoundEnd {
    engine::StopReason reason = engine::StopReason::kEndOfGeneration;
    std::string stop_string;
  } round_end_;
  bool finished_ = false;
  bool produced_output_ = false;
};

}  // namespace crux::pipeline
