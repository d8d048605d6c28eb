// Python's spelling of values: float repr, str repr, json.dumps, and the UTF-8 code point
// view that str indexing, slicing and len() use.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/chat_template/value.h"

namespace crux::chat_template::python {

// repr(float): the shortest round-tripping digits, fixed notation for exponents in [-4, 16).
std::string FloatRepr(double value);

// repr(str): quoted with ' (or " when the text has ' and no "), control characters escaped.
std::string StrRepr(std::string_view text);

struct JsonOptions {
  bool ensure_ascii = false;
  bool indent_set = false;  // indent=None when false
  std::string indent;
  std::string item_separator = ", ";
  std::string key_separator = ": ";
  bool sort_keys = false;
};

// json.dumps(value, ...); nullopt with `error` set for what Python cannot serialise
// (undefined, callables, namespaces, keys that are not scalars).
std::optional<std::string> JsonDumps(const Value& value, const JsonOptions& options,
                                     std::string& error);

// Byte offsets of each code point of `text` plus text.size() at the end (so code point i is
// text[offsets[i], offsets[i + 1])). Invalid bytes count as one code point each.
std::vector<size_t> CodePointOffsets(std::string_view text);

// The number of code points of `text` (Python's len()).
size_t CodePointCount(std::string_view text);

// Python's str.isspace() for one ASCII byte.
inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
         (c >= '\x1c' && c <= '\x1f');
}

// Appends the UTF-8 encoding of `code_point`.
void AppendUtf8(std::string& out, uint32_t code_point);

}  // namespace crux::chat_template::python
