// Rows of the tag families (see families.h and tags_common.h).
#include "parse/tools/families.h"
#include "parse/tools/hermes.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools {

void AddTagFamilies(std::vector<ToolParserInfo>& table) {
  // Qwen3-family, Nemotron and Step models also write this block inside reasoning.
  const std::vector<ToolCallBlock> kToolCallBlock = {{"<tool_call>", "</tool_call>"}};
  table.push_back(
      {"hermes",
       {"nous"},
       "Hermes 2 Pro / Hermes 3, Qwen2.5, models trained on the Hermes format",
       "<tool_call>{\"name\": …, \"arguments\": {…}}</tool_call>; <function=f> XML; raw JSON",
       MakeHermesParser,
       RenderHermes,
       kToolCallBlock});
  table.push_back(
      {"qwen",
       {"qwen3"},
       "Qwen2.5, Qwen3, QwQ",
       "<tool_call>{json}</tool_call> | <function=f><parameter=k>v</parameter></function> | "
       "[Calling tool: f({…})]",
       tags::MakeQwenParser,
       tags::RenderQwen,
       kToolCallBlock});
  table.push_back({"qwen3_xml",
                   {"qwen3.5", "qwen3_coder"},
                   "Qwen3-Coder, Qwen3.5",
                   "<tool_call><function=f><parameter=k>\\nv\\n</parameter></function></tool_call>",
                   tags::MakeQwen3XmlParser,
                   tags::RenderQwen3Xml,
                   kToolCallBlock});
  table.push_back({"nemotron",
                   {"nemotron3"},
                   "NVIDIA Nemotron 3 (Nano)",
                   "<tool_call><function=f><parameter=k>v</parameter></function></tool_call>",
                   tags::MakeNemotronParser,
                   tags::RenderNemotron,
                   kToolCallBlock});
  table.push_back(
      {"step3p5",
       {"step"},
       "Step-3.5 (StepFun)",
       "<tool_call><function=f><parameter=k>\\nv\\n</parameter></function></tool_call>; "
       "repeated calls collapsed",
       tags::MakeStep3p5Parser,
       tags::RenderStep3p5,
       kToolCallBlock});
  table.push_back({"glm47",
                   {"glm4"},
                   "GLM-4.5, GLM-4.6, GLM-4.7",
                   "<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
                   tags::MakeGlm47Parser,
                   tags::RenderGlm47});
  table.push_back({"poolside_v1",
                   {},
                   "Poolside Laguna",
                   "<tool_call>f\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>",
                   tags::MakePoolsideV1Parser,
                   tags::RenderPoolsideV1});
  table.push_back(
      {"minimax",
       {"minimax_m2"},
       "MiniMax-M1, MiniMax-M2",
       "<minimax:tool_call><invoke name=\"f\"><parameter name=\"k\">v</parameter></invoke>"
       "</minimax:tool_call>",
       tags::MakeMinimaxParser,
       tags::RenderMinimax,
       {{"<minimax:tool_call>", "</minimax:tool_call>"}}});
  table.push_back({"minimax_m3",
                   {},
                   "MiniMax-M3",
                   "]<]minimax[>[<tool_call> ]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<k>v"
                   "]<]minimax[>[</k>… (nested XML values)",
                   tags::MakeMinimaxM3Parser,
                   tags::RenderMinimaxM3});
  table.push_back(
      {"seed_oss",
       {"seed"},
       "ByteDance Seed-OSS",
       "<seed:tool_call><function=f><parameter=k>v</parameter></function></seed:tool_call>",
       tags::MakeSeedOssParser,
       tags::RenderSeedOss});
  table.push_back({"minicpm5",
                   {"minicpm"},
                   "OpenBMB MiniCPM5",
                   "<function name=\"f\"><param name=\"k\">v | <![CDATA[…]]></param></function>",
                   tags::MakeMiniCpm5Parser,
                   tags::RenderMiniCpm5});
  table.push_back({"hy3",
                   {"hunyuan"},
                   "Tencent Hy3",
                   "<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource>"
                   "<arg_key:opensource>k</arg_key:opensource><arg_value:opensource>v"
                   "</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
                   tags::MakeHy3Parser,
                   tags::RenderHy3});
  table.push_back({"ling3",
                   {"ling", "bailing"},
                   "inclusionAI Ling 3.0 (Bailing V3)",
                   "<tool_call>f\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>"
                   "<|role_end|>",
                   tags::MakeLing3Parser,
                   tags::RenderLing3});
}

}  // namespace crux::parse::tools
