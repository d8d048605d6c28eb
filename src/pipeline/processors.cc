#include "processors.h"

#include <unordered_map>

#include "crux/constrain/vocab.h"
#include "crux/logits/json_schema.h"
#include "crux/logits/thinking.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::pipeline {

constrain::GrammarCache& ResponseFormatGrammars() {
  static auto* cache = new constrain::GrammarCache(kCachedResponseFormats);  // used until exit
  return *cache;
}

ToolGrammarCache& ToolGrammars() {
  // Each grammar counts as one byte: at most kCachedToolGrammars of them.
  static auto* cache = new ToolGrammarCache(kCachedToolGrammars);  // used until exit
  return *cache;
}

namespace {

using Processor = std::unique_ptr<logits::LogitsProcessor>;

// Appends `text` with its length, so that keys made of several texts cannot collide.
void AppendKeyPart(std::string& key, std::string_view text) {
  key += std::to_string(text.size());
  key += ':';
  key += text;
}

// What a tool-call grammar is compiled from: the vocabulary, the family, the options and each
// tool's name, type, parameters and schema.
std::string ToolGrammarKey(const constrain::Vocabulary& vocabulary, const std::string& family,
                           const std::vector<parse::ToolSpec>& tools,
                           const logits::ToolCallOptions& options) {
  std::string key = std::to_string(vocabulary.identity());
  AppendKeyPart(key, family);
  key += std::to_string(static_cast<int>(options.mode)) + (options.parallel ? "p" : "s") +
         std::to_string(options.max_leading_blanks) + ":" +
         std::to_string(options.json.flexible_whitespace) + ":" +
         std::to_string(options.json.max_whitespace) + ":" +
         std::to_string(options.json.any_property_order) + ":" +
         std::to_string(options.json.strict_objects) + ":" +
         std::to_string(options.json.python_literals) + ":";
  AppendKeyPart(key, options.forced_tool);
  for (const std::string& marker : options.start_markers)
    AppendKeyPart(key, marker);
  key += '|';
  for (const parse::ToolSpec& tool : tools) {
    AppendKeyPart(key, tool.name);
    AppendKeyPart(key, tool.type);
    AppendKeyPart(key, tool.parameters_json);
    for (const parse::ToolParam& param : tool.params) {
      AppendKeyPart(key, param.name);
      key += std::to_string(static_cast<int>(param.type)) + (param.nullable ? "n" : "-");
    }
    key += '|';
  }
  return key;
}

std::vector<uint32_t> MarkerTokens(const engine::Engine& engine, const std::string& model,
                                   std::string_view marker) {
  std::vector<uint32_t> ids;
  auto pieces = engine.Tokenize(model, marker, false, true);
  if (!pieces.ok()) return ids;
  for (const engine::TokenPiece& p : *pieces)
    ids.push_back(static_cast<uint32_t>(p.id));
  return ids;
}

// `exact` is set when the grammar built enforces all the tools' schemas.
Expected<Processor> ToolGrammar(const protocol::ChatRequest& request, const ProcessorInputs& inputs,
                                std::shared_ptr<const constrain::Vocabulary> vocabulary,
                                bool& exact) {
  const std::string& family = inputs.tool_parser;
  const parse::ToolParserInfo* info = parse::FindParserInfo(parse::ToolParsers(), family);
  if (info == nullptr || info->grammar == nullptr) return Processor();  // auto: unconstrained
  logits::ToolCallOptions options;
  options.mode = request.tool_choice.mode == protocol::ToolChoiceMode::kAuto
                     ? logits::ToolChoiceMode::kAuto
                     : logits::ToolChoiceMode::kRequired;
  if (request.tool_choice.mode == protocol::ToolChoiceMode::kNamed) {
    options.forced_tool = request.tool_choice.name;
  }
  options.parallel = request.parallel_tool_calls;
  options.json.max_whitespace = kMaxWhitespace;
  if (inputs.grammar_precompute_us) options.json.precompute_us = *inputs.grammar_precompute_us;
  for (std::string_view m : info->detect_markers)
    options.start_markers.emplace_back(m);
  std::string key = ToolGrammarKey(*vocabulary, family, request.tools, options);
  if (auto kept = ToolGrammars().Find(key)) {
    exact = (*kept)->exact();
    return Processor(std::make_unique<logits::ToolCallProcessor>(*std::move(kept)));
  }
  // Compiled outside the cache's lock: two requests may compile one key once each.
  auto grammar = logits::ToolCallGrammar::Compile(*info->grammar, request.tools,
                                                  std::move(vocabulary), options);
  if (!grammar.ok()) {
    // What the mechanism cannot follow (a custom argument syntax without a declared form, a
    // name the call syntax cannot hold, auto mode for a format without an opening text)
    // generates unconstrained, and the parser still reads the calls; a tool whose schema does
    // not compile is the request's fault.
    if (grammar.error().code() == ErrorCode::kUnsupported) return Processor();
    return Error(ErrorCode::kInvalidArgument, "tools: " + std::string(grammar.error().message()));
  }
  ToolGrammars().Insert(std::move(key), *grammar, 1);
  exact = (*grammar)->exact();
  return Processor(std::make_unique<logits::ToolCallProcessor>(*std::move(grammar)));
}

// `exact` as for ToolGrammar: set when the grammar enforces all of the response format or the
// tools' schemas.
Expected<Processor> Grammar(const protocol::ChatRequest& request, const ProcessorInputs& inputs,
                            std::shared_ptr<const constrain::Vocabulary> vocabulary, bool& exact) {
  const protocol::ResponseFormat& format = request.response_format;
  if (format.kind == protocol::ResponseFormatKind::kJsonSchema ||
      format.kind == protocol::ResponseFormatKind::kJsonObject) {
    const std::string schema =
        format.kind == protocol::ResponseFormatKind::kJsonSchema ? format.schema_json : "";
    constrain::GrammarOptions options;
    options.max_whitespace = kMaxWhitespace;
    if (inputs.grammar_precompute_us) options.precompute_us = *inputs.grammar_precompute_us;
    auto processor = logits::JsonSchemaProcessor::Create(schema, std::move(vocabulary), options,
                                                         &ResponseFormatGrammars());
    if (!processor.ok()) {
      return Error(ErrorCode::kInvalidArgument,
                   "response_format: " + std::string(processor.error().message()));
    }
    exact = (*processor)->grammar().not_enforced().empty();
    return Processor(*std::move(processor));
  }
  if (!inputs.tool_parser.empty() && !request.tools.empty() &&
      request.tool_choice.mode != protocol::ToolChoiceMode::kNone) {
    return ToolGrammar(request, inputs, std::move(vocabulary), exact);
  }
  return Processor();
}

// The thinking processor, owning `inner` (which then governs the answer after reasoning);
// `inner` alone when there is no budget to enforce and no grammar to defer, or when the
// family's markers are unknown.
Expected<Processor> Thinking(const protocol::ChatRequest& request, const ProcessorInputs& inputs,
                             const engine::Engine& engine,
                             std::shared_ptr<const constrain::Vocabulary> vocabulary,
                             Processor inner) {
  const parse::ReasoningParserInfo* info =
      parse::FindParserInfo(parse::ReasoningParsers(), inputs.reasoning_parser);
  const std::optional<int> budget = ThinkingBudget(request, inputs);
  if (info == nullptr || info->start_markers.empty() || info->end_markers.empty() ||
      (!budget && inner == nullptr)) {
    return inner;
  }
  logits::ThinkingOptions options;
  options.start = MarkerTokens(engine, request.model, info->start_markers.front());
  options.end = MarkerTokens(engine, request.model, info->end_markers.front());
  if (options.start.empty() || options.end.empty()) return inner;
  options.budget = budget.value_or(-1);
  options.prompt_opened = inputs.prompt_opened;
  options.vocabulary_size = vocabulary->size();
  options.vocabulary = std::move(vocabulary);
  auto processor = logits::ThinkingProcessor::Create(std::move(options), std::move(inner));
  if (!processor.ok()) return processor.error();
  return Processor(*std::move(processor));
}

}  // namespace

std::optional<int> ThinkingBudget(const protocol::ChatRequest& request,
                                  const ProcessorInputs& inputs) {
  if (request.thinking_budget_tokens) return request.thinking_budget_tokens;
  if (!request.reasoning_effort.empty()) {
    if (auto budget = logits::BudgetForEffort(request.reasoning_effort)) return budget;
  }
  return inputs.default_thinking_budget;
}

Expected<RequestProcessors> BuildProcessors(const protocol::ChatRequest& request,
                                            const ProcessorInputs& inputs,
                                            const engine::Engine& engine) {
  std::shared_ptr<const constrain::Vocabulary> vocabulary = engine.Vocabulary(request.model);
  if (vocabulary == nullptr) return RequestProcessors();
  auto chain = std::make_shared<logits::ProcessorChain>();
  if (!request.logit_bias.empty()) {
    std::unordered_map<uint32_t, float> bias;
    for (const auto& [token, value] : request.logit_bias) {
      if (token >= vocabulary->size()) {
        return Error(ErrorCode::kInvalidArgument, "logit_bias." + std::to_string(token) +
                                                      " is not a token id (the vocabulary "
                                                      "has " +
                                                      std::to_string(vocabulary->size()) + ")");
      }
      bias[token] = value;
    }
    chain->Add(std::make_unique<logits::LogitBiasProcessor>(std::move(bias)));
  }
  if (request.presence_penalty || request.frequency_penalty || request.repetition_penalty) {
    logits::PenaltyOptions penalties;
    penalties.presence = static_cast<float>(request.presence_penalty.value_or(0));
    penalties.frequency = static_cast<float>(request.frequency_penalty.value_or(0));
    penalties.repetition = static_cast<float>(request.repetition_penalty.value_or(1));
    chain->Add(std::make_unique<logits::PenaltiesProcessor>(penalties));
  }
  RequestProcessors built;
  auto grammar = Grammar(request, inputs, vocabulary, built.exact);
  if (!grammar.ok()) return grammar.error();
  Processor last = *std::move(grammar);
  if (!inputs.reasoning_parser.empty()) {
    auto thinking = Thinking(request, inputs, engine, vocabulary, std::move(last));
    if (!thinking.ok()) return thinking.error();
    last = *std::move(thinking);
  }
  if (last != nullptr) chain->Add(std::move(last));
  if (!chain->empty()) built.chain = std::move(chain);
  return built;
}

}  // namespace crux::pipeline
