// Rows of llama, gemma4, harmony, pythonic, lfm2, muse_glimmer and auto (see families.h).
// Auto-detection (DetectToolParserFromOutput / FromTemplate) is in detect.cc. harmony and
// muse_glimmer are channel formats: their parsers also emit reasoning, and the reasoning
// registry's rows of the same names run them too.
#include "parse/tools/families.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {

void AddOtherFamilies(std::vector<ToolParserInfo>& table) {
  table.push_back(
      {"llama",
       {"llama3", "llama4"},
       "Llama 3.1 / 3.2 / 3.3 (JSON tool calling), Llama 4 (JSON mode), Functionary v3.1",
       "<|python_tag|>{\"name\": …, \"parameters\": {…}}; … | bare {\"name\": …, "
       "\"parameters\": {…}} at the start | <function=f>{…}</function>",
       MakeLlamaParser,
       RenderLlama});
  table.push_back({"gemma4",
                   {},
                   "Gemma 4",
                   "<|tool_call>call:f{k:<|\"|>v<|\"|>,n:1}<tool_call|> (also call:f(k=\"v\"), "
                   "```tool_code fences)",
                   MakeGemma4ToolParser,
                   RenderGemma4});
  table.push_back({"harmony",
                   {"gpt-oss", "gpt_oss"},
                   "gpt-oss-20b / gpt-oss-120b (Harmony)",
                   "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{…}<|call|>",
                   MakeHarmonyToolParser,
                   RenderHarmony,
                   /*channel=*/true});
  table.push_back({"pythonic",
                   {"llama4_pythonic"},
                   "Llama 3.2 / Llama 4 pythonic templates, models prompted for Python call lists",
                   "[f(a='x', b=1), g()] (optionally <|python_start|> … <|python_end|>)",
                   MakePythonicParser,
                   RenderPythonic});
  table.push_back({"lfm2",
                   {"lfm2.5", "liquid"},
                   "Liquid LFM2, LFM2.5",
                   "<|tool_call_start|>[f(a=\"x\"), g()]<|tool_call_end|> (or a JSON list)",
                   MakeLfm2Parser,
                   RenderLfm2});
  table.push_back({"muse_glimmer",
                   {"atem", "muse"},
                   "Muse Glimmer (ATEM)",
                   " to=f<|message|><atem:function_calls><atem:invoke name=\"f\"><atem:parameter "
                   "name=\"k\">v</atem:parameter></atem:invoke></atem:function_calls><|eom|>",
                   MakeMuseGlimmerParser,
                   RenderMuseGlimmer,
                   /*channel=*/true});
  table.push_back({"auto",
                   {"generic"},
                   "any: the family is detected from the output",
                   "the first start marker of any family (see docs), or a bare JSON call / "
                   "Python call list at the start",
                   MakeAutoParser,
                   nullptr});
}

}  // namespace crux::parse::tools
