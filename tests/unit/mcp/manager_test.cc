// The MCP manager and executor against real servers over stdio: server-everything from npm
// and fixtures/changing_server.mjs. Tools aggregate under <server>__<tool>; the policy,
// pinning ("rug pull"), output cap, concurrency limit, timeouts and restart after a crash
// hold; every call leaves an audit record. Skipped without node and the e2e node_modules
// (CRUX_MCP_NODE_MODULES), like the client tests.
#include "crux/mcp/manager.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "unit/mcp/peers.h"

namespace crux::mcp {
namespace {

namespace fs = std::filesystem;

std::string NodeModules() {
  return peers::NodeModules();
}

ServerConfig NodeServer(std::string name, std::vector<std::string> args) {
  ServerConfig server;
  server.name = std::move(name);
  server.command = "node";
  server.args = std::move(args);
  return server;
}

ServerConfig Everything() {
  return NodeServer(
      "everything",
      {NodeModules() + "/@modelcontextprotocol/server-everything/dist/index.js", "stdio"});
}

ServerConfig Changing(std::string name = "chg") {
  const fs::path fixture =
      fs::absolute(fs::path(__FILE__).parent_path() / "fixtures") / "changing_server.mjs";
  return NodeServer(std::move(name), {fixture.string(), NodeModules()});
}

// A manager over `servers`, started, whose audit records and log lines the test can read.
struct Harness {
  explicit Harness(Config config) {
    ManagerHooks hooks;
    hooks.audit = [this](const AuditRecord& record) {
      std::lock_guard<std::mutex> lock(mutex);
      audit.push_back(record);
    };
    hooks.log = [this](int level, std::string_view line) {
      std::lock_guard<std::mutex> lock(mutex);
      log.push_back(std::to_string(level) + " " + std::string(line));
    };
    manager = std::make_unique<Manager>(std::move(config), SecurityOptions{}, std::move(hooks));
    manager->Start();
  }
  bool Logged(std::string_view fragment) {
    std::lock_guard<std::mutex> lock(mutex);
    return std::any_of(log.begin(), log.end(), [&](const std::string& line) {
      return line.find(fragment) != std::string::npos;
    });
  }
  std::mutex mutex;
  std::vector<AuditRecord> audit;
  std::vector<std::string> log;
  std::unique_ptr<Manager> manager;
};

Config ConfigOf(std::vector<ServerConfig> servers) {
  Config config;
  config.servers = std::move(servers);
  return config;
}

bool Offered(const Manager& manager, std::string_view name) {
  return manager.Offers(name);
}

TEST(McpManagerTest, AggregatesToolsUnderServerNamesAsOpenAiFunctions) {
  REQUIRE_PEERS();
  ServerConfig off = Changing("off");
  off.enabled = false;
  Harness h(ConfigOf({Everything(), Changing(), off}));
  const std::vector<ServerStatus> servers = h.manager->Servers();
  ASSERT_EQ(servers.size(), 3u);
  EXPECT_EQ(servers[0].state, ServerState::kConnected);
  EXPECT_EQ(servers[0].server_name, "mcp-servers/everything");
  EXPECT_EQ(servers[0].tools, 13u);
  EXPECT_EQ(servers[1].state, ServerState::kConnected);
  EXPECT_EQ(servers[2].state, ServerState::kDisabled);
  EXPECT_TRUE(Offered(*h.manager, "everything__get-sum"));
  EXPECT_TRUE(Offered(*h.manager, "chg__greet"));
  EXPECT_FALSE(Offered(*h.manager, "off__greet"));
  // High-risk names are not offered unless allowed.
  EXPECT_FALSE(Offered(*h.manager, "chg__exec_command"));

  const Json tools = h.manager->OpenAiTools();
  const auto greet = std::find_if(tools.begin(), tools.end(), [](const Json& t) {
    return t["function"]["name"] == "chg__greet";
  });
  ASSERT_NE(greet, tools.end());
  EXPECT_EQ((*greet)["type"], "function");
  EXPECT_EQ((*greet)["function"]["description"], "Says hello");
  EXPECT_EQ((*greet)["function"]["parameters"],
            Json::parse(R"({"type":"object","properties":{}})"));

  const ExecResult sum = h.manager->Execute("everything__get-sum", {{"a", 2}, {"b", 3}});
  EXPECT_FALSE(sum.is_error) << sum.text;
  EXPECT_EQ(sum.text, "The sum of 2 and 3 is 5.");
  const ExecResult disabled = h.manager->Execute("off__greet", Json::object());
  EXPECT_TRUE(disabled.is_error);
  EXPECT_EQ(disabled.text, "Server 'off' is disabled");
}

TEST(McpManagerTest, RefusalsAreErrorResultsWithAnAuditRecord) {
  REQUIRE_PEERS();
  Config config = ConfigOf({Changing()});
  config.deny_tools = {"chg__sl*"};
  Harness h(std::move(config));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nodelimiter", "is not an MCP tool"},   {"ghost__greet", "Server 'ghost' not found"},
      {"chg__nope", "is not offered"},         {"chg__sleep", "blocked by security policy"},
      {"chg__exec_command", "High-risk tool"},
  };
  for (const auto& [name, message] : cases) {
    const ExecResult result = h.manager->Execute(name, Json::object());
    EXPECT_TRUE(result.is_error) << name;
    EXPECT_NE(result.text.find(message), std::string::npos) << name << ": " << result.text;
  }
  const ExecResult path = h.manager->Execute("chg__greet", {{"file", "/etc/passwd"}});
  EXPECT_TRUE(path.is_error);
  EXPECT_NE(path.text.find("blocked pattern: /etc/"), std::string::npos) << path.text;
  const ExecResult ok = h.manager->Execute("chg__greet", {{"password", "hunter2"}});
  EXPECT_FALSE(ok.is_error) << ok.text;
  std::lock_guard<std::mutex> lock(h.mutex);
  ASSERT_EQ(h.audit.size(), cases.size() + 2);
  EXPECT_FALSE(h.audit.front().success);
  EXPECT_TRUE(h.audit.back().success);
  EXPECT_EQ(h.audit.back().arguments["password"], "[REDACTED]");
}

TEST(McpManagerTest, AToolWhoseDescriptionChangesIsWithheld) {
  REQUIRE_PEERS();
  Harness h(ConfigOf({Changing()}));
  ASSERT_TRUE(Offered(*h.manager, "chg__greet"));
  EXPECT_FALSE(h.manager->Execute("chg__mutate", Json::object()).is_error);
  // The client re-lists in the background after list_changed.
  for (int i = 0; i < 100 && Offered(*h.manager, "chg__greet"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(Offered(*h.manager, "chg__greet"));
  const ExecResult refused = h.manager->Execute("chg__greet", Json::object());
  EXPECT_TRUE(refused.is_error);
  EXPECT_TRUE(h.Logged("changed its description or input schema"));
  EXPECT_TRUE(Offered(*h.manager, "chg__sleep"));  // the others stay
}

TEST(McpManagerTest, AllowToolChangesKeepsOfferingAChangedTool) {
  REQUIRE_PEERS();
  Config config = ConfigOf({Changing()});
  config.allow_tool_changes = true;
  Harness h(std::move(config));
  EXPECT_FALSE(h.manager->Execute("chg__mutate", Json::object()).is_error);
  for (int i = 0; i < 100 && !h.Logged("offered anyway"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    (void)h.manager->Tools();
  }
  EXPECT_TRUE(h.Logged("offered anyway"));
  EXPECT_FALSE(h.manager->Execute("chg__greet", Json::object()).is_error);
}

TEST(McpManagerTest, OutputOverTheLimitIsCutOnACharacterWithAMarker) {
  REQUIRE_PEERS();
  Config config = ConfigOf({Changing()});
  config.max_output_bytes = 1000;
  Harness h(std::move(config));
  const ExecResult result = h.manager->Execute("chg__big", {{"bytes", 200000}});
  EXPECT_FALSE(result.is_error) << result.text;
  EXPECT_TRUE(result.truncated);
  EXPECT_TRUE(result.content.empty());
  const size_t marker = result.text.find("\n[output truncated: ");
  ASSERT_NE(marker, std::string::npos);
  EXPECT_LE(marker, 1000u);
  EXPECT_GE(marker, 998u);  // at most a partial é cut away
  EXPECT_NE(result.text.find(" bytes shown]"), std::string::npos);
}

TEST(McpManagerTest, ATimedOutCallIsAnErrorAndTheServerStaysUsable) {
  REQUIRE_PEERS();
  ServerConfig chg = Changing();
  chg.timeout_s = 0.5;
  Harness h(ConfigOf({chg}));
  const ExecResult slow = h.manager->Execute("chg__sleep", {{"ms", 5000}});
  EXPECT_TRUE(slow.is_error);
  EXPECT_NE(slow.text.find("timed out"), std::string::npos) << slow.text;
  EXPECT_LT(slow.duration_ms, 3000);
  const ExecResult next = h.manager->Execute("chg__greet", Json::object());
  EXPECT_FALSE(next.is_error) << next.text;
}

TEST(McpManagerTest, AServerThatDiesIsRestartedOnTheNextCall) {
  REQUIRE_PEERS();
  Harness h(ConfigOf({Changing()}));
  const ExecResult crash = h.manager->Execute("chg__crash", Json::object());
  EXPECT_TRUE(crash.is_error);
  std::this_thread::sleep_for(Manager::kRestartInterval);
  const ExecResult after = h.manager->Execute("chg__greet", Json::object());
  EXPECT_FALSE(after.is_error) << after.text;
  EXPECT_EQ(after.text, "hello");
  EXPECT_TRUE(h.Logged("restarting it"));
  EXPECT_EQ(h.manager->Servers()[0].state, ServerState::kConnected);
}

// 50 calls from 50 threads under max_concurrency 4: all succeed, and the server itself saw
// at most 4 running at once (and more than one: they do run concurrently).
TEST(McpManagerTest, FiftyConcurrentCallsRunAtMostFourAtATime) {
  REQUIRE_PEERS();
  Config config = ConfigOf({Changing()});
  config.max_concurrency = 4;
  Harness h(std::move(config));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 50; ++i) {
    threads.emplace_back([&] {
      const ExecResult r = h.manager->Execute("chg__sleep", {{"ms", 40}});
      if (r.is_error || r.text != "slept 40") ++failures;
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  const ExecResult peak = h.manager->Execute("chg__peak", Json::object());
  ASSERT_FALSE(peak.is_error) << peak.text;
  EXPECT_GE(std::stoi(peak.text), 2);
  EXPECT_LE(std::stoi(peak.text), 4);
}

TEST(McpManagerTest, TruncateOutputNeverSplitsACharacter) {
  std::string text = "ab\xc3\xa9";  // a, b, é
  EXPECT_TRUE(TruncateOutput(text, 3));
  EXPECT_EQ(text, "ab\n[output truncated: 2 of 4 bytes shown]");
  std::string short_text = "abc";
  EXPECT_FALSE(TruncateOutput(short_text, 3));
  EXPECT_EQ(short_text, "abc");
}

TEST(McpManagerTest, SplitToolNameSplitsOnTheFirstDoubleUnderscore) {
  const auto split = SplitToolName("fs__read__file");
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->first, "fs");
  EXPECT_EQ(split->second, "read__file");
  EXPECT_FALSE(SplitToolName("plain").has_value());
  EXPECT_FALSE(SplitToolName("__x").has_value());
  EXPECT_FALSE(SplitToolName("x__").has_value());
}

}  // namespace
}  // namespace crux::mcp
