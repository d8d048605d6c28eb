#include "crux/parse/reasoning/registry.h"

#include <deque>
#include <utility>

#include "parse/reasoning/families.h"
#include "parse/reasoning/think.h"

namespace crux::parse {

namespace {

// A declared family's compiled markers; built while the table is, and kept with it.
const ThinkFormat* Think(ThinkSyntax syntax) {
  static std::deque<ThinkFormat> formats;
  return &formats.emplace_back(std::move(syntax));
}

const ThinkSyntax kThinkTags{.start = {"<think>"}, .end = {"</think>"}};
const ThinkSyntax kThinkTagsOpened{
    .start = {"<think>"}, .end = {"</think>"}, .starts_inside = true};

// A table of rows, not logic: exempt from the function length limit.
std::vector<ReasoningParserInfo> Table() {  // NOLINT(readability-function-size)
  return {
      {.name = "think",
       .aliases = {"generic_think"},
       .models = "any model that wraps reasoning in <think> tags",
       .think = Think(kThinkTags)},
      {.name = "qwen3",
       .aliases = {"qwen", "qwen3.5", "qwq"},
       .models = "Qwen3, Qwen3.5, QwQ",
       .think = Think(kThinkTags)},
      {.name = "deepseek_r1",
       .aliases = {"deepseek-r1", "deepseek_v3.1"},
       .models = "DeepSeek-R1, R1 distills, DeepSeek V3.1",
       .think = Think(kThinkTagsOpened)},
      {.name = "glm4",
       .aliases = {"glm45", "glm4.5", "glm4_moe", "glm4.6"},
       .models = "GLM-4.5, GLM-4.6, GLM-4.6V",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .deleted = {"<|begin_of_box|>", "<|end_of_box|>"}})},
      {.name = "gemma4",
       .aliases = {"gemma_4"},
       .models = "Gemma 4",
       .markers = "<|channel>thought … <channel|> | <|channel>response",
       .start_markers = {"<|channel>thought"},
       .create = MakeGemma4Parser},
      {.name = "mistral",
       .aliases = {"magistral"},
       .models = "Magistral, Mistral Medium/Small 3.2 reasoning",
       .think = Think({.start = {"[THINK]"}, .end = {"[/THINK]"}})},
      {.name = "poolside_v1",
       .aliases = {"poolside", "laguna"},
       .models = "Poolside Laguna",
       .think = Think(kThinkTags)},
      {.name = "harmony",
       .models = "gpt-oss (Harmony format)",
       .markers = "channel format: <|channel|>analysis<|message|> … <|end|>; final, commentary and "
                  "to=functions.f calls",
       .create = MakeHarmonyParser,
       .channel_parser = "harmony"},
      {.name = "gpt_oss",
       .aliases = {"gpt-oss", "openai_harmony"},
       .models = "gpt-oss-20b, gpt-oss-120b",
       .markers = "same as harmony",
       .create = MakeHarmonyParser,
       .channel_parser = "harmony"},
      {.name = "muse_glimmer",
       .aliases = {"atem", "muse"},
       .models = "Muse Glimmer (ATEM)",
       .markers = "channel format: to=self<|message|> … <|eom|>; to=user answers; "
                  "<atem:function_calls> calls",
       .create = MakeMuseGlimmerReasoningParser,
       .channel_parser = "muse_glimmer"},
      {.name = "step3p5",
       .aliases = {"step", "step3"},
       .models = "Step-3.5 (StepFun), Step3",
       .think = Think(kThinkTagsOpened)},
      // The answer wrappers of Command R7B (`<|START_RESPONSE|>`…) and Cohere2
      // (`<|START_TEXT|>`…) are framing, never answer text.
      {.name = "command_r7b",
       .aliases = {"cohere", "cohere2"},
       .models = "Cohere Command R7B, Command A (Cohere2)",
       .think = Think({.start = {"<|START_THINKING|>"},
                       .end = {"<|END_THINKING|>"},
                       .deleted = {"<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>",
                                   "<|END_TEXT|>"}})},
      {.name = "apertus",
       .models = "Swiss AI Apertus",
       .think = Think({.start = {"<|inner_prefix|>"}, .end = {"<|inner_suffix|>"}})},
  };
}

}  // namespace

const std::vector<ReasoningParserInfo>& ReasoningParsers() {
  static const std::vector<ReasoningParserInfo> table = [] {
    std::vector<ReasoningParserInfo> rows = Table();
    for (ReasoningParserInfo& row : rows) {
      if (row.think == nullptr) continue;
      if (row.markers.empty()) row.markers = row.think->summary();
      if (row.start_markers.empty()) row.start_markers = row.think->syntax().start;
    }
    return rows;
  }();
  return table;
}

Expected<std::unique_ptr<ReasoningParser>> CreateReasoningParser(std::string_view name,
                                                                 const ReasoningOptions& options) {
  const ReasoningParserInfo* info = FindParserInfo(ReasoningParsers(), name);
  if (info == nullptr) {
    return UnknownParserError("reasoning", name, ParserNames(ReasoningParsers()));
  }
  if (info->think != nullptr) return MakeThinkParser(*info->think, options);
  return info->create(options);
}

}  // namespace crux::parse
