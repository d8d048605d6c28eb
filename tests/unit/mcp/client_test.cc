// The MCP client against real peers over stdio: the reference servers from npm
// (server-everything, server-filesystem, server-memory, pinned in
// tests/e2e/package-lock.json), the paginating fixture on the SDK's low-level
// Server (fixtures/paged_server.mjs), and small raw servers written inline for
// what the reference servers never do (server→client requests, junk on stdout,
// a wrong protocol version, a crash at start, ignoring SIGTERM).
//
// Needs `node` on PATH and CRUX_MCP_NODE_MODULES=<repo>/tests/e2e/node_modules
// (after `npm ci` there); skipped otherwise. The fixtures directory is found
// beside this file, or through CRUX_MCP_FIXTURES.
#include "crux/mcp/client.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "unit/mcp/peers.h"

namespace crux::mcp {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

fs::path NodeModules() {
  return peers::NodeModules();
}

// CRUX_MCP_FIXTURES, else beside this file (__FILE__ is absolute in the CMake build), else
// tests/unit/mcp/fixtures found from tests/e2e/node_modules.
fs::path Fixtures() {
  if (const char* dir = std::getenv("CRUX_MCP_FIXTURES")) return dir;
  const fs::path beside = fs::path(__FILE__).parent_path() / "fixtures";
  if (beside.is_absolute() && fs::exists(beside)) return beside;
  return NodeModules().parent_path().parent_path() / "unit/mcp/fixtures";
}

LaunchSpec Package(std::string_view package, std::vector<std::string> args = {}) {
  LaunchSpec spec;
  spec.command = "node";
  spec.args.push_back(
      (NodeModules() / "@modelcontextprotocol" / package / "dist/index.js").string());
  spec.args.insert(spec.args.end(), args.begin(), args.end());
  return spec;
}

LaunchSpec Inline(std::string script) {
  return LaunchSpec{"node", {"-e", std::move(script)}, {}, ""};
}

ClientOptions Options(std::string name) {
  ClientOptions options;
  options.server_name = std::move(name);
  return options;
}

std::unique_ptr<Client> MustStart(const LaunchSpec& spec, ClientOptions options) {
  auto client = Client::Start(spec, std::move(options));
  EXPECT_TRUE(client.ok()) << client.error().message();
  return client.ok() ? std::move(*client) : nullptr;
}

Expected<ToolResult> Call(Client& client, std::string_view tool, Json arguments,
                          milliseconds timeout = seconds(20)) {
  return client.CallTool(tool, arguments, timeout);
}

std::string Text(const Expected<ToolResult>& result) {
  if (!result.ok()) return "error: " + result.error().message();
  return ContentToText(*result);
}

std::string Dump(const Json& value) {
  return value.dump();
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// A directory under /tmp, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "crux_mcp_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// server-everything, started once for the tests that only call tools on it.
class EverythingTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { shared_.reset(); }
  void SetUp() override {
    if (!peers::MissingPeers().empty()) GTEST_SKIP() << "MCP peers: " << peers::MissingPeers();
    if (!shared_) {
      LaunchSpec spec = Package("server-everything");
      spec.env = {{"CRUX_TEST_VARIABLE", "configured"}};
      shared_ = MustStart(spec, Options("everything"));
    }
    ASSERT_NE(shared_, nullptr);
  }
  Client& client() { return *shared_; }

  static std::unique_ptr<Client> shared_;
};
std::unique_ptr<Client> EverythingTest::shared_;

TEST_F(EverythingTest, HandshakeAndToolList) {
  const ServerInfo& info = client().server_info();
  EXPECT_EQ(info.name, "mcp-servers/everything");
  EXPECT_EQ(info.protocol_version, "2025-11-25");
  EXPECT_FALSE(info.instructions.empty());
  EXPECT_TRUE(info.capabilities["tools"].is_object());
  EXPECT_GE(client().tools_generation(), 1u);
  const auto tools = client().Tools();
  ASSERT_EQ(tools->size(),
            13u);  // with capabilities {}; 17 with roots+sampling+elicitation
  const ToolInfo* sum = nullptr;
  for (const ToolInfo& tool : *tools) {
    EXPECT_TRUE(tool.input_schema.is_object()) << tool.name;
    if (tool.name == "get-sum") sum = &tool;
  }
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->title, "Get Sum Tool");
  EXPECT_EQ(sum->description, "Returns the sum of two numbers");
  EXPECT_EQ(sum->input_schema["required"], Json::array({"a", "b"}));
  ASSERT_TRUE(sum->annotations.has_value());
  EXPECT_EQ((*sum->annotations)["readOnlyHint"], true);
}

TEST_F(EverythingTest, TextResults) {
  EXPECT_EQ(Text(Call(client(), "echo", {{"message", "hi"}})), "Echo: hi");
  auto sum = Call(client(), "get-sum", {{"a", 2}, {"b", 3}});
  ASSERT_TRUE(sum.ok()) << sum.error().message();
  EXPECT_FALSE(sum->is_error);
  EXPECT_EQ(ContentToText(*sum), "The sum of 2 and 3 is 5.");
}

TEST_F(EverythingTest, ImageContent) {
  auto image = Call(client(), "get-tiny-image", Json::object());
  ASSERT_TRUE(image.ok()) << image.error().message();
  ASSERT_EQ(image->content.size(), 3u);
  const Json& block = image->content[1];
  EXPECT_EQ(block["type"], "image");
  EXPECT_EQ(block["mimeType"], "image/png");
  const std::string data = block["data"];
  EXPECT_TRUE(data.starts_with("iVBORw0KGgo"));
  EXPECT_TRUE(Contains(ContentToText(*image),
                       "\n[image: image/png, " + std::to_string(data.size()) + " bytes base64]\n"))
      << ContentToText(*image);
}

TEST_F(EverythingTest, ResourceLinksAndEmbeddedResources) {
  const std::string links = Text(Call(client(), "get-resource-links", {{"count", 2}}));
  EXPECT_TRUE(Contains(links, "[resource link: Text Resource 2 <demo://resource/dynamic/text/2>]"))
      << links;
  const std::string text =
      Text(Call(client(), "get-resource-reference", {{"resourceType", "Text"}, {"resourceId", 1}}));
  EXPECT_TRUE(Contains(text, "\nResource 1: This is a plaintext resource")) << text;
  auto blob =
      Call(client(), "get-resource-reference", {{"resourceType", "Blob"}, {"resourceId", 2}});
  ASSERT_TRUE(blob.ok()) << blob.error().message();
  const std::string encoded = blob->content[1]["resource"]["blob"];
  EXPECT_TRUE(Contains(ContentToText(*blob),
                       "[resource blob: demo://resource/dynamic/blob/2 "
                       "text/plain, " +
                           std::to_string(encoded.size()) + " bytes base64]"))
      << ContentToText(*blob);
}

TEST_F(EverythingTest, StructuredContent) {
  auto weather = Call(client(), "get-structured-content", {{"location", "New York"}});
  ASSERT_TRUE(weather.ok()) << weather.error().message();
  ASSERT_TRUE(weather->structured_content.has_value());
  EXPECT_TRUE((*weather->structured_content)["temperature"].is_number());
  // The server repeats the JSON in a text block, so the text is not doubled.
  EXPECT_EQ(ContentToText(*weather), weather->content[0]["text"].get<std::string>());
}

TEST_F(EverythingTest, ToolErrorsAreResults) {
  auto bad = Call(client(), "get-sum", {{"a", "x"}});
  ASSERT_TRUE(bad.ok()) << bad.error().message();
  EXPECT_TRUE(bad->is_error);
  EXPECT_TRUE(Contains(ContentToText(*bad), "Input validation error")) << ContentToText(*bad);
  // McpServer reports an unknown tool as an isError result too (the fixture
  // below does not).
  auto unknown = Call(client(), "no-such-tool", Json::object());
  ASSERT_TRUE(unknown.ok()) << unknown.error().message();
  EXPECT_TRUE(unknown->is_error);
  EXPECT_TRUE(Contains(ContentToText(*unknown), "Tool no-such-tool not found"));
}

TEST_F(EverythingTest, TimeoutCancelsAndTheClientCarriesOn) {
  const auto begin = std::chrono::steady_clock::now();
  auto slow = Call(client(), "trigger-long-running-operation", {{"duration", 30}, {"steps", 30}},
                   seconds(1));
  const auto elapsed = std::chrono::steady_clock::now() - begin;
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().code(), ErrorCode::kTimeout);
  EXPECT_EQ(slow.error().message(),
            "tool call 'trigger-long-running-operation' timed out after 1 s");
  // A progress notification per second extends the deadline, never beyond 4 × 1
  // s.
  EXPECT_GE(elapsed, seconds(1));
  EXPECT_LT(elapsed, milliseconds(4500));
  // Its late progress notifications are dropped; the next call works.
  EXPECT_EQ(Text(Call(client(), "echo", {{"message", "after"}})), "Echo: after");
  EXPECT_TRUE(client().alive());
}

TEST_F(EverythingTest, ProgressExtendsTheDeadline) {
  // 2 s of work reporting progress every 0.5 s finishes under a 1.5 s timeout.
  auto result = Call(client(), "trigger-long-running-operation", {{"duration", 2}, {"steps", 4}},
                     milliseconds(1500));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(Contains(ContentToText(*result), "Long running operation completed"));
}

TEST_F(EverythingTest, FiftyConcurrentCalls) {
  std::vector<std::thread> threads;
  std::atomic<int> correct{0};
  for (int i = 0; i < 50; ++i) {
    threads.emplace_back([&, i] {
      const std::string message = "m" + std::to_string(i);
      if (Text(Call(client(), "echo", {{"message", message}})) == "Echo: " + message) ++correct;
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(correct.load(), 50);
}

TEST_F(EverythingTest, MinimalEnvironment) {
  auto env = Call(client(), "get-env", Json::object());
  ASSERT_TRUE(env.ok()) << env.error().message();
  const Json variables = Json::parse(ContentToText(*env));
  const std::vector<std::string> allowed = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"};
  for (const auto& [name, value] : variables.items()) {
    if (name == "CRUX_TEST_VARIABLE") continue;
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), name), allowed.end()) << name;
  }
  EXPECT_EQ(variables["CRUX_TEST_VARIABLE"], "configured");
}

TEST(McpClient, ServerKilledMidCall) {
  REQUIRE_PEERS();
  auto client = MustStart(Package("server-everything"), Options("doomed"));
  ASSERT_NE(client, nullptr);
  const pid_t pid = client->pid();
  std::thread killer([pid] {
    std::this_thread::sleep_for(milliseconds(300));
    kill(-pid, SIGKILL);
  });
  auto pending = Call(*client, "trigger-long-running-operation", {{"duration", 30}, {"steps", 30}});
  killer.join();
  ASSERT_FALSE(pending.ok());
  EXPECT_EQ(pending.error().code(), ErrorCode::kUnavailable);
  EXPECT_TRUE(Contains(pending.error().message(),
                       "MCP server 'doomed' is unavailable: the process was killed by signal 9"))
      << pending.error().message();
  EXPECT_TRUE(Contains(pending.error().message(), "stderr: Starting default (STDIO) server"))
      << pending.error().message();
  EXPECT_FALSE(client->alive());
  auto later = Call(*client, "echo", {{"message", "x"}});
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().message(), pending.error().message());
  client->Stop();
  EXPECT_EQ(kill(pid, 0), -1);  // reaped: no zombie left
}

TEST(McpClient, FilesystemServer) {
  REQUIRE_PEERS();
  TempDir allowed;
  TempDir outside;
  std::ofstream(allowed.path() / "a.txt") << "hello fs\n";
  std::ofstream(outside.path() / "secret.txt") << "secret\n";
  auto client = MustStart(Package("server-filesystem", {allowed.path().string()}), Options("fs"));
  ASSERT_NE(client, nullptr);
  auto inside = Call(*client, "read_text_file", {{"path", (allowed.path() / "a.txt").string()}});
  ASSERT_TRUE(inside.ok()) << inside.error().message();
  EXPECT_FALSE(inside->is_error);
  EXPECT_EQ(inside->content[0]["text"], "hello fs\n");
  auto denied =
      Call(*client, "read_text_file", {{"path", (outside.path() / "secret.txt").string()}});
  ASSERT_TRUE(denied.ok()) << denied.error().message();
  EXPECT_TRUE(denied->is_error);
  EXPECT_TRUE(Contains(ContentToText(*denied), "Access denied")) << ContentToText(*denied);
}

TEST(McpClient, MemoryServer) {
  REQUIRE_PEERS();
  TempDir dir;
  LaunchSpec spec = Package("server-memory");
  spec.env = {{"MEMORY_FILE_PATH", (dir.path() / "memory.jsonl").string()}};
  auto client = MustStart(spec, Options("memory"));
  ASSERT_NE(client, nullptr);
  const Json entity = {{"name", "crux"}, {"entityType", "project"}, {"observations", {"C++20"}}};
  auto created = Call(*client, "create_entities", {{"entities", {entity}}});
  ASSERT_TRUE(created.ok()) << created.error().message();
  ASSERT_TRUE(created->structured_content.has_value());
  EXPECT_EQ((*created->structured_content)["entities"][0]["name"], "crux");
  auto graph = Call(*client, "read_graph", Json::object());
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  EXPECT_EQ((*graph->structured_content)["entities"][0]["observations"][0], "C++20");
}

TEST(McpClient, PagingListChangedAndJsonRpcErrors) {
  REQUIRE_PEERS();
  std::mutex mu;
  std::condition_variable changed;
  uint64_t seen_generation = 0;
  ClientOptions options = Options("paged");
  options.on_tools_changed = [&](uint64_t generation) {
    std::lock_guard lock(mu);
    seen_generation = generation;
    changed.notify_all();
  };
  LaunchSpec spec{
      "node", {(Fixtures() / "paged_server.mjs").string(), NodeModules().string()}, {}, ""};
  auto client = MustStart(spec, std::move(options));
  ASSERT_NE(client, nullptr);
  auto names = [&] {
    std::string out;
    const auto tools = client->Tools();  // alive for the loop
    for (const ToolInfo& tool : *tools)
      out += tool.name + " ";
    return out;
  };
  EXPECT_EQ(names(), "t1 t2 t3 t4 t5 ");  // three pages
  EXPECT_EQ(client->tools_generation(), 1u);
  EXPECT_EQ(Text(Call(*client, "t5", Json::object())), "added t6");
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(changed.wait_for(lock, seconds(10), [&] { return seen_generation >= 2; }));
  }
  EXPECT_EQ(names(), "t1 t2 t3 t4 t5 t6 ");
  // The low-level Server answers an unknown tool with a JSON-RPC error, not a
  // result.
  auto unknown = Call(*client, "t9", Json::object());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(unknown.error().tag(), kServerErrorTag);
  EXPECT_EQ(unknown.error().message(), "MCP error -32602: Unknown tool: t9");
  EXPECT_EQ(ServerErrorCode(unknown.error()), kInvalidParams);
  EXPECT_EQ(ServerErrorCode(Error(ErrorCode::kTimeout, "MCP error -1: x")), std::nullopt);
  auto bad_cursor = client->Request("tools/list", {{"cursor", "!!"}}, seconds(5));
  ASSERT_FALSE(bad_cursor.ok());
  EXPECT_EQ(ServerErrorCode(bad_cursor.error()), kInvalidParams);
}

// A raw server (no SDK): answers initialize with 2025-06-18, then sends junk
// lines, a stray answer, a log notification, a ping and a roots/list; it
// answers tools/list once both replies are in, describing them, its process
// group, environment and open descriptors in one tool. Tool "slow" answers
// after 0.6 s; a cancellation is answered with a late progress notification;
// any other tool returns the cancellations received so far.
constexpr std::string_view kRawServer = R"JS(
const fs = require('fs');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const replies = {};
const cancelled = [];
let list = null;
function answer() {
  if (list === null || !replies.p || !replies[7]) return;
  const fds = fs.readdirSync('/proc/self/fd').map((fd) => {
    try { return fs.readlinkSync('/proc/self/fd/' + fd); } catch { return ''; }
  });
  const pgrp = Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[2]);
  const report = { replies, pid: process.pid, pgrp, env: Object.keys(process.env), fds };
  send({ jsonrpc: '2.0', id: list, result: { tools: [{ name: 'report', description: JSON.stringify(report) }] } });
}
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
  } else if (m.method === 'notifications/initialized') {
    process.stdout.write('this is not json\n\n   \n[1,2]\n');
    send({ jsonrpc: '2.0', id: 999, result: {} });
    send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } });
    send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    send({ jsonrpc: '2.0', id: 7, method: 'roots/list' });
  } else if (m.method === 'tools/list') {
    list = m.id;
  } else if (m.method === 'notifications/cancelled') {
    cancelled.push(m.params);
    send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: m.params.requestId, progress: 9 } });
  } else if (m.method === 'tools/call' && m.params.name === 'slow') {
    setTimeout(() => send({ jsonrpc: '2.0', id: m.id, result: { content: [] } }), 600);
  } else if (m.method === 'tools/call') {
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify(cancelled) }] } });
  } else if (m.method === undefined) {
    replies[m.id] = m;
  }
  answer();
});
)JS";

TEST(McpClient, AnswersServerRequestsAndDropsJunk) {
  REQUIRE_PEERS();
  const std::string marker = (fs::temp_directory_path() / "crux_mcp_inherited_marker").string();
  const int leaked = open(marker.c_str(), O_CREAT | O_RDWR, 0600);  // no O_CLOEXEC on purpose
  ASSERT_GE(leaked, 0);
  std::vector<std::string> log;
  std::mutex log_mu;
  ClientOptions options = Options("raw");
  options.on_log = [&](std::string_view line) {
    std::lock_guard lock(log_mu);
    log.emplace_back(line);
  };
  auto client = MustStart(Inline(std::string(kRawServer)), std::move(options));
  close(leaked);
  unlink(marker.c_str());
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->server_info().protocol_version, "2025-06-18");
  ASSERT_EQ(client->Tools()->size(), 1u);
  const Json report = Json::parse(client->Tools()->at(0).description);
  EXPECT_EQ(report["replies"]["p"]["result"], Json::object());
  EXPECT_EQ(report["replies"]["7"]["error"]["code"], kMethodNotFound);
  EXPECT_EQ(report["pgrp"], report["pid"]);  // its own process group
  EXPECT_EQ(report["pid"], client->pid());
  for (const Json& target : report["fds"])
    EXPECT_NE(target, marker);
  for (const Json& name : report["env"]) {
    EXPECT_TRUE(name == "HOME" || name == "LOGNAME" || name == "PATH" || name == "SHELL" ||
                name == "TERM" || name == "USER")
        << name;
  }
  std::lock_guard lock(log_mu);
  std::string all;
  for (const std::string& line : log)
    all += line + "\n";
  EXPECT_TRUE(Contains(all, "dropped a line (invalid JSON")) << all;
  EXPECT_TRUE(Contains(all, "batches")) << all;
  EXPECT_TRUE(Contains(all, "dropped an answer to request 999")) << all;
}

TEST(McpClient, LateAnswersAfterATimeoutAreDropped) {
  REQUIRE_PEERS();
  std::vector<std::string> log;
  std::mutex log_mu;
  ClientOptions options = Options("raw");
  options.on_log = [&](std::string_view line) {
    std::lock_guard lock(log_mu);
    log.emplace_back(line);
  };
  auto client = MustStart(Inline(std::string(kRawServer)), std::move(options));
  ASSERT_NE(client, nullptr);
  auto slow = Call(*client, "slow", Json::object(), milliseconds(200));
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().message(), "tool call 'slow' timed out after 0.2 s");
  std::this_thread::sleep_for(milliseconds(700));  // the late answer arrives meanwhile
  auto cancelled = Call(*client, "cancelled", Json::object());
  ASSERT_TRUE(cancelled.ok()) << cancelled.error().message();
  const Json received = Json::parse(ContentToText(*cancelled));
  ASSERT_EQ(received.size(), 1u);
  EXPECT_TRUE(received[0]["requestId"].is_number_integer());
  EXPECT_EQ(received[0]["reason"], "tool call 'slow' timed out after 0.2 s");
  std::lock_guard lock(log_mu);
  std::string all;
  for (const std::string& line : log)
    all += line + "\n";
  EXPECT_TRUE(Contains(all, "dropped an answer to request " + Dump(received[0]["requestId"])))
      << all;
}

TEST(McpClient, StartFailures) {
  REQUIRE_PEERS();
  auto missing = Client::Start({"/nonexistent/mcp-server", {}, {}, ""}, Options("missing"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(Contains(missing.error().message(), "'/nonexistent/mcp-server'"));

  auto crash =
      Client::Start(Inline("console.error('boom: no config'); process.exit(3)"), Options("crash"));
  ASSERT_FALSE(crash.ok());
  EXPECT_EQ(crash.error().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(crash.error().message(),
            "MCP server 'crash' is unavailable: the process exited with status "
            "3; stderr: boom: "
            "no config");

  ClientOptions quick = Options("silent");
  quick.startup_timeout = milliseconds(700);
  quick.transport.close_grace = milliseconds(200);  // it ignores the end of stdin
  auto silent = Client::Start(Inline("console.error('waiting'); setInterval(() => {}, 1000)"),
                              std::move(quick));
  ASSERT_FALSE(silent.ok());
  EXPECT_EQ(silent.error().code(), ErrorCode::kTimeout);
  EXPECT_TRUE(Contains(silent.error().message(), "MCP server 'silent': initialize timed out"))
      << silent.error().message();
  EXPECT_TRUE(Contains(silent.error().message(), "stderr: waiting")) << silent.error().message();

  auto future = Client::Start(Inline(R"JS(
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2099-01-01', capabilities: {}, serverInfo: { name: 'f', version: '1' } } }) + '\n');
});)JS"),
                              Options("future"));
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.error().code(), ErrorCode::kUnsupported);
  EXPECT_TRUE(Contains(future.error().message(), "answered protocolVersion '2099-01-01'"));
}

TEST(McpClient, OverlongLineEndsTheSession) {
  REQUIRE_PEERS();
  ClientOptions options = Options("flood");
  options.transport.max_line_bytes = 1 << 20;
  auto flood = Client::Start(Inline("process.stdout.write('x'.repeat(3 << 20)); "
                                    "setInterval(() => {}, 1000)"),
                             std::move(options));
  ASSERT_FALSE(flood.ok());
  EXPECT_EQ(flood.error().code(), ErrorCode::kLimit);
  EXPECT_TRUE(Contains(flood.error().message(), "longer than 1048576 bytes"))
      << flood.error().message();
}

TEST(McpClient, StopEscalatesToSigkill) {
  REQUIRE_PEERS();
  ClientOptions options = Options("stubborn");
  options.transport.close_grace = milliseconds(200);
  options.transport.term_grace = milliseconds(200);
  auto client = MustStart(Inline(R"JS(
process.on('SIGTERM', () => {});
process.stdin.on('end', () => {});
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } }) + '\n');
});
setInterval(() => {}, 1000);)JS"),
                          std::move(options));
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(client->Tools()->empty());  // no tools capability: nothing listed
  const pid_t pid = client->pid();
  const auto begin = std::chrono::steady_clock::now();
  client->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, seconds(2));
  EXPECT_EQ(kill(pid, 0), -1);
  auto after = Call(*client, "x", Json::object());
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code(), ErrorCode::kCancelled);
}

TEST(ContentToText, EveryBlockType) {
  ToolResult result;
  result.content = {
      {{"type", "text"}, {"text", "hello"}},
      {{"type", "audio"}, {"mimeType", "audio/wav"}, {"data", "AAAA"}},
      {{"type", "resource_link"}, {"name", "n"}, {"uri", "file:///x"}},
      {{"type", "resource"}, {"resource", {{"uri", "u"}, {"mimeType", "m"}, {"blob", "QUJD"}}}},
      {{"type", "mystery"}, {"x", 1}},
  };
  EXPECT_EQ(ContentToText(result),
            "hello\n[audio: audio/wav, 4 bytes base64]\n[resource link: n "
            "<file:///x>]\n"
            "[resource blob: u m, 4 bytes base64]\n{\"type\":\"mystery\",\"x\":1}");
  ToolResult structured;
  structured.structured_content = Json{{"a", 1}};
  EXPECT_EQ(ContentToText(structured), "{\"a\":1}");
  structured.content = {{{"type", "image"}, {"mimeType", "image/png"}, {"data", "AA=="}}};
  EXPECT_EQ(ContentToText(structured), "[image: image/png, 4 bytes base64]\n{\"a\":1}");
}

}  // namespace
}  // namespace crux::mcp
