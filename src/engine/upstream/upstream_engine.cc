#include "crux/engine/upstream_engine.h"

#include <spdlog/spdlog.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>

#include "balancer.h"
#include "call.h"
#include "crux/text/json_parse.h"
#include "exchange.h"
#include "wire.h"

namespace crux::engine {
namespace {

namespace net = boost::asio;
using Json = nlohmann::json;
using upstream::Answer;
using upstream::Balancer;
using upstream::Call;
using upstream::Target;

constexpr auto kStartupProbeEvery = std::chrono::milliseconds(250);
constexpr auto kTokenizeTimeout = std::chrono::milliseconds(2000);

Expected<Target> MakeTarget(const std::string& url) {
  auto parsed = text::ParseHttpUrl(url);
  if (!parsed.ok()) return parsed.error().WithContext("--upstream");
  Target target{url, *parsed, parsed->target};
  while (!target.prefix.empty() && target.prefix.back() == '/')
    target.prefix.pop_back();
  if (target.prefix.ends_with("/v1")) target.prefix.resize(target.prefix.size() - 3);
  if (target.prefix.find('?') != std::string::npos) {
    return Error(ErrorCode::kInvalidArgument, "--upstream: a URL with a query: " + url);
  }
  return target;
}

// The health path of each kind: llama-server, vLLM and SGLang answer /health (llama-server 503
// while it loads); any other completions server answers /v1/models.
std::string HealthPath(UpstreamKind kind) {
  return kind == UpstreamKind::kOpenAiCompletions ? "/v1/models" : "/health";
}

class Handle final : public Generation {
 public:
  explicit Handle(std::shared_ptr<Call> call) : call_(std::move(call)) {}
  ~Handle() override { call_->Cancel(); }
  void Cancel() override { call_->Cancel(); }

 private:
  std::shared_ptr<Call> call_;
};

class Fleet final : public UpstreamEngine {
 public:
  Fleet(UpstreamOptions options, std::vector<Target> targets)
      : options_(std::move(options)),
        balancer_(std::move(targets)),
        work_(net::make_work_guard(ioc_)),
        health_(ioc_) {}
  ~Fleet() override { Shutdown(); }

  Status Begin();
  std::vector<ModelInfo> Models() const override { return {model_}; }
  int CountTokens(std::string_view model, std::string_view text) const override;
  int CountPromptTokens(std::string_view, std::string_view) const override { return 0; }
  Expected<std::unique_ptr<Generation>> Submit(GenerateRequest request,
                                               std::shared_ptr<GenerationSink> sink) override;
  void Shutdown() override;
  RequirementSupport Requirements() const override { return upstream::SupportOf(options_.kind); }
  void AppendMetrics(std::string& out) const override;
  std::vector<UpstreamStatus> Upstreams() const override { return balancer_.Status(); }

 private:
  Answer Fetch(size_t index, std::string path, std::string body,
               std::chrono::milliseconds timeout) const;
  void Probe(size_t index);
  void ScheduleProbes();
  Status WaitForFirst();
  void ReadModel(size_t index);
  bool SingleToken(const std::string& marker) const;
  bool TokenMarkers(const GenerateRequest& request) const;

  UpstreamOptions options_;
  mutable net::io_context ioc_;
  mutable Balancer balancer_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  net::steady_timer health_;
  std::thread thread_;
  ModelInfo model_;
  std::string upstream_model_;  // the `model` sent
  mutable std::mutex calls_mu_;
  std::vector<std::weak_ptr<Call>> calls_;
  mutable std::mutex tokens_mu_;
  mutable std::unordered_map<std::string, bool> single_token_;  // marker → one token upstream
  std::once_flag shutdown_;
  std::atomic<bool> stopping_{false};
};

Answer Fleet::Fetch(size_t index, std::string path, std::string body,
                    std::chrono::milliseconds timeout) const {
  auto promise = std::make_shared<std::promise<Answer>>();
  auto future = promise->get_future();
  net::post(ioc_, [this, index, path = std::move(path), body = std::move(body), timeout, promise] {
    upstream::Exchange(ioc_, balancer_.target(index), options_.api_key, path, body, timeout,
                       [promise](Answer a) { promise->set_value(std::move(a)); });
  });
  return future.get();
}

void Fleet::Probe(size_t index) {
  upstream::Exchange(ioc_, balancer_.target(index), options_.api_key, HealthPath(options_.kind), "",
                     options_.probe_timeout, [this, index](Answer answer) {
                       const std::string& url = balancer_.target(index).url;
                       if (answer.status == 200) {
                         if (balancer_.MarkUp(index)) spdlog::info("upstream {} is up", url);
                         return;
                       }
                       std::string why = answer.status == 0 ? answer.error
                                                            : "health answered HTTP " +
                                                                  std::to_string(answer.status);
                       if (balancer_.MarkDown(index, why, false)) {
                         spdlog::warn("upstream {} taken out: {}", url, why);
                       }
                     });
}

void Fleet::ScheduleProbes() {
  if (stopping_) return;
  for (size_t i = 0; i < balancer_.size(); ++i)
    Probe(i);
  health_.expires_after(options_.health_interval);
  health_.async_wait([this](boost::system::error_code ec) {
    if (!ec) ScheduleProbes();
  });
}

Status Fleet::WaitForFirst() {
  const auto until = std::chrono::steady_clock::now() + options_.startup_timeout;
  while (true) {
    for (size_t i = 0; i < balancer_.size(); ++i) {
      net::post(ioc_, [this, i] { Probe(i); });
    }
    std::this_thread::sleep_for(kStartupProbeEvery);
    if (balancer_.AnyHealthy()) return Status();
    if (std::chrono::steady_clock::now() >= until) {
      return Error(ErrorCode::kUnavailable,
                   "no upstream answered within " +
                       std::to_string(options_.startup_timeout.count() / 1000) +
                       " s: " + balancer_.Failures());
    }
  }
}

// The model id from /v1/models and, where the upstream has /props (llama-server, crux), its
// chat template, special tokens and context size.
void Fleet::ReadModel(size_t index) {
  upstream_model_ = options_.upstream_model;
  if (upstream_model_.empty()) {
    const Answer models = Fetch(index, "/v1/models", "", options_.probe_timeout);
    auto json = text::ParseJson<Json>(models.body);
    if (models.status == 200 && json.ok() && json->is_object() && json->contains("data") &&
        (*json)["data"].is_array() && !(*json)["data"].empty() &&
        (*json)["data"][0].value("id", Json()).is_string()) {
      upstream_model_ = (*json)["data"][0]["id"].get<std::string>();
    }
  }
  model_.id = options_.model_id.empty() ? upstream_model_ : options_.model_id;
  if (model_.id.empty()) model_.id = "upstream";
  model_.owned_by = "upstream";
  const Answer props = Fetch(index, "/props", "", options_.probe_timeout);
  auto json = text::ParseJson<Json>(props.body);
  if (props.status != 200 || !json.ok() || !json->is_object()) return;
  const auto text_of = [&](const char* key) {
    const auto it = json->find(key);
    return it != json->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  model_.chat_template = text_of("chat_template");
  model_.bos_token = text_of("bos_token");
  model_.eos_token = text_of("eos_token");
  const auto settings = json->find("default_generation_settings");
  if (settings != json->end() && settings->is_object()) {
    model_.context_length = settings->value("n_ctx", 0);
  }
}

Status Fleet::Begin() {
  thread_ = std::thread([this] { ioc_.run(); });
  if (Status first = WaitForFirst(); !first.ok()) return first;
  for (size_t i = 0; i < balancer_.size(); ++i) {
    if (balancer_.Status()[i].healthy) {
      ReadModel(i);
      break;
    }
  }
  net::post(ioc_, [this] { ScheduleProbes(); });
  return Status();
}

// /tokenize of the upstream (llama-server's and crux's `content`, vLLM's and SGLang's
// `prompt`); an estimate of one token per four bytes when none answers.
int Fleet::CountTokens(std::string_view, std::string_view text) const {
  const int estimate = static_cast<int>((text.size() + 3) / 4);
  if (text.empty()) return 0;
  auto index = balancer_.Pick({});
  if (!index) return estimate;
  Json body = Json::object();
  if (options_.kind == UpstreamKind::kVllm || options_.kind == UpstreamKind::kSglang) {
    body = {{"model", upstream_model_}, {"prompt", text}, {"add_special_tokens", false}};
  } else {
    body = {{"content", text}, {"add_special", false}};
  }
  const Answer answer =
      Fetch(*index, "/tokenize", body.dump(-1, ' ', false, Json::error_handler_t::replace),
            kTokenizeTimeout);
  balancer_.Release(*index);
  auto json = text::ParseJson<Json>(answer.body);
  if (answer.status != 200 || !json.ok() || !json->is_object()) return estimate;
  if (const auto count = json->find("count"); count != json->end() && count->is_number_integer()) {
    return count->get<int>();
  }
  if (const auto tokens = json->find("tokens"); tokens != json->end() && tokens->is_array()) {
    return static_cast<int>(tokens->size());
  }
  return estimate;
}

// Whether the upstream's vocabulary has `marker` as one token (asked once per marker, through
// its /tokenize; false when it does not answer).
bool Fleet::SingleToken(const std::string& marker) const {
  {
    std::lock_guard lock(tokens_mu_);
    if (const auto it = single_token_.find(marker); it != single_token_.end()) return it->second;
  }
  auto index = balancer_.Pick({});
  if (!index) return false;
  const Json body = {{"content", marker}, {"add_special", false}, {"parse_special", true}};
  const Answer answer = Fetch(*index, "/tokenize", body.dump(), kTokenizeTimeout);
  balancer_.Release(*index);
  auto json = text::ParseJson<Json>(answer.body);
  const bool answered = answer.status == 200 && json.ok() && json->is_object();
  bool single = false;
  if (answered) {
    const auto tokens = json->find("tokens");
    single = tokens != json->end() && tokens->is_array() && tokens->size() == 1;
  }
  if (answered) {  // a failure is asked again next time
    std::lock_guard lock(tokens_mu_);
    single_token_[marker] = single;
  }
  return single;
}

// A llama-server gets the grammar that names the reasoning markers as tokens when it can.
bool Fleet::TokenMarkers(const GenerateRequest& request) const {
  const OutputRequirements* r = request.requirements.get();
  if (options_.kind != UpstreamKind::kLlamaServer || r == nullptr || r->token_grammar.empty()) {
    return false;
  }
  return SingleToken(r->reasoning_start) && SingleToken(r->reasoning_end);
}

Expected<std::unique_ptr<Generation>> Fleet::Submit(GenerateRequest request,
                                                    std::shared_ptr<GenerationSink> sink) {
  if (stopping_) return Error(ErrorCode::kUnavailable, "the engine is shutting down");
  if (!request.model.empty() && request.model != model_.id) {
    return Error(ErrorCode::kNotFound, "model '" + request.model + "' is not served");
  }
  if (!balancer_.AnyHealthy()) {
    return Error(ErrorCode::kUnavailable,
                 "no upstream is available (" + balancer_.Failures() + ")");
  }
  std::string body =
      upstream::CompletionBody(request, options_.kind, upstream_model_, TokenMarkers(request));
  auto call = std::make_shared<Call>(upstream::CallContext{&ioc_, &balancer_, &options_},
                                     std::move(body), request.stop, std::move(sink));
  {
    std::lock_guard lock(calls_mu_);
    std::erase_if(calls_, [](const std::weak_ptr<Call>& c) { return c.expired(); });
    calls_.push_back(call);
  }
  net::post(ioc_, [call] { call->Start(); });
  return std::unique_ptr<Generation>(std::make_unique<Handle>(std::move(call)));
}

void Fleet::Shutdown() {
  std::call_once(shutdown_, [this] {
    stopping_ = true;
    {
      std::lock_guard lock(calls_mu_);
      for (const auto& weak : calls_) {
        if (auto call = weak.lock()) call->Cancel();
      }
    }
    net::post(ioc_, [this] { health_.cancel(); });
    work_.reset();
    if (thread_.joinable()) thread_.join();
  });
}

void Fleet::AppendMetrics(std::string& out) const {
  const auto status = balancer_.Status();
  const auto series = [&](const char* name, const char* type, const char* help, auto value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    for (const UpstreamStatus& s : status)
      out += std::string(name) + "{upstream=\"" + s.url + "\"} " + std::to_string(value(s)) + "\n";
  };
  series("crux_upstream_healthy", "gauge", "1 while the upstream takes requests.",
         [](const UpstreamStatus& s) { return s.healthy ? 1 : 0; });
  series("crux_upstream_in_flight", "gauge", "Requests in flight at the upstream.",
         [](const UpstreamStatus& s) { return s.in_flight; });
  series("crux_upstream_requests_total", "counter", "Requests sent to the upstream.",
         [](const UpstreamStatus& s) { return s.requests; });
  series("crux_upstream_failures_total", "counter",
         "Requests the upstream failed (no connection, 5xx, a cut stream).",
         [](const UpstreamStatus& s) { return s.failures; });
}

}  // namespace

std::string_view UpstreamKindName(UpstreamKind kind) {
  switch (kind) {
    case UpstreamKind::kLlamaServer:
      return "llama-server";
    case UpstreamKind::kVllm:
      return "vllm";
    case UpstreamKind::kSglang:
      return "sglang";
    case UpstreamKind::kOpenAiCompletions:
      return "openai-completions";
  }
  return "?";
}

Expected<UpstreamKind> ParseUpstreamKind(std::string_view name) {
  for (UpstreamKind kind : {UpstreamKind::kLlamaServer, UpstreamKind::kVllm, UpstreamKind::kSglang,
                            UpstreamKind::kOpenAiCompletions}) {
    if (name == UpstreamKindName(kind)) return kind;
  }
  return Error(ErrorCode::kInvalidArgument,
               "unknown --upstream-kind '" + std::string(name) +
                   "'; available: llama-server, vllm, sglang, openai-completions");
}

Expected<std::unique_ptr<UpstreamEngine>> MakeUpstreamEngine(UpstreamOptions options) {
  if (options.urls.empty()) {
    return Error(ErrorCode::kInvalidArgument, "--engine upstream needs --upstream URL[,URL…]");
  }
  std::vector<Target> targets;
  for (const std::string& url : options.urls) {
    auto target = MakeTarget(url);
    if (!target.ok()) return target.error();
    targets.push_back(*std::move(target));
  }
  auto engine = std::make_unique<Fleet>(std::move(options), std::move(targets));
  if (Status began = engine->Begin(); !began.ok()) return began.error();
  return std::unique_ptr<UpstreamEngine>(std::move(engine));
}

}  // namespace crux::engine
