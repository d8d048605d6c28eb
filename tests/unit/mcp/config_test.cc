#include "crux/mcp/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "crux/mcp/security.h"

namespace crux::mcp {
namespace {

namespace fs = std::filesystem;

// These tests are about the file format, so commands need not exist on this machine.
SecurityOptions Options() {
  SecurityOptions options;
  options.check_path = false;
  return options;
}

Config Parse(const std::string& json) {
  Expected<Config> config = ParseConfig(json, Options());
  EXPECT_TRUE(config.ok()) << json << ": " << config.error().message();
  return config.ok() ? *config : Config();
}

TEST(McpConfig, EmptyConfigHasTheDefaults) {
  const Config config = Parse("{}");
  EXPECT_TRUE(config.servers.empty());
  EXPECT_EQ(config.default_timeout_s, 60);
  EXPECT_EQ(config.startup_timeout_s, 10);
  EXPECT_EQ(config.max_tool_calls, 10);
  EXPECT_EQ(config.max_concurrency, 4);
  EXPECT_EQ(config.max_output_bytes, 100000);
  EXPECT_TRUE(config.allowed_high_risk_tools.empty());
  EXPECT_TRUE(config.allow_tools.empty());
  EXPECT_TRUE(config.deny_tools.empty());
  EXPECT_FALSE(config.allow_tool_changes);
  EXPECT_TRUE(Parse(R"({"servers": {}})").servers.empty());
}

TEST(McpConfig, EveryKeyIsRead) {
  const Config config = Parse(R"({
    "servers": {
      "zeta": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],
               "env": {"MEMORY_FILE": "/tmp/m.json"}, "cwd": "/tmp", "timeout": 2.5,
               "max_concurrency": 2, "enabled": true},
      "alpha": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer t"}},
      "off": {"transport": "stdio", "command": "npx", "enabled": false}
    },
    "default_timeout": 30, "startup_timeout": 5.5, "max_tool_calls": 3, "max_concurrency": 8,
    "max_output_bytes": 25000, "allowed_high_risk_tools": ["ops__execute"],
    "allow_tools": ["zeta__*"], "deny_tools": ["*__delete*"], "allow_tool_changes": true
  })");
  ASSERT_EQ(config.servers.size(), 3u);
  const ServerConfig& zeta = config.servers[0];  // file order, not sorted
  EXPECT_EQ(zeta.name, "zeta");
  EXPECT_EQ(zeta.transport, Transport::kStdio);
  EXPECT_EQ(zeta.command, "npx");
  EXPECT_EQ(zeta.args, (std::vector<std::string>{"-y", "@modelcontextprotocol/server-memory"}));
  EXPECT_EQ(zeta.env.at("MEMORY_FILE"), "/tmp/m.json");
  EXPECT_EQ(zeta.cwd, "/tmp");
  EXPECT_EQ(zeta.timeout_s, 2.5);
  EXPECT_EQ(zeta.max_concurrency, 2);
  EXPECT_TRUE(zeta.enabled);
  const ServerConfig& alpha = config.servers[1];
  EXPECT_EQ(alpha.name, "alpha");
  EXPECT_EQ(alpha.transport, Transport::kHttp);
  EXPECT_EQ(alpha.url, "https://mcp.example.com/mcp");
  EXPECT_EQ(alpha.headers.at("Authorization"), "Bearer t");
  EXPECT_EQ(alpha.timeout_s, std::nullopt);
  EXPECT_EQ(alpha.max_concurrency, std::nullopt);
  EXPECT_FALSE(config.servers[2].enabled);
  EXPECT_EQ(config.default_timeout_s, 30);
  EXPECT_EQ(config.startup_timeout_s, 5.5);
  EXPECT_EQ(config.max_tool_calls, 3);
  EXPECT_EQ(config.max_concurrency, 8);
  EXPECT_EQ(config.max_output_bytes, 25000);
  EXPECT_EQ(config.allowed_high_risk_tools, std::vector<std::string>{"ops__execute"});
  EXPECT_EQ(config.allow_tools, std::vector<std::string>{"zeta__*"});
  EXPECT_EQ(config.deny_tools, std::vector<std::string>{"*__delete*"});
  EXPECT_TRUE(config.allow_tool_changes);
  EXPECT_EQ(config.CallTimeoutSeconds(zeta), 2.5);
  EXPECT_EQ(config.CallTimeoutSeconds(alpha), 30);
  EXPECT_EQ(config.FindServer("alpha"), &config.servers[1]);
  EXPECT_EQ(config.FindServer("beta"), nullptr);
}

// The Claude Desktop / Claude Code / Cursor shape.
TEST(McpConfig, McpServersAliasAndTransportNames) {
  const Config config = Parse(R"({"mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "a": {"type": "http", "url": "http://localhost:3000/mcp"},
    "b": {"transport": "streamable-http", "url": "http://localhost:3001/mcp"},
    "c": {"type": "streamable_http", "url": "http://localhost:3002/mcp"},
    "d": {"type": "stdio", "command": "node", "args": ["server.js"]}
  }})");
  ASSERT_EQ(config.servers.size(), 5u);
  EXPECT_EQ(config.servers[0].transport, Transport::kStdio);
  EXPECT_EQ(config.servers[1].transport, Transport::kHttp);
  EXPECT_EQ(config.servers[2].transport, Transport::kHttp);
  EXPECT_EQ(config.servers[3].transport, Transport::kHttp);
  EXPECT_EQ(config.servers[4].transport, Transport::kStdio);
  EXPECT_EQ(TransportName(Transport::kStdio), "stdio");
  EXPECT_EQ(TransportName(Transport::kHttp), "http");
  EXPECT_EQ(TransportFromName("streamable-http"), Transport::kHttp);
  EXPECT_EQ(TransportFromName("sse"), std::nullopt);
}

struct BadConfig {
  std::string json;
  ErrorCode code;
  std::string message;  // expected fragment
};

std::string Server(const std::string& entry) {
  return R"({"servers": {"fs": )" + entry + "}}";
}

std::vector<BadConfig> BadServerEntries() {
  const ErrorCode bad = ErrorCode::kInvalidArgument;
  return {
      {Server(R"({"comand": "npx"})"), bad,
       "MCP server 'fs': unknown key 'comand' (did you mean 'command'?)"},
      {Server(R"({"command": "npx", "xyzzy": 1})"), bad, "MCP server 'fs': unknown key 'xyzzy'"},
      {Server(R"({"command": "npx", "disabled": true})"), bad, "(use \"enabled\": false)"},
      {Server(R"({"command": "npx", "skip_security_validation": true})"), bad,
       "MCP server 'fs': uses removed field 'skip_security_validation'. Set the environment "
       "variable CRUX_MCP_ALLOW_UNSAFE=1"},
      {Server(R"("npx")"), bad, "MCP server 'fs': config must be an object"},
      {Server(R"({"command": 1})"), bad, "MCP server 'fs': 'command' must be a string"},
      {Server(R"({"command": "npx", "args": "-y"})"), bad,
       "MCP server 'fs': 'args' must be a list of strings"},
      {Server(R"({"command": "npx", "args": ["-y", 2]})"), bad, "'args' must be a list of strings"},
      {Server(R"({"command": "npx", "env": ["A=1"]})"), bad, "'env' must be an object of strings"},
      {Server(R"({"command": "npx", "env": {"A": 1}})"), bad, "('A' is not a string)"},
      {Server(R"({"command": "npx", "cwd": false})"), bad, "'cwd' must be a string"},
      {Server(R"({"url": "http://localhost/", "headers": {"A": null}})"), bad,
       "'headers' must be an object of strings"},
      {Server(R"({"command": "npx", "enabled": "yes"})"), bad, "'enabled' must be true or false"},
      {Server(R"({"command": "npx", "enabled": 1})"), bad, "'enabled' must be true or false"},
      {Server(R"({"command": "npx", "timeout": 0})"), bad,
       "MCP server 'fs': 'timeout' must be a positive number of seconds"},
      {Server(R"({"command": "npx", "timeout": -1})"), bad, "'timeout' must be a positive"},
      {Server(R"({"command": "npx", "timeout": "5"})"), bad, "'timeout' must be a positive"},
      {Server(R"({"command": "npx", "timeout": true})"), bad, "'timeout' must be a positive"},
      {Server(R"({"command": "npx", "timeout": 1e9})"), bad, "(at most 86400)"},
      {Server(R"({"command": "npx", "max_concurrency": 0})"), bad,
       "'max_concurrency' must be a positive integer"},
      {Server(R"({"command": "npx", "max_concurrency": 1.5})"), bad, "must be a positive integer"},
      {Server(R"({"command": "npx", "max_concurrency": 4294967296})"), bad, "(at most 2147483647)"},
      {Server(R"({"transport": "sse", "url": "http://localhost/sse"})"), bad,
       "transport 'sse' (the legacy HTTP+SSE transport) is not supported"},
      {Server(R"({"transport": "websocket", "url": "ws://x"})"), bad,
       "unknown transport 'websocket'; available: stdio, http, streamable-http"},
      {Server(R"({"transport": 1, "command": "npx"})"), bad, "'transport' must be a string"},
      {Server(R"({"transport": "stdio", "type": "stdio", "command": "npx"})"), bad,
       "'transport' and its alias 'type' are both given"},
      {Server(R"({"command": "npx", "url": "http://localhost/"})"), bad,
       "both 'command' and 'url' are given; set 'transport'"},
      {Server(R"({})"), bad, "needs 'command' (stdio transport) or 'url' (http transport)"},
      {Server(R"({"args": ["x"]})"), bad, "needs 'command'"},
      {Server(R"({"transport": "stdio"})"), bad,
       "MCP server 'fs': stdio transport requires 'command'"},
      {Server(R"({"transport": "stdio", "command": ""})"), bad,
       "stdio transport requires 'command'"},
      {Server(R"({"transport": "http"})"), bad, "MCP server 'fs': http transport requires 'url'"},
      {Server(R"({"transport": "stdio", "command": "npx", "url": "http://x/"})"), bad,
       "'url' does not apply to the stdio transport"},
      {Server(R"({"command": "npx", "headers": {}})"), bad,
       "'headers' does not apply to the stdio transport"},
      {Server(R"({"url": "http://localhost/", "args": []})"), bad,
       "'args' does not apply to the http transport"},
      {Server(R"({"url": "http://localhost/", "env": {}})"), bad, "'env' does not apply"},
      {Server(R"({"url": "http://localhost/", "cwd": "/tmp"})"), bad, "'cwd' does not apply"},
  };
}

std::vector<BadConfig> BadRoots() {
  const ErrorCode bad = ErrorCode::kInvalidArgument;
  return {
      {"[]", bad, "MCP config must be an object"},
      {R"({"servers": [], "x": 1})", bad, "MCP config: unknown key 'x'"},
      {R"({"servers": []})", bad, "MCP config: 'servers' must be an object"},
      {R"({"mcpServers": null})", bad, "MCP config: 'mcpServers' must be an object"},
      {R"({"servers": {}, "mcpServers": {}})", bad,
       "both 'servers' and its alias 'mcpServers' are given"},
      {R"({"mcp_servers": {}})", bad, "unknown key 'mcp_servers' (did you mean 'mcpServers'?)"},
      {R"({"default_timout": 5})", bad, "(did you mean 'default_timeout'?)"},
      {R"({"default_timeout": 0})", bad, "MCP config: 'default_timeout' must be a positive"},
      {R"({"default_timeout": "60"})", bad, "'default_timeout' must be a positive"},
      {R"({"startup_timeout": -1})", bad, "'startup_timeout' must be a positive"},
      {R"({"max_tool_calls": 0})", bad, "MCP config: 'max_tool_calls' must be a positive integer"},
      {R"({"max_tool_calls": 2.0})", bad, "'max_tool_calls' must be a positive integer"},
      {R"({"max_tool_calls": true})", bad, "'max_tool_calls' must be a positive integer"},
      {R"({"max_concurrency": -3})", bad, "'max_concurrency' must be a positive integer"},
      {R"({"max_output_bytes": 0})", bad, "'max_output_bytes' must be a positive integer"},
      {R"({"max_output_bytes": 1e30})", bad, "'max_output_bytes' must be a positive integer"},
      {R"({"max_output_bytes": 99999999999999999999})", bad, "must be a positive integer"},
      {R"({"allowed_high_risk_tools": "x"})", bad,
       "'allowed_high_risk_tools' must be a list of non-empty strings"},
      {R"({"allowed_high_risk_tools": ["x", " "]})", bad, "must be a list of non-empty strings"},
      {R"({"allow_tools": [1]})", bad, "'allow_tools' must be a list of non-empty strings"},
      {R"({"deny_tools": [""]})", bad, "'deny_tools' must be a list of non-empty strings"},
      {R"({"allow_tool_changes": "no"})", bad, "'allow_tool_changes' must be true or false"},
      {R"({"skip_security_validation": true})", bad, "uses removed field"},
      {"{", ErrorCode::kParse, "MCP config is not valid JSON: parse error at line 1"},
      {"", ErrorCode::kParse, "MCP config is not valid JSON"},
      {R"({"servers": {}} x)", ErrorCode::kParse, "MCP config is not valid JSON"},
      {R"({"servers": {"fs": {"command": "npx"}, "fs": {"command": "node"}}})", ErrorCode::kParse,
       "MCP config repeats the key 'fs'"},
      {R"({"servers": {"fs": {"command": "npx", "command": "bash"}}})", ErrorCode::kParse,
       "repeats the key 'command'"},
      {R"({"max_tool_calls": 1, "max_tool_calls": 2})", ErrorCode::kParse, "repeats the key"},
  };
}

std::vector<BadConfig> BadNamesAndLaunches() {
  const ErrorCode bad = ErrorCode::kInvalidArgument;
  const std::string name_rule = "invalid server name; names match ^[A-Za-z0-9_-]{1,64}$";
  auto named = [](const std::string& name) {
    return R"({"servers": {")" + name + R"(": {"command": "npx"}}})";
  };
  return {
      {named("a__b"), bad, "MCP server 'a__b': " + name_rule},
      {named("fs_"), bad, "MCP server 'fs_': " + name_rule},
      {named(""), bad, name_rule},
      {named("has space"), bad, name_rule},
      {named("a.b"), bad, name_rule},
      {named("a/b"), bad, name_rule},
      {named(std::string(65, 'a')), bad, name_rule},
      {named("caf\u00e9"), bad, name_rule},
      {Server(R"({"command": "bash"})"), bad,
       "MCP server 'fs': Command 'bash' is not in the allowed commands whitelist"},
      {Server(R"({"command": "python3", "args": ["-c", "import os"]})"), bad,
       "MCP server 'fs': Argument 0 '-c' enables inline Python execution for 'python3'"},
      {Server(R"({"command": "npx", "env": {"LD_PRELOAD": "/tmp/x.so"}})"), bad,
       "MCP server 'fs': Setting 'LD_PRELOAD' environment variable is not allowed"},
      {Server(R"({"url": "file:///etc/passwd"})"), bad,
       "MCP server 'fs': URL must use http:// or https:// scheme. Got: file:///etc/passwd"},
      {Server(R"({"url": "https://x/%2e%2e/%2e%2e/private"})"), bad,
       "MCP server 'fs': URL contains path traversal"},
  };
}

TEST(McpConfig, BadConfigsNameTheServerAndKey) {
  std::vector<BadConfig> cases = BadServerEntries();
  for (auto part : {BadRoots(), BadNamesAndLaunches()}) {
    cases.insert(cases.end(), part.begin(), part.end());
  }
  for (const BadConfig& c : cases) {
    Expected<Config> config = ParseConfig(c.json, Options());
    ASSERT_FALSE(config.ok()) << c.json;
    EXPECT_EQ(config.error().code(), c.code) << c.json << ": " << config.error().message();
    EXPECT_NE(config.error().message().find(c.message), std::string::npos)
        << c.json << ": " << config.error().message();
  }
}

TEST(McpConfig, ServerNames) {
  for (const std::string& name :
       std::vector<std::string>{"a", "fs", "my-server", "A_1", "_x", "-", std::string(64, 'z')}) {
    EXPECT_TRUE(IsValidServerName(name)) << name;
  }
  for (const std::string& name :
       std::vector<std::string>{"", "a__b", "__", "x_", "a b", "a.b", std::string(65, 'z')}) {
    EXPECT_FALSE(IsValidServerName(name)) << name;
  }
}

// A disabled server is type-checked but never launched, so its launch is not validated; the
// development bypass accepts an enabled one.
TEST(McpConfig, SecurityValidationOfEnabledServers) {
  const std::string hostile = R"({"command": "bash", "args": ["-c", "id"])";
  EXPECT_TRUE(ParseConfig(Server(hostile + R"(, "enabled": false})"), Options()).ok());
  EXPECT_FALSE(ParseConfig(Server(hostile + R"(, "enabled": "no"})"), Options()).ok());
  EXPECT_FALSE(ParseConfig(Server(hostile + "}"), Options()).ok());
  SecurityOptions unsafe = Options();
  unsafe.allow_unsafe = true;
  EXPECT_TRUE(ParseConfig(Server(hostile + "}"), unsafe).ok());
}

class McpConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "crux-mcp-config-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::string dir_;
};

TEST_F(McpConfigFile, LoadsAFile) {
  const std::string path = Write("mcp.json", Server(R"({"command": "npx"})"));
  Expected<Config> config = LoadConfig(path, Options());
  ASSERT_TRUE(config.ok()) << config.error().message();
  ASSERT_EQ(config->servers.size(), 1u);
  EXPECT_EQ(config->servers[0].name, "fs");
}

TEST_F(McpConfigFile, Errors) {
  Expected<Config> missing = LoadConfig(dir_ + "/absent.json", Options());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().message(), "MCP config file not found: " + dir_ + "/absent.json");

  const std::string yaml = Write("mcp.yaml", "servers: {}\n");
  EXPECT_EQ(LoadConfig(yaml, Options()).error().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(LoadConfig(dir_, Options()).error().code(), ErrorCode::kIo);
  EXPECT_EQ(LoadConfig(Write("big.json", std::string(2 << 20, ' ')), Options()).error().code(),
            ErrorCode::kLimit);

  // Errors inside the file name the file.
  const std::string bad = Write("bad.json", Server(R"({"comand": "npx"})"));
  Expected<Config> config = LoadConfig(bad, Options());
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().message(),
            bad + ": MCP server 'fs': unknown key 'comand' (did you mean 'command'?)");
}

}  // namespace
}  // namespace crux::mcp
