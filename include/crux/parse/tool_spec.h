// The tools a request declares, in the form parsers need: names and parameter types
// (protocol-neutral; no wire shape is read here).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"

namespace crux::parse {

// JSON Schema "type" of a parameter, as far as argument typing needs it.
enum class ParamType : uint8_t {
  kAny,  // no type, several types, or a type crux does not know
  kString,
  kInteger,
  kNumber,
  kBoolean,
  kObject,
  kArray,
  kNull,
};

struct ToolParam {
  std::string name;
  ParamType type = ParamType::kAny;
  bool nullable = false;  // the schema also allows null
};

struct ToolSpec {
  std::string name;
  std::string description;
  std::string parameters_json = "{}";  // the JSON Schema of the arguments, as given
  std::vector<ToolParam> params;       // top-level properties, in schema order
  std::string type = "function";       // tool type: "function" (OpenAI) or "custom" (Anthropic)
                                       // tools are callable; others (web_search, …) are not

  bool callable() const;

  // The declared type of parameter `name`, or kAny when unknown.
  ParamType TypeOf(std::string_view param) const;
  // Parameter `name`, or nullptr when the schema does not declare it.
  const ToolParam* Param(std::string_view param) const;
};

// The ParamType of a schema type name: JSON Schema's names and the looser spellings tool
// schemas carry ("int", "float", "double", "str", "bool", "dict", "list", …); kAny otherwise.
ParamType ParamTypeFromName(std::string_view name);

// Reads the parameter list of one tool from its JSON Schema text. The wire shapes that carry
// tools (OpenAI's {"type":"function","function":{…}}, Anthropic's input_schema) are read by
// protocol/ (protocol::DecodeToolSpecs), which hands parsers these typed specs.
Expected<ToolSpec> MakeToolSpec(std::string name, std::string description,
                                std::string parameters_json);

const ToolSpec* FindTool(const std::vector<ToolSpec>& tools, std::string_view name);

}  // namespace crux::parse
