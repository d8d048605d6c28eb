#include "chat_template/python.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "chat_template/function.h"

namespace crux::chat_template::python {

namespace {

// Python's repr of a finite float from its shortest digits and decimal point position.
std::string FormatDigits(bool negative, const std::string& digits, int decpt) {
  std::string out = negative ? "-" : "";
  const int n = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(-decpt, '0') + digits;
    } else if (decpt >= n) {
      out += digits + std::string(decpt - n, '0') + ".0";
    } else {
      out += digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
    return out;
  }
  out += digits[0];
  if (n > 1) out.append(".").append(digits, 1, std::string::npos);
  const int exponent = decpt - 1;
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + buffer;
}

}  // namespace

std::string FloatRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value),
                              std::chars_format::scientific);
  std::string_view text(buffer, result.ptr - buffer);
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  return FormatDigits(std::signbit(value), digits, exponent + 1);
}

std::string StrRepr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    if (c == '\\' || c == quote) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    } else if (c == 0xc2 && i + 1 < text.size() &&
               (static_cast<unsigned char>(text[i + 1]) <= 0xa0 ||
                static_cast<unsigned char>(text[i + 1]) == 0xad)) {
      // U+0080..U+00A0 and U+00AD are not printable: Python writes them as \xNN.
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(text[i + 1]));
      out += buffer;
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += quote;
  return out;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

namespace {

// The length of the UTF-8 sequence starting at text[i] (1 for an invalid byte).
size_t SequenceLength(std::string_view text, size_t i) {
  const unsigned char c = text[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (i + n > text.size()) return 1;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 1;
  }
  return n;
}

uint32_t DecodeAt(std::string_view text, size_t i, size_t n) {
  const unsigned char c = text[i];
  if (n == 1) return c;
  uint32_t cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
  return cp;
}

}  // namespace

std::vector<size_t> CodePointOffsets(std::string_view text) {
  std::vector<size_t> offsets;
  offsets.reserve(text.size() + 1);
  for (size_t i = 0; i < text.size(); i += SequenceLength(text, i))
    offsets.push_back(i);
  offsets.push_back(text.size());
  return offsets;
}

size_t CodePointCount(std::string_view text) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); i += SequenceLength(text, i))
    ++count;
  return count;
}

namespace {

void AppendJsonString(std::string& out, std::string_view text, bool ensure_ascii) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    const size_t n = SequenceLength(text, i);
    const unsigned char c = text[i];
    char buffer[16];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f') {
      out += '\\';
      out += c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : c == '\b' ? 'b' : 'f';
    } else if (c < 0x20 || (ensure_ascii && c >= 0x7f)) {
      uint32_t cp = DecodeAt(text, i, n);
      if (cp >= 0x10000) {
        cp -= 0x10000;
        std::snprintf(buffer, sizeof buffer, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
                      0xdc00 + (cp & 0x3ff));
      } else {
        std::snprintf(buffer, sizeof buffer, "\\u%04x", cp);
      }
      out += buffer;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

struct JsonWriter {
  const JsonOptions& options;
  std::string& error;
  std::string out;

  bool Write(const Value& value, int depth);
  bool WriteItems(const std::vector<Value>& items, int depth);
  bool WriteDict(const DictData& dict, int depth);
  bool KeyText(const Value& key, std::string& text);
  void NewLine(int depth) {
    if (!options.indent_set) return;
    out += '\n';
    SizeCap::Bytes(out.size() + options.indent.size() * static_cast<size_t>(depth));
    for (int i = 0; i < depth; ++i)
      out += options.indent;
  }
};

bool JsonWriter::Write(const Value& value, int depth) {
  if (depth > 500) {
    error = "maximum recursion depth exceeded while encoding a JSON object";
    return false;
  }
  switch (value.kind()) {
    case Value::Kind::kNone:
      out += "null";
      return true;
    case Value::Kind::kBool:
      out += value.as_bool() ? "true" : "false";
      return true;
    case Value::Kind::kInt:
      out += std::to_string(value.as_int());
      return true;
    case Value::Kind::kFloat: {
      const double f = value.as_float();
      out += std::isnan(f)   ? "NaN"
             : std::isinf(f) ? (f < 0 ? "-Infinity" : "Infinity")
                             : FloatRepr(f);
      return true;
    }
    case Value::Kind::kString:
      AppendJsonString(out, value.as_string(), options.ensure_ascii);
      return true;
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      if (value.flavor() != ListFlavor::kList) break;
      return WriteItems(value.items(), depth);
    case Value::Kind::kDict:
      return WriteDict(value.dict(), depth);
    default:
      break;
  }
  error = "Object of type " + std::string(value.TypeName()) + " is not JSON serializable";
  return false;
}

bool JsonWriter::WriteItems(const std::vector<Value>& items, int depth) {
  if (items.empty()) {
    out += "[]";
    return true;
  }
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += options.item_separator;
    NewLine(depth + 1);
    if (!Write(items[i], depth + 1)) return false;
    SizeCap::Bytes(out.size());
  }
  NewLine(depth);
  out += ']';
  return true;
}

bool JsonWriter::KeyText(const Value& key, std::string& text) {
  switch (key.kind()) {
    case Value::Kind::kString:
      text = key.as_string();
      return true;
    case Value::Kind::kNone:
      text = "null";
      return true;
    case Value::Kind::kBool:
      text = key.as_bool() ? "true" : "false";
      return true;
    case Value::Kind::kInt:
    case Value::Kind::kFloat: {
      std::string saved = std::move(out);
      out.clear();
      Write(key, 0);
      text = std::move(out);
      out = std::move(saved);
      return true;
    }
    default:
      error = "keys must be str, int, float, bool or None, not " + std::string(key.TypeName());
      return false;
  }
}

bool JsonWriter::WriteDict(const DictData& dict, int depth) {
  if (dict.entries.empty()) {
    out += "{}";
    return true;
  }
  std::vector<std::pair<std::string, const Value*>> entries;
  for (const auto& [key, item] : dict.entries) {
    std::string text;
    if (!KeyText(key, text)) return false;
    if (options.sort_keys && !key.is_string()) {
      error = "'<' not supported between instances of non-string keys";
      return false;
    }
    entries.emplace_back(std::move(text), &item);
  }
  if (options.sort_keys) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  out += '{';
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += options.item_separator;
    NewLine(depth + 1);
    AppendJsonString(out, entries[i].first, options.ensure_ascii);
    out += options.key_separator;
    if (!Write(*entries[i].second, depth + 1)) return false;
    SizeCap::Bytes(out.size());
  }
  NewLine(depth);
  out += '}';
  return true;
}

}  // namespace

std::optional<std::string> JsonDumps(const Value& value, const JsonOptions& options,
                                     std::string& error) {
  JsonWriter writer{options, error, {}};
  if (!writer.Write(value, 0)) return std::nullopt;
  return std::move(writer.out);
}

}  // namespace crux::chat_template::python
