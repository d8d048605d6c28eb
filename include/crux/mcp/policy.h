// Runtime tool policy: which configured tools a call may reach and with which arguments
// (runtime.md §3.8 steps 1-4), and the sanitiser for audit-log records (§3.9).
//
// Arguments are nlohmann::ordered_json, the JSON type of the protocol layer and the MCP client
// (crux/mcp/jsonrpc.h), so a call's arguments are checked and logged without a conversion and
// keep their key order in the audit log.
//
// Thread-safety: a ToolPolicy is immutable after construction; share it freely.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/mcp/config.h"

namespace crux::mcp {

// Shell-style glob over bytes: `*` matches any run (empty included), `?` exactly one byte,
// every other byte itself. No character classes or escapes. O(|pattern| · |text|) worst case.
bool GlobMatch(std::string_view pattern, std::string_view text);

// Substrings that mark a tool name as high risk (matched on the lower-cased tool name).
const std::vector<std::string>& HighRiskToolWords();

// Substrings refused in string arguments by default: `../`, `/etc/`, `/proc/`, `/sys/`,
// `~root`, `/root/`.
const std::vector<std::string>& DefaultBlockedArgumentPatterns();

class ToolPolicy {
 public:
  // Takes allow_tools, deny_tools and allowed_high_risk_tools from `config`.
  explicit ToolPolicy(const Config& config, std::vector<std::string> blocked_argument_patterns =
                                                DefaultBlockedArgumentPatterns());

  // Whether `server`'s tool `tool` may be called with `arguments`, in this order:
  // 1. a deny_tools pattern matching `server__tool` (case-insensitively, so no spelling of a
  //    denied name slips through) → "Tool 'fs__write' is blocked by security policy
  //    (deny_tools pattern 'fs__w*')";
  // 2. allow_tools given and none matching `server__tool` exactly → "Tool 'fs__write' is not
  //    in the allowed tools list";
  // 3. a lower-cased tool name containing a HighRiskToolWords() entry, unless the tool or
  //    `server__tool` is in allowed_high_risk_tools (any case) → "High-risk tool 'x' is
  //    blocked by security policy. Add 's__x' or 'x' to allowed_high_risk_tools to allow it
  //    explicitly.";
  // 4. a string anywhere in `arguments` (values, not keys) containing a blocked pattern or a
  //    `..` path segment → "Tool 'read' argument 'paths[1]' contains blocked pattern: /etc/"
  //    (the path joins keys with `.` and writes array items as `[i]`; `root` for a bare
  //    string).
  // Errors are kInvalidArgument.
  Status Check(std::string_view server, std::string_view tool,
               const nlohmann::ordered_json& arguments) const;

  // True when `tool` (without its server) is high risk per step 3, exemptions aside.
  static bool IsHighRisk(std::string_view tool);

 private:
  Status CheckArguments(std::string_view tool, const nlohmann::ordered_json& arguments) const;

  std::vector<std::string> allow_patterns_;
  std::vector<std::string> deny_patterns_;      // lower-cased
  std::vector<std::string> allowed_high_risk_;  // lower-cased
  std::vector<std::string> blocked_argument_patterns_;
};

// A copy of tool-call arguments fit for an audit log: the value of every object key that
// contains (in any case) password, token, secret, key, credential or auth becomes
// "[REDACTED]"; a string longer than 1000 characters becomes its first 100 characters and
// "... [truncated, <n> chars total]" (characters are code points; the cut never splits one).
nlohmann::ordered_json SanitizeForAudit(const nlohmann::ordered_json& arguments);

}  // namespace crux::mcp
