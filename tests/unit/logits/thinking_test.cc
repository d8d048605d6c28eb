// The thinking-aware processor: the state-machine cases of the reference behaviour (budget 0,
// budget N, multi-token end sequences, overlapping prefixes, the watchdog, rollback before,
// inside and after the transition, reset), with the corrected rollback into CONTENT, and a
// rollback fuzz against processors rebuilt from the kept history.
#include "crux/logits/thinking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "crux/logits/processor.h"

namespace crux::logits {
namespace {

constexpr size_t kVocab = 64;

std::unique_ptr<ThinkingProcessor> Make(int budget, std::vector<uint32_t> end = {11},
                                        bool prompt_opened = true, int watchdog = -1,
                                        std::unique_ptr<LogitsProcessor> inner = nullptr) {
  ThinkingOptions options{.start = {10},
                          .end = std::move(end),
                          .budget = budget,
                          .no_content_limit = watchdog,
                          .prompt_opened = prompt_opened,
                          .vocabulary_size = kVocab};
  auto made = ThinkingProcessor::Create(std::move(options), std::move(inner));
  EXPECT_TRUE(made.ok());
  return std::move(*made);
}

// The argmax of the logits after the processor ran on `history`.
uint32_t Argmax(ThinkingProcessor& processor, const std::vector<uint32_t>& history) {
  std::vector<float> logits(kVocab, 0.0f);
  for (size_t i = 0; i < kVocab; ++i)
    logits[i] = static_cast<float>(i % 7) * 0.1f;
  processor.Process(history, logits);
  return static_cast<uint32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// An inner processor that refuses one token and records what it absorbed.
class RecordingProcessor final : public LogitsProcessor {
 public:
  explicit RecordingProcessor(uint32_t refused) : refused_(refused) {}
  Stage stage() const override { return Stage::kGrammar; }
  std::string_view name() const override { return "recording"; }
  bool Accept(uint32_t token) override {
    if (token == refused_) return false;
    tokens_.push_back(token);
    return true;
  }
  bool Rollback(size_t count) override {
    if (count > tokens_.size()) return false;
    tokens_.resize(tokens_.size() - count);
    return true;
  }
  void Reset() override { tokens_.clear(); }
  std::unique_ptr<LogitsProcessor> Clone() const override {
    return std::make_unique<RecordingProcessor>(*this);
  }
  size_t accepted() const override { return tokens_.size(); }
  bool FillMask(std::span<uint32_t> mask) override {
    std::fill(mask.begin(), mask.end(), UINT32_MAX);
    mask[refused_ >> 5] &= ~(uint32_t{1} << (refused_ & 31));
    return true;
  }
  const std::vector<uint32_t>& tokens() const { return tokens_; }

 private:
  uint32_t refused_;
  std::vector<uint32_t> tokens_;
};

TEST(SuffixMatcher, MatchesOverlappingPrefixesAndNotBrokenSequences) {
  SuffixMatcher twice({1, 1});
  EXPECT_FALSE(twice.Feed(1));
  EXPECT_TRUE(twice.Feed(1));
  SuffixMatcher pair({1, 2});
  EXPECT_FALSE(pair.Feed(1));
  EXPECT_FALSE(pair.Feed(9));
  EXPECT_FALSE(pair.Feed(2));
  EXPECT_FALSE(pair.Feed(1));
  EXPECT_TRUE(pair.Feed(2));
}

TEST(ThinkingProcessor, RejectsEmptySequences) {
  EXPECT_FALSE(ThinkingProcessor::Create({.start = {}, .end = {11}, .vocabulary_size = 8}).ok());
  EXPECT_FALSE(ThinkingProcessor::Create({.start = {10}, .end = {}, .vocabulary_size = 8}).ok());
  EXPECT_FALSE(ThinkingProcessor::Create({.start = {10}, .end = {99}, .vocabulary_size = 8}).ok());
}

TEST(ThinkingProcessor, BudgetZeroForcesTheEndAtOnce) {
  auto processor = Make(0);
  EXPECT_EQ(processor->phase(), ThinkingPhase::kTransitioning);
  EXPECT_EQ(Argmax(*processor, {}), 11u);
  EXPECT_EQ(Argmax(*processor, {11}), 6u);  // unconstrained content: the logits' own argmax
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
  EXPECT_EQ(processor->thinking_tokens(), 0);
}

TEST(ThinkingProcessor, BudgetNForcesTheEndAfterNTokens) {
  auto processor = Make(3, {11}, false);
  EXPECT_EQ(processor->phase(), ThinkingPhase::kIdle);
  Argmax(*processor, {10, 1, 2});
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
  EXPECT_EQ(Argmax(*processor, {10, 1, 2, 3}), 11u);
  EXPECT_EQ(processor->phase(), ThinkingPhase::kTransitioning);
  Argmax(*processor, {10, 1, 2, 3, 11});
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
  EXPECT_EQ(processor->thinking_tokens(), 3);
  // In CONTENT the reasoning tags are refused.
  std::vector<float> logits(kVocab, 1.0f);
  const std::vector<uint32_t> history = {10, 1, 2, 3, 11, 5};
  processor->Process(history, logits);
  EXPECT_TRUE(std::isinf(logits[10]) && logits[10] < 0);
  EXPECT_TRUE(std::isinf(logits[11]) && logits[11] < 0);
  EXPECT_EQ(logits[5], 1.0f);
  EXPECT_TRUE(processor->is_retired());
}

TEST(ThinkingProcessor, NothingIsMaskedWhileThinking) {
  auto processor = Make(100);
  std::vector<float> logits(kVocab, 2.0f);
  const std::vector<uint32_t> history = {1, 2};
  processor->Process(history, logits);
  EXPECT_TRUE(std::all_of(logits.begin(), logits.end(), [](float v) { return v == 2.0f; }));
}

TEST(ThinkingProcessor, MultiTokenEndIsForcedOneTokenPerStep) {
  auto processor = Make(2, {11, 12});
  EXPECT_EQ(Argmax(*processor, {1, 2}), 11u);
  EXPECT_EQ(Argmax(*processor, {1, 2, 11}), 12u);
  Argmax(*processor, {1, 2, 11, 12});
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
  EXPECT_EQ(processor->thinking_tokens(), 2);
  // A model-written multi-token end counts all but its last token.
  auto own = Make(100, {11, 12});
  Argmax(*own, {1, 11, 12});
  EXPECT_EQ(own->phase(), ThinkingPhase::kContent);
  EXPECT_EQ(own->thinking_tokens(), 2);
}

TEST(ThinkingProcessor, OverlappingEndPrefixesMatch) {
  auto processor = Make(100, {11, 11, 12});
  Argmax(*processor, {11, 11, 11, 12});
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
  EXPECT_EQ(processor->thinking_tokens(), 3);
}

TEST(ThinkingProcessor, TransitioningRefusesOtherTokens) {
  auto processor = Make(1);
  ASSERT_TRUE(processor->Accept(1));
  EXPECT_FALSE(processor->Accept(2));
  EXPECT_EQ(processor->phase(), ThinkingPhase::kTransitioning);
  EXPECT_TRUE(processor->Accept(11));
}

TEST(ThinkingProcessor, WatchdogEndsReasoningWithoutContent) {
  auto processor = Make(10, {11}, true, 4);
  Argmax(*processor, {1, 2, 3});
  EXPECT_FALSE(processor->watchdog_fired());
  EXPECT_EQ(Argmax(*processor, {1, 2, 3, 4}), 11u);
  EXPECT_TRUE(processor->watchdog_fired());
  // The budget wins when it comes first.
  auto budget = Make(2, {11}, true, 4);
  Argmax(*budget, {1, 2});
  EXPECT_EQ(budget->phase(), ThinkingPhase::kTransitioning);
  EXPECT_FALSE(budget->watchdog_fired());
}

TEST(ThinkingProcessor, BudgetMessageIsForcedBeforeTheEnd) {
  auto made = ThinkingProcessor::Create({.start = {10},
                                         .end = {11},
                                         .budget = 1,
                                         .budget_message = {20, 21},
                                         .vocabulary_size = kVocab});
  ASSERT_TRUE(made.ok());
  auto& processor = **made;
  EXPECT_EQ(Argmax(processor, {1}), 20u);
  EXPECT_EQ(Argmax(processor, {1, 20}), 21u);
  EXPECT_EQ(Argmax(processor, {1, 20, 21}), 11u);
  Argmax(processor, {1, 20, 21, 11});
  EXPECT_EQ(processor.phase(), ThinkingPhase::kContent);
}

TEST(ThinkingProcessor, RollbackBeforeInsideAndAfterTheTransition) {
  auto processor = Make(3);
  Argmax(*processor, {5, 6});
  Argmax(*processor, {5});  // inside THINKING
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
  EXPECT_EQ(processor->thinking_tokens(), 1);
  Argmax(*processor, {5, 11});  // the model ends reasoning itself
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
  Argmax(*processor, {5, 7});  // back across the boundary
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
  EXPECT_EQ(processor->thinking_tokens(), 2);
  Argmax(*processor, {5, 7, 8});  // budget spent: TRANSITIONING
  EXPECT_EQ(processor->phase(), ThinkingPhase::kTransitioning);
  Argmax(*processor, {5, 7});  // back out of the transition
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
  // Corrected: a rollback to a point after CONTENT began stays in CONTENT.
  Argmax(*processor, {5, 11, 20, 21});
  Argmax(*processor, {5, 11, 20, 99});
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
  Argmax(*processor, {5, 11});
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
}

TEST(ThinkingProcessor, InnerProcessorGovernsContentAndRollsBackItsOwnTokens) {
  auto inner = std::make_unique<RecordingProcessor>(30);
  auto processor = Make(100, {11}, true, -1, std::move(inner));
  Argmax(*processor, {1, 11, 20, 21, 22});
  const auto& recorded = static_cast<const RecordingProcessor&>(*processor->inner());
  EXPECT_EQ(recorded.tokens(), (std::vector<uint32_t>{20, 21, 22}));
  EXPECT_FALSE(processor->Accept(30));
  ASSERT_TRUE(processor->Rollback(2));
  EXPECT_EQ(recorded.tokens(), (std::vector<uint32_t>{20}));
  ASSERT_TRUE(processor->Rollback(2));
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
  EXPECT_TRUE(recorded.tokens().empty());
  // No snapshots are kept for content tokens.
  for (uint32_t token : {11u, 1u, 2u, 3u, 4u, 5u})
    ASSERT_TRUE(processor->Accept(token));
  EXPECT_EQ(processor->snapshots(), 3u);
}

TEST(ThinkingProcessor, IdleWithInnerLetsTheAnswerBeginWithoutReasoning) {
  auto processor = Make(100, {11}, false, -1, std::make_unique<RecordingProcessor>(30));
  std::vector<uint32_t> mask(2);
  ASSERT_TRUE(processor->FillMask(mask));
  EXPECT_TRUE(TestBit(mask, 10));
  EXPECT_FALSE(TestBit(mask, 30));
  ASSERT_TRUE(processor->Accept(5));
  EXPECT_EQ(processor->phase(), ThinkingPhase::kContent);
  EXPECT_FALSE(processor->Accept(10));  // no reasoning once the answer began
  ASSERT_TRUE(processor->Rollback(1));
  EXPECT_EQ(processor->phase(), ThinkingPhase::kIdle);
  ASSERT_TRUE(processor->Accept(10));
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
}

TEST(ThinkingProcessor, ResetReturnsToTheInitialState) {
  auto processor = Make(2);
  Argmax(*processor, {1, 2, 11, 5});
  processor->Reset();
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
  EXPECT_EQ(processor->thinking_tokens(), 0);
  EXPECT_EQ(processor->accepted(), 0u);
}

TEST(ThinkingProcessor, CloneIsIndependent) {
  auto processor = Make(5);
  ASSERT_TRUE(processor->Accept(1));
  auto copy = processor->Clone();
  ASSERT_TRUE(copy->Accept(11));
  EXPECT_EQ(processor->phase(), ThinkingPhase::kThinking);
  EXPECT_EQ(static_cast<ThinkingProcessor&>(*copy).phase(), ThinkingPhase::kContent);
}

struct Observed {
  ThinkingPhase phase;
  int thinking;
  bool watchdog;
  std::vector<uint32_t> inner;
  std::vector<uint32_t> mask;
};

Observed Observe(ThinkingProcessor& processor) {
  Observed seen{processor.phase(),
                processor.thinking_tokens(),
                processor.watchdog_fired(),
                {},
                std::vector<uint32_t>(2, 0)};
  if (processor.inner() != nullptr) {
    seen.inner = static_cast<const RecordingProcessor&>(*processor.inner()).tokens();
  }
  if (!processor.FillMask(seen.mask)) seen.mask.assign(2, UINT32_MAX);
  return seen;
}

// Random accept/rollback sequences against a processor rebuilt from the kept history.
TEST(ThinkingProcessor, RollbackFuzzEqualsRebuildFromKeptHistory) {
  std::mt19937 random(7);
  for (int run = 0; run < 300; ++run) {
    const int budget = static_cast<int>(random() % 8);
    const bool opened = random() % 2 == 0;
    const std::vector<uint32_t> end =
        random() % 2 == 0 ? std::vector<uint32_t>{11} : std::vector<uint32_t>{11, 12};
    const int watchdog = random() % 3 == 0 ? 3 : -1;
    auto make = [&] {
      return Make(budget, end, opened, watchdog, std::make_unique<RecordingProcessor>(30));
    };
    auto processor = make();
    std::vector<uint32_t> kept;
    for (int step = 0; step < 40; ++step) {
      if (random() % 4 == 0 && !kept.empty()) {
        const size_t back = 1 + random() % std::min<size_t>(kept.size(), 5);
        ASSERT_TRUE(processor->Rollback(back));
        kept.resize(kept.size() - back);
      } else {
        std::vector<uint32_t> mask(2, 0);
        if (!processor->FillMask(mask)) mask.assign(2, UINT32_MAX);
        std::vector<uint32_t> allowed;
        for (uint32_t t = 0; t < kVocab; ++t) {
          if (TestBit(mask, t)) allowed.push_back(t);
        }
        // Bias toward the interesting ids.
        const uint32_t pick =
            random() % 3 == 0 ? 10 + random() % 3 : allowed[random() % allowed.size()];
        const uint32_t token = TestBit(mask, pick) ? pick : allowed[random() % allowed.size()];
        ASSERT_TRUE(processor->Accept(token)) << "token " << token;
        kept.push_back(token);
      }
      auto rebuilt = make();
      for (const uint32_t token : kept)
        ASSERT_TRUE(rebuilt->Accept(token));
      const Observed a = Observe(*processor);
      const Observed b = Observe(*rebuilt);
      ASSERT_EQ(a.phase, b.phase) << "run " << run << " step " << step;
      ASSERT_EQ(a.thinking, b.thinking);
      ASSERT_EQ(a.watchdog, b.watchdog);
      ASSERT_EQ(a.inner, b.inner);
      ASSERT_EQ(a.mask, b.mask);
    }
  }
}

TEST(ProcessorChain, RunsInStageOrderWhateverTheOrderAdded) {
  ProcessorChain chain;
  chain.Add(Make(0));  // thinking: forces 11
  chain.Add(std::make_unique<PenaltiesProcessor>(PenaltyOptions{.presence = 1.0f}));
  chain.Add(std::make_unique<LogitBiasProcessor>(std::unordered_map<uint32_t, float>{{3, 5.0f}}));
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain.at(0).stage(), Stage::kBias);
  EXPECT_EQ(chain.at(1).stage(), Stage::kPenalties);
  EXPECT_EQ(chain.at(2).stage(), Stage::kThinking);
  std::vector<float> logits(kVocab, 0.0f);
  chain.ApplyLogits(logits);
  // The bias did not re-enable a token the thinking processor refused.
  EXPECT_TRUE(std::isinf(logits[3]));
  EXPECT_EQ(logits[11], 0.0f);
  std::vector<uint32_t> mask(2, 0);
  ASSERT_TRUE(chain.FillMask(mask));
  EXPECT_EQ(mask[0], uint32_t{1} << 11);
  EXPECT_TRUE(chain.Accept(11));
  EXPECT_FALSE(chain.Accept(10));  // refused by the thinking processor: nobody took it
  EXPECT_EQ(chain.at(1).accepted(), 1u);
  EXPECT_TRUE(chain.Rollback(1));
  EXPECT_EQ(chain.at(0).accepted(), 0u);
}

TEST(PenaltiesProcessor, PenalisesRecentTokensAndRollsBack) {
  PenaltiesProcessor processor(
      {.repetition = 2.0f, .presence = 0.5f, .frequency = 0.25f, .last_n = 2});
  for (uint32_t token : {1u, 1u, 2u})
    processor.Accept(token);
  std::vector<float> logits(4, 4.0f);
  processor.ApplyLogits(logits);
  EXPECT_FLOAT_EQ(logits[0], 4.0f);
  EXPECT_FLOAT_EQ(logits[1], 4.0f / 2 - 0.5f - 0.25f);  // one in the window of 2
  EXPECT_FLOAT_EQ(logits[2], 4.0f / 2 - 0.5f - 0.25f);
  ASSERT_TRUE(processor.Rollback(1));
  std::vector<float> again(4, 4.0f);
  processor.ApplyLogits(again);
  EXPECT_FLOAT_EQ(again[1], 4.0f / 2 - 0.5f - 0.5f);  // both 1s back in the window
  EXPECT_FLOAT_EQ(again[2], 4.0f);
}

}  // namespace
}  // namespace crux::logits
