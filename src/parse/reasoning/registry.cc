#include "crux/parse/reasoning/registry.h"

#include "parse/reasoning/families.h"

namespace crux::parse {

// A table of rows, not logic: exempt from the function length limit.
const std::vector<ReasoningParserInfo>& ReasoningParsers() {  // NOLINT(readability-function-size)
  static const std::vector<ReasoningParserInfo> table = {
      {"think",
       {"generic_think"},
       "any model that wraps reasoning in <think> tags",
       "<think> … </think>",
       {"<think>"},
       MakeThinkParser},
      {"qwen3",
       {"qwen", "qwen3.5", "qwq"},
       "Qwen3, Qwen3.5, QwQ",
       "<think> … </think>",
       {"<think>"},
       MakeQwen3Parser},
      {"deepseek_r1",
       {"deepseek-r1", "deepseek_v3.1"},
       "DeepSeek-R1, R1 distills, DeepSeek V3.1",
       "[<think>] … </think> (starts inside reasoning)",
       {"<think>"},
       MakeDeepSeekR1Parser},
      {"glm4",
       {"glm45", "glm4.5", "glm4_moe", "glm4.6"},
       "GLM-4.5, GLM-4.6, GLM-4.6V",
       "<think> … </think>; <|begin_of_box|> <|end_of_box|> removed",
       {"<think>"},
       MakeGlm4Parser},
      {"gemma4",
       {"gemma_4"},
       "Gemma 4",
       "<|channel>thought … <channel|> | <|channel>response",
       {"<|channel>thought"},
       MakeGemma4Parser},
      {"mistral",
       {"magistral"},
       "Magistral, Mistral Medium/Small 3.2 reasoning",
       "[THINK] … [/THINK]",
       {"[THINK]"},
       MakeMistralParser},
      {"poolside_v1",
       {"poolside", "laguna"},
       "Poolside Laguna",
       "<think> … </think>",
       {"<think>"},
       MakePoolsideV1Parser},
      {"harmony",
       {},
       "gpt-oss (Harmony format)",
       "channel format: <|channel|>analysis<|message|> … <|end|>; final, commentary and "
       "to=functions.f calls",
       {},
       MakeHarmonyParser,
       "harmony"},
      {"gpt_oss",
       {"gpt-oss", "openai_harmony"},
       "gpt-oss-20b, gpt-oss-120b",
       "same as harmony",
       {},
       MakeHarmonyParser,
       "harmony"},
      {"muse_glimmer",
       {"atem", "muse"},
       "Muse Glimmer (ATEM)",
       "channel format: to=self<|message|> … <|eom|>; to=user answers; <atem:function_calls> "
       "calls",
       {},
       MakeMuseGlimmerReasoningParser,
       "muse_glimmer"},
      {"step3p5",
       {"step", "step3"},
       "Step-3.5 (StepFun), Step3",
       "[<think>] … </think> (starts inside reasoning)",
       {"<think>"},
       MakeStep3p5Parser},
      {"command_r7b",
       {"cohere", "cohere2"},
       "Cohere Command R7B, Command A (Cohere2)",
       "<|START_THINKING|> … <|END_THINKING|>",
       {"<|START_THINKING|>"},
       MakeCommandRParser},
      {"apertus",
       {},
       "Swiss AI Apertus",
       "<|inner_prefix|> … <|inner_suffix|>",
       {"<|inner_prefix|>"},
       MakeApertusParser},
  };
  return table;
}

Expected<std::unique_ptr<ReasoningParser>> CreateReasoningParser(std::string_view name,
                                                                 const ReasoningOptions& options) {
  const ReasoningParserInfo* info = FindParserInfo(ReasoningParsers(), name);
  if (info == nullptr) {
    return UnknownParserError("reasoning", name, ParserNames(ReasoningParsers()));
  }
  return info->create(options);
}

}  // namespace crux::parse
