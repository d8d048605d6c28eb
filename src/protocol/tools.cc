#include "crux/protocol/tools.h"

#include <string>

#include "protocol/json.h"

namespace crux::protocol {
namespace {

using internal::Json;

Expected<parse::ToolSpec> SpecFromJson(const Json& tool, size_t position) {
  const std::string where = internal::IndexPath("tools", position);
  if (!tool.is_object()) return internal::MustBe(where, "an object");
  std::string type = "function";
  if (auto t = tool.find("type"); t != tool.end()) {
    if (!t->is_string()) return internal::MustBe(where + ".type", "a string");
    type = t->get<std::string>();
  }
  const Json* fn = &tool;
  std::string prefix = where;
  if (auto f = tool.find("function"); f != tool.end()) {
    if (!f->is_object()) return internal::MustBe(where + ".function", "an object");
    fn = &*f;
    prefix += ".function";
  }
  auto name = fn->find("name");
  if (name == fn->end() || !name->is_string() || name->get<std::string>().empty()) {
    if (type != "function") {  // e.g. {"type": "web_search"}: kept, never callable
      parse::ToolSpec spec;
      spec.type = type;
      return spec;
    }
    return internal::MustBe(prefix + ".name", "a non-empty string");
  }
  std::string description;
  if (auto d = fn->find("description"); d != fn->end() && d->is_string()) {
    description = d->get<std::string>();
  }
  std::string parameters = "{}";
  for (const char* key : {"parameters", "input_schema"}) {
    auto p = fn->find(key);
    if (p == fn->end() || p->is_null()) continue;
    if (!p->is_object()) return internal::MustBe(prefix + "." + key, "an object");
    parameters = internal::Dump(*p);  // no recursion: a --tools file may nest deeply
  }
  auto spec = parse::MakeToolSpec(name->get<std::string>(), std::move(description), parameters);
  if (spec.ok()) spec->type = type;
  return spec;
}

}  // namespace

Expected<std::vector<parse::ToolSpec>> DecodeToolSpecs(std::string_view json) {
  Json doc = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error(ErrorCode::kParse, "tools are not valid JSON");
  if (!doc.is_array()) return Error(ErrorCode::kInvalidArgument, "tools must be a JSON array");
  std::vector<parse::ToolSpec> tools;
  for (size_t i = 0; i < doc.size(); ++i) {
    auto spec = SpecFromJson(doc[i], i);
    if (!spec.ok()) return spec.error();
    tools.push_back(std::move(*spec));
  }
  return tools;
}

}  // namespace crux::protocol
