#include "crux/constrain/extract.h"

#include "crux/constrain/validate.h"
#include "crux/text/json_text.h"
#include "crux/text/stream_buffer.h"

namespace crux::constrain {
namespace {

bool IsJson(std::string_view text) {
  return !text.empty() && text::JsonTextType(text);
}

// After an opening fence at `at` (the backticks): the inside starts past an optional `json`
// tag and the end of its line.
size_t FenceBody(std::string_view text, size_t at) {
  size_t body = at + 3;
  if (text.substr(body, 4) == "json") body += 4;
  while (body < text.size() && (text[body] == ' ' || text[body] == '\t'))
    ++body;
  if (body < text.size() && text[body] == '\r') ++body;
  if (body < text.size() && text[body] == '\n') ++body;
  return body;
}

std::optional<std::string_view> FromFences(std::string_view text) {
  size_t from = 0;
  while (true) {
    const size_t open = text.find("```", from);
    if (open == std::string_view::npos) return std::nullopt;
    const size_t body = FenceBody(text, open);
    const size_t close = text.find("```", body);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view inside = text::Trim(text.substr(body, close - body));
    if (IsJson(inside)) return inside;
    from = close + 3;
  }
}

std::optional<std::string_view> FromUnterminatedFence(std::string_view text) {
  const size_t last = text.rfind("```");
  if (last == std::string_view::npos) return std::nullopt;
  std::string_view inside = text::Trim(text.substr(FenceBody(text, last)));
  if (inside.size() >= 3 && inside.substr(inside.size() - 3) == "```")
    inside = text::Trim(inside.substr(0, inside.size() - 3));
  if (IsJson(inside)) return inside;
  return std::nullopt;
}

// The balanced value starting at `open` (a bracket), or npos; each byte read costs one unit
// of `budget`, and npos is returned when it runs out.
size_t BalancedEnd(std::string_view text, size_t open, size_t& budget) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = open; i < text.size(); ++i) {
    if (budget == 0) return std::string_view::npos;
    --budget;
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\') {
        ++i;
      } else if (ch == '"') {
        in_string = false;
      }
      continue;
    }
    if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      ++depth;
    } else if (ch == '}' || ch == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

std::optional<std::string_view> FromBalancedScan(std::string_view text) {
  // Linear work at most (a few passes over the answer), whatever its brackets.
  size_t budget = 8 * text.size() + 4096;
  for (size_t at = text.find_first_of("{["); at != std::string_view::npos;
       at = text.find_first_of("{[", at + 1)) {
    const size_t end = BalancedEnd(text, at, budget);
    if (budget == 0) break;
    if (end == std::string_view::npos) continue;
    const std::string_view candidate = text.substr(at, end - at);
    if (IsJson(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> ExtractJson(std::string_view answer) {
  const std::string_view trimmed = text::Trim(answer);
  if (IsJson(trimmed)) return trimmed;
  if (auto fenced = FromFences(trimmed)) return fenced;
  if (auto open = FromUnterminatedFence(trimmed)) return open;
  return FromBalancedScan(trimmed);
}

AnswerCheck CheckAnswer(std::string_view answer, const SchemaIr* schema) {
  AnswerCheck check;
  const std::optional<std::string_view> json = ExtractJson(answer);
  if (!json) {
    check.error = "no JSON value in the answer";
    return check;
  }
  check.json = std::string(*json);
  if (schema == nullptr) {
    if (text::JsonTextType(*json) != text::JsonType::kObject) {
      check.error = "the root is not an object";
      return check;
    }
    check.valid = true;
    return check;
  }
  const ValidationResult result = Validate(*schema, *json);
  if (!result.valid()) {
    const Violation& first = result.violations.front();
    check.error = "JSON Schema validation failed: " +
                  (first.json_pointer.empty() ? std::string("(root)") : first.json_pointer) + ": " +
                  first.message;
    return check;
  }
  check.valid = true;
  return check;
}

}  // namespace crux::constrain
