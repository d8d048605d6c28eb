// internlm2 / internlm / intern_s1 / interns1: InternLM 2 / 2.5 chat and Intern-S1. A call is
// one JSON envelope keyed "name" / "parameters" between the special tokens
// `<|action_start|><|plugin|>` and `<|action_end|>` (templates internlm2_5-7b-chat,
// Intern-S1):
//   <|action_start|><|plugin|>
//   {"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>
// The two start tokens are read with nothing, one space or a newline between them (SGLang's
// detector writes `<|action_start|> <|plugin|>`, Intern-S1 any whitespace); "arguments" is
// accepted beside "parameters". Several blocks in a row are several calls (Intern-S1; vLLM's
// InternLM2 parser reads one). `<|action_start|>` without `<|plugin|>` is not a call.
// Deviations from the references: text before, between and after the blocks is content
// (vLLM's InternLM2 parser keeps only the text before the first block); a malformed block is
// returned whole as content while the other calls are kept (Intern-S1 then drops every call);
// calls to undeclared tools are reported (declared=false), not dropped.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<|action_start|><|plugin|>",
      .container_close = "<|action_end|>",
      .container_json = true,
      .more_containers = {{"<|action_start|> <|plugin|>", "<|action_end|>", /*json=*/true},
                          {"<|action_start|>\n<|plugin|>", "<|action_end|>", /*json=*/true}},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeInternlm2Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Internlm2ToolFormat() {
  static const CallGrammar grammar =
      Envelopes("<|action_start|><|plugin|>\n", "<|action_end|>", "\n", ", \"parameters\": ");

  static const ToolParserInfo format{
      .name = "internlm2",
      .aliases = {"internlm", "intern_s1", "interns1"},
      .models = "InternLM 2 / 2.5 chat, Intern-S1",
      .format = "<|action_start|><|plugin|>{\"name\": …, \"parameters\": {…}}<|action_end|>",
      .create = tags::MakeInternlm2Parser,
      .grammar = &grammar,
      .detect_markers = {"<|action_start|><|plugin|>", "<|action_start|> <|plugin|>",
                         "<|action_start|>\n<|plugin|>"},
      .template_needles = {{140, "<|action_start|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
