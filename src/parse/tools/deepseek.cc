// deepseek / deepseek_v3 / deepseek_r1 / deepseek_v31: DeepSeek V3, R1 (and distills), V3.1.
// Markers use U+FF5C `｜` and U+2581 `▁`. A block holds one or more calls:
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
//   ```json
//   {"city": "Oslo"}
//   ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>                        (V3, R1)
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}
//   <｜tool▁call▁end｜><｜tool▁calls▁end｜>                           (V3.1: no type, no fence)
//   <｜tool▁call▁begin｜>get_weather
//   ```json
//   {"city": "Oslo"}
//   ```<｜tool▁call▁end｜>                                            (V3/R1 without the type)
// Read by the header-JSON engine: the text before `<｜tool▁sep｜>` and the text after it are
// both name fields (one word each), and the last non-empty one names the call, so
// `function<｜tool▁sep｜>NAME` is NAME and V3.1's `NAME<｜tool▁sep｜>{…}` is NAME; without a
// separator the text before the arguments is the name. The arguments start at `{` or at an
// optional ```json (or ```) fence, in every form (so `NAME{…}` is read too). The block markers
// are dropped; a call-begin marker outside a block is accepted. Arguments must be a JSON
// object (streamed as validated); the reference passes invalid JSON through, crux returns such
// a call, markers included, as content; so is a call head that is not one word. Text after
// the block is content (the reference drops it).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/header_json.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const HeaderJsonFormat& Format() {
  using F = HeaderField;
  static const HeaderJsonFormat format(HeaderJsonSyntax{
      .calls = {{.call_begin = "<｜tool▁call▁begin｜>",
                 .fields = {{.kind = F::Kind::kName, .text = F::Text::kWord},
                            {.kind = F::Kind::kName,
                             .begin = "<｜tool▁sep｜>",
                             .optional = true,
                             .text = F::Text::kWord}},
                 .bare_args = true,
                 .fence_open = {"```json", "```"},
                 .fence_close = "```",
                 .call_end = "<｜tool▁call▁end｜>"}},
      .block_open = {"<｜tool▁calls▁begin｜>"},
      .block_close = {"<｜tool▁calls▁end｜>"},
      .drop = {"<｜tool▁call▁end｜>"},
  });
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeDeepSeekParser(const ToolParserOptions& options) {
  return MakeHeaderJsonParser(Format(), options);
}

const ToolParserInfo& DeepseekToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<｜tool▁calls▁begin｜>",
      .close = "<｜tool▁calls▁end｜>",
      .call = {{S::kText, "<｜tool▁call▁begin｜>function<｜tool▁sep｜>"},
               {S::kName},
               {S::kText, "\n```json\n"},
               {S::kArguments},
               {S::kText, "\n```<｜tool▁call▁end｜>"}},
  };
  static const ToolParserInfo format{
      .name = "deepseek",
      .aliases = {"deepseek_v3", "deepseek_r1", "deepseek_v31", "deepseekv3", "deepseekv31"},
      .models = "DeepSeek V3, V3-0324, R1, R1-0528, R1 distills, V3.1",
      .format =
          "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{…}\\n```"
          "<｜tool▁call▁end｜><｜tool▁calls▁end｜> (V3.1: f<｜tool▁sep｜>{…}; no type: "
          "<｜tool▁call▁begin｜>f\\n```json\\n{…}\\n```)",
      .create = MakeDeepSeekParser,
      .grammar = &grammar,
      .detect_markers = {"<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"},
      .template_needles = {{70, "tool▁calls▁begin", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
