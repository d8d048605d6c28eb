// deepseek_v32 / deepseek_v4 / dsml: DeepSeek V3.2 and V4 ("DSML" markup; `｜` is U+FF5C).
//   <｜DSML｜function_calls>
//   <｜DSML｜invoke name="get_weather">
//   <｜DSML｜parameter name="city" string="true">Oslo</｜DSML｜parameter>
//   <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//   </｜DSML｜invoke>
//   </｜DSML｜function_calls>
// (templates deepseek-ai-DeepSeek-V3.2; V4 names the block `tool_calls` instead of
// `function_calls`: both are accepted.) String parameters are written as is (no escaping),
// others as JSON. A parameter's type is the tool schema's when it declares one, else
// `string="true"` means a string and anything else JSON (a value that is not valid JSON is
// kept as a string). Strings stream as they arrive; other values are emitted when their
// closing tag arrives. The call begins at its first parameter (or its end tag); it ends (and
// is kept) at `</｜DSML｜invoke>`. Block markers are dropped; an invoke outside a block is
// accepted. Anything but whitespace between parameters makes the call malformed: it is
// returned, markers included, as content (outside a block, up to the byte that breaks it).
// A lone wrapper parameter is unwrapped: when a call's only parameter is `arguments` or
// `input`, the tool's schema declares properties but not that one, and the value is a JSON
// object whose keys the schema declares, that object is the call's arguments (the model put
// the arguments inside one parameter). Such a first parameter is held until the next tag
// tells whether it is the only one.
// Tags are `name="…"` first, then further attributes (XML-escaped values). Deviation: a call
// whose `</｜DSML｜invoke>` is missing is ended by its block's closing tag (as MiniMax's).
// The blocks are sections of the tag engine (tags_common.h): when a block's first call is
// good, its tags and the whitespace between its calls are dropped and a later malformed call
// is returned as content up to its `</｜DSML｜invoke>`; a block without a good first call is
// content, tags included.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kInvoke{.start = "<｜DSML｜invoke name=\"",
                            .name_close = "\"",
                            .key_open = "<｜DSML｜parameter name=\"",
                            .key_close = "\"",
                            .value_close = "</｜DSML｜parameter>",
                            .call_close = "</｜DSML｜invoke>",
                            .tag_close = ">",
                            .type_attribute = "string",
                            .type_flag = true,
                            .escaped = true};

// The parameter names a model wraps the whole arguments object in.
constexpr std::string_view kLoneWrappers[] = {"arguments", "input"};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<｜DSML｜function_calls>",
      .container_close = "</｜DSML｜function_calls>",
      .container_calls = {&kInvoke},
      .container_section = true,
      .bare_calls = {&kInvoke},
      .drop = {"</｜DSML｜function_calls>", "</｜DSML｜tool_calls>"},
      .values = {ValueTrim::kNone, Untyped::kJson, kLoneWrappers},
      .more_containers = {{"<｜DSML｜tool_calls>",
                           "</｜DSML｜tool_calls>",
                           /*json=*/false,
                           {&kInvoke},
                           /*section=*/true}},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeDeepSeekDsmlParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& DeepseekV32ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<｜DSML｜function_calls>\n",
      .close = "</｜DSML｜function_calls>",
      .call = {{S::kText, "<｜DSML｜invoke name=\""},
               {S::kName},
               {S::kText, "\">\n"},
               {S::kArguments},
               {S::kText, "</｜DSML｜invoke>\n"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<｜DSML｜parameter name=\""},
                   {S::kKey},
                   {S::kText, "\" string=\""},
                   {S::kIsString},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</｜DSML｜parameter>\n"}},
  };
  static const ToolParserInfo format{
      .name = "deepseek_v32",
      .aliases = {"deepseek_v3.2", "deepseek_v4", "deepseekv4", "dsml", "deepseekv32"},
      .models = "DeepSeek V3.2, V3.2-Exp, V4",
      .format =
          "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"k\" "
          "string=\"true\">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
      .create = tags::MakeDeepSeekDsmlParser,
      .grammar = &grammar,
      .detect_markers = {"<｜DSML｜"},
      .template_needles = {{60, "dsml_token", "DSML"}},
  };
  return format;
}

}  // namespace crux::parse::tools
