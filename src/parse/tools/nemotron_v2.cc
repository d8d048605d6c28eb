// nemotron_v2: NVIDIA Nemotron Nano v2 (9B / 12B). All calls of a turn are one JSON list
// between `<TOOLCALL>` and `</TOOLCALL>` (template NVIDIA-Nemotron-Nano-v2):
//   <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>
// Arguments written as a JSON string holding an object are decoded. Not to be confused with
// `nemotron` (Nemotron 3, XML parameters), which is another family.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& NemotronV2Format() {
  static const text::MarkerSet outside{"<TOOLCALL>"};
  static const text::MarkerSet end{"</TOOLCALL>"};
  static const ListFormat format{&outside, 1, &end, CallKeys{}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeNemotronV2Parser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, NemotronV2Format());
}

const ToolParserInfo& NemotronV2ToolFormat() {
  static const CallGrammar grammar = EnvelopeList("<TOOLCALL>[", "]</TOOLCALL>");

  static const ToolParserInfo format{
      .name = "nemotron_v2",
      .aliases = {"nemotron_nano_v2"},
      .models = "NVIDIA Nemotron Nano v2 (9B, 12B)",
      .format = "<TOOLCALL>[{\"name\": …, \"arguments\": {…}}]</TOOLCALL>",
      .create = MakeNemotronV2Parser,
      .grammar = &grammar,
      .detect_markers = {"<TOOLCALL>"},
      .template_needles = {{180, "<TOOLCALL>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
