// Runtime tool policy and audit sanitising (crux/mcp/policy.h).
#include "crux/mcp/policy.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "crux/base/utf8.h"
#include "crux/mcp/security.h"

namespace crux::mcp {
namespace {

using Json = nlohmann::ordered_json;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

Error Blocked(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

// One value reached by the argument walk: its parent's index in the walk and its own step
// (`.key` or `[i]`), so a path is spelled out only for the value that is reported.
struct Step {
  size_t parent;  // npos for the root
  std::string segment;
};

std::string PathOf(const std::vector<Step>& steps, size_t at) {
  std::vector<const std::string*> segments;
  for (; at != std::string::npos; at = steps[at].parent)
    segments.push_back(&steps[at].segment);
  std::string path;
  for (auto it = segments.rbegin(); it != segments.rend(); ++it)
    path += **it;
  if (path.starts_with('.')) path.erase(0, 1);
  return path.empty() ? "root" : path;
}

// The first string value in `root`, in document order, for which `blocked` returns a pattern;
// its path and that pattern. Iterative, so deeply nested arguments cannot exhaust the stack.
template <typename Predicate>
std::optional<std::pair<std::string, std::string>> FindBlocked(const Json& root,
                                                               const Predicate& blocked) {
  std::vector<Step> steps = {{std::string::npos, ""}};
  std::vector<std::pair<const Json*, size_t>> stack = {{&root, 0}};
  while (!stack.empty()) {
    const auto [value, at] = stack.back();
    stack.pop_back();
    if (value->is_string()) {
      if (std::optional<std::string> pattern = blocked(value->get_ref<const std::string&>())) {
        return std::make_pair(PathOf(steps, at), std::move(*pattern));
      }
    } else if (value->is_object() || value->is_array()) {
      const size_t first = stack.size();
      size_t index = 0;
      for (auto it = value->begin(); it != value->end(); ++it, ++index) {
        steps.push_back(
            {at, value->is_object() ? "." + it.key() : "[" + std::to_string(index) + "]"});
        stack.emplace_back(&*it, steps.size() - 1);
      }
      std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
    }
  }
  return std::nullopt;
}

constexpr size_t kAuditMaxChars = 1000;
constexpr size_t kAuditKeptChars = 100;
constexpr int kAuditMaxDepth = 64;

bool IsSecretKey(std::string_view key) {
  static constexpr std::array<std::string_view, 6> kWords = {"password", "token",      "secret",
                                                             "key",      "credential", "auth"};
  const std::string lower = Lower(key);
  return std::any_of(kWords.begin(), kWords.end(),
                     [&](std::string_view w) { return lower.find(w) != std::string::npos; });
}

// `text` cut to its first kAuditKeptChars code points when it has more than kAuditMaxChars.
Json TruncateForAudit(const std::string& text) {
  if (text.size() <= kAuditMaxChars) return text;  // bytes ≥ code points
  size_t chars = 0;
  size_t kept_bytes = 0;
  for (size_t at = 0; at < text.size(); ++chars) {
    at += utf8::NextChar(std::string_view(text).substr(at)).length;
    if (chars + 1 == kAuditKeptChars) kept_bytes = at;
  }
  if (chars <= kAuditMaxChars) return text;
  return text.substr(0, kept_bytes) + "... [truncated, " + std::to_string(chars) + " chars total]";
}

Json Sanitize(const Json& value, int depth) {
  if (depth > kAuditMaxDepth) return "[nested too deep]";
  if (value.is_string()) return TruncateForAudit(value.get_ref<const std::string&>());
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& item : value)
      out.push_back(Sanitize(item, depth + 1));
    return out;
  }
  if (value.is_object()) {
    Json out = Json::object();
    for (const auto& [key, item] : value.items()) {
      out[key] = IsSecretKey(key) ? Json("[REDACTED]") : Sanitize(item, depth + 1);
    }
    return out;
  }
  return value;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0;
  size_t t = 0;
  size_t star = std::string_view::npos;  // position of the last `*` seen
  size_t resume = 0;                     // where that `*` resumes matching in text
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

const std::vector<std::string>& HighRiskToolWords() {
  static const std::vector<std::string> words = {"execute", "run_command", "shell",     "eval",
                                                 "exec",    "system",      "subprocess"};
  return words;
}

const std::vector<std::string>& DefaultBlockedArgumentPatterns() {
  static const std::vector<std::string> patterns = {"../",   "/etc/", "/proc/",
                                                    "/sys/", "~root", "/root/"};
  return patterns;
}

ToolPolicy::ToolPolicy(const Config& config, std::vector<std::string> blocked_argument_patterns)
    : allow_patterns_(config.allow_tools),
      blocked_argument_patterns_(std::move(blocked_argument_patterns)) {
  for (const std::string& pattern : config.deny_tools)
    deny_patterns_.push_back(Lower(pattern));
  for (const std::string& name : config.allowed_high_risk_tools) {
    allowed_high_risk_.push_back(Lower(Trim(name)));
  }
}

bool ToolPolicy::IsHighRisk(std::string_view tool) {
  const std::string lower = Lower(tool);
  const std::vector<std::string>& words = HighRiskToolWords();
  return std::any_of(words.begin(), words.end(),
                     [&](const std::string& w) { return lower.find(w) != std::string::npos; });
}

Status ToolPolicy::Check(std::string_view server, std::string_view tool,
                         const nlohmann::ordered_json& arguments) const {
  const std::string full = std::string(server) + "__" + std::string(tool);
  const std::string full_lower = Lower(full);
  for (const std::string& pattern : deny_patterns_) {
    if (GlobMatch(pattern, full_lower)) {
      return Blocked("Tool '" + full + "' is blocked by security policy (deny_tools pattern '" +
                     pattern + "')");
    }
  }
  if (!allow_patterns_.empty() &&
      std::none_of(allow_patterns_.begin(), allow_patterns_.end(),
                   [&](const std::string& pattern) { return GlobMatch(pattern, full); })) {
    return Blocked("Tool '" + full + "' is not in the allowed tools list");
  }
  if (IsHighRisk(tool)) {
    const std::string tool_lower = Lower(tool);
    const bool exempt = std::any_of(
        allowed_high_risk_.begin(), allowed_high_risk_.end(),
        [&](const std::string& name) { return name == tool_lower || name == full_lower; });
    if (!exempt) {
      return Blocked("High-risk tool '" + std::string(tool) +
                     "' is blocked by security policy. Add '" + full + "' or '" +
                     std::string(tool) + "' to allowed_high_risk_tools to allow it explicitly.");
    }
  }
  return CheckArguments(tool, arguments);
}

Status ToolPolicy::CheckArguments(std::string_view tool,
                                  const nlohmann::ordered_json& arguments) const {
  auto blocked = [&](const std::string& text) -> std::optional<std::string> {
    for (const std::string& pattern : blocked_argument_patterns_) {
      if (text.find(pattern) != std::string::npos) return pattern;
    }
    // `/data/..`, `..` and `..\x` escape as surely as `../` does.
    if (ContainsPathTraversal(text)) return "..";
    return std::nullopt;
  };
  if (auto found = FindBlocked(arguments, blocked)) {
    return Blocked("Tool '" + std::string(tool) + "' argument '" + found->first +
                   "' contains blocked pattern: " + found->second);
  }
  return {};
}

nlohmann::ordered_json SanitizeForAudit(const nlohmann::ordered_json& arguments) {
  return Sanitize(arguments, 0);
}

}  // namespace crux::mcp
