#include "requirements.h"

#include "crux/constrain/gbnf.h"
#include "crux/constrain/schema_ir.h"
#include "crux/logits/gbnf_tools.h"
#include "crux/logits/thinking.h"
#include "crux/parse/call_grammar.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::pipeline {
namespace {

constexpr int kMaxLeadingBlanks = 4;  // before a required call block

struct Answer {
  std::string rule;    // "" : nothing to constrain (or nothing the grammar can follow)
  bool exact = false;  // the rule is the constraint, not a superset of it
};

Expected<Answer> ResponseFormatRule(const protocol::ResponseFormat& format,
                                    constrain::GbnfWriter& writer) {
  const std::string schema = format.kind == protocol::ResponseFormatKind::kJsonSchema
                                 ? format.schema_json
                                 : std::string(R"({"type":"object"})");
  auto ir = constrain::CompileSchema(schema.empty() ? "{}" : schema);
  if (!ir.ok()) {
    return Error(ErrorCode::kInvalidArgument,
                 "response_format.json_schema.schema: " + std::string(ir.error().message()));
  }
  constrain::GbnfOptions options;
  options.max_whitespace = kMaxWhitespace;
  return Answer{writer.AddSchema(*ir, options), true};
}

Expected<Answer> ToolRule(const protocol::ChatRequest& request, const std::string& family,
                          constrain::GbnfWriter& writer) {
  const parse::ToolParserInfo* info = parse::FindParserInfo(parse::ToolParsers(), family);
  if (info == nullptr || info->grammar == nullptr) return Answer{};
  const bool automatic = request.tool_choice.mode == protocol::ToolChoiceMode::kAuto;
  // Under auto, free text runs until the block's opening marker; a block that opens with no
  // marker cannot be told from text by a grammar.
  if (automatic && info->grammar->open.empty()) return Answer{};
  logits::ToolCallGbnfOptions options;
  if (request.tool_choice.mode == protocol::ToolChoiceMode::kNamed) {
    options.forced_tool = request.tool_choice.name;
  }
  options.parallel = request.parallel_tool_calls;
  options.max_whitespace = kMaxWhitespace;
  auto block = logits::AddToolCallBlock(writer, *info->grammar, request.tools, options);
  if (!block.ok()) {
    if (block.error().code() == ErrorCode::kUnsupported) return Answer{};
    return Error(ErrorCode::kInvalidArgument, "tools: " + std::string(block.error().message()));
  }
  if (automatic) {
    const std::string text = writer.AddTextWithout(info->grammar->open);
    return Answer{text + " " + *block + "?", true};
  }
  return Answer{"[ \\n]{0," + std::to_string(kMaxLeadingBlanks) + "} " + *block, true};
}

Expected<Answer> AnswerRule(const protocol::ChatRequest& request, const ProcessorInputs& inputs,
                            constrain::GbnfWriter& writer) {
  const auto kind = request.response_format.kind;
  if (kind == protocol::ResponseFormatKind::kJsonSchema ||
      kind == protocol::ResponseFormatKind::kJsonObject) {
    return ResponseFormatRule(request.response_format, writer);
  }
  if (!inputs.tool_parser.empty() && !request.tools.empty() &&
      request.tool_choice.mode != protocol::ToolChoiceMode::kNone) {
    return ToolRule(request, inputs.tool_parser, writer);
  }
  return Answer{};
}

// The markers the upstream must render as text: the reasoning family's and the tool family's.
void AddMarkers(const ProcessorInputs& inputs, engine::OutputRequirements& out) {
  const auto add = [&out](std::string_view marker) {
    if (marker.empty()) return;
    for (const std::string& m : out.markers) {
      if (m == marker) return;
    }
    out.markers.emplace_back(marker);
  };
  if (const auto* r = parse::FindParserInfo(parse::ReasoningParsers(), inputs.reasoning_parser)) {
    for (std::string_view m : r->start_markers)
      add(m);
    for (std::string_view m : r->end_markers)
      add(m);
  }
  if (const auto* t = parse::FindParserInfo(parse::ToolParsers(), inputs.tool_parser)) {
    for (std::string_view m : t->detect_markers)
      add(m);
    if (t->grammar != nullptr) {
      for (std::string_view m : parse::GrammarMarkers(*t->grammar))
        add(m);
    }
  }
}

// The answer behind the reasoning block (`block`: its body and end marker, in GBNF), and the
// blanks after it: required when the prompt opened the block, else optional after `start`.
std::string WithReasoning(const std::string& start, const std::string& block, bool prompt_opened,
                          const std::string& answer) {
  const std::string rest = block + " [ \\t\\n]{0," + std::to_string(kMaxWhitespace) + "}";
  if (prompt_opened) return rest + " " + answer;
  return "(" + start + " " + rest + ")? " + answer;
}

// The whole output: the reasoning block (when the family has markers) before the answer.
std::string RootRule(const engine::OutputRequirements& r, bool prompt_opened,
                     const std::string& answer, constrain::GbnfWriter& writer) {
  if (r.reasoning_start.empty() || r.reasoning_end.empty()) return answer;
  return WithReasoning(writer.Literal(r.reasoning_start), writer.AddTextUntil(r.reasoning_end),
                       prompt_opened, answer);
}

// A marker llama.cpp's grammars can name as a token: `<…>` with no other `>` inside.
bool TokenSyntax(std::string_view marker) {
  return marker.size() > 2 && marker.front() == '<' && marker.back() == '>' &&
         marker.find('>') == marker.size() - 1 &&
         marker.find_first_of(" \t\r\n") == std::string_view::npos;
}

// RootRule with the reasoning markers as tokens: `<think> !</think>* </think>`.
std::string TokenRootRule(const engine::OutputRequirements& r, bool prompt_opened,
                          const std::string& answer) {
  if (!TokenSyntax(r.reasoning_start) || !TokenSyntax(r.reasoning_end)) return "";
  return WithReasoning(r.reasoning_start, "!" + r.reasoning_end + "* " + r.reasoning_end,
                       prompt_opened, answer);
}

}  // namespace

bool Constrains(const protocol::ChatRequest& request) {
  if (request.response_format.kind != protocol::ResponseFormatKind::kText) return true;
  return !request.tools.empty() &&
         (request.tool_choice.mode == protocol::ToolChoiceMode::kRequired ||
          request.tool_choice.mode == protocol::ToolChoiceMode::kNamed);
}

Expected<std::shared_ptr<const engine::OutputRequirements>> BuildRequirements(
    const protocol::ChatRequest& request, const ProcessorInputs& inputs) {
  auto out = std::make_shared<engine::OutputRequirements>();
  out->presence_penalty = request.presence_penalty;
  out->frequency_penalty = request.frequency_penalty;
  out->repetition_penalty = request.repetition_penalty;
  for (const auto& [token, bias] : request.logit_bias)
    out->logit_bias.emplace_back(token, bias);
  if (const auto* info =
          parse::FindParserInfo(parse::ReasoningParsers(), inputs.reasoning_parser)) {
    if (!info->start_markers.empty() && !info->end_markers.empty()) {
      out->reasoning_start = std::string(info->start_markers.front());
      out->reasoning_end = std::string(info->end_markers.front());
      out->thinking_budget = ThinkingBudget(request, inputs);
      out->reasoning_opened = inputs.prompt_opened;
    }
  }
  AddMarkers(inputs, *out);
  constrain::GbnfWriter writer("crux-");
  auto answer = AnswerRule(request, inputs, writer);
  if (!answer.ok()) return answer.error();
  if (answer->rule.empty()) {
    out->grammar_exact = !Constrains(request);
    return std::shared_ptr<const engine::OutputRequirements>(std::move(out));
  }
  out->grammar = writer.Text(RootRule(*out, inputs.prompt_opened, answer->rule, writer));
  const std::string token_root = TokenRootRule(*out, inputs.prompt_opened, answer->rule);
  if (!token_root.empty()) out->token_grammar = writer.Text(token_root);
  out->grammar_exact = answer->exact && writer.exact();
  out->loosened = writer.loosened();
  return std::shared_ptr<const engine::OutputRequirements>(std::move(out));
}

}  // namespace crux::pipeline
