// Call grammars several formats share (see crux/parse/call_grammar.h): the JSON call envelope,
// a JSON list of envelopes between markers, GLM's <arg_key> arguments and Qwen3-Coder's
// <function=…> XML.
#pragma once

#include <string_view>
#include <vector>

#include "crux/parse/call_grammar.h"

namespace crux::parse::tools {

// {"name": NAME, "arguments": ARGS} (`args_key_part` is the text between the name and the
// arguments, e.g. `, "parameters": `).
std::vector<CallGrammar::Part> EnvelopeCall(std::string_view args_key_part = ", \"arguments\": ");

// Each call `before` envelope `after`, calls joined by `separator`.
CallGrammar Envelopes(std::string_view before, std::string_view after, std::string_view separator,
                      std::string_view args_key_part = ", \"arguments\": ");

// `open`[envelope, envelope]`close`.
CallGrammar EnvelopeList(std::string_view open, std::string_view close);

// GLM's key/value argument: <arg_key>K`between`V`after` (`between` holds the </arg_key> and
// <arg_value> tags and the layout between them, `after` the </arg_value> tag and what follows).
std::vector<CallGrammar::Part> ArgKeyValue(std::string_view between = "</arg_key><arg_value>",
                                           std::string_view after = "</arg_value>");

// `open` <function=NAME> <parameter=K>V</parameter> … </function> `close`, one block per call,
// calls separated by a newline; `value_newlines`: V on its own line.
CallGrammar FunctionXml(std::string_view open, std::string_view close, bool value_newlines,
                        CallGrammar::Values values);

}  // namespace crux::parse::tools
