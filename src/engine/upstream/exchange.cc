#include "exchange.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>

namespace crux::engine::upstream {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

struct Op : std::enable_shared_from_this<Op> {
  Op(net::io_context& ioc, const Target& target) : resolver(ioc), stream(ioc), target(target) {}
  tcp::resolver resolver;
  beast::tcp_stream stream;
  const Target& target;
  http::request<http::string_body> request;
  beast::flat_buffer buffer;
  std::optional<http::response_parser<http::string_body>> parser;
  std::function<void(Answer)> done;
  std::chrono::steady_clock::time_point deadline;

  void Fail(const std::string& what, const beast::error_code& ec) {
    Answer answer;
    answer.error = what + ": " + ec.message();
    done(std::move(answer));
  }

  void Start() {
    auto self = shared_from_this();
    resolver.async_resolve(target.parsed.host, target.parsed.port,
                           [self](beast::error_code ec, const tcp::resolver::results_type& r) {
                             if (ec) return self->Fail("cannot resolve", ec);
                             self->Connect(r);
                           });
  }

  void Connect(const tcp::resolver::results_type& endpoints) {
    auto self = shared_from_this();
    stream.expires_at(deadline);
    stream.async_connect(endpoints, [self](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return self->Fail("cannot connect", ec);
      self->stream.expires_at(self->deadline);
      http::async_write(self->stream, self->request, [self](beast::error_code wec, size_t) {
        if (wec) return self->Fail("cannot send", wec);
        self->Read();
      });
    });
  }

  void Read() {
    auto self = shared_from_this();
    parser.emplace();
    parser->body_limit(kMaxAnswerBytes);
    http::async_read(stream, buffer, *parser, [self](beast::error_code ec, size_t) {
      if (ec) return self->Fail("no answer", ec);
      Answer answer;
      answer.status = static_cast<int>(self->parser->get().result_int());
      answer.body = std::move(self->parser->get().body());
      beast::error_code ignored;
      self->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
      self->done(std::move(answer));
    });
  }
};

}  // namespace

void Exchange(net::io_context& ioc, const Target& target, const std::string& api_key,
              std::string path, std::string body, std::chrono::milliseconds timeout,
              std::function<void(Answer)> done) {
  auto op = std::make_shared<Op>(ioc, target);
  const bool post = !body.empty();
  op->request = {post ? http::verb::post : http::verb::get, target.prefix + path, 11};
  op->request.set(http::field::host, target.parsed.authority);
  op->request.set(http::field::user_agent, "crux");
  if (!api_key.empty()) op->request.set(http::field::authorization, "Bearer " + api_key);
  if (post) {
    op->request.set(http::field::content_type, "application/json");
    op->request.body() = std::move(body);
  }
  op->request.keep_alive(false);
  op->request.prepare_payload();
  op->done = std::move(done);
  op->deadline = std::chrono::steady_clock::now() + timeout;
  op->Start();
}

}  // namespace crux::engine::upstream
