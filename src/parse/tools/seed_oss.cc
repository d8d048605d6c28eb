// seed_oss / seed: ByteDance Seed-OSS
//   <seed:tool_call>\n<function=f>\n<parameter=k>v</parameter>\n</function>\n</seed:tool_call>
// One call per block in the template; several `<function=` in one block are accepted. The
// template writes non-string values with Python's str(): `True`, `{'a': 1}`, `[1, 'x']` — so
// untyped values are read as JSON, else a Python literal, else text, and declared object/array
// parameters accept Python literals too. String values: one leading and one trailing newline
// are layout (values may span lines), the rest is verbatim. Reasoning (`<seed:think>`) and
// `<seed:eos>` are handled upstream / by the tokenizer.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<seed:tool_call>",
      .container_close = "</seed:tool_call>",
      .container_calls = {&kFunctionSyntax},
      .values = {ValueTrim::kOneNewline, Untyped::kJsonOrPython},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeSeedOssParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& SeedOssToolFormat() {
  static const CallGrammar grammar =
      FunctionXml("<seed:tool_call>", "</seed:tool_call>", /*value_newlines=*/false,
                  CallGrammar::Values::kPython);

  static const ToolParserInfo format{
      .name = "seed_oss",
      .aliases = {"seed"},
      .models = "ByteDance Seed-OSS",
      .format =
          "<seed:tool_call><function=f><parameter=k>v</parameter></function></seed:tool_call>",
      .create = tags::MakeSeedOssParser,
      .grammar = &grammar,
      .detect_markers = {"<seed:tool_call>"},
      .template_needles = {{100, "<seed:tool_call>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
