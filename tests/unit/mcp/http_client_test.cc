// The MCP client over Streamable HTTP: server-everything started with `streamableHttp` (it
// answers every request with an SSE stream), a raw HTTP server written inline for what
// server-everything never does (JSON bodies, a call that is never answered, an expired
// session), a TCP listener that never answers at all, and the SSE parser at every split.
//
// The peer tests need `node` on PATH and CRUX_MCP_NODE_MODULES=<repo>/tests/e2e/node_modules
// (after `npm ci` there); they are skipped otherwise.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "crux/mcp/client.h"
#include "crux/mcp/http_transport.h"
#include "crux/mcp/manager.h"
#include "unit/mcp/peers.h"

namespace crux::mcp {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// A listening socket on 127.0.0.1 at a free port.
int Listen(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    close(fd);
    return -1;
  }
  port = ntohs(address.sin_port);
  return fd;
}

int FreePort() {
  int port = 0;
  const int fd = Listen(port);
  if (fd >= 0) close(fd);
  return port;
}

std::string Text(const Expected<ToolResult>& result) {
  if (!result.ok()) return "error: " + result.error().message();
  return ContentToText(*result);
}

ClientOptions Options(std::string name) {
  ClientOptions options;
  options.server_name = std::move(name);
  return options;
}

// server-everything over Streamable HTTP, run as a child through StdioTransport (which gives it
// its own process group and takes it down at the end).
class EverythingHttp {
 public:
  EverythingHttp() {
    const int port = FreePort();
    url_ = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
    LaunchSpec spec{"node",
                    {std::string(std::getenv("CRUX_MCP_NODE_MODULES")) +
                         "/@modelcontextprotocol/server-everything/dist/index.js",
                     "streamableHttp"},
                    {{"PORT", std::to_string(port)}},
                    ""};
    StdioOptions options;
    options.on_stderr_line = [this](std::string_view line) {
      if (line.find("listening on port") == std::string_view::npos) return;
      std::lock_guard lock(mu_);
      listening_ = true;
      ready_.notify_all();
    };
    auto process = StdioTransport::Start(spec, std::move(options), {[](std::string_view) {}, {}});
    if (process.ok()) process_ = std::move(*process);
  }
  bool WaitListening() {
    std::unique_lock lock(mu_);
    return process_ && ready_.wait_for(lock, seconds(20), [this] { return listening_; });
  }
  const std::string& url() const { return url_; }

 private:
  std::string url_;
  std::mutex mu_;
  std::condition_variable ready_;
  bool listening_ = false;
  std::unique_ptr<StdioTransport> process_;
};

class HttpEverythingTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {
    client_.reset();
    server_.reset();
  }
  void SetUp() override {
    if (!peers::MissingPeers().empty()) GTEST_SKIP() << "MCP peers: " << peers::MissingPeers();
    if (!server_) {
      server_ = std::make_unique<EverythingHttp>();
      ASSERT_TRUE(server_->WaitListening()) << "server-everything did not start listening";
      auto client = Client::Connect({server_->url(), {{"X-Crux-Test", "1"}}}, Options("web"));
      ASSERT_TRUE(client.ok()) << client.error().message();
      client_ = std::move(*client);
    }
    ASSERT_NE(client_, nullptr);
  }
  Client& client() { return *client_; }

  static std::unique_ptr<EverythingHttp> server_;
  static std::unique_ptr<Client> client_;
};
std::unique_ptr<EverythingHttp> HttpEverythingTest::server_;
std::unique_ptr<Client> HttpEverythingTest::client_;

TEST_F(HttpEverythingTest, HandshakeAndToolList) {
  const ServerInfo& info = client().server_info();
  EXPECT_EQ(info.name, "mcp-servers/everything");
  EXPECT_EQ(info.protocol_version, "2025-11-25");
  EXPECT_TRUE(info.capabilities["tools"].is_object());
  EXPECT_EQ(client().pid(), 0);
  EXPECT_EQ(client().Tools()->size(), 13u);
  EXPECT_TRUE(client().alive());
}

TEST_F(HttpEverythingTest, TextImageAndErrorResults) {
  EXPECT_EQ(Text(client().CallTool("echo", {{"message", "hi"}}, seconds(20))), "Echo: hi");
  EXPECT_EQ(Text(client().CallTool("get-sum", {{"a", 2}, {"b", 3}}, seconds(20))),
            "The sum of 2 and 3 is 5.");
  auto image = client().CallTool("get-tiny-image", Json::object(), seconds(20));
  ASSERT_TRUE(image.ok()) << image.error().message();
  ASSERT_EQ(image->content.size(), 3u);
  EXPECT_EQ(image->content[1]["mimeType"], "image/png");
  auto bad = client().CallTool("get-sum", {{"a", "x"}, {"b", 3}}, seconds(20));
  ASSERT_TRUE(bad.ok()) << bad.error().message();
  EXPECT_TRUE(bad->is_error);
  auto ping = client().Request("ping", nullptr, seconds(20));
  ASSERT_TRUE(ping.ok()) << ping.error().message();
}

TEST_F(HttpEverythingTest, ATimeoutIsCancelledAndTheNextCallWorks) {
  const auto begin = Clock::now();
  auto slow = client().CallTool("trigger-long-running-operation", {{"duration", 10}, {"steps", 2}},
                                milliseconds(300));
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().code(), ErrorCode::kTimeout) << slow.error().message();
  EXPECT_LT(Clock::now() - begin, seconds(3));
  EXPECT_EQ(Text(client().CallTool("echo", {{"message", "after"}}, seconds(20))), "Echo: after");
}

TEST_F(HttpEverythingTest, TwentyConcurrentCalls) {
  std::vector<std::string> answers(20);
  std::vector<std::thread> threads;
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&, i] {
      answers[i] = Text(client().CallTool("echo", {{"message", std::to_string(i)}}, seconds(20)));
    });
  }
  for (auto& thread : threads)
    thread.join();
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(answers[i], "Echo: " + std::to_string(i));
}

TEST_F(HttpEverythingTest, TheManagerConnectsToAnHttpServer) {
  ServerConfig server;
  server.name = "web";
  server.transport = Transport::kHttp;
  server.url = server_->url();
  Config config;
  config.servers = {server};
  Manager manager(std::move(config), SecurityOptions{}, {});
  manager.Start();
  const auto servers = manager.Servers();
  ASSERT_EQ(servers.size(), 1u);
  EXPECT_EQ(servers[0].state, ServerState::kConnected) << servers[0].error;
  EXPECT_EQ(servers[0].tools, 13u);
  const ExecResult sum = manager.Execute("web__get-sum", {{"a", 2}, {"b", 3}});
  EXPECT_FALSE(sum.is_error) << sum.text;
  EXPECT_EQ(sum.text, "The sum of 2 and 3 is 5.");
}

// A raw HTTP/1.1 server: answers initialize and tools/list with JSON bodies, accepts
// notifications with 202, never answers tools/call "stall" (nor DELETE), and answers tools/call
// "expire" with 404, as a server whose session expired does.
class RawServer {
 public:
  explicit RawServer(bool answer) : answer_(answer) {
    listener_ = Listen(port_);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~RawServer() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    acceptor_.join();
    std::lock_guard lock(mu_);
    for (int fd : connections_)
      shutdown(fd, SHUT_RDWR);
    for (auto& thread : threads_)
      thread.join();
    for (int fd : connections_)
      close(fd);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
  int requests() const { return requests_; }

 private:
  void Accept() {
    for (;;) {
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      std::lock_guard lock(mu_);
      connections_.push_back(fd);
      if (answer_) threads_.emplace_back([this, fd] { Serve(fd); });
    }
  }
  void Serve(int fd) {
    std::string buffer;
    char chunk[4096];
    for (;;) {
      const size_t head = buffer.find("\r\n\r\n");
      if (head != std::string::npos) {
        const size_t length_at = buffer.find("Content-Length: ");
        const size_t length =
            length_at < head ? std::stoul(buffer.substr(length_at + 16)) : size_t{0};
        if (buffer.size() >= head + 4 + length) {
          const std::string body = buffer.substr(head + 4, length);
          buffer.erase(0, head + 4 + length);
          ++requests_;
          const std::string reply = Reply(body);
          if (reply.empty()) continue;  // stalled: keep reading, never answer
          if (write(fd, reply.data(), reply.size()) < 0) return;
          continue;
        }
      }
      const ssize_t got = read(fd, chunk, sizeof chunk);
      if (got <= 0) return;
      buffer.append(chunk, static_cast<size_t>(got));
    }
  }
  static std::string Reply(const std::string& body) {
    const auto json = [](const std::string& text) {
      return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-1\r\n"
             "Content-Length: " +
             std::to_string(text.size()) + "\r\n\r\n" + text;
    };
    if (body.empty() || body.find("\"stall\"") != std::string::npos) return "";
    if (body.find("\"expire\"") != std::string::npos) {
      return "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found";
    }
    const Json message = Json::parse(body);
    if (!message.contains("id")) return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
    const std::string id = message["id"].dump();
    if (message["method"] == "initialize") {
      return json(R"({"jsonrpc":"2.0","id":)" + id +
                  R"(,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},)"
                  R"("serverInfo":{"name":"raw","version":"1"}}})");
    }
    return json(R"({"jsonrpc":"2.0","id":)" + id +
                R"(,"result":{"tools":[{"name":"stall","inputSchema":{"type":"object"}}]}})");
  }

  const bool answer_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> requests_ = 0;
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
};

TEST(HttpClientTest, AStalledCallTimesOutAndStopIsPrompt) {
  RawServer server(true);
  auto client = Client::Connect({server.url(), {}}, Options("raw"));
  ASSERT_TRUE(client.ok()) << client.error().message();
  EXPECT_EQ((*client)->server_info().name, "raw");
  ASSERT_EQ((*client)->Tools()->size(), 1u);
  auto begin = Clock::now();
  auto stalled = (*client)->CallTool("stall", Json::object(), milliseconds(300));
  ASSERT_FALSE(stalled.ok());
  EXPECT_EQ(stalled.error().code(), ErrorCode::kTimeout) << stalled.error().message();
  EXPECT_LT(Clock::now() - begin, seconds(2));
  begin = Clock::now();
  client->reset();  // DELETE is never answered either
  EXPECT_LT(Clock::now() - begin, seconds(3));
}

TEST(HttpClientTest, AnExpiredSessionEndsTheClient) {
  RawServer server(true);
  auto client = Client::Connect({server.url(), {}}, Options("raw"));
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto expired = (*client)->CallTool("expire", Json::object(), seconds(10));
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().code(), ErrorCode::kUnavailable);
  EXPECT_NE(expired.error().message().find("session expired"), std::string::npos)
      << expired.error().message();
  EXPECT_FALSE((*client)->alive());
}

TEST(HttpClientTest, AServerThatNeverAnswersFailsTheHandshakePromptly) {
  RawServer server(false);
  ClientOptions options = Options("mute");
  options.startup_timeout = milliseconds(500);
  const auto begin = Clock::now();
  auto client = Client::Connect({server.url(), {}}, options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code(), ErrorCode::kTimeout) << client.error().message();
  EXPECT_LT(Clock::now() - begin, seconds(3));
}

TEST(HttpClientTest, UnreachableHttpsAndMalformedUrls) {
  auto refused = Client::Connect({"http://127.0.0.1:" + std::to_string(FreePort()) + "/mcp", {}},
                                 Options("gone"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kUnavailable) << refused.error().message();
  auto https = Client::Connect({"https://example.com/mcp", {}}, Options("tls"));
  ASSERT_FALSE(https.ok());
  EXPECT_EQ(https.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(https.error().message().find("need TLS, which this build lacks"), std::string::npos);
  auto header =
      Client::Connect({"http://127.0.0.1:1/mcp", {{"X-Bad", "a\r\nInjected: 1"}}}, Options("bad"));
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().code(), ErrorCode::kInvalidArgument);
  auto url = Client::Connect({"ftp://host/x", {}}, Options("ftp"));
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace crux::mcp
