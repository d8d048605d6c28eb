// Tool definitions in the shapes clients send them, decoded into the typed specs the parsers
// take (parse::ToolSpec). The only reader of those shapes outside the request decoders: the
// command line's `crux parse --tools FILE` uses it.
#pragma once

#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/parse/tool_spec.h"

namespace crux::protocol {

// Decodes a JSON array of tool definitions, each in any of the shapes clients send: OpenAI
// Chat ({"type":"function","function":{name, description, parameters}}), OpenAI Responses
// ({"type":"function", name, parameters}) or Anthropic ({name, input_schema}). Tools of other
// types (e.g. "web_search") are kept with their type but have no parameters, so they are never
// callable. Errors (kParse for invalid JSON, kInvalidArgument for a bad entry) name the entry
// ("tools[2].function.name must be a non-empty string"). Any nesting depth: schemas are kept
// as text without recursion.
Expected<std::vector<parse::ToolSpec>> DecodeToolSpecs(std::string_view json);

}  // namespace crux::protocol
