#include "crux/pipeline/pipeline.h"

#include <algorithm>

#include "crux/constrain/extract.h"
#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"
#include "crux/parse/chain.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/text/stream_buffer.h"
#include "processors.h"
#include "requirements.h"

namespace crux::pipeline {
namespace {

// The reasoning parser to run, or "" for none. A channel format (harmony, muse_glimmer) runs
// even with thinking disabled: its framing is there either way and must not reach content.
std::string ReasoningParserFor(const protocol::ChatRequest& request, const PipelineConfig& config) {
  std::string name = request.reasoning_parser.value_or(config.reasoning_parser);
  if (request.enable_thinking.has_value() && !*request.enable_thinking &&
      parse::FindChannelFormat(name, "") == nullptr) {
    return "";
  }
  return name;
}

// The tool parser to run, or "" for none: only when the request declares tools and
// tool_choice is not "none" — except a channel format, which reads the whole output.
std::string ToolParserFor(const protocol::ChatRequest& request, const PipelineConfig& config) {
  std::string name = request.tool_parser.value_or(config.tool_parser);
  if (parse::FindChannelFormat("", name) != nullptr) return name;
  if (request.tools.empty() || request.tool_choice.mode == protocol::ToolChoiceMode::kNone) {
    return "";
  }
  return name.empty() ? "auto" : name;
}

parse::FinishReason MapReason(engine::StopReason reason, bool has_calls) {
  switch (reason) {
    case engine::StopReason::kEndOfGeneration:
      return has_calls ? parse::FinishReason::kToolCalls : parse::FinishReason::kStop;
    case engine::StopReason::kMaxTokens:
      return parse::FinishReason::kLength;
    case engine::StopReason::kStopString:
      return has_calls ? parse::FinishReason::kToolCalls : parse::FinishReason::kStopSequence;
    case engine::StopReason::kCancelled:
      return parse::FinishReason::kCancelled;
    case engine::StopReason::kError:
      return parse::FinishReason::kError;
  }
  return parse::FinishReason::kStop;
}

}  // namespace

namespace {

// A json_schema response format must compile before any token is generated: an invalid or
// unsupported schema is a request error naming the keyword and its JSON pointer.
// The answer check's schema (null for json_object, or when the format is text).
Expected<std::shared_ptr<const constrain::SchemaIr>> CheckResponseSchema(
    const protocol::ResponseFormat& format) {
  if (format.kind != protocol::ResponseFormatKind::kJsonSchema || format.schema_json.empty()) {
    return std::shared_ptr<const constrain::SchemaIr>();
  }
  const auto invalid = [](const Error& error) {
    return Error(ErrorCode::kInvalidArgument,
                 "response_format.json_schema.schema: " + std::string(error.message()));
  };
  auto ir = constrain::CompileSchema(format.schema_json);
  if (!ir.ok()) return invalid(ir.error());
  auto grammar = constrain::CompiledGrammar::Compile(*ir, nullptr);
  if (!grammar.ok()) return invalid(grammar.error());
  // A matcher takes a value's first byte only where the value can be finished, so a schema
  // whose top value admits none (an empty enum, minimum above maximum, a pattern nothing
  // matches) refuses every byte but the blanks before a document: an error now rather than
  // an answer that cannot pass. (Emptiness further down, a required property whose schema is
  // false, shows at the answer's check.)
  // A refused byte leaves the matcher as it was, so one matcher tries them all.
  constrain::Matcher probe(*grammar);
  bool admits = false;
  for (int byte = 0; byte < 256 && !admits; ++byte) {
    if (byte == ' ' || byte == '\t' || byte == '\n' || byte == '\r') continue;
    const char c = static_cast<char>(byte);
    admits = probe.AcceptBytes(std::string_view(&c, 1));
  }
  if (!admits) {
    return Error(ErrorCode::kInvalidArgument,
                 "response_format.json_schema.schema admits no JSON value: no document can "
                 "satisfy it");
  }
  return std::make_shared<const constrain::SchemaIr>(*std::move(ir));
}

}  // namespace

namespace {

// The error code of an engine failure's HTTP status (see GenerationUpdate::error_status).
ErrorCode EngineErrorCode(int status) {
  if (status == 502 || status == 503) return ErrorCode::kUnavailable;
  if (status == 504) return ErrorCode::kTimeout;
  if (status == 413) return ErrorCode::kLimit;
  if (status >= 400 && status < 500) return ErrorCode::kInvalidArgument;
  return ErrorCode::kInternal;
}

// The prompt (the raw prompt of /v1/completions, the chat template's rendering, or ChatML),
// and the request's limits and sampling.
Expected<engine::GenerateRequest> MakeGenerateRequest(const protocol::ChatRequest& request,
                                                      const PipelineConfig& config) {
  engine::GenerateRequest g;
  if (request.api == protocol::Api::kCompletions) {
    g.prompt = request.prompt_text;
  } else if (config.chat_template) {
    auto prompt = RenderChatTemplate(*config.chat_template, request);
    if (!prompt.ok()) return prompt.error();
    g.prompt = std::move(*prompt);
  } else {
    g.prompt = RenderPrompt(request);
  }
  g.model = request.model;
  g.max_tokens = request.max_tokens.value_or(0);
  g.stop = request.stop;
  if (request.temperature) g.sampling.temperature = *request.temperature;
  if (request.top_p) g.sampling.top_p = *request.top_p;
  if (request.top_k) g.sampling.top_k = *request.top_k;
  if (request.seed) g.sampling.seed = *request.seed;
  if (request.min_p) g.sampling.min_p = *request.min_p;
  return g;
}

}  // namespace

bool PromptOpensReasoning(std::string_view parser, std::string_view prompt) {
  const parse::ReasoningParserInfo* info = parse::FindParserInfo(parse::ReasoningParsers(), parser);
  if (info == nullptr) return false;  // an unknown name: creating the parser reports it
  const std::string_view tail = text::TrimRight(prompt);
  for (std::string_view marker : info->start_markers) {
    if (tail.size() >= marker.size() && tail.substr(tail.size() - marker.size()) == marker) {
      return true;
    }
  }
  return false;
}

// The prompt, processors and parser chain of a round: the whole request for the first, the
// conversation with the previous rounds' calls and results appended for the next ones.
Status RequestPipeline::StartRound() {
  const protocol::ChatRequest& request = request_;
  const bool raw = request.api == protocol::Api::kCompletions;  // no template, no parsers
  auto generate = MakeGenerateRequest(request, config_);
  if (!generate.ok()) return generate.error();
  generate_ = *std::move(generate);
  // One chain per round; a channel format named by either flag reads the output alone.
  parse::ParserChainOptions chain;
  if (!raw) {
    chain.reasoning_parser = ReasoningParserFor(request, config_);
    chain.tool_parser = ToolParserFor(request, config_);
  }
  // The family's default otherwise (a prompt that does not open the block).
  if (!chain.reasoning_parser.empty() &&
      PromptOpensReasoning(chain.reasoning_parser, generate_.prompt)) {
    chain.reasoning.start_in_reasoning = true;
  }
  ProcessorInputs inputs;
  inputs.reasoning_parser = chain.reasoning_parser;
  inputs.tool_parser = chain.tool_parser;
  inputs.prompt_opened = chain.reasoning.start_in_reasoning.value_or(false);
  inputs.default_thinking_budget = config_.default_thinking_budget;
  inputs.grammar_precompute_us = config_.grammar_precompute_us;
  auto processors = BuildProcessors(request, inputs, *engine_);
  if (!processors.ok()) return processors.error();
  generate_.processors = std::move(processors->chain);
  grammar_exact_ = processors->exact;
  if (Status passed = PassRequirements(inputs); !passed.ok()) return passed;
  chain.tools.tools = request.tools;
  chain.tools.id_seed = config_.id_seed == 0 ? 0 : config_.id_seed + static_cast<uint64_t>(rounds_);
  chain.tool_call_promotion = config_.tool_call_promotion;
  auto created = parse::CreateOutputParser(chain);
  if (!created.ok()) {  // a bad name in the request (or flags): the request is at fault
    return Error(ErrorCode::kInvalidArgument, created.error().message());
  }
  parser_ = std::move(*created);
  parser_->Reset();
  call_is_mcp_.clear();
  return Status();
}

// Engines that hand generation on get the constraints as text; the constraint note says who
// enforces them: the logits processors here, the upstream's grammar, or nobody before crux
// validates the result.
Status RequestPipeline::PassRequirements(const ProcessorInputs& inputs) {
  const bool constrains = Constrains(request_);
  const engine::Engine::RequirementSupport support = engine_->Requirements();
  if (!support.wants_requirements) {
    constraint_ = !constrains ? "" : grammar_exact_ ? "enforced" : "validated";
    return Status();
  }
  auto requirements = BuildRequirements(request_, inputs);
  if (!requirements.ok()) return requirements.error();
  generate_.requirements = *requirements;
  const engine::OutputRequirements& r = **requirements;
  const bool upstream = support.grammar && !r.grammar.empty() && r.grammar_exact;
  constraint_ = !constrains ? "" : upstream ? "upstream" : "validated";
  return Status();
}

Expected<std::unique_ptr<RequestPipeline>> RequestPipeline::Create(
    protocol::ChatRequest request, const PipelineConfig& config, const protocol::ResponseMeta& meta,
    const engine::Engine& engine) {
  if (request.tool_choice.mode == protocol::ToolChoiceMode::kNamed &&
      parse::FindTool(request.tools, request.tool_choice.name) == nullptr) {
    std::string declared;
    for (const parse::ToolSpec& t : request.tools) {
      if (!declared.empty()) declared += ", ";
      declared += t.name;
    }
    return Error(
        ErrorCode::kInvalidArgument,
        "tool_choice names function '" + request.tool_choice.name +
            "', which is not in tools (declared: " + (declared.empty() ? "none" : declared) + ")");
  }
  auto schema = CheckResponseSchema(request.response_format);
  if (!schema.ok()) return schema.error();
  std::unique_ptr<RequestPipeline> p(new RequestPipeline());
  p->answer_schema_ = *std::move(schema);
  p->engine_ = &engine;
  p->config_ = config;
  p->store_ = config.response_store;
  p->request_ = std::move(request);
  p->meta_ = meta;
  if (Status started = p->StartRound(); !started.ok()) return started.error();
  p->meta_.prompt_tokens = engine.CountPromptTokens(p->request_.model, p->generate_.prompt);
  if (p->request_.stream) p->encoder_ = protocol::MakeStreamEncoder(p->request_, p->meta_);
  return p;
}

void RequestPipeline::Begin(std::string& out) {
  if (encoder_) encoder_->Begin(out);
}

void RequestPipeline::KeepAlive(std::string& out) const {
  if (encoder_) out += encoder_->KeepAlive();
}

void RequestPipeline::Route(const std::vector<parse::Event>& events, std::string& out) {
  for (const parse::Event& e : events) {
    builder_.Add(e);
    produced_output_ = true;
    if (!encoder_) continue;
    if (Diverting() && e.index >= 0) {
      const int index = ForwardedIndex(e);
      if (index < 0) continue;  // an MCP call: the server runs it
      if (index != e.index) {
        parse::Event renumbered = e;
        renumbered.index = index;
        encoder_->Event(renumbered, out);
        continue;
      }
    }
    encoder_->Event(e, out);
  }
}

bool RequestPipeline::Diverting() const {
  return !request_.mcp_tool_names.empty() && rounds_ < config_.max_tool_rounds;
}

bool RequestPipeline::IsMcpTool(std::string_view name) const {
  for (const std::string& mcp : request_.mcp_tool_names) {
    if (mcp == name) return true;
  }
  return false;
}

// Calls to MCP tools stay out of the stream (the server runs them and reports the results);
// the client's own calls keep their order, renumbered among themselves: the index to send, or
// -1 for an MCP call. call_is_mcp_ mirrors the parser's live calls (a cancelled call's index
// goes to the next one). O(live calls) per tool-call event, no allocation but at a call's start.
int RequestPipeline::ForwardedIndex(const parse::Event& event) {
  const auto index = static_cast<size_t>(event.index);
  if (event.kind == parse::EventKind::kToolCallBegin) {
    call_is_mcp_.resize(index);
    call_is_mcp_.push_back(IsMcpTool(event.name));
  }
  if (index >= call_is_mcp_.size()) return event.index;
  const bool mcp = call_is_mcp_[index];
  const auto before =
      std::count(call_is_mcp_.begin(), call_is_mcp_.begin() + static_cast<ptrdiff_t>(index), false);
  if (event.kind == parse::EventKind::kToolCallCancel) {
    call_is_mcp_.erase(call_is_mcp_.begin() + static_cast<ptrdiff_t>(index));
  }
  return mcp ? -1 : static_cast<int>(before);
}

void RequestPipeline::OnUpdate(const engine::GenerationUpdate& update, std::string& out) {
  if (finished_) return;
  completion_tokens_ += update.tokens;
  prompt_tokens_ = update.prompt_tokens;
  cached_tokens_ = update.cached_tokens;
  if (!update.text.empty()) {
    sink_.Clear();
    parser_->Feed(update.text, sink_);
    Route(sink_.events(), out);
  }
  if (update.finished) Complete(update, out);
}

void RequestPipeline::Complete(const engine::GenerationUpdate& update, std::string& out) {
  sink_.Clear();
  parser_->Finish(sink_);
  Route(sink_.events(), out);
  result_ = builder_.Take();
  prompt_tokens_total_ += prompt_tokens_;
  cached_tokens_total_ += cached_tokens_;
  const bool failed = update.reason == engine::StopReason::kError ||
                      update.reason == engine::StopReason::kCancelled;
  if (!failed && Diverting() && TakeMcpCalls()) {
    round_end_ = {update.reason, update.stop_string};
    return;  // awaiting_tools(): the server runs them, then ContinueWithResults
  }
  if (update.reason == engine::StopReason::kError) {
    engine_error_ = std::make_pair(update.error_status, update.error);
  }
  Finish(update.reason, update.stop_string, update.error, out);
}

bool RequestPipeline::TakeMcpCalls() {
  std::vector<parse::ToolCall> client;
  for (parse::ToolCall& call : result_.tool_calls) {
    (IsMcpTool(call.name) ? pending_ : client).push_back(std::move(call));
  }
  result_.tool_calls = std::move(client);
  if (pending_.empty()) return false;
  rounds_text_.push_back({result_.reasoning.value_or(""), result_.content.value_or("")});
  return true;
}

Status RequestPipeline::ContinueWithResults(std::vector<protocol::ExecutedToolCall> results,
                                            std::string& out) {
  for (const protocol::ExecutedToolCall& call : results) {
    if (encoder_) encoder_->Executed(call, out);
  }
  ++rounds_;
  // The round joins the conversation: the assistant turn with its calls, then each result.
  protocol::Message assistant;
  assistant.role = protocol::Role::kAssistant;
  assistant.reasoning = rounds_text_.back().first;
  assistant.content = rounds_text_.back().second;
  for (const parse::ToolCall& call : pending_) {
    assistant.tool_calls.push_back({call.id, call.name, call.arguments});
  }
  request_.messages.push_back(std::move(assistant));
  for (size_t i = 0; i < pending_.size() && i < results.size(); ++i) {
    protocol::Message result;
    result.role = protocol::Role::kTool;
    result.tool_call_id = pending_[i].id;
    result.name = pending_[i].name;
    result.content = results[i].is_error ? "Error: " + results[i].output : results[i].output;
    request_.messages.push_back(std::move(result));
  }
  pending_.clear();
  executed_.insert(executed_.end(), std::make_move_iterator(results.begin()),
                   std::make_move_iterator(results.end()));
  if (!result_.tool_calls.empty()) {  // the client's own calls end the response
    rounds_text_.pop_back();          // its text is the answer's
    Finish(round_end_.reason, round_end_.stop_string, "", out);
    return Status();
  }
  return StartRound();
}

// Reasoning and answer text of the rounds before the last, joined before the last round's
// (non-streaming bodies; a stream has sent each as it came).
void RequestPipeline::MergeRounds() {
  const auto join = [](std::string& into, const std::string& piece) {
    if (piece.empty()) return;
    if (!into.empty()) into += "\n\n";
    into += piece;
  };
  if (rounds_text_.empty()) return;
  std::string reasoning, content;
  for (const auto& [r, c] : rounds_text_) {
    join(reasoning, r);
    join(content, c);
  }
  join(reasoning, result_.reasoning.value_or(""));
  join(content, result_.content.value_or(""));
  if (!reasoning.empty()) result_.reasoning = std::move(reasoning);
  if (!content.empty()) result_.content = std::move(content);
}

void RequestPipeline::Finish(engine::StopReason reason, const std::string& stop_string,
                             const std::string& error, std::string& out) {
  MergeRounds();
  completion_.reason = MapReason(reason, !result_.tool_calls.empty());
  completion_.stop_sequence = stop_string;
  completion_.usage.prompt_tokens = prompt_tokens_total_;
  completion_.usage.completion_tokens = completion_tokens_;
  completion_.usage.cached_tokens = cached_tokens_total_;
  if (result_.reasoning) {
    completion_.usage.reasoning_tokens =
        std::min(completion_tokens_, engine_->CountTokens(generate_.model, *result_.reasoning));
  }
  finished_ = true;
  const bool failed =
      reason == engine::StopReason::kError || reason == engine::StopReason::kCancelled;
  if (!failed) CheckAnswer();
  if (output_error_) {
    if (encoder_) encoder_->Fail(Error(ErrorCode::kInvalidArgument, *output_error_), out);
    return;
  }
  if (!encoder_) {
    body_ = protocol::EncodeBody(request_, meta_, result_, completion_, executed_);
    if (!failed) Store(body_);
    return;
  }
  if (reason == engine::StopReason::kError) {
    encoder_->Fail(Error(EngineErrorCode(engine_error_ ? engine_error_->first : 0),
                         error.empty() ? "engine error" : error),
                   out);
    return;
  }
  encoder_->End(completion_, out);
  if (!failed) Store(encoder_->FinalObject());
}

// A required tool call that nobody constrained: crux checks that there is one, that it names a
// declared tool (the named one, when tool_choice names it) and that its arguments validate.
void RequestPipeline::CheckToolCalls() {
  if (constraint_ != "validated" || request_.tools.empty()) return;
  const auto mode = request_.tool_choice.mode;
  if (mode != protocol::ToolChoiceMode::kRequired && mode != protocol::ToolChoiceMode::kNamed) {
    return;
  }
  if (result_.tool_calls.empty()) {
    output_error_ =
        "invalid_tool_call_output: tool_choice requires a tool call and the output "
        "has none";
    return;
  }
  for (const parse::ToolCall& call : result_.tool_calls) {
    const parse::ToolSpec* tool = parse::FindTool(request_.tools, call.name);
    const bool named_other =
        mode == protocol::ToolChoiceMode::kNamed && call.name != request_.tool_choice.name;
    if (tool == nullptr || named_other) {
      output_error_ = "invalid_tool_call_output: the output calls '" + call.name +
                      "', which tool_choice does not allow";
      return;
    }
    auto ir = constrain::CompileSchema(tool->parameters_json);
    if (!ir.ok()) continue;  // the request was accepted with it; nothing to check against
    const constrain::ValidationResult check = constrain::Validate(*ir, call.arguments);
    if (!check.valid()) {
      const constrain::Violation& v = check.violations.front();
      output_error_ = "invalid_tool_call_output: the arguments of '" + call.name + "' fail " +
                      v.keyword + " at '" + v.json_pointer + "': " + v.message;
      return;
    }
  }
}

void RequestPipeline::CheckAnswer() {
  CheckToolCalls();
  if (output_error_) return;
  if (request_.response_format.kind == protocol::ResponseFormatKind::kText) return;
  if (!result_.tool_calls.empty()) return;
  const constrain::AnswerCheck check =
      constrain::CheckAnswer(result_.content.value_or(""), answer_schema_.get());
  if (!check.valid) {
    output_error_ = "invalid_response_format_output: " + check.error;
    return;
  }
  // The answer is the JSON value alone (a fence or a preamble around it dropped). A stream
  // has already sent the text as the model wrote it.
  if (!encoder_) result_.content = check.json;
}

void RequestPipeline::Store(const std::string& response_json) {
  if (store_ == nullptr || !request_.store || request_.api != protocol::Api::kResponses) return;
  store_->Put({meta_.id, response_json, request_.input_items_json,
               request_.previous_response_id.value_or("")});
}

void RequestPipeline::Fail(const Error& error, std::string& out) {
  if (finished_) return;
  finished_ = true;
  if (encoder_) encoder_->Fail(error, out);
}

}  // namespace crux::pipeline
