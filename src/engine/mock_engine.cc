// Mock engine: one engine thread steps every active generation by one token per round
// (round-robin, like a batched decode step), optionally paced to a token rate.
#include "crux/engine/mock_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "crux/base/utf8.h"
#include "crux/text/stop_matcher.h"

namespace crux::engine {
namespace {

using Clock = std::chrono::steady_clock;

size_t NextPieceLength(std::string_view text, size_t pos) {
  size_t len = 0;
  while (pos + len < text.size()) {
    int n = utf8::SequenceLength(static_cast<unsigned char>(text[pos + len]));
    if (n == 0) n = 1;  // stray byte: a piece of its own
    if (len + static_cast<size_t>(n) > 4) break;
    len += static_cast<size_t>(n);
  }
  if (len == 0) len = std::min<size_t>(4, text.size() - pos);
  return std::min(len, text.size() - pos);
}

}  // namespace

int PriorAssistantTurns(std::string_view prompt, std::string_view marker) {
  if (marker.empty()) return 0;
  int count = 0;
  for (size_t at = prompt.find(marker); at != std::string_view::npos;
       at = prompt.find(marker, at + marker.size())) {
    ++count;
  }
  return std::max(0, count - 1);
}

namespace {

// Mutable per-request state; owned by the engine thread while active.
struct MockState {
  GenerateRequest request;
  std::shared_ptr<GenerationSink> sink;
  std::string_view script;
  size_t offset = 0;
  int tokens = 0;
  int prompt_tokens = 0;
  std::atomic<bool> cancelled{false};
  text::StopMatcher stops;

  MockState(GenerateRequest r, std::shared_ptr<GenerationSink> s, std::string_view text, int prompt)
      : request(std::move(r)),
        sink(std::move(s)),
        script(text),
        prompt_tokens(prompt),
        stops(request.stop) {}
};

class MockGeneration final : public Generation {
 public:
  explicit MockGeneration(std::shared_ptr<MockState> state) : state_(std::move(state)) {}
  ~MockGeneration() override { Cancel(); }
  void Cancel() override { state_->cancelled.store(true, std::memory_order_relaxed); }

 private:
  std::shared_ptr<MockState> state_;
};

class MockEngine final : public Engine {
 public:
  explicit MockEngine(MockEngineOptions options) : options_(std::move(options)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~MockEngine() override { Shutdown(); }

  std::vector<ModelInfo> Models() const override {
    std::vector<ModelInfo> models;
    for (const MockScript& s : options_.scripts) {
      ModelInfo m;
      m.id = s.model;
      models.push_back(std::move(m));
    }
    return models;
  }

  int CountTokens(std::string_view, std::string_view text) const override {
    return static_cast<int>(MockTokens(text).size());
  }

  Expected<std::unique_ptr<Generation>> Submit(GenerateRequest request,
                                               std::shared_ptr<GenerationSink> sink) override {
    const MockScript* script = Find(request.model);
    if (script == nullptr) {
      return Error(ErrorCode::kNotFound, "model '" + request.model + "' is not served");
    }
    if (request.max_tokens <= 0) request.max_tokens = options_.default_max_tokens;
    const int prompt = CountTokens(request.model, request.prompt);
    const size_t prior =
        static_cast<size_t>(PriorAssistantTurns(request.prompt, options_.assistant_turn_marker));
    const size_t turn = std::min(script->turns.size() - 1, prior);
    auto state = std::make_shared<MockState>(std::move(request), std::move(sink),
                                             script->turns[turn], prompt);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return Error(ErrorCode::kUnavailable, "the engine is shutting down");
      incoming_.push_back(state);
    }
    wake_.notify_one();
    return std::unique_ptr<Generation>(std::make_unique<MockGeneration>(state));
  }

  void Shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  const MockScript* Find(std::string_view model) const {
    if (model.empty()) return &options_.scripts.front();
    for (const MockScript& s : options_.scripts) {
      if (s.model == model) return &s;
    }
    return nullptr;
  }

  // Advances one generation by one token, unless its sink is not accepting output (then
  // `paused` is set); returns false when it finished.
  static bool Step(MockState& s, bool& paused) {
    GenerationUpdate u;
    u.prompt_tokens = s.prompt_tokens;
    if (s.cancelled.load(std::memory_order_relaxed)) {
      u.finished = true;
      u.reason = StopReason::kCancelled;
      s.sink->OnUpdate(std::move(u));
      return false;
    }
    if (!s.sink->Accepting()) {
      paused = true;
      return true;
    }
    if (s.offset >= s.script.size()) {
      s.stops.Finish(u.text);
      u.finished = true;
      u.reason = StopReason::kEndOfGeneration;
      s.sink->OnUpdate(std::move(u));
      return false;
    }
    const size_t len = NextPieceLength(s.script, s.offset);
    const std::string_view piece = s.script.substr(s.offset, len);
    s.offset += len;
    ++s.tokens;
    u.tokens = 1;
    if (s.stops.Feed(piece, u.text)) {
      u.finished = true;
      u.reason = StopReason::kStopString;
      u.stop_string = s.stops.matched();
    } else if (s.tokens >= s.request.max_tokens) {
      s.stops.Finish(u.text);
      u.finished = true;
      u.reason = s.stops.stopped() ? StopReason::kStopString : StopReason::kMaxTokens;
      u.stop_string = s.stops.matched();
    }
    const bool finished = u.finished;
    s.sink->OnUpdate(std::move(u));
    return !finished;
  }

  void Loop() {
    std::vector<std::shared_ptr<MockState>> active;
    auto next_step = Clock::now();
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !incoming_.empty() || !active.empty(); });
        for (auto& s : incoming_)
          active.push_back(std::move(s));
        incoming_.clear();
        if (stopping_) {
          for (auto& s : active)
            s->cancelled.store(true);
        }
      }
      if (options_.tokens_per_second > 0 && !stopping_) {
        std::this_thread::sleep_until(next_step);
        next_step = std::max(
            next_step + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(1.0 / options_.tokens_per_second)),
            Clock::now() - std::chrono::milliseconds(100));
      }
      size_t paused = 0;
      active.erase(std::remove_if(active.begin(), active.end(),
                                  [&](const std::shared_ptr<MockState>& s) {
                                    bool skipped = false;
                                    const bool more = Step(*s, skipped);
                                    paused += skipped;
                                    return !more;
                                  }),
                   active.end());
      // Every generation waits for its client: poll again shortly instead of spinning.
      if (!active.empty() && paused == active.size()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (stopping_ && active.empty()) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (incoming_.empty()) return;
      }
    }
  }

  const MockEngineOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::shared_ptr<MockState>> incoming_;
  bool stopping_ = false;
  std::thread thread_;
};

Expected<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kIo, "cannot read " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<std::string> SplitTurns(std::string_view text) {
  static constexpr std::string_view kSeparator = "\n--- next turn ---\n";
  std::vector<std::string> turns;
  size_t start = 0;
  for (;;) {
    const size_t at = text.find(kSeparator, start);
    if (at == std::string_view::npos) break;
    turns.emplace_back(text.substr(start, at - start));
    start = at + kSeparator.size();
  }
  turns.emplace_back(text.substr(start));
  return turns;
}

std::vector<std::string_view> MockTokens(std::string_view text) {
  std::vector<std::string_view> pieces;
  for (size_t pos = 0; pos < text.size();) {
    const size_t len = NextPieceLength(text, pos);
    pieces.push_back(text.substr(pos, len));
    pos += len;
  }
  return pieces;
}

Expected<std::vector<MockScript>> LoadMockScripts(const std::string& path,
                                                  const std::string& model_name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<MockScript> scripts;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".txt") files.push_back(entry);
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto text = ReadFile(f);
      if (!text.ok()) return text.error();
      scripts.push_back({f.stem().string(), SplitTurns(*text)});
    }
    if (scripts.empty()) {
      return Error(ErrorCode::kInvalidArgument,
                   "--script directory " + path + " has no .txt files");
    }
    return scripts;
  }
  auto text = ReadFile(path);
  if (!text.ok()) return text.error().WithContext("--script");
  scripts.push_back({model_name, SplitTurns(*text)});
  return scripts;
}

std::unique_ptr<Engine> MakeMockEngine(MockEngineOptions options) {
  return std::make_unique<MockEngine>(std::move(options));
}

}  // namespace crux::engine
