// The MCP configuration: which tool servers crux launches or connects to, and the limits and
// tool policy applied to them. A config file (JSON) is parsed into these types, with every
// key type-checked and every enabled server's launch configuration security-validated
// (crux/mcp/security.h), before anything else sees it.
//
// File format (root object):
//   servers | mcpServers   object: server name → server entry (only one of the two keys)
//   default_timeout         seconds per tool call, > 0 (60)
//   startup_timeout         seconds to start a server and list its tools, > 0 (10)
//   max_tool_calls          tool-call rounds per request, ≥ 1 (10)
//   max_concurrency         tool calls in flight across all servers, ≥ 1 (4)
//   max_output_bytes        bytes of one tool result passed on before truncation, ≥ 1 (100000)
//   allowed_high_risk_tools names (`tool` or `server__tool`) exempt from the high-risk rule
//   allow_tools, deny_tools glob patterns (`*`, `?`) over `server__tool`
//   allow_tool_changes      keep offering a tool whose description or schema changed (false)
// Server entry:
//   transport (alias type)  "stdio" | "http" ("streamable-http", "streamable_http"); default
//                           stdio when `command` is given, http when `url` is
//   command, args, env, cwd stdio: the program (a bare name found on PATH or an absolute
//                           path), its arguments, extra environment, working directory
//   url, headers            http: the endpoint (http or https) and extra request headers
//   enabled                 false: parsed and type-checked but never started (true)
//   timeout                 seconds per tool call on this server, > 0 (default_timeout)
//   max_concurrency         tool calls in flight on this server, ≥ 1 (only the global limit)
// Server names match ^[A-Za-z0-9_-]{1,64}$, contain no `__` and do not end in `_`, so that
// `<server>__<tool>` splits back on its first `__`. Nothing in the file is expanded (no `~`,
// `$VAR` or `${VAR}`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"

namespace crux::mcp {

struct SecurityOptions;  // crux/mcp/security.h

enum class Transport : uint8_t {
  kStdio,  // a child process speaking newline-delimited JSON-RPC on stdin/stdout
  kHttp,   // MCP Streamable HTTP (POST, with JSON or SSE responses)
};

// "stdio" or "http".
std::string_view TransportName(Transport transport);
// Accepts "stdio", "http", "streamable-http" and "streamable_http"; nullopt otherwise.
std::optional<Transport> TransportFromName(std::string_view name);

// One configured server. Which fields are set follows `transport`: stdio servers have a
// non-empty `command` and no `url`/`headers`; http servers a non-empty `url` and no
// `command`/`args`/`env`/`cwd`.
struct ServerConfig {
  std::string name;  // the map key; valid per IsValidServerName
  Transport transport = Transport::kStdio;
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // set over the child's minimal environment
  std::string cwd;                         // empty: inherit crux's working directory
  std::string url;
  std::map<std::string, std::string> headers;
  bool enabled = true;
  std::optional<double> timeout_s;     // per-call timeout; nullopt: Config::default_timeout_s
  std::optional<int> max_concurrency;  // nullopt: only Config::max_concurrency applies
};

struct Config {
  std::vector<ServerConfig> servers;  // in file order
  double default_timeout_s = 60;
  double startup_timeout_s = 10;
  int max_tool_calls = 10;
  int max_concurrency = 4;
  int64_t max_output_bytes = 100000;
  std::vector<std::string> allowed_high_risk_tools;
  std::vector<std::string> allow_tools;  // empty: every tool not denied is allowed
  std::vector<std::string> deny_tools;
  bool allow_tool_changes = false;

  // The server named `name`, or nullptr.
  const ServerConfig* FindServer(std::string_view name) const;
  // The per-call timeout of `server`: its own, else default_timeout_s.
  double CallTimeoutSeconds(const ServerConfig& server) const {
    return server.timeout_s.value_or(default_timeout_s);
  }
};

// Longest accepted timeout, in seconds (one day): keeps later conversions to clocks finite.
inline constexpr double kMaxTimeoutSeconds = 86400;

// True when `name` can name a server: ^[A-Za-z0-9_-]{1,64}$, no `__`, no trailing `_`.
bool IsValidServerName(std::string_view name);

// Parses and validates a config. Errors name the offending server and key ("MCP server 'fs':
// unknown key 'comand'"): kParse for text that is not JSON (or repeats a key), kInvalidArgument
// for a wrong key, type or value, and the security violation of the first enabled server that
// fails ValidateServer.
Expected<Config> ParseConfig(std::string_view json_text, const SecurityOptions& security);

// Reads `path` and parses it: kNotFound naming the path when it does not exist, kIo when it
// cannot be read, kLimit above 1 MiB, kUnsupported for a .yaml/.yml file.
Expected<Config> LoadConfig(const std::string& path, const SecurityOptions& security);

}  // namespace crux::mcp
