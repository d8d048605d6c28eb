// Parsing of the MCP config file into crux::mcp::Config (see crux/mcp/config.h for the
// format). Each key is read by one entry of a table, so the table is also the list of known
// keys that unknown-key errors are checked against.
#include "crux/mcp/config.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <utility>

#include "crux/mcp/security.h"

namespace crux::mcp {
namespace {

// ordered_json keeps the servers in file order.
using Json = nlohmann::ordered_json;

constexpr size_t kMaxConfigBytes = size_t{1} << 20;
constexpr size_t kMaxServerNameLength = 64;

Error Invalid(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

// The place a value was read from: "MCP config" or "MCP server 'fs'", and its key.
struct Where {
  std::string scope;
  std::string_view key;

  Error Fail(std::string_view what) const {
    return Invalid(scope + ": '" + std::string(key) + "' " + std::string(what));
  }
};

std::string ServerScope(std::string_view name) {
  return "MCP server '" + std::string(name) + "'";
}

Expected<std::string> ReadString(const Json& value, const Where& where) {
  if (!value.is_string()) return where.Fail("must be a string");
  return value.get<std::string>();
}

Expected<bool> ReadBool(const Json& value, const Where& where) {
  if (!value.is_boolean()) return where.Fail("must be true or false");
  return value.get<bool>();
}

Expected<double> ReadSeconds(const Json& value, const Where& where) {
  const double seconds = value.is_number() ? value.get<double>() : 0;
  if (!value.is_number() || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > kMaxTimeoutSeconds) {
    return where.Fail("must be a positive number of seconds (at most 86400)");
  }
  return seconds;
}

Expected<int64_t> ReadPositiveInt(const Json& value, const Where& where, int64_t max) {
  bool ok = value.is_number_integer();
  int64_t number = 0;
  if (ok && value.is_number_unsigned()) {
    const uint64_t unsigned_number = value.get<uint64_t>();
    ok = unsigned_number <= static_cast<uint64_t>(max);
    number = ok ? static_cast<int64_t>(unsigned_number) : 0;
  } else if (ok) {
    number = value.get<int64_t>();
  }
  if (!ok || number < 1 || number > max) {
    return where.Fail("must be a positive integer (at most " + std::to_string(max) + ")");
  }
  return number;
}

Expected<int> ReadPositiveInt32(const Json& value, const Where& where) {
  Expected<int64_t> number = ReadPositiveInt(value, where, std::numeric_limits<int>::max());
  if (!number) return number.error();
  return static_cast<int>(*number);
}

Expected<std::vector<std::string>> ReadStringList(const Json& value, const Where& where,
                                                  bool non_empty) {
  const std::string_view what =
      non_empty ? "must be a list of non-empty strings" : "must be a list of strings";
  if (!value.is_array()) return where.Fail(what);
  std::vector<std::string> list;
  for (const Json& item : value) {
    if (!item.is_string()) return where.Fail(what);
    std::string text = item.get<std::string>();
    if (non_empty && text.find_first_not_of(" \t\r\n") == std::string::npos) {
      return where.Fail(what);
    }
    list.push_back(std::move(text));
  }
  return list;
}

Expected<std::map<std::string, std::string>> ReadStringMap(const Json& value, const Where& where) {
  if (!value.is_object()) return where.Fail("must be an object of strings");
  std::map<std::string, std::string> map;
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) {
      return where.Fail("must be an object of strings ('" + key + "' is not a string)");
    }
    map.emplace(key, item.get<std::string>());
  }
  return map;
}

Expected<int64_t> ReadPositiveInt64(const Json& value, const Where& where) {
  return ReadPositiveInt(value, where, std::numeric_limits<int64_t>::max());
}

Expected<std::vector<std::string>> ReadStrings(const Json& value, const Where& where) {
  return ReadStringList(value, where, false);
}

Expected<std::vector<std::string>> ReadNonEmptyStrings(const Json& value, const Where& where) {
  return ReadStringList(value, where, true);
}

// Reads `value` with `Read` into `target.*Field`: one row of a key table.
template <typename Target, auto Field, auto Read>
Status SetField(const Json& value, const Where& where, Target& target) {
  auto result = Read(value, where);
  if (!result) return result.error();
  target.*Field = std::move(*result);
  return {};
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

// "unknown key 'comand' (did you mean 'command'?)", with hints for keys other clients use.
template <typename Table>
Error UnknownKey(const std::string& scope, const std::string& key, const Table& table) {
  std::string message = scope + ": unknown key '" + key + "'";
  if (key == "skip_security_validation") {
    return Invalid(scope + ": uses removed field 'skip_security_validation'. Set the " +
                   "environment variable " + std::string(kAllowUnsafeEnv) +
                   "=1 for an explicit local development bypass.");
  }
  if (key == "disabled") return Invalid(message + " (use \"enabled\": false)");
  for (const auto& entry : table) {
    if (EditDistance(key, entry.key) <= 2) {
      return Invalid(message + " (did you mean '" + std::string(entry.key) + "'?)");
    }
  }
  return Invalid(message);
}

// The entry of `table` for `key`, or table.end().
template <typename Table>
auto FindKey(const Table& table, std::string_view key) {
  return std::find_if(table.begin(), table.end(), [&](const auto& k) { return k.key == key; });
}

// ---- server entries ----

using ServerReader = Status (*)(const Json& value, const Where& where, ServerConfig& server);

struct ServerKey {
  std::string_view key;
  ServerReader read;  // nullptr: read by ChooseTransport
};

constexpr std::array<ServerKey, 11> kServerKeys = {{
    {"transport", nullptr},
    {"type", nullptr},
    {"command", SetField<ServerConfig, &ServerConfig::command, ReadString>},
    {"args", SetField<ServerConfig, &ServerConfig::args, ReadStrings>},
    {"env", SetField<ServerConfig, &ServerConfig::env, ReadStringMap>},
    {"cwd", SetField<ServerConfig, &ServerConfig::cwd, ReadString>},
    {"url", SetField<ServerConfig, &ServerConfig::url, ReadString>},
    {"headers", SetField<ServerConfig, &ServerConfig::headers, ReadStringMap>},
    {"enabled", SetField<ServerConfig, &ServerConfig::enabled, ReadBool>},
    {"timeout", SetField<ServerConfig, &ServerConfig::timeout_s, ReadSeconds>},
    {"max_concurrency", SetField<ServerConfig, &ServerConfig::max_concurrency, ReadPositiveInt32>},
}};

// The transport named by `transport` or its alias `type`, or implied by command / url.
Expected<Transport> ChooseTransport(const Json& entry, const ServerConfig& server,
                                    const std::string& scope) {
  if (entry.contains("transport") && entry.contains("type")) {
    return Invalid(scope + ": 'transport' and its alias 'type' are both given; use one");
  }
  const std::string_view key = entry.contains("type") ? "type" : "transport";
  if (entry.contains(key)) {
    Expected<std::string> name = ReadString(entry.at(std::string(key)), Where{scope, key});
    if (!name) return name.error();
    if (std::optional<Transport> transport = TransportFromName(*name)) return *transport;
    if (*name == "sse") {
      return Invalid(scope + ": transport 'sse' (the legacy HTTP+SSE transport) is not " +
                     "supported; use 'http' (Streamable HTTP)");
    }
    return Invalid(scope + ": unknown transport '" + *name +
                   "'; available: stdio, http, streamable-http");
  }
  if (!server.command.empty() && !server.url.empty()) {
    return Invalid(scope + ": both 'command' and 'url' are given; set 'transport'");
  }
  if (!server.url.empty()) return Transport::kHttp;
  if (!server.command.empty()) return Transport::kStdio;
  return Invalid(scope + ": needs 'command' (stdio transport) or 'url' (http transport)");
}

// Requires the keys `transport` needs and refuses those of the other transport.
Status CheckTransportKeys(const Json& entry, const ServerConfig& server, const std::string& scope) {
  const bool stdio = server.transport == Transport::kStdio;
  if (stdio && server.command.empty()) {
    return Invalid(scope + ": stdio transport requires 'command'");
  }
  if (!stdio && server.url.empty()) return Invalid(scope + ": http transport requires 'url'");
  static constexpr std::array<std::string_view, 2> kHttpKeys = {"url", "headers"};
  static constexpr std::array<std::string_view, 4> kStdioKeys = {"command", "args", "env", "cwd"};
  const std::span<const std::string_view> refused =
      stdio ? std::span<const std::string_view>(kHttpKeys) : kStdioKeys;
  for (const std::string_view key : refused) {
    if (entry.contains(key)) {
      return Invalid(scope + ": '" + std::string(key) + "' does not apply to the " +
                     std::string(TransportName(server.transport)) + " transport");
    }
  }
  return {};
}

Expected<ServerConfig> ParseServer(const std::string& name, const Json& entry) {
  const std::string scope = ServerScope(name);
  if (!IsValidServerName(name)) {
    return Invalid(scope + ": invalid server name; names match ^[A-Za-z0-9_-]{1,64}$, " +
                   "contain no '__' and do not end in '_' ('__' separates server and tool)");
  }
  if (!entry.is_object()) return Invalid(scope + ": config must be an object");
  ServerConfig server;
  server.name = name;
  for (const auto& item : entry.items()) {
    const std::string& key = item.key();
    const Json& value = item.value();
    const auto known = FindKey(kServerKeys, key);
    if (known == kServerKeys.end()) return UnknownKey(scope, key, kServerKeys);
    if (known->read == nullptr) continue;
    if (Status status = known->read(value, Where{scope, known->key}, server); !status) {
      return status.error();
    }
  }
  Expected<Transport> transport = ChooseTransport(entry, server, scope);
  if (!transport) return transport.error();
  server.transport = *transport;
  if (Status status = CheckTransportKeys(entry, server, scope); !status) return status.error();
  return server;
}

// ---- the root ----

using RootReader = Status (*)(const Json& value, const Where& where, Config& config);

struct RootKey {
  std::string_view key;
  RootReader read;  // nullptr: the servers map, read by ParseServers
};

constexpr std::array<RootKey, 11> kRootKeys = {{
    {"servers", nullptr},
    {"mcpServers", nullptr},
    {"default_timeout", SetField<Config, &Config::default_timeout_s, ReadSeconds>},
    {"startup_timeout", SetField<Config, &Config::startup_timeout_s, ReadSeconds>},
    {"max_tool_calls", SetField<Config, &Config::max_tool_calls, ReadPositiveInt32>},
    {"max_concurrency", SetField<Config, &Config::max_concurrency, ReadPositiveInt32>},
    {"max_output_bytes", SetField<Config, &Config::max_output_bytes, ReadPositiveInt64>},
    {"allowed_high_risk_tools",
     SetField<Config, &Config::allowed_high_risk_tools, ReadNonEmptyStrings>},
    {"allow_tools", SetField<Config, &Config::allow_tools, ReadNonEmptyStrings>},
    {"deny_tools", SetField<Config, &Config::deny_tools, ReadNonEmptyStrings>},
    {"allow_tool_changes", SetField<Config, &Config::allow_tool_changes, ReadBool>},
}};

Status ParseServers(const Json& root, Config& config) {
  if (root.contains("servers") && root.contains("mcpServers")) {
    return Invalid("MCP config: both 'servers' and its alias 'mcpServers' are given; use one");
  }
  const std::string_view key = root.contains("mcpServers") ? "mcpServers" : "servers";
  if (!root.contains(key)) return {};
  const Json& servers = root.at(std::string(key));
  if (!servers.is_object()) {
    return Where{"MCP config", key}.Fail(
        "must be an object mapping server names to server entries");
  }
  for (const auto& [name, entry] : servers.items()) {
    Expected<ServerConfig> server = ParseServer(name, entry);
    if (!server) return server.error();
    config.servers.push_back(std::move(*server));
  }
  return {};
}

Expected<Config> ParseRoot(const Json& root) {
  if (!root.is_object()) return Invalid("MCP config must be an object");
  Config config;
  for (const auto& item : root.items()) {
    const std::string& key = item.key();
    const Json& value = item.value();
    const auto known = FindKey(kRootKeys, key);
    if (known == kRootKeys.end()) return UnknownKey("MCP config", key, kRootKeys);
    if (known->read == nullptr) continue;
    if (Status status = known->read(value, Where{"MCP config", known->key}, config); !status) {
      return status.error();
    }
  }
  if (Status status = ParseServers(root, config); !status) return status.error();
  return config;
}

// Parses JSON, refusing repeated keys in any object (a repeated server would otherwise
// silently replace the first).
Expected<Json> ParseJson(std::string_view text) {
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == Json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == Json::parse_event_t::key && !open_objects.empty() &&
        !open_objects.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    Json json = Json::parse(text.begin(), text.end(), callback);
    if (!duplicate.empty()) {
      return Error(ErrorCode::kParse, "MCP config repeats the key '" + duplicate + "'");
    }
    return json;
  } catch (const Json::parse_error& error) {
    std::string what = error.what();
    if (const size_t end = what.find("] ");
        what.starts_with("[json.exception") && end != std::string::npos) {
      what.erase(0, end + 2);
    }
    return Error(ErrorCode::kParse, "MCP config is not valid JSON: " + what);
  }
}

}  // namespace

std::string_view TransportName(Transport transport) {
  return transport == Transport::kStdio ? "stdio" : "http";
}

std::optional<Transport> TransportFromName(std::string_view name) {
  if (name == "stdio") return Transport::kStdio;
  if (name == "http" || name == "streamable-http" || name == "streamable_http") {
    return Transport::kHttp;
  }
  return std::nullopt;
}

const ServerConfig* Config::FindServer(std::string_view name) const {
  for (const ServerConfig& server : servers) {
    if (server.name == name) return &server;
  }
  return nullptr;
}

bool IsValidServerName(std::string_view name) {
  if (name.empty() || name.size() > kMaxServerNameLength) return false;
  if (name.find("__") != std::string_view::npos || name.back() == '_') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

Expected<Config> ParseConfig(std::string_view json_text, const SecurityOptions& security) {
  Expected<Json> json = ParseJson(json_text);
  if (!json) return json.error();
  Expected<Config> config = ParseRoot(*json);
  if (!config) return config;
  for (const ServerConfig& server : config->servers) {
    if (!server.enabled) continue;
    if (Status status = ValidateServer(server, security); !status) return status.error();
  }
  return config;
}

Expected<Config> LoadConfig(const std::string& path, const SecurityOptions& security) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    return Error(ErrorCode::kNotFound, "MCP config file not found: " + path);
  }
  if (path.ends_with(".yaml") || path.ends_with(".yml")) {
    return Error(ErrorCode::kUnsupported,
                 "MCP config file " + path + " is YAML; crux reads JSON config files");
  }
  if (!std::filesystem::is_regular_file(status)) {
    return Error(ErrorCode::kIo, "MCP config file " + path + " is not a regular file");
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxConfigBytes) {
    return Error(ErrorCode::kLimit, "MCP config file " + path + " is larger than 1 MiB");
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (!in.is_open() || in.bad()) {
    return Error(ErrorCode::kIo, "cannot read MCP config file " + path);
  }
  Expected<Config> config = ParseConfig(text, security);
  if (!config) return config.error().WithContext(path);
  return config;
}

}  // namespace crux::mcp
