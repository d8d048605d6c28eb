// Tool-call family detection: from chat templates (the real ones shipped with llama.cpp when
// they are present, and literal snippets always) and from model output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "crux/parse/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::parse {
namespace {

constexpr const char* kTemplateDir = "/root/.cache/crux/llama.cpp/models/templates";

std::string Detected(std::optional<std::string_view> family) {
  return family ? std::string(*family) : std::string("none");
}

bool Registered(const std::string& family) {
  return family == "none" || FindParserInfo(ToolParsers(), family) != nullptr;
}

// The family each real template is written for ("none": no tool-call format of its own).
const std::map<std::string, std::string>& ExpectedTemplateFamilies() {
  static const std::map<std::string, std::string> expected = {
      {"Apertus-8B-Instruct", "apertus"},
      {"Apriel-1.6-15b-Thinker-fixed", "apriel"},
      {"Bielik-11B-v3.0-Instruct", "hermes"},
      {"ByteDance-Seed-OSS", "seed_oss"},
      {"Cohere2MoE", "command_r7b"},
      {"CohereForAI-c4ai-command-r-plus-tool_use", "none"},
      {"CohereForAI-c4ai-command-r7b-12-2024-tool_use", "command_r7b"},
      {"GLM-4.6", "glm47"},
      {"GLM-4.7-Flash", "glm47"},
      {"GigaChat3-10B-A1.8B", "gigachat3"},
      {"GigaChat3.1-10B-A1.8B", "gigachat3"},
      {"HuggingFaceTB-SmolLM3-3B", "none"},
      {"Kimi-K2-Instruct", "kimi"},
      {"Kimi-K2-Thinking", "kimi"},
      {"Kimi-K3", "kimi_k3"},
      {"LFM2-8B-A1B", "lfm2"},
      {"LFM2.5-8B-A1B", "lfm2"},
      {"LFM2.5-Instruct", "lfm2"},
      {"MiMo-VL", "hermes"},
      {"MiniMax-M2", "minimax"},
      {"MiniMax-M3", "minimax_m3"},
      {"Mistral-Small-3.2-24B-Instruct-2506", "mistral"},
      {"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nemotron"},
      {"NVIDIA-Nemotron-Nano-v2", "nemotron_v2"},
      {"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "hermes"},
      {"NousResearch-Hermes-3-Llama-3.1-8B-tool_use", "hermes"},
      {"Qwen-QwQ-32B", "hermes"},
      {"Qwen-Qwen2.5-7B-Instruct", "hermes"},
      {"Qwen-Qwen3-0.6B", "hermes"},
      {"Qwen3-Coder", "qwen3_xml"},
      {"Qwen3.5-4B", "qwen3_xml"},
      {"Reka-Edge", "hermes"},
      {"Spark2.5", "glm47"},
      {"StepFun3.5-Flash", "step3p5"},
      {"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "deepseek"},
      {"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "deepseek"},
      {"deepseek-ai-DeepSeek-V3.1", "deepseek"},
      {"deepseek-ai-DeepSeek-V3.2", "deepseek_v32"},
      {"deepseek-ai-DeepSeek-V4-Flash-0731", "deepseek_v32"},
      {"deepseek-ai-DeepSeek-V4", "deepseek_v32"},
      {"fireworks-ai-llama-3-firefunction-v2", "firefunction_v2"},
      {"google-gemma-2-2b-it", "none"},
      {"google-gemma-4-31B-it-interleaved", "gemma4"},
      {"google-gemma-4-31B-it", "gemma4"},
      {"ibm-granite-granite-3.3-2B-Instruct", "granite"},
      {"ibm-granite-granite-4.0", "hermes"},
      {"ibm-granite-granite-4.1", "hermes"},
      {"inclusionai-ling-3.0-flash", "ling3"},
      {"llama-cpp-deepseek-r1", "deepseek"},
      {"llama-cpp-rwkv-world", "none"},
      {"meetkai-functionary-medium-v3.1", "functionary"},
      {"meetkai-functionary-medium-v3.2", "functionary"},
      {"meta-llama-Llama-3.1-8B-Instruct", "llama"},
      {"meta-llama-Llama-3.2-3B-Instruct", "llama"},
      {"meta-llama-Llama-3.3-70B-Instruct", "llama"},
      {"microsoft-Phi-3.5-mini-instruct", "none"},
      {"mistralai-Ministral-3-14B-Reasoning-2512", "mistral"},
      {"mistralai-Mistral-Nemo-Instruct-2407", "mistral"},
      {"moonshotai-Kimi-K2", "kimi"},
      {"muse-glimmer", "muse_glimmer"},
      {"openai-gpt-oss-120b", "harmony"},
      {"openbmb-MiniCPM5-1B", "minicpm5"},
      {"poolside-Laguna-S-2.1", "poolside_v1"},
      {"poolside-Laguna-XS-2.1", "poolside_v1"},
      {"poolside-Laguna-XS.2", "poolside_v1"},
      {"tencent-Hy3", "hy3"},
      {"unsloth-Apriel-1.5", "apriel"},
      {"unsloth-mistral-Devstral-Small-2507", "mistral"},
      {"upstage-Solar-Open-100B", "solar_open"},
  };
  return expected;
}

TEST(DetectFromTemplate, RealTemplates) {
  if (!std::filesystem::is_directory(kTemplateDir))
    GTEST_SKIP() << "no templates at " << kTemplateDir;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kTemplateDir)) {
    if (entry.path().extension() != ".jinja") continue;
    std::ifstream in(entry.path());
    std::stringstream source;
    source << in.rdbuf();
    const std::string detected = Detected(DetectToolParserFromTemplate(source.str()));
    const std::string stem = entry.path().stem().string();
    const auto it = ExpectedTemplateFamilies().find(stem);
    if (it != ExpectedTemplateFamilies().end()) {
      EXPECT_EQ(detected, it->second) << stem;
      ++checked;
    }
    EXPECT_TRUE(Registered(detected)) << stem << " → " << detected << " is not a registered parser";
  }
  EXPECT_GT(checked, 0);
}

struct Snippet {
  std::string text;
  std::string family;
};

TEST(DetectFromTemplate, Snippets) {
  const std::vector<Snippet> snippets = {
      {"{{ '<|start|>assistant<|channel|>' + channel + '<|message|>' }}", "harmony"},
      {"{{- '<atem:function_calls>\\n<atem:invoke name=\"' + tc.function.name }}", "muse_glimmer"},
      {"{{ '[TOOL_CALLS]' + tool_calls | tojson }}", "mistral"},
      {"{{ '<|tool_calls_section_begin|>' }}", "kimi"},
      {"<|open|>call tool=\"f\"<|sep|>…<|close|>call<|sep|>", "kimi_k3"},
      {"{% set dsml_token = '｜DSML｜' %}", "deepseek_v32"},
      {"{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] }}", "deepseek"},
      {"{{ ']<]minimax[>[<tool_call>' }}", "minimax_m3"},
      {"{{ '<minimax:tool_call>\\n' }}", "minimax"},
      {"{{ '<seed:tool_call>\\n<function=' + name + '>' }}", "seed_oss"},
      {"{{- '<|tool_call>call:' + function['name'] + '{' -}}", "gemma4"},
      {"List of tools: <|tool_list_start|>[{{ tools }}]<|tool_list_end|>", "lfm2"},
      {"{{- '<|tool_call_start|>[' + calls + ']<|tool_call_end|>' -}}", "lfm2"},
      {"{{ 'List of tools: [' }}", "lfm2"},
      {"<|START_ACTION|>{{ tool_calls }}<|END_ACTION|>", "command_r7b"},
      {"{{ '<|tool_call|>' + tool_calls | tojson }}", "granite"},
      {"{{ '<|tools_prefix|>' + calls + '<|tools_suffix|>' }}", "apertus"},
      {"{{ '<TOOLCALL>[' }}", "nemotron_v2"},
      {"<|role_sep|>{{ content }}<|message_sep|>", "gigachat3"},
      {"{{ ' functools[' + calls + ']' }}", "firefunction_v2"},
      {"{{ '>>>all\\n' + content }}", "functionary"},
      {"{{ '<tool_call:opensource>' + name }}", "hy3"},
      {"{{ '<|tool_call:begin|>' + id }}", "solar_open"},
      {"<function name=\"f\"><param name=\"k\">v</param></function>", "minicpm5"},
      {"<|begin_assistant|>{{ '<tool_calls>' + calls + '</tool_calls>' }}", "apriel"},
      {"<role>ASSISTANT</role>{{ '<tool_call>' + name + '<arg_key>' }}", "ling3"},
      {"{#- Copied from laguna_glm_thinking -#}{{ '<tool_call>' + name + '<arg_key>' }}",
       "poolside_v1"},
      {"{{ '<tool_call>' + name + '<arg_key>' + k + '</arg_key>' }}", "glm47"},
      {"{%- set truncate_history_thinking = true %}<function={{ n }}>\\n<parameter={{ k }}>",
       "nemotron"},
      {"<im_patch>{{ '<tool_call>\\n<function=' + n + '>\\n<parameter=' + k + '>' }}", "step3p5"},
      {"{{ '<tool_call>\\n<function=' + n + '>\\n<parameter=' + k + '>' }}", "qwen3_xml"},
      {"[func_name1(params_name1=params_value1, params_name2=params_value2...)]", "pythonic"},
      {"{{ '<|python_tag|>' + tool_call.name + '.call(' }}", "llama"},
      {"Respond in the format {\"name\": function name, \"parameters\": dictionary of argument "
       "name and its value}.",
       "llama"},
      {"{{ '<tool_call>\\n' + tool_call | tojson + '\\n</tool_call>' }}", "hermes"},
      {"{{ '<|im_start|>' + message.role + '\\n' + message.content }}", "none"},
  };
  for (const Snippet& s : snippets) {
    EXPECT_EQ(Detected(DetectToolParserFromTemplate(s.text)), s.family) << s.text;
  }
}

const std::vector<Snippet>& OutputSnippets() {
  static const std::vector<Snippet> snippets = {
      {"Sure.<tool_call>\n{\"name\": \"f\", \"arguments\": {}}</tool_call>", "hermes"},
      {"<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>",
       "qwen3_xml"},
      {"<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>",
       "glm47"},
      {"<tool_call>get_time<arg_key>tz</arg_key><arg_value>UTC</arg_value></tool_call>", "glm47"},
      {"<function=get_time>{\"tz\": \"UTC\"}</function>", "llama"},
      {"<function=get_time>\n<parameter=tz>\nUTC\n</parameter>\n</function>", "qwen3_xml"},
      {"Look.<|python_tag|>{\"name\": \"f\", \"parameters\": {}}", "llama"},
      {"{\"name\": \"f\", \"parameters\": {}}", "llama"},
      {"  {\"type\": \"function\", \"name\": \"f\", \"parameters\": {}}", "llama"},
      {"[get_weather(city='Paris'), get_time()]", "pythonic"},
      {"[{\"name\": \"f\", \"arguments\": {}}]", "xlam"},
      {"<|python_start|>[f(a=1)]<|python_end|>", "pythonic"},
      {"<|tool_call>call:f{a:1}<tool_call|>", "gemma4"},
      {"<|channel|>commentary to=functions.f<|message|>{}<|call|>", "harmony"},
      {"<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|>",
       "harmony"},
      {"<|start|>assistant to=f<|message|><atem:function_calls></atem:function_calls>",
       "muse_glimmer"},
      {" to=get_time<|message|><atem:function_calls>", "muse_glimmer"},
      {"<|tool_call_start|>[f(a=1)]<|tool_call_end|>", "lfm2"},
      {"ok <atem:function_calls>", "muse_glimmer"},
      {"[TOOL_CALLS]f[ARGS]{}", "mistral"},
      {"Let me check. [Calling tool: f({})]", "qwen"},
      {"<minimax:tool_call>\n<invoke name=\"f\"></invoke></minimax:tool_call>", "minimax"},
      {"]<]minimax[>[<tool_call>", "minimax_m3"},
      {"<seed:tool_call>\n<function=f>\n</function>\n</seed:tool_call>", "seed_oss"},
      {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}", "deepseek"},
      {"<｜DSML｜function_calls>", "deepseek_v32"},
      {"<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0", "kimi"},
      {"<|open|>tools<|sep|>", "kimi_k3"},
      {"<|tool_call|>[{\"name\": \"f\", \"arguments\": {}}]", "granite"},
      {"<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>", "apriel"},
      {"<tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_calls>", "minimax"},
      {"<tool_calls>\n<tool_call>f<tool_sep>\n</tool_call>\n</tool_calls>", "hy3"},
      {"<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {}}]<|END_ACTION|>", "command_r7b"},
      {"Sure. functools[{\"name\": \"f\", \"arguments\": {}}]", "firefunction_v2"},
      {"<|function_call|>{\"name\": \"f\", \"arguments\": {}}", "gigachat3"},
      {"<TOOLCALL>[]</TOOLCALL>", "nemotron_v2"},
      {"<|tools_prefix|>[{\"f\": {}}]<|tools_suffix|>", "apertus"},
      {"<|from|>assistant\n<|recipient|>f\n<|content|>{}", "functionary"},
      {"<tool_calls:opensource>\n<tool_call:opensource>f", "hy3"},
      {"<function name=\"f\"><param name=\"k\">v</param></function>", "minicpm5"},
      {"<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>f", "solar_open"},
      // Not calls.
      {"Paris is the capital of France.", "none"},
      {"Use [square brackets], [1, 2, 3] and [read(file_path)] in prose.", "none"},
      {"Calling [get_time(tz='UTC')] mid-sentence is prose.", "none"},
      {"{\"value\": 42}", "none"},
      {"[{\"label\": \"alpha\"}]", "none"},
      {"Intro {\"name\": \"f\", \"parameters\": {}}", "none"},
      {"I considered using <function=foo> but did not.", "none"},
      {"A <tool_call> tag in prose.", "none"},
  };
  return snippets;
}

TEST(DetectFromOutput, Snippets) {
  for (const Snippet& s : OutputSnippets()) {
    EXPECT_EQ(Detected(DetectToolParserFromOutput(s.text)), s.family) << s.text;
  }
}

// Every family the detection tables can name is one that CreateToolParser knows.
TEST(DetectFromOutput, DetectedFamiliesAreRegistered) {
  for (const Snippet& s : OutputSnippets()) {
    EXPECT_TRUE(Registered(s.family)) << s.family;
  }
}

}  // namespace
}  // namespace crux::parse
