// seed_oss / seed: ByteDance Seed-OSS
//   <seed:tool_call>\n<function=f>\n<parameter=k>v</parameter>\n</function>\n</seed:tool_call>
// One call per block in the template; several `<function=` in one block are accepted. The
// template writes non-string values with Python's str(): `True`, `{'a': 1}`, `[1, 'x']` — so
// untyped values are read as JSON, else a Python literal, else text, and declared object/array
// parameters accept Python literals too. String values: one leading and one trailing newline
// are layout (values may span lines), the rest is verbatim. Reasoning (`<seed:think>`) and
// `<seed:eos>` are handled upstream / by the tokenizer.
#include <memory>

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

std::string RenderSeedOss(const std::vector<ToolCall>& calls) {
  return RenderFunctionCalls(calls, "<seed:tool_call>", "</seed:tool_call>",
                             /*value_newlines=*/false, ValueStyle::kPython);
}

}  // namespace crux::parse::tools::tags
