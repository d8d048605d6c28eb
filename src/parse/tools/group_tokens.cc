// Rows of the special-token and JSON-list families (see families.h). Each family lives in its
// own file; the shared streaming components are in tokens_common.{h,cc}.
#include "parse/tools/families.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {

void AddTokenFamilies(std::vector<ToolParserInfo>& table) {
  table.push_back(
      {"mistral",
       {},
       "Mistral, Mixtral, Mistral Nemo/Small/Large, Ministral, Devstral, Magistral",
       "[TOOL_CALLS]f[ARGS]{…} | [TOOL_CALLS]f[CALL_ID]id[ARGS]{…} | [TOOL_CALLS]f{…} | "
       "[TOOL_CALLS] [{\"name\": …, \"arguments\": {…}}]",
       MakeMistralParser,
       RenderMistral});
  table.push_back(
      {"deepseek",
       {"deepseek_v3", "deepseek_r1", "deepseek_v31"},
       "DeepSeek V3, V3-0324, R1, R1-0528, R1 distills, V3.1",
       "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{…}\\n```"
       "<｜tool▁call▁end｜><｜tool▁calls▁end｜> (V3.1: f<｜tool▁sep｜>{…})",
       MakeDeepSeekParser,
       RenderDeepSeek});
  table.push_back(
      {"kimi",
       {"kimi_k2", "moonshot", "kimi_k2_thinking"},
       "Kimi K2 Instruct, K2-0905, K2 Thinking",
       "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{…}"
       "<|tool_call_end|><|tool_calls_section_end|>",
       MakeKimiParser,
       RenderKimi});
  table.push_back({"functionary",
                   {"meetkai", "functionary_v3"},
                   "MeetKai Functionary v3, v3.1, v3.2",
                   ">>>f\\n{…} | <|recipient|>f\\n<|content|>{…} | <function=f>{…}</function>",
                   MakeFunctionaryParser,
                   RenderFunctionary});
  table.push_back({"xlam",
                   {},
                   "Salesforce xLAM (1b/7b-fc-r, xLAM-2)",
                   "[{\"name\": …, \"arguments\": {…}}] at the start, in a ```json fence, after "
                   "[TOOL_CALLS] or </think>",
                   MakeXlamParser,
                   RenderXlam});
  table.push_back({"granite",
                   {"granite3"},
                   "IBM Granite 3.x",
                   "<|tool_call|>[{\"name\": …, \"arguments\": {…}}]",
                   MakeGraniteParser,
                   RenderGranite});
  table.push_back(
      {"deepseek_v32",
       {"deepseek_v3.2", "deepseek_v4", "dsml"},
       "DeepSeek V3.2, V3.2-Exp, V4",
       "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"k\" "
       "string=\"true\">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
       MakeDeepSeekDsmlParser,
       RenderDeepSeekDsml});
  table.push_back({"kimi_k3",
                   {},
                   "Kimi K3",
                   "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument "
                   "key=\"k\" type=\"string\"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|>"
                   "<|close|>tools<|sep|>",
                   MakeKimiK3Parser,
                   RenderKimiK3});
  table.push_back({"apriel",
                   {"apriel15", "apriel16"},
                   "ServiceNow Apriel 1.5 / 1.6 Thinker",
                   "<tool_calls>[{\"name\": …, \"arguments\": {…}}]</tool_calls>",
                   MakeAprielParser,
                   RenderApriel});
  table.push_back(
      {"command_r7b",
       {"cohere", "cohere2", "cohere2moe"},
       "Cohere Command R7B, Cohere2 MoE",
       "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": …, \"parameters\": {…}}]"
       "<|END_ACTION|>",
       MakeCommandR7bParser,
       RenderCommandR7b});
  table.push_back({"firefunction_v2",
                   {"firefunction"},
                   "Fireworks FireFunction v2",
                   "functools[{\"name\": …, \"arguments\": {…}}]",
                   MakeFirefunctionParser,
                   RenderFirefunction});
  table.push_back({"gigachat3",
                   {"gigachat", "gigachat3.1"},
                   "Sber GigaChat 3, GigaChat 3.1",
                   "<|function_call|>{\"name\": …, \"arguments\": {…}} | "
                   "<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{…}",
                   MakeGigaChatParser,
                   RenderGigaChat});
  table.push_back({"nemotron_v2",
                   {"nemotron_nano_v2"},
                   "NVIDIA Nemotron Nano v2 (9B, 12B)",
                   "<TOOLCALL>[{\"name\": …, \"arguments\": {…}}]</TOOLCALL>",
                   MakeNemotronV2Parser,
                   RenderNemotronV2});
  table.push_back({"solar_open",
                   {"solar"},
                   "Upstage Solar Open 100B",
                   "<|tool_call:begin|>id<|tool_call:name|>f<|tool_call:args|>{…}<|tool_call:end|>",
                   MakeSolarOpenParser,
                   RenderSolarOpen});
  table.push_back({"apertus",
                   {},
                   "Swiss AI Apertus 8B / 70B",
                   "<|tools_prefix|>[{\"f\": {…}}]<|tools_suffix|>",
                   MakeApertusParser,
                   RenderApertus});
}

}  // namespace crux::parse::tools
