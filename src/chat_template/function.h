// Callables and the arguments they take, and the error a render raises.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/base/error.h"
#include "crux/chat_template/value.h"

namespace crux::chat_template {

class Renderer;

// Positional and keyword arguments of one call.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;

  // Takes argument `index` (or the keyword `name`): what Python binds to that parameter;
  // undefined (is_undefined() with an empty hint) when neither was given.
  Value Take(size_t index, std::string_view name);
  bool Has(size_t index, std::string_view name) const;
  // After the Takes: whether arguments are left that no parameter took.
  bool Leftover() const;
  bool keyword_taken(size_t i) const { return i < keyword_taken_.size() && keyword_taken_[i]; }

 private:
  std::vector<bool> taken_;
  std::vector<bool> keyword_taken_;
};

// A template error raised while rendering; the renderer adds the line and column of the
// expression being evaluated when the code leaves them at 0.
struct RenderError : std::exception {
  RenderError(ErrorCode error_code, std::string text, int at_line = 0, int at_column = 0)
      : code(error_code), message(std::move(text)), line(at_line), column(at_column) {}
  const char* what() const noexcept override { return message.c_str(); }

  ErrorCode code;
  std::string message;
  int line;
  int column;
  bool from_raise_exception = false;
};

// The largest string a render may build, in bytes: its output limit (and a sixteenth of that
// in items for a list), so that a template doubling a value on every iteration raises instead
// of exhausting memory.
// Set for this thread while a SizeCap lives (Renderer holds one); unbounded outside a render.
class SizeCap {
 public:
  explicit SizeCap(size_t cap);
  ~SizeCap();
  SizeCap(const SizeCap&) = delete;
  SizeCap& operator=(const SizeCap&) = delete;

  // Throws RenderError (kLimit) where a string of `bytes` bytes is past the cap.
  static void Bytes(size_t bytes);
  // Throws RenderError (kLimit) where a list of `items` items is past the cap.
  static void Items(size_t items);

 private:
  size_t saved_;
};

using FilterFn = Value (*)(Renderer& renderer, const Value& subject, CallArgs& args);
using TestFn = bool (*)(Renderer& renderer, const Value& subject, CallArgs& args);

class Function {
 public:
  virtual ~Function() = default;
  virtual Value Call(Renderer& renderer, CallArgs& args) const = 0;
  virtual std::string_view name() const = 0;
  // What makes two callables the same function: the object itself, or for a macro, the
  // statement that defines it (each render defines its macros anew).
  virtual const void* definition() const { return this; }
};

// A builtin function, optionally bound to a subject (a method: `"a b".split`).
class BuiltinFunction final : public Function {
 public:
  using Fn = Value (*)(Renderer& renderer, const Value& self, CallArgs& args);
  BuiltinFunction(std::string_view name, Fn fn, Value self = {})
      : name_(name), fn_(fn), self_(std::move(self)) {}
  Value Call(Renderer& renderer, CallArgs& args) const override {
    return fn_(renderer, self_, args);
  }
  std::string_view name() const override { return name_; }

 private:
  std::string_view name_;
  Fn fn_;
  Value self_;
};

}  // namespace crux::chat_template
