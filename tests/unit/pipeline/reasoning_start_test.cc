// Whether the generation prompt opened a reasoning block, decided from the real templates of
// llama.cpp's tree as crux renders them, with thinking on and off.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "crux/chat_template/template.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/pipeline/pipeline.h"
#include "crux/text/stream_buffer.h"
#include "unit/constrain/test_data.h"

namespace crux::pipeline {
namespace {

std::filesystem::path Templates() {
  return constrain::test_data::LlamaCppDir() / "models" / "templates";
}

Expected<std::string> Render(const std::filesystem::path& file, bool thinking) {
  std::ifstream in(file);
  const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto parsed = chat_template::Template::Parse(source);
  if (!parsed.ok()) return parsed.error();
  protocol::ChatRequest request;
  protocol::Message user;
  user.content = "Hi";
  request.messages.push_back(user);
  request.enable_thinking = thinking;
  return RenderChatTemplate(**parsed, request);
}

struct Case {
  const char* file;
  const char* family;
  bool opened_on;   // enable_thinking true
  bool opened_off;  // enable_thinking false
};

// What each template writes at the end of its generation prompt (thinking on / off):
//   Qwen3          "assistant\n" / "<think>\n\n</think>\n\n"
//   Qwen3.5, QwQ   "<think>\n"   / "<think>\n\n</think>\n\n"
//   DeepSeek R1    "<think>\n"   / "<think>\n</think>"
//   DeepSeek V3.1+ "<think>"     / "<think></think>"
//   GLM-4.7        "<think>"     / "</think>"
//   Nemotron 3     "<think>\n"   / "<think></think>"
//   MiniMax-M2, StepFun 3.5: always "<think>\n"
//   Cohere2 MoE: always "<|START_THINKING|>"
//   Gemma 4        "model\n"     / "<|channel>thought\n<channel|>"
//   GLM-4.6, Ministral 3 Reasoning: never open it.
constexpr Case kCases[] = {
    {"Qwen-Qwen3-0.6B.jinja", "qwen3", false, false},
    {"Qwen3.5-4B.jinja", "qwen3", true, false},
    {"Qwen-QwQ-32B.jinja", "qwen3", true, false},
    {"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", "deepseek_r1", true, false},
    {"deepseek-ai-DeepSeek-V3.1.jinja", "deepseek_r1", true, false},
    {"deepseek-ai-DeepSeek-V4.jinja", "deepseek_v4", true, false},
    {"GLM-4.7-Flash.jinja", "glm4", true, false},
    {"GLM-4.6.jinja", "glm4", false, false},
    {"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", "nemotron_v3", true, false},
    {"MiniMax-M2.jinja", "minimax_m2", true, true},
    {"StepFun3.5-Flash.jinja", "step3p5", true, true},
    {"Cohere2MoE.jinja", "command_r7b", true, true},
    {"google-gemma-4-31B-it.jinja", "gemma4", false, false},
    {"mistralai-Ministral-3-14B-Reasoning-2512.jinja", "mistral", false, false},
    {"inclusionai-ling-3.0-flash.jinja", "ling3", true, false},
};

TEST(ReasoningStart, ReadFromWhatEachTemplateWrites) {
  if (!std::filesystem::exists(Templates())) GTEST_SKIP() << "llama.cpp's tree is absent";
  for (const Case& c : kCases) {
    for (const bool thinking : {true, false}) {
      auto prompt = Render(Templates() / c.file, thinking);
      ASSERT_TRUE(prompt.ok()) << c.file << ": " << prompt.error().message();
      EXPECT_EQ(PromptOpensReasoning(c.family, *prompt), thinking ? c.opened_on : c.opened_off)
          << c.file << " with thinking " << (thinking ? "on" : "off") << ", prompt ends with: "
          << prompt->substr(prompt->size() > 40 ? prompt->size() - 40 : 0);
    }
  }
}

// Every template of the tree: when the generation prompt ends (after blanks) with a family's
// start marker, that family reads the output as starting inside reasoning, and a prompt that
// closes the block it opened (thinking off) never does.
TEST(ReasoningStart, EveryTemplateInTheTree) {
  if (!std::filesystem::exists(Templates())) GTEST_SKIP() << "llama.cpp's tree is absent";
  int rendered = 0;
  for (const auto& entry : std::filesystem::directory_iterator(Templates())) {
    if (entry.path().extension() != ".jinja") continue;
    for (const bool thinking : {true, false}) {
      auto prompt = Render(entry.path(), thinking);
      if (!prompt.ok()) continue;  // templates that raise without tools or a system turn
      ++rendered;
      const std::string_view tail = text::TrimRight(*prompt);
      for (const parse::ReasoningParserInfo& family : parse::ReasoningParsers()) {
        bool ends_with_start = false;
        for (std::string_view m : family.start_markers)
          ends_with_start = ends_with_start || tail.ends_with(m);
        bool ends_with_end = false;
        for (std::string_view m : family.end_markers)
          ends_with_end = ends_with_end || tail.ends_with(m);
        EXPECT_EQ(PromptOpensReasoning(family.name, *prompt), ends_with_start)
            << entry.path().filename() << " " << family.name;
        if (ends_with_end && !ends_with_start) {
          EXPECT_FALSE(PromptOpensReasoning(family.name, *prompt));
        }
      }
    }
  }
  EXPECT_GT(rendered, 100);
}

}  // namespace
}  // namespace crux::pipeline
