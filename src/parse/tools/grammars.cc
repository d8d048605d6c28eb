#include "parse/tools/grammars.h"

#include <utility>

namespace crux::parse::tools {

using S = CallGrammar::Slot;

std::vector<CallGrammar::Part> EnvelopeCall(std::string_view args_key_part) {
  return {{S::kText, "{\"name\": "},
          {S::kNameString},
          {S::kText, args_key_part},
          {S::kArguments},
          {S::kText, "}"}};
}

CallGrammar Envelopes(std::string_view before, std::string_view after, std::string_view separator,
                      std::string_view args_key_part) {
  std::vector<CallGrammar::Part> call;
  if (!before.empty()) call.push_back({S::kText, before});
  for (const CallGrammar::Part& part : EnvelopeCall(args_key_part))
    call.push_back(part);
  if (!after.empty()) call.push_back({S::kText, after});
  return {.separator = separator, .call = std::move(call)};
}

CallGrammar EnvelopeList(std::string_view open, std::string_view close) {
  return {.open = open, .close = close, .separator = ", ", .call = EnvelopeCall()};
}

std::vector<CallGrammar::Part> ArgKeyValue(std::string_view between, std::string_view after) {
  return {{S::kText, "<arg_key>"}, {S::kKey}, {S::kText, between}, {S::kValue}, {S::kText, after}};
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
