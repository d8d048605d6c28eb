// Binding a call's arguments to a builtin's Python-style parameters.
#pragma once

#include <string>
#include <string_view>

#include "chat_template/function.h"
#include "chat_template/renderer.h"

namespace crux::chat_template {

// Parameters of builtin `fn`: Get(i, name, fallback) binds positional i or keyword name; Done()
// raises when an argument is left over, as Python raises TypeError.
class Params {
 public:
  Params(Renderer& renderer, CallArgs& args, std::string_view fn)
      : renderer_(renderer), args_(args), fn_(fn) {}

  Value Get(size_t index, std::string_view name, Value fallback = Value()) {
    if (!args_.Has(index, name)) return fallback;
    return args_.Take(index, name);
  }
  Value Required(size_t index, std::string_view name) {
    if (!args_.Has(index, name)) {
      renderer_.Fail(std::string(fn_) + "() missing required argument '" + std::string(name) + "'");
    }
    return args_.Take(index, name);
  }
  void Done() {
    if (args_.Leftover()) renderer_.Fail(std::string(fn_) + "() got unexpected arguments");
  }
  // Get() that must be a string (or absent).
  std::string String(size_t index, std::string_view name, std::string fallback);
  int64_t Int(size_t index, std::string_view name, int64_t fallback);
  bool Bool(size_t index, std::string_view name, bool fallback) {
    Value v = Get(index, name, Value(fallback));
    return v.Truthy();
  }

 private:
  Renderer& renderer_;
  CallArgs& args_;
  std::string_view fn_;
};

// `"a.b.0"` looked up on `item` part by part (item first, then attribute), as Jinja2's
// attribute getters for map, selectattr, sort and join do.
Value LookupPath(Renderer& renderer, const Value& item, const std::string& path);

// Python str of a value, lower-cased when it is a string and case does not matter.
Value IgnoreCase(const Value& value);
std::string AsciiLower(std::string text);
std::string AsciiUpper(std::string text);

// Jinja2's escape(): & < > " ' as HTML entities.
std::string HtmlEscape(const std::string& text);

// len(); raises for values without one.
int64_t Length(Renderer& renderer, const Value& value);

}  // namespace crux::chat_template
