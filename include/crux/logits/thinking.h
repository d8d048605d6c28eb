// The thinking-aware processor: bounds how long a model reasons, then hands the final answer
// to an inner processor (structured output) and keeps the reasoning tags out of it.
//
// Phases: IDLE (reasoning not opened) → THINKING → TRANSITIONING (the end sequence, and an
// optional budget message before it, forced one token per step) → CONTENT. THINKING ends when
// the model writes the end sequence itself (those tokens are not counted), when the budget of
// reasoning tokens is spent, or when the optional no-content watchdog fires. In CONTENT the
// inner processor governs every token and the first token of the start and end sequences is
// refused. Reasoning never ends in the middle of a UTF-8 character: near the end of the
// budget, tokens that would leave a character unfinished with too few tokens left are refused.
//
// With an inner processor and a single-token start sequence, IDLE is already constrained: the
// model may open reasoning or begin the answer, which the inner processor then governs.
//
// Rollback restores exactly the state after the kept tokens, across the reasoning/content
// boundary too: one snapshot per token until CONTENT begins (the entry included), then none —
// the inner processor rolls back its own tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "crux/base/error.h"
#include "crux/logits/processor.h"

namespace crux::constrain {
class Vocabulary;
}

namespace crux::logits {

struct EndingMasks;

enum class ThinkingPhase : uint8_t { kIdle, kThinking, kTransitioning, kContent };
std::string_view ThinkingPhaseName(ThinkingPhase phase);

// A bounded rolling window that reports when its last tokens equal a target sequence
// (overlapping prefixes included: target [1,1] matches after 1,1; [1,2] does not after 1,9,2).
class SuffixMatcher {
 public:
  explicit SuffixMatcher(std::vector<uint32_t> target);
  // Appends `token`; true when the window now ends with the target.
  bool Feed(uint32_t token);
  void Reset() { window_.clear(); }
  const std::vector<uint32_t>& window() const { return window_; }
  void Restore(std::vector<uint32_t> window) { window_ = std::move(window); }

 private:
  std::vector<uint32_t> target_;
  std::vector<uint32_t> window_;
};

// reasoning_effort → thinking budget (tokens): low 1024, medium 4096, high 16384.
std::optional<int> BudgetForEffort(std::string_view effort);

struct ThinkingOptions {
  std::vector<uint32_t> start = {};  // e.g. the id of <think>; non-empty
  std::vector<uint32_t> end = {};    // e.g. the id of </think>; non-empty
  int budget = -1;                   // reasoning tokens; negative: no budget
  // End reasoning after this many reasoning tokens (the watchdog); negative: off.
  int no_content_limit = -1;
  // Tokens forced before the end sequence when the budget or the watchdog ends reasoning
  // (llama-server's --reasoning-budget-message, already tokenized).
  std::vector<uint32_t> budget_message = {};
  // The prompt already opened the reasoning block: start in THINKING.
  bool prompt_opened = true;
  // Tokens in the vocabulary (the width of masks).
  size_t vocabulary_size = 0;
  // For UTF-8-safe endings and for the mask of the end-of-budget steps; null: token bytes
  // unknown, the budget may end inside a character.
  std::shared_ptr<const constrain::Vocabulary> vocabulary = nullptr;
};

class ThinkingProcessor final : public LogitsProcessor {
 public:
  // kInvalidArgument for an empty start or end sequence, or a vocabulary size of 0.
  static Expected<std::unique_ptr<ThinkingProcessor>> Create(
      ThinkingOptions options, std::unique_ptr<LogitsProcessor> inner = nullptr);

  Stage stage() const override { return Stage::kThinking; }
  std::string_view name() const override { return "thinking"; }
  bool Accept(uint32_t token) override;
  bool Rollback(size_t count) override;
  void Reset() override;
  std::unique_ptr<LogitsProcessor> Clone() const override;
  size_t accepted() const override { return absorbed_; }
  bool FillMask(std::span<uint32_t> mask) override;

  ThinkingPhase phase() const { return state_.phase; }
  int thinking_tokens() const { return state_.thinking_tokens; }
  bool watchdog_fired() const { return state_.watchdog_fired; }
  // CONTENT with no inner processor: nothing left to do but ban the reasoning tags.
  bool is_retired() const { return state_.phase == ThinkingPhase::kContent && inner_ == nullptr; }
  const LogitsProcessor* inner() const { return inner_.get(); }
  // Snapshots held (for tests of the memory bound).
  size_t snapshots() const { return snapshots_.size(); }

  ThinkingProcessor(const ThinkingProcessor& other);

 private:
  struct State {
    ThinkingPhase phase = ThinkingPhase::kIdle;
    int thinking_tokens = 0;
    uint32_t transition_index = 0;
    bool watchdog_fired = false;
    uint8_t utf8_pending = 0;  // continuation bytes the reasoning text still owes
    std::vector<uint32_t> start_window;
    std::vector<uint32_t> end_window;
  };
  ThinkingProcessor(ThinkingOptions options, std::unique_ptr<LogitsProcessor> inner);
  State Initial() const;
  void Restore(const State& state);
  void AdvanceThinking(uint32_t token);
  void StartTransition(bool watchdog);
  void EnterContent();
  // The UTF-8 continuation bytes still owed after `token`'s bytes, from `pending`; -1 when the
  // bytes are not well-formed there.
  int PendingAfter(uint32_t token, int pending) const;
  void FillContentMask(std::span<uint32_t> mask);
  void FillThinkingMask(std::span<uint32_t> mask, int remaining);

  ThinkingOptions options_;
  std::vector<uint32_t> forced_;  // budget message + end
  std::unique_ptr<LogitsProcessor> inner_;
  SuffixMatcher start_matcher_;
  SuffixMatcher end_matcher_;
  State state_;
  size_t absorbed_ = 0;
  size_t content_from_ = 0;       // tokens absorbed when the inner processor began
  std::vector<State> snapshots_;  // [k] = state after k tokens, k <= content entry
  std::shared_ptr<const EndingMasks> ending_masks_;  // shared per vocabulary, on first need
};

}  // namespace crux::logits
