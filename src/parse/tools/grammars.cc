#include "parse/tools/grammars.h"

namespace crux::parse::tools {

using S = CallGrammar::Slot;

std::vector<CallGrammar::Part> EnvelopeCall(std::string_view args_key_part) {
  return {{S::kText, "{\"name\": "},
          {S::kNameString},
          {S::kText, args_key_part},
          {S::kArguments},
          {S::kText, "}"}};
}

CallGrammar EnvelopeList(std::string_view open, std::string_view close) {
  return {.open = open, .close = close, .separator = ", ", .call = EnvelopeCall()};
}

CallGrammar FunctionXml(std::string_view open, std::string_view close, bool value_newlines,
                        CallGrammar::Values values) {
  return {.separator = "\n",
          .call = {{S::kText, open},
                   {S::kText, "\n<function="},
                   {S::kName},
                   {S::kText, ">\n"},
                   {S::kArguments},
                   {S::kText, "</function>\n"},
                   {S::kText, close}},
          .args = CallGrammar::Args::kKeyValue,
          .argument = {{S::kText, "<parameter="},
                       {S::kKey},
                       {S::kText, value_newlines ? ">\n" : ">"},
                       {S::kValue},
                       {S::kText, value_newlines ? "\n</parameter>\n" : "</parameter>\n"}},
          .values = values};
}

}  // namespace crux::parse::tools
