// gigachat35: Sber GigaChat 3.5 ("GCML", the DSML markup under another namespace; `｜` is
// U+FF5C)
//   <｜GCML｜tool_calls>
//   <｜GCML｜invoke name="get_weather">
//   <｜GCML｜parameter name="city" string="true">Moscow</｜GCML｜parameter>
//   <｜GCML｜parameter name="days" string="false">3</｜GCML｜parameter>
//   </｜GCML｜invoke>
//   </｜GCML｜tool_calls></s>
// Read from vLLM's gigachat35 parser, its tests and SGLang's GigaChat35Detector. A parameter's
// type is the tool schema's when it declares one, else `string="true"` means a verbatim string
// and anything else JSON (kept as a string when it is not valid JSON). The
// block is a section of the tag engine (tags_common.h), as DeepSeek DSML's: after a good first
// call its tags and the whitespace between calls are dropped, a malformed call is returned as
// content up to its `</｜GCML｜invoke>`; a block without a good first call is content, tags
// included. `</s>` (the end of turn) and everything after it are dropped.
// Deviations: a call whose `</｜GCML｜invoke>` is missing is ended by the block's closing tag;
// an unterminated call at the end of the output is content (the reference parses to the end);
// calls to undeclared tools are reported, not dropped; a parameter without the string flag is
// JSON when it parses (vLLM: a string).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kInvoke{.start = "<｜GCML｜invoke name=\"",
                            .name_close = "\"",
                            .key_open = "<｜GCML｜parameter name=\"",
                            .key_close = "\"",
                            .value_close = "</｜GCML｜parameter>",
                            .call_close = "</｜GCML｜invoke>",
                            .tag_close = ">",
                            .type_attribute = "string",
                            .type_flag = true,
                            .escaped = true};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<｜GCML｜tool_calls>",
      .container_close = "</｜GCML｜tool_calls>",
      .container_calls = {&kInvoke},
      .container_section = true,
      .bare_calls = {&kInvoke},
      .end_of_turn = {"</s>"},
      .drop = {"</｜GCML｜tool_calls>"},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeGigachat35Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Gigachat35ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<｜GCML｜tool_calls>\n",
      .close = "</｜GCML｜tool_calls>",
      .call = {{S::kText, "<｜GCML｜invoke name=\""},
               {S::kName},
               {S::kText, "\">\n"},
               {S::kArguments},
               {S::kText, "</｜GCML｜invoke>\n"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<｜GCML｜parameter name=\""},
                   {S::kKey},
                   {S::kText, "\" string=\""},
                   {S::kIsString},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</｜GCML｜parameter>\n"}},
  };
  static const ToolParserInfo format{
      .name = "gigachat35",
      .aliases = {"gigachat3.5"},
      .models = "Sber GigaChat 3.5",
      .format =
          "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"k\" "
          "string=\"true\">v</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
      .create = tags::MakeGigachat35Parser,
      .grammar = &grammar,
      .detect_markers = {"<｜GCML｜"},
      .template_needles = {{65, "<｜GCML｜", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
