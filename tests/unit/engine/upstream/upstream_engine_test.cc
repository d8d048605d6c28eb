// The upstream engine against scripted upstreams: a tiny HTTP server per upstream whose
// /v1/completions answer each test writes byte for byte.
#include "crux/engine/upstream_engine.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace crux::engine {
namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

// Writes the answer to one /v1/completions request on `socket` (raw bytes; closing ends it).
using Script = std::function<void(const std::string& body, tcp::socket& socket)>;

std::string Event(const std::string& json) {
  return "data: " + json + "\n\n";
}
std::string TextEvent(const std::string& text) {
  return Event(nlohmann::json{{"choices", {{{"text", text}, {"finish_reason", nullptr}}}}}.dump());
}
std::string FinalEvents(const std::string& reason, int prompt, int completion) {
  return Event(nlohmann::json{
             {"choices", {{{"text", ""}, {"finish_reason", reason}}}},
             {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion}}}}
                   .dump()) +
         "data: [DONE]\n\n";
}
constexpr const char* kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

void Write(tcp::socket& socket, const std::string& bytes) {
  boost::system::error_code ec;
  net::write(socket, net::buffer(bytes), ec);
}

// One scripted upstream on 127.0.0.1. Stop() closes it; Start() again reopens the same port.
class FakeUpstream {
 public:
  explicit FakeUpstream(Script script) : script_(std::move(script)) { Start(); }
  ~FakeUpstream() { Stop(); }

  void Start() {  // port_ is 0 the first time (any free port), then the same port again
    acceptor_ = std::make_unique<tcp::acceptor>(ioc_);
    tcp::endpoint at(net::ip::make_address("127.0.0.1"), port_);
    acceptor_->open(at.protocol());
    acceptor_->set_option(net::socket_base::reuse_address(true));
    acceptor_->bind(at);
    acceptor_->listen();
    port_ = acceptor_->local_endpoint().port();
    running_ = true;
    thread_ = std::thread([this] { Accept(); });
  }
  void Stop() {
    if (!running_) return;
    running_ = false;
    boost::system::error_code ec;
    ::shutdown(acceptor_->native_handle(), SHUT_RDWR);  // wakes the blocking accept
    acceptor_->close(ec);
    thread_.join();
    for (auto& t : connections_)
      t.join();
    connections_.clear();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string last_body() {
    std::lock_guard lock(mu_);
    return last_body_;
  }
  int completions() const { return completions_; }

 private:
  void Accept() {
    while (running_) {
      tcp::socket socket(ioc_);
      boost::system::error_code ec;
      acceptor_->accept(socket, ec);
      if (ec) return;
      connections_.emplace_back([this, s = std::move(socket)]() mutable { Serve(s); });
    }
  }
  void Serve(tcp::socket& socket) {
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    boost::system::error_code ec;
    http::read(socket, buffer, request, ec);
    if (ec) return;
    const std::string target(request.target());
    if (target == "/v1/completions") {
      {
        std::lock_guard lock(mu_);
        last_body_ = request.body();
      }
      ++completions_;
      script_(request.body(), socket);
    } else if (target == "/health") {
      Write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
    } else if (target == "/v1/models") {
      const std::string body = R"({"data":[{"id":"fake-model"}]})";
      Write(socket, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\nConnection: close\r\n\r\n" + body);
    } else {
      Write(socket, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    }
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  Script script_;
  net::io_context ioc_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  unsigned short port_ = 0;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::vector<std::thread> connections_;
  std::mutex mu_;
  std::string last_body_;
  std::atomic<int> completions_{0};
};

class Collect final : public GenerationSink {
 public:
  void OnUpdate(GenerationUpdate update) override {
    std::lock_guard lock(mu_);
    text_ += update.text;
    tokens_ += update.tokens;
    if (update.finished) last_ = update;
    done_.notify_all();
  }
  // The final update (fails the test after 10 s).
  GenerationUpdate Wait() {
    std::unique_lock lock(mu_);
    EXPECT_TRUE(done_.wait_for(lock, 10s, [&] { return last_.has_value(); }));
    return last_.value_or(GenerationUpdate{});
  }
  std::string text() {
    std::lock_guard lock(mu_);
    return text_;
  }
  int tokens() {
    std::lock_guard lock(mu_);
    return tokens_;
  }

 private:
  std::mutex mu_;
  std::condition_variable done_;
  std::string text_;
  int tokens_ = 0;
  std::optional<GenerationUpdate> last_;
};

std::unique_ptr<UpstreamEngine> Make(std::vector<std::string> urls,
                                     std::chrono::milliseconds timeout = 600s) {
  UpstreamOptions options;
  options.urls = std::move(urls);
  options.request_timeout = timeout;
  options.health_interval = 100ms;
  options.startup_timeout = 5s;
  auto made = MakeUpstreamEngine(options);
  EXPECT_TRUE(made.ok()) << made.error().message();
  return made.ok() ? std::move(*made) : nullptr;
}

GenerationUpdate Generate(Engine& engine, GenerateRequest request, Collect& sink) {
  auto handle = engine.Submit(std::move(request), std::shared_ptr<Collect>(&sink, [](Collect*) {}));
  EXPECT_TRUE(handle.ok()) << handle.error().message();
  return sink.Wait();
}

void Hello(const std::string&, tcp::socket& socket) {
  Write(socket,
        std::string(kSseHead) + TextEvent("Hel") + TextEvent("lo") + FinalEvents("stop", 5, 3));
}

TEST(UpstreamEngineTest, StreamsTheTextAndTakesCountsFromTheUsage) {
  FakeUpstream upstream(Hello);
  auto engine = Make({upstream.url()});
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->Models().front().id, "fake-model");
  GenerateRequest request;
  request.prompt = "PROMPT";
  request.max_tokens = 9;
  Collect sink;
  const GenerationUpdate last = Generate(*engine, request, sink);
  EXPECT_EQ(sink.text(), "Hello");
  EXPECT_EQ(last.reason, StopReason::kEndOfGeneration);
  EXPECT_EQ(sink.tokens(), 3);
  EXPECT_EQ(last.prompt_tokens, 5);
  const auto body = nlohmann::json::parse(upstream.last_body());
  EXPECT_EQ(body["prompt"], "PROMPT");
  EXPECT_EQ(body["model"], "fake-model");
  EXPECT_EQ(body["max_tokens"], 9);
  EXPECT_EQ(body["stream"], true);
}

TEST(UpstreamEngineTest, StopStringsEndTheOutputBeforeThem) {
  FakeUpstream upstream([](const std::string&, tcp::socket& socket) {
    Write(socket, std::string(kSseHead) + TextEvent("abc ST") + TextEvent("OP def") +
                      FinalEvents("stop", 5, 2));
  });
  auto engine = Make({upstream.url()});
  ASSERT_NE(engine, nullptr);
  GenerateRequest request;
  request.prompt = "p";
  request.stop = {"STOP"};
  Collect sink;
  const GenerationUpdate last = Generate(*engine, request, sink);
  EXPECT_EQ(sink.text(), "abc ");
  EXPECT_EQ(last.reason, StopReason::kStopString);
  EXPECT_EQ(last.stop_string, "STOP");
}

TEST(UpstreamEngineTest, LengthAndRefusalsAndCutStreams) {
  std::atomic<int> mode{0};
  FakeUpstream upstream([&](const std::string&, tcp::socket& socket) {
    if (mode == 0) {
      Write(socket, std::string(kSseHead) + TextEvent("x") + FinalEvents("length", 1, 1));
    } else if (mode == 1) {
      const std::string body = R"({"error":{"message":"the prompt exceeds the context"}})";
      Write(socket,
            "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
            "Content-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body);
    } else {
      Write(socket, std::string(kSseHead) + TextEvent("partial"));  // then the connection drops
    }
  });
  auto engine = Make({upstream.url()});
  ASSERT_NE(engine, nullptr);
  GenerateRequest request;
  request.prompt = "p";
  Collect length;
  EXPECT_EQ(Generate(*engine, request, length).reason, StopReason::kMaxTokens);
  mode = 1;
  Collect refused;
  const GenerationUpdate refusal = Generate(*engine, request, refused);
  EXPECT_EQ(refusal.reason, StopReason::kError);
  EXPECT_EQ(refusal.error_status, 400);
  EXPECT_NE(refusal.error.find("the prompt exceeds the context"), std::string::npos)
      << refusal.error;
  mode = 2;
  Collect cut;
  const GenerationUpdate broken = Generate(*engine, request, cut);
  EXPECT_EQ(cut.text(), "partial");  // what came is kept
  EXPECT_EQ(broken.reason, StopReason::kError);
  EXPECT_EQ(broken.error_status, 502);
  EXPECT_NE(broken.error.find("failed mid-generation"), std::string::npos) << broken.error;
}

TEST(UpstreamEngineTest, AStalledUpstreamEndsTheRequestAtItsTimeout) {
  FakeUpstream upstream([](const std::string&, tcp::socket& socket) {
    std::this_thread::sleep_for(1500ms);  // no answer
    Write(socket, std::string(kSseHead) + FinalEvents("stop", 1, 0));
  });
  auto engine = Make({upstream.url()}, 300ms);
  ASSERT_NE(engine, nullptr);
  GenerateRequest request;
  request.prompt = "p";
  Collect sink;
  const auto begin = std::chrono::steady_clock::now();
  const GenerationUpdate last = Generate(*engine, request, sink);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 1200ms);
  EXPECT_EQ(last.reason, StopReason::kError);
  EXPECT_EQ(last.error_status, 504);
  EXPECT_NE(last.error.find("did not answer within the request timeout"), std::string::npos)
      << last.error;
  EXPECT_TRUE(engine->Upstreams()[0].healthy);  // slow is not down
}

TEST(UpstreamEngineTest, AFailedUpstreamIsSkippedAndRejoins) {
  FakeUpstream a(Hello);
  FakeUpstream b(Hello);
  auto engine = Make({a.url(), b.url()});
  ASSERT_NE(engine, nullptr);
  std::this_thread::sleep_for(300ms);  // both probed
  a.Stop();
  GenerateRequest request;
  request.prompt = "p";
  for (int i = 0; i < 4; ++i) {  // none fails: a refused connection moves the request on
    Collect sink;
    const GenerationUpdate last = Generate(*engine, request, sink);
    EXPECT_EQ(last.reason, StopReason::kEndOfGeneration) << last.error;
    EXPECT_EQ(sink.text(), "Hello");
  }
  EXPECT_FALSE(engine->Upstreams()[0].healthy);
  b.Stop();
  std::this_thread::sleep_for(300ms);
  Collect none;
  auto refused = engine->Submit(request, std::shared_ptr<Collect>(&none, [](Collect*) {}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kUnavailable);
  EXPECT_NE(refused.error().message().find(a.url()), std::string::npos);
  a.Start();  // same port
  std::this_thread::sleep_for(400ms);
  EXPECT_TRUE(engine->Upstreams()[0].healthy);
  Collect back;
  EXPECT_EQ(Generate(*engine, request, back).reason, StopReason::kEndOfGeneration);
  EXPECT_EQ(back.text(), "Hello");
}

TEST(UpstreamEngineTest, CancelClosesTheUpstreamRequest) {
  std::atomic<bool> closed{false};
  FakeUpstream upstream([&](const std::string&, tcp::socket& socket) {
    boost::system::error_code ec;
    net::write(socket, net::buffer(std::string(kSseHead)), ec);
    for (int i = 0; i < 400 && !ec; ++i) {  // 20 s of tokens unless the reader goes away
      net::write(socket, net::buffer(TextEvent("t")), ec);
      std::this_thread::sleep_for(50ms);
    }
    closed = static_cast<bool>(ec);
  });
  auto engine = Make({upstream.url()});
  ASSERT_NE(engine, nullptr);
  GenerateRequest request;
  request.prompt = "p";
  Collect sink;
  auto handle = engine->Submit(request, std::shared_ptr<Collect>(&sink, [](Collect*) {}));
  ASSERT_TRUE(handle.ok());
  std::this_thread::sleep_for(300ms);
  (*handle)->Cancel();
  EXPECT_EQ(sink.Wait().reason, StopReason::kCancelled);
  EXPECT_FALSE(sink.text().empty());
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!closed && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(closed);  // the upstream saw the request go away
  engine->Shutdown();
}

TEST(UpstreamEngineTest, StartUpNamesUpstreamsThatDoNotAnswer) {
  UpstreamOptions options;
  options.urls = {"http://127.0.0.1:1"};
  options.startup_timeout = 300ms;
  auto made = MakeUpstreamEngine(options);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code(), ErrorCode::kUnavailable);
  EXPECT_NE(made.error().message().find("http://127.0.0.1:1"), std::string::npos);
  options.urls = {"https://example.com"};
  EXPECT_EQ(MakeUpstreamEngine(options).error().code(), ErrorCode::kUnsupported);
  options.urls = {};
  EXPECT_EQ(MakeUpstreamEngine(options).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(ParseUpstreamKind("tgi").ok());
  EXPECT_EQ(*ParseUpstreamKind("vllm"), UpstreamKind::kVllm);
}

}  // namespace
}  // namespace crux::engine
