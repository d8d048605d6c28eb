#include "crux/parse/tool_spec.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>

namespace crux::parse {
namespace {

using Json = nlohmann::ordered_json;

// Nested anyOf/oneOf deeper than this leave the type open (kAny): the type is a hint for
// value conversion, and the bound keeps this recursion off the stack for any schema.
constexpr int kMaxAlternativeDepth = 32;

ToolParam ReadParam(const std::string& name, const Json& schema, int depth = 0) {
  ToolParam param{name, ParamType::kAny, false};
  if (!schema.is_object() || depth > kMaxAlternativeDepth) return param;
  if (auto n = schema.find("nullable"); n != schema.end() && n->is_boolean() && n->get<bool>())
    param.nullable = true;  // OpenAPI's spelling
  auto type = schema.find("type");
  if (type != schema.end()) {
    if (type->is_string()) {
      param.type = ParamTypeFromName(type->get<std::string>());
    } else if (type->is_array()) {  // ["string", "null"]: nullable string
      ParamType found = ParamType::kAny;
      int non_null = 0;
      for (const Json& t : *type) {
        if (!t.is_string()) continue;
        ParamType pt = ParamTypeFromName(t.get<std::string>());
        if (pt == ParamType::kNull) {
          param.nullable = true;
        } else {
          found = pt;
          ++non_null;
        }
      }
      param.type = non_null == 1 ? found : ParamType::kAny;
    }
  } else if (schema.contains("enum") && schema["enum"].is_array()) {
    bool all_strings = !schema["enum"].empty();
    for (const Json& v : schema["enum"])
      all_strings = all_strings && v.is_string();
    if (all_strings) param.type = ParamType::kString;
  } else if (schema.contains("properties")) {
    param.type = ParamType::kObject;
  } else if (schema.contains("items")) {
    param.type = ParamType::kArray;
  }
  for (const char* key : {"anyOf", "oneOf"}) {
    auto alt = schema.find(key);
    if (alt == schema.end() || !alt->is_array() || type != schema.end()) continue;
    ParamType found = ParamType::kAny;
    int non_null = 0;
    for (const Json& option : *alt) {
      ToolParam sub = ReadParam(name, option, depth + 1);
      param.nullable = param.nullable || sub.nullable;
      if (sub.type == ParamType::kNull) {
        param.nullable = true;
      } else {
        found = sub.type;
        ++non_null;
      }
    }
    if (non_null == 1) param.type = found;
  }
  return param;
}

}  // namespace

// The looser spellings are read the way the Qwen3-Coder reference reads them (prefixes:
// "int64", "uint8", "number", "float32", "list[str]", "dict[str, int]"); case is ignored.
ParamType ParamTypeFromName(std::string_view raw) {
  std::string name(raw);
  for (char& c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto starts = [&](std::string_view prefix) { return name.starts_with(prefix); };
  if (name == "string" || name == "str" || name == "text" || name == "varchar" || name == "char" ||
      name == "enum") {
    return ParamType::kString;
  }
  if (starts("int") || starts("uint") || starts("long") || starts("short") || starts("unsigned")) {
    return ParamType::kInteger;
  }
  if (starts("num") || starts("float") || name == "double" || name == "decimal") {
    return ParamType::kNumber;
  }
  if (name == "boolean" || name == "bool" || name == "binary") return ParamType::kBoolean;
  if (name == "object" || starts("dict")) return ParamType::kObject;
  if (name == "array" || name == "arr" || name == "sequence" || starts("list")) {
    return ParamType::kArray;
  }
  if (name == "null") return ParamType::kNull;
  return ParamType::kAny;
}

bool ToolSpec::callable() const {
  return type == "function" || type == "custom";
}

ParamType ToolSpec::TypeOf(std::string_view param) const {
  const ToolParam* p = Param(param);
  return p == nullptr ? ParamType::kAny : p->type;
}

const ToolParam* ToolSpec::Param(std::string_view param) const {
  for (const ToolParam& p : params) {
    if (p.name == param) return &p;
  }
  return nullptr;
}

Expected<ToolSpec> MakeToolSpec(std::string name, std::string description,
                                std::string parameters_json) {
  ToolSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  Json schema = Json::parse(parameters_json, nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded()) {
    return Error(ErrorCode::kParse, "parameters of tool '" + spec.name + "' are not valid JSON");
  }
  spec.parameters_json = std::move(parameters_json);
  if (schema.is_object()) {
    if (auto props = schema.find("properties"); props != schema.end() && props->is_object()) {
      for (auto it = props->begin(); it != props->end(); ++it) {
        spec.params.push_back(ReadParam(it.key(), it.value()));
      }
    }
  }
  return spec;
}

const ToolSpec* FindTool(const std::vector<ToolSpec>& tools, std::string_view name) {
  for (const ToolSpec& t : tools) {
    if (t.callable() && t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace crux::parse
