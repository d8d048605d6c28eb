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
       .aliases = {"qwen", "qwen3.5", "qwq", "mimo", "interns1"},
       .models = "Qwen3, Qwen3.5, QwQ, Xiaomi MiMo, Intern-S1",
       .think = Think(kThinkTags)},
      {.name = "deepseek_r1",
       .aliases = {"deepseek-r1", "deepseek_v3.1", "deepseek_v31", "qwen3-thinking"},
       .models = "DeepSeek-R1, R1 distills, DeepSeek V3.1 (thinking), Qwen3 Thinking-2507",
       .think = Think(kThinkTagsOpened)},
      {.name = "glm4",
       .aliases = {"glm45", "glm4.5", "glm4_moe", "glm4.6", "glm47"},
       .models = "GLM-4.5, GLM-4.6, GLM-4.6V, GLM-4.7",
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
       .aliases = {"gpt-oss", "openai_harmony", "openai_gptoss"},
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
      // The answer wrappers of Command R7B (`<|START_RESPONSE|>`…) and Command A / Cohere2
      // (`<|START_TEXT|>`…) are framing, never answer text; an answer or an action opened
      // without `<|END_THINKING|>` ends the reasoning.
      {.name = "command_r7b",
       .aliases = {"cohere", "cohere2", "cohere_command3", "cohere_command4"},
       .models = "Cohere Command R7B, Command A (Cohere2), Command A Reasoning",
       .think = Think({.start = {"<|START_THINKING|>"},
                       .end = {"<|END_THINKING|>"},
                       .answer_start = {"<|START_RESPONSE|>", "<|START_TEXT|>"},
                       .tool_start = {"<|START_ACTION|>"},
                       .deleted = {"<|END_RESPONSE|>", "<|END_TEXT|>"}})},
      {.name = "apertus",
       .aliases = {"apertus2509"},
       .models = "Swiss AI Apertus",
       .think = Think({.start = {"<|inner_prefix|>"}, .end = {"<|inner_suffix|>"}})},
      // DeepSeek's hybrid models think only when asked: the template then ends the prompt
      // with <think> (which crux sees, and starts inside reasoning).
      {.name = "deepseek_v3",
       .aliases = {"deepseek-v3"},
       .models = "DeepSeek V3.1, V3.2 (hybrid: thinking off unless the prompt opens it)",
       .think = Think(kThinkTags)},
      {.name = "deepseek_v4",
       .aliases = {"deepseek-v4"},
       .models = "DeepSeek V4",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .starts_inside = true,
                       .tool_start = {"<｜DSML｜tool_calls>"}})},
      {.name = "seed_oss",
       .aliases = {"seed"},
       .models = "ByteDance Seed-OSS",
       .think = Think({.start = {"<seed:think>"},
                       .end = {"</seed:think>"},
                       .tool_start = {"<seed:tool_call>"}})},
      {.name = "minimax_m2",
       .aliases = {"minimax"},
       .models = "MiniMax-M2, M2.1, M2.5",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .starts_inside = true,
                       .tool_start = {"<minimax:tool_call>"}})},
      {.name = "minimax_m2_append_think",
       .aliases = {"minimax-append-think"},
       .models = "MiniMax-M2 (clients that keep the raw interleaved thinking)",
       .think = Think({.content_prefix = "<think>"})},
      {.name = "minimax_m1", .models = "MiniMax-M1", .think = Think(kThinkTags)},
      {.name = "minimax_m3",
       .aliases = {"minimax-m3"},
       .models = "MiniMax-M3",
       .think = Think({.start = {"<mm:think>"}, .end = {"</mm:think>"}})},
      {.name = "kimi_k2",
       .aliases = {"kimi_k2_thinking"},
       .models = "Kimi K2 Thinking",
       .think =
           Think({.start = {"<think>"},
                  .end = {"</think>"},
                  .starts_inside = true,
                  .tool_start = {"<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"}})},
      {.name = "kimi_k25",
       .aliases = {"kimi_k2.5"},
       .models = "Kimi K2.5",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .starts_inside = true,
                       .tool_start = {"<|tool_calls_section_begin|>", "<|tool_call_section_begin|>",
                                      "<|tool_call_begin|>"}})},
      // Kimi K3's sections: think, then response (the answer) or tools (the calls).
      {.name = "kimi_k3",
       .models = "Kimi K3",
       .think = Think(
           {.start = {"<|open|>think<|sep|>"},
            .end = {"<|close|>think<|sep|>"},
            .answer_start = {"<|open|>response<|sep|>"},
            .tool_start = {"<|open|>tools<|sep|>"},
            .deleted = {"<|close|>response<|sep|>", "<|close|>message<|sep|>", "<|end_of_msg|>"}})},
      {.name = "kimi",
       .aliases = {"kimi_vl"},
       .models = "Kimi k1.5, Kimi-VL-Thinking",
       .think = Think({.start = {"◁think▷"}, .end = {"◁/think▷"}})},
      // ERNIE wraps its answer in <response> … </response> after the reasoning.
      {.name = "ernie45",
       .aliases = {"ernie", "ernie4.5"},
       .models = "ERNIE-4.5 Thinking (21B-A3B, VL)",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .starts_inside = true,
                       .answer_start = {"<response>"},
                       .deleted = {"</response>"}})},
      {.name = "exaone4",
       .aliases = {"exaone"},
       .models = "LG EXAONE 4.0 (reasoning when the prompt opens it)",
       .think = Think(kThinkTags)},
      // Granite 3.2 / 3.3 write their reasoning between English phrases, not tokens.
      {.name = "granite",
       .models = "IBM Granite 3.2, 3.3 (thinking=true)",
       .think = Think({.start = {"Here is my thought process:", "Here's my thought process:"},
                       .end = {"Here is my response:", "Here's my response:"}})},
      {.name = "granite_thinking",
       .aliases = {"granite4"},
       .models = "IBM Granite 4 thinking models",
       .think = Think(kThinkTagsOpened)},
      {.name = "holo2", .models = "H Company Holo2", .think = Think(kThinkTagsOpened)},
      // Hunyuan-A13B: <think>\n…\n</think>\n<answer>\n…\n</answer>.
      {.name = "hunyuan_a13b",
       .aliases = {"hunyuan"},
       .models = "Tencent Hunyuan-A13B",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .answer_start = {"<answer>"},
                       .deleted = {"</answer>"}})},
      {.name = "hy_v3",
       .models = "Tencent Hy3-preview (reasoning when the prompt opens it)",
       .think = Think(kThinkTags)},
      {.name = "hy_v4", .models = "Tencent HY V4", .think = Think(kThinkTagsOpened)},
      {.name = "olmo3",
       .models = "AllenAI Olmo 3 Think, Olmo 3.1 Think",
       .think = Think(kThinkTagsOpened)},
      {.name = "nemotron",
       .models = "NVIDIA Llama-Nemotron (Nano, Super; detailed thinking on)",
       .think = Think(kThinkTags)},
      {.name = "nemotron_v3",
       .aliases = {"nemotron_3"},
       .models = "NVIDIA Nemotron 3 Nano, Super",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .starts_inside = true,
                       .tool_start = {"<tool_call>"}})},
      {.name = "ling3",
       .models = "inclusionAI Ling 3",
       .think = Think({.start = {"<think>"},
                       .end = {"</think>"},
                       .starts_inside = true,
                       .tool_start = {"<tool_call>"}})},
      {.name = "iquest",
       .aliases = {"iquest_coder", "iquest_coder_v2"},
       .models = "IQuest Coder, IQuest Coder V2",
       .think = Think(kThinkTagsOpened)},
      {.name = "hyperclovax",
       .aliases = {"hyperclovax_seed_think"},
       .models = "NAVER HyperCLOVA X SEED Think (reasoning when the prompt opens it)",
       .think = Think(kThinkTags)},
      {.name = "plamo3",
       .models = "Preferred Networks PLaMo 3",
       .think = Think({.start = {"<|plamo:begin_think:plamo|>"},
                       .end = {"<|plamo:end_think:plamo|>"},
                       .starts_inside = true,
                       .deleted = {"<|plamo:tag|>"}})},
      // openPangu's tokenizers spell the markers as placeholders when <think> is not in the
      // vocabulary.
      {.name = "pangu",
       .aliases = {"openpangu", "openpangu_v2"},
       .models = "Huawei openPangu (Embedded, Ultra-MoE)",
       .think = Think({.start = {"<think>", "[unused16]"},
                       .end = {"</think>", "[unused17]"},
                       .starts_inside = true})},
      {.name = "rwkv", .models = "RWKV-7 G1", .think = Think(kThinkTags)},
      {.name = "solar_open2",
       .models = "Upstage Solar Open 2",
       .think = Think({.start = {"<|think:start|>"},
                       .end = {"<|think:end|>"},
                       .starts_inside = true,
                       .tool_start = {"<|tool_call:start|>"}})},
      {.name = "gigachat35",
       .aliases = {"gigachat3.5"},
       .models = "Sber GigaChat 3.5 (reasoning when the prompt opens it)",
       .think = Think(kThinkTags)},
      // Inkling's typed message blocks: a thinking block, then a text (answer) or a tool block.
      {.name = "inkling",
       .models = "Inkling",
       .think =
           Think({.start = {"<|content_thinking|>"},
                  .answer_start = {"<|content_text|>"},
                  .tool_start = {"<|content_invoke_tool_json|>", "<|content_invoke_tool_text|>"},
                  .deleted = {"<|message_model|>", "<|end_message|>",
                              "<|content_model_end_sampling|>"}})},
      {.name = "telechat4", .models = "TeleChat4", .think = Think(kThinkTags)},
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
      if (row.end_markers.empty()) row.end_markers = row.think->syntax().end;
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
