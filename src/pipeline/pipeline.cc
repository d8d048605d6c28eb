#include "crux/pipeline/pipeline.h"

#include "crux/constrain/extract.h"
#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/parse/chain.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/text/stream_buffer.h"
#include "processors.h"

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
  return std::make_shared<const constrain::SchemaIr>(*std::move(ir));
}

}  // namespace

namespace {

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

Expected<std::unique_ptr<RequestPipeline>> RequestPipeline::Create(
    const protocol::ChatRequest& request, const PipelineConfig& config,
    const protocol::ResponseMeta& meta, const engine::Engine& engine) {
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
  p->store_ = config.response_store;
  p->request_ = request;
  const bool raw = request.api == protocol::Api::kCompletions;  // no template, no parsers
  auto generate = MakeGenerateRequest(request, config);
  if (!generate.ok()) return generate.error();
  p->generate_ = *std::move(generate);
  p->meta_ = meta;
  p->meta_.prompt_tokens = engine.CountPromptTokens(request.model, p->generate_.prompt);

  // One chain per request; a channel format named by either flag reads the output alone.
  parse::ParserChainOptions chain;
  if (!raw) {
    chain.reasoning_parser = ReasoningParserFor(request, config);
    chain.tool_parser = ToolParserFor(request, config);
  }
  if (!chain.reasoning_parser.empty()) {
    // The family's default otherwise (a prompt that does not open the block).
    if (PromptOpensReasoning(chain.reasoning_parser, p->generate_.prompt)) {
      chain.reasoning.start_in_reasoning = true;
    }
  }
  ProcessorInputs inputs;
  inputs.reasoning_parser = chain.reasoning_parser;
  inputs.tool_parser = chain.tool_parser;
  inputs.prompt_opened = chain.reasoning.start_in_reasoning.value_or(false);
  inputs.default_thinking_budget = config.default_thinking_budget;
  auto processors = BuildProcessors(request, inputs, engine);
  if (!processors.ok()) return processors.error();
  p->generate_.processors = *std::move(processors);
  chain.tools.tools = request.tools;
  chain.tools.id_seed = config.id_seed;
  chain.tool_call_promotion = config.tool_call_promotion;
  auto created = parse::CreateOutputParser(chain);
  if (!created.ok()) {  // a bad name in the request (or flags): the request is at fault
    return Error(ErrorCode::kInvalidArgument, created.error().message());
  }
  p->parser_ = std::move(*created);
  p->parser_->Reset();
  if (request.stream) p->encoder_ = protocol::MakeStreamEncoder(request, p->meta_);
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
    if (encoder_) encoder_->Event(e, out);
    produced_output_ = true;
  }
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
  completion_.reason = MapReason(update.reason, !result_.tool_calls.empty());
  completion_.stop_sequence = update.stop_string;
  completion_.usage.prompt_tokens = prompt_tokens_;
  completion_.usage.completion_tokens = completion_tokens_;
  completion_.usage.cached_tokens = cached_tokens_;
  if (result_.reasoning) {
    completion_.usage.reasoning_tokens =
        std::min(completion_tokens_, engine_->CountTokens(generate_.model, *result_.reasoning));
  }
  finished_ = true;
  const bool failed = update.reason == engine::StopReason::kError ||
                      update.reason == engine::StopReason::kCancelled;
  if (!failed) CheckAnswer();
  if (output_error_) {
    if (encoder_) encoder_->Fail(Error(ErrorCode::kInvalidArgument, *output_error_), out);
    return;
  }
  if (!encoder_) {
    body_ = protocol::EncodeBody(request_, meta_, result_, completion_);
    if (!failed) Store(body_);
    return;
  }
  if (update.reason == engine::StopReason::kError) {
    encoder_->Fail(
        Error(ErrorCode::kInternal, update.error.empty() ? "engine error" : update.error), out);
    return;
  }
  encoder_->End(completion_, out);
  if (!failed) Store(encoder_->FinalObject());
}

void RequestPipeline::CheckAnswer() {
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
