// The MCP client in the modern (2026-07-28) era, and the era probe: against a raw stateless
// server over stdio (fixtures/modern_server.mjs, the §1.7 flow) and, for the fallback, the
// legacy reference server-memory. The Streamable HTTP side of the modern era (Mcp-Method,
// Mcp-Name, Mcp-Param-*, 404 -32601, -32022 over HTTP 400) is covered by the conformance
// scenarios (tests/e2e/mcp-conformance.mjs); the x-mcp-header rules are tested here as data.
//
// Needs `node` on PATH and CRUX_MCP_NODE_MODULES=<repo>/tests/e2e/node_modules; the peer tests
// are skipped otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "crux/mcp/client.h"
#include "crux/mcp/http_transport.h"
#include "unit/mcp/peers.h"

namespace crux::mcp {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

fs::path Fixtures() {
  if (const char* dir = std::getenv("CRUX_MCP_FIXTURES")) return dir;
  const fs::path beside = fs::path(__FILE__).parent_path() / "fixtures";
  if (beside.is_absolute() && fs::exists(beside)) return beside;
  return fs::path(std::getenv("CRUX_MCP_NODE_MODULES")).parent_path().parent_path() /
         "unit/mcp/fixtures";
}

LaunchSpec Modern(std::vector<std::string> extra = {}) {
  LaunchSpec spec{"node", {(Fixtures() / "modern_server.mjs").string()}, {}, ""};
  spec.args.insert(spec.args.end(), extra.begin(), extra.end());
  return spec;
}

LaunchSpec Memory(const fs::path& file) {
  const fs::path script = fs::path(std::getenv("CRUX_MCP_NODE_MODULES")) /
                          "@modelcontextprotocol/server-memory/dist/index.js";
  return LaunchSpec{"node", {script.string()}, {{"MEMORY_FILE_PATH", file.string()}}, ""};
}

std::unique_ptr<Client> MustStart(const LaunchSpec& spec, ClientOptions options = {}) {
  auto client = Client::Start(spec, std::move(options));
  EXPECT_TRUE(client.ok()) << client.error().message();
  return client.ok() ? std::move(*client) : nullptr;
}

std::string Text(const Expected<ToolResult>& result) {
  return result.ok() ? ContentToText(*result) : "error: " + result.error().message();
}

TEST(McpModernClient, ProbesDiscoversListsAndCalls) {
  REQUIRE_PEERS();
  auto client = MustStart(Modern());
  ASSERT_NE(client, nullptr);
  const ServerInfo& info = client->server_info();
  EXPECT_EQ(info.era, ProtocolEra::kModern);
  EXPECT_EQ(info.protocol_version, "2026-07-28");
  EXPECT_EQ(info.name, "modern-fixture");
  EXPECT_EQ(info.version, "1.0.0");
  EXPECT_EQ(client->Tools()->size(), 5U);
  EXPECT_EQ(Text(client->CallTool("add", {{"a", 2}, {"b", 40}}, seconds(10))), "42");
  // A result without resultType is complete.
  EXPECT_EQ(Text(client->CallTool("bare", Json::object(), seconds(10))), "bare");
}

TEST(McpModernClient, EveryRequestCarriesTheEnvelope) {
  REQUIRE_PEERS();
  ClientOptions options;
  options.client_version = "9.9.9";
  auto client = MustStart(Modern(), options);
  ASSERT_NE(client, nullptr);
  auto result = client->CallTool("meta", Json::object(), seconds(10));
  ASSERT_TRUE(result.ok()) << result.error().message();
  const Json meta = Json::parse(ContentToText(*result));
  EXPECT_EQ(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_EQ(meta["io.modelcontextprotocol/clientCapabilities"], Json::object());
  EXPECT_EQ(meta["io.modelcontextprotocol/clientInfo"],
            Json({{"name", "crux"}, {"version", "9.9.9"}}));
  EXPECT_TRUE(meta["progressToken"].is_number_integer());
  // Request() adds it too; ping was removed from the modern era.
  auto ping = client->Request("ping", Json::object(), seconds(10));
  ASSERT_FALSE(ping.ok());
  EXPECT_EQ(ServerErrorCode(ping.error()), kMethodNotFound);
}

TEST(McpModernClient, RetriesWithASupportedVersionAfterMinus32022) {
  REQUIRE_PEERS();
  auto client = MustStart(Modern({"--version-first"}));
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->server_info().era, ProtocolEra::kModern);
  EXPECT_EQ(Text(client->CallTool("add", {{"a", 1}, {"b", 2}}, seconds(10))), "3");
}

TEST(McpModernClient, InputRequiredIsRefusedWithoutACapability) {
  REQUIRE_PEERS();
  auto client = MustStart(Modern());
  ASSERT_NE(client, nullptr);
  auto asked = client->CallTool("ask", Json::object(), seconds(10));
  ASSERT_FALSE(asked.ok());
  EXPECT_EQ(asked.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(asked.error().message().find("elicitation/create ('confirm')"), std::string::npos)
      << asked.error().message();
  auto roots = client->CallTool("roots", Json::object(), seconds(10));
  ASSERT_FALSE(roots.ok());
  EXPECT_NE(roots.error().message().find("roots/list"), std::string::npos);
}

TEST(McpModernClient, InputRequiredIsAnsweredAndRetriedWithTheRequestState) {
  REQUIRE_PEERS();
  ClientOptions options;
  int asked = 0;
  options.on_elicitation = [&asked](const Json& params) -> Expected<Json> {
    ++asked;
    EXPECT_EQ(params["message"], "Proceed?");
    return Json{{"action", "accept"}, {"content", {{"ok", true}}}};
  };
  auto client = MustStart(Modern(), options);
  ASSERT_NE(client, nullptr);
  auto meta = client->CallTool("meta", Json::object(), seconds(10));
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(Json::parse(ContentToText(*meta))["io.modelcontextprotocol/clientCapabilities"],
            Json({{"elicitation", {{"form", Json::object()}}}}));
  EXPECT_EQ(Text(client->CallTool("ask", Json::object(), seconds(10))),
            R"(answered accept {"ok":true} state=state-1)");
  EXPECT_EQ(asked, 1);
}

TEST(McpModernClient, LegacyServersFallBackQuickly) {
  REQUIRE_PEERS();
  const fs::path file = fs::temp_directory_path() / ("crux_modern_" + std::to_string(getpid()));
  auto client = MustStart(Memory(file));
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->server_info().era, ProtocolEra::kLegacy);
  EXPECT_EQ(client->server_info().protocol_version, "2025-11-25");
  EXPECT_EQ(client->server_info().name, "memory-server");
  EXPECT_FALSE(client->Tools()->empty());
  client.reset();
  fs::remove(file);
}

TEST(McpModernClient, APinnedLegacyVersionSkipsTheProbe) {
  REQUIRE_PEERS();
  ClientOptions options;
  options.protocol_version = "2025-11-25";
  // The modern-only fixture rejects initialize: without a probe, the start fails.
  auto client = Client::Start(Modern(), options);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.error().message().find("-32022"), std::string::npos) << client.error().message();
}

// SEP-2243: which x-mcp-header annotations a client must reject.
TEST(McpHeaderParams, ValidAndInvalidAnnotations) {
  const auto schema = [](Json properties) {
    return Json{{"type", "object"}, {"properties", std::move(properties)}};
  };
  auto valid =
      ToolHeaderParams(schema({{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                               {"n", {{"type", "integer"}, {"x-mcp-header", "N"}}},
                               {"b", {{"type", "boolean"}, {"x-mcp-header", "B"}}},
                               {"plain", {{"type", "number"}}}}));
  ASSERT_TRUE(valid.ok()) << valid.error().message();
  ASSERT_EQ(valid->size(), 3U);
  EXPECT_EQ((*valid)[0].property, "region");
  EXPECT_EQ((*valid)[0].header, "Region");
  const std::vector<Json> invalid = {
      schema({{"v", {{"type", "string"}, {"x-mcp-header", ""}}}}),
      schema({{"v", {{"type", "object"}, {"x-mcp-header", "V"}}}}),
      schema({{"v", {{"type", "array"}, {"x-mcp-header", "V"}}}}),
      schema({{"v", {{"type", "null"}, {"x-mcp-header", "V"}}}}),
      schema({{"v", {{"type", "number"}, {"x-mcp-header", "V"}}}}),
      schema({{"v", {{"type", "string"}, {"x-mcp-header", "My Region"}}}}),
      schema({{"v", {{"type", "string"}, {"x-mcp-header", "Region:Primary"}}}}),
      schema({{"v", {{"type", "string"}, {"x-mcp-header", "R\xc3\xa9gion"}}}}),
      schema({{"v", {{"type", "string"}, {"x-mcp-header", "Region\t1"}}}}),
      schema({{"a", {{"type", "string"}, {"x-mcp-header", "MyField"}}},
              {"b", {{"type", "string"}, {"x-mcp-header", "myfield"}}}}),
  };
  for (const Json& bad : invalid)
    EXPECT_FALSE(ToolHeaderParams(bad).ok()) << bad.dump();
}

TEST(McpHeaderParams, ValuesAreEncodedOrOmitted) {
  const std::vector<HeaderParam> params = {{"s", "S"}, {"i", "I"}, {"t", "T"},
                                           {"f", "F"}, {"u", "U"}, {"w", "W"},
                                           {"n", "N"}, {"e", "E"}, {"missing", "M"}};
  const Json arguments = {{"s", "us west 1"},
                          {"i", 42},
                          {"t", true},
                          {"f", false},
                          {"u", "Hello, \xe4\xb8\x96\xe7\x95\x8c"},
                          {"w", " padded "},
                          {"n", nullptr},
                          {"e", ""}};
  const HttpTransport::Headers headers = ParamHeaders(params, arguments);
  const HttpTransport::Headers expected = {{"Mcp-Param-S", "us west 1"},
                                           {"Mcp-Param-I", "42"},
                                           {"Mcp-Param-T", "true"},
                                           {"Mcp-Param-F", "false"},
                                           {"Mcp-Param-U", "=?base64?SGVsbG8sIOS4lueVjA==?="},
                                           {"Mcp-Param-W", "=?base64?IHBhZGRlZCA=?="},
                                           {"Mcp-Param-E", ""}};
  EXPECT_EQ(headers, expected);
}

}  // namespace
}  // namespace crux::mcp
