#include "crux/engine/mock_engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "crux/text/stop_matcher.h"

namespace crux::engine {
namespace {

// Collects updates and lets the test wait for the final one.
class Collector final : public GenerationSink {
 public:
  void OnUpdate(GenerationUpdate u) override {
    std::lock_guard<std::mutex> lock(mutex_);
    text_ += u.text;
    tokens_ += u.tokens;
    ++updates_;
    if (u.finished) {
      finished_ = true;
      last_ = u;
      cv_.notify_all();
    }
  }
  GenerationUpdate Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return finished_; });
    return last_;
  }
  std::string text() {
    std::lock_guard<std::mutex> lock(mutex_);
    return text_;
  }
  int tokens() {
    std::lock_guard<std::mutex> lock(mutex_);
    return tokens_;
  }
  bool finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_;
  }
  bool Accepting() const override { return accepting_.load(); }
  void SetAccepting(bool accepting) { accepting_.store(accepting); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string text_;
  int tokens_ = 0;
  int updates_ = 0;
  bool finished_ = false;
  GenerationUpdate last_;
  std::atomic<bool> accepting_{true};
};

std::unique_ptr<Engine> Make(std::string script, double rate = 0) {
  MockEngineOptions o;
  o.scripts.push_back({"m", SplitTurns(script)});
  o.tokens_per_second = rate;
  return MakeMockEngine(std::move(o));
}

GenerateRequest Request(int max_tokens = 0, std::vector<std::string> stop = {}) {
  GenerateRequest r;
  r.model = "m";
  r.prompt = "0123456789";
  r.max_tokens = max_tokens;
  r.stop = std::move(stop);
  return r;
}

TEST(MockTokens, PiecesOfAtMostFourBytesWithWholeCharacters) {
  const auto pieces = MockTokens("abcdefghé日本🌍x");
  std::string joined;
  for (auto p : pieces) {
    EXPECT_LE(p.size(), 4u);
    joined += p;
  }
  EXPECT_EQ(joined, "abcdefghé日本🌍x");
  EXPECT_EQ(pieces[0], "abcd");
  EXPECT_EQ(pieces[2], "é");  // "é" + "日" would be 5 bytes
}

TEST(MockEngine, ReplaysTheScriptToTheEnd) {
  auto engine = Make("Hello, world! <think>x</think>");
  auto sink = std::make_shared<Collector>();
  auto gen = engine->Submit(Request(), sink);
  ASSERT_TRUE(gen.ok());
  const GenerationUpdate last = sink->Wait();
  EXPECT_EQ(last.reason, StopReason::kEndOfGeneration);
  EXPECT_EQ(sink->text(), "Hello, world! <think>x</think>");
  EXPECT_EQ(sink->tokens(), static_cast<int>(MockTokens("Hello, world! <think>x</think>").size()));
  EXPECT_EQ(last.prompt_tokens, 3);  // "0123456789" → 3 pieces
}

TEST(MockEngine, StopsAtMaxTokens) {
  auto engine = Make("aaaabbbbccccdddd");
  auto sink = std::make_shared<Collector>();
  auto gen = engine->Submit(Request(2), sink);
  const GenerationUpdate last = sink->Wait();
  EXPECT_EQ(last.reason, StopReason::kMaxTokens);
  EXPECT_EQ(sink->text(), "aaaabbbb");
}

TEST(MockEngine, StopStringsEndOutputBeforeTheMatch) {
  auto engine = Make("The answer is 42. END and more");
  auto sink = std::make_shared<Collector>();
  auto gen = engine->Submit(Request(0, {"END"}), sink);
  const GenerationUpdate last = sink->Wait();
  EXPECT_EQ(last.reason, StopReason::kStopString);
  EXPECT_EQ(last.stop_string, "END");
  EXPECT_EQ(sink->text(), "The answer is 42. ");
}

TEST(MockEngine, CancelEndsAPacedGeneration) {
  auto engine = Make(std::string(4000, 'x'), /*rate=*/200);
  auto sink = std::make_shared<Collector>();
  auto gen = engine->Submit(Request(), sink);
  ASSERT_TRUE(gen.ok());
  (*gen)->Cancel();
  const GenerationUpdate last = sink->Wait();
  EXPECT_EQ(last.reason, StopReason::kCancelled);
  EXPECT_LT(sink->text().size(), 4000u);
}

TEST(MockEngine, UnknownModelIsNotFound) {
  auto engine = Make("x");
  GenerateRequest r = Request();
  r.model = "other";
  auto gen = engine->Submit(r, std::make_shared<Collector>());
  ASSERT_FALSE(gen.ok());
  EXPECT_EQ(gen.error().code(), ErrorCode::kNotFound);
}

TEST(MockEngine, TurnsFollowTheConversation) {
  auto engine = Make("first\n--- next turn ---\nsecond");
  for (int turn : {0, 1, 5}) {
    auto sink = std::make_shared<Collector>();
    GenerateRequest r = Request();
    r.prompt = "<|im_start|>user\nq<|im_end|>\n";
    for (int i = 0; i < turn; ++i)
      r.prompt += "<|im_start|>assistant\na<|im_end|>\n<|im_start|>user\nq<|im_end|>\n";
    r.prompt += "<|im_start|>assistant\n";
    auto gen = engine->Submit(r, sink);
    sink->Wait();
    EXPECT_EQ(sink->text(), turn == 0 ? "first" : "second");
  }
}

TEST(StopMatcher, HoldsPossibleStopPrefixes) {
  text::StopMatcher m({"</answer>", "STOP"});
  std::string out;
  EXPECT_FALSE(m.Feed("abc </ans", out));
  EXPECT_EQ(out, "abc ");
  EXPECT_FALSE(m.Feed("wer is", out));
  EXPECT_EQ(out, "abc </answer is");
  EXPECT_TRUE(m.Feed(" x STOP y", out));
  EXPECT_EQ(out, "abc </answer is x ");
  EXPECT_EQ(m.matched(), "STOP");
  text::StopMatcher n({"END"});
  out.clear();
  n.Feed("xx EN", out);
  n.Finish(out);
  EXPECT_EQ(out, "xx EN");
}

}  // namespace
}  // namespace crux::engine

namespace crux::engine {
namespace {

// A sink that is not accepting pauses its generation (back-pressure from a slow client): no
// token is produced until it accepts again, then the output continues where it stopped, and
// a paused generation can still be cancelled.
TEST(MockEngine, PausesWhileTheSinkIsNotAccepting) {
  auto engine = Make("abcdefghijklmnopqrstuvwxyz");
  auto sink = std::make_shared<Collector>();
  sink->SetAccepting(false);
  auto gen = engine->Submit(Request(), sink);
  ASSERT_TRUE(gen.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(sink->tokens(), 0);
  EXPECT_FALSE(sink->finished());
  sink->SetAccepting(true);
  sink->Wait();
  EXPECT_EQ(sink->text(), "abcdefghijklmnopqrstuvwxyz");

  auto paused = std::make_shared<Collector>();
  paused->SetAccepting(false);
  auto cancelled = engine->Submit(Request(), paused);
  ASSERT_TRUE(cancelled.ok());
  (*cancelled)->Cancel();
  EXPECT_EQ(paused->Wait().reason, StopReason::kCancelled);
  EXPECT_EQ(paused->tokens(), 0);
}

}  // namespace
}  // namespace crux::engine
