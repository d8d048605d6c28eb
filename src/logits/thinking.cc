#include "crux/logits/thinking.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "crux/constrain/vocab.h"

namespace crux::logits {

std::string_view ThinkingPhaseName(ThinkingPhase phase) {
  switch (phase) {
    case ThinkingPhase::kIdle:
      return "idle";
    case ThinkingPhase::kThinking:
      return "thinking";
    case ThinkingPhase::kTransitioning:
      return "transitioning";
    case ThinkingPhase::kContent:
      return "content";
  }
  return "content";
}

SuffixMatcher::SuffixMatcher(std::vector<uint32_t> target) : target_(std::move(target)) {
  window_.reserve(target_.size() + 1);
}

bool SuffixMatcher::Feed(uint32_t token) {
  if (window_.size() == target_.size()) window_.erase(window_.begin());
  window_.push_back(token);
  return window_ == target_;
}

// The masks of the budget's last steps, per vocabulary: for each number of continuation bytes
// owed (0-3) and of tokens left (1-4), the tokens whose bytes keep the text well-formed and
// owe no more than the tokens left after them can pay (one byte each). Specials are allowed.
struct EndingMasks {
  std::vector<uint32_t> masks[4][5];
};

namespace {

std::shared_ptr<const EndingMasks> EndingMasksFor(
    const constrain::Vocabulary& vocabulary,
    const std::function<int(uint32_t, int)>& pending_after) {
  static std::mutex mutex;
  static std::map<uint64_t, std::weak_ptr<const EndingMasks>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = cache[vocabulary.identity()].lock()) return found;
  auto masks = std::make_shared<EndingMasks>();
  for (auto& by_pending : masks->masks) {
    for (auto& mask : by_pending)
      mask.assign(vocabulary.mask_words(), 0);
  }
  for (uint32_t id = 0; id < vocabulary.size(); ++id) {
    for (int pending = 0; pending < 4; ++pending) {
      const int after = vocabulary.is_special(id) ? 0 : pending_after(id, pending);
      for (int remaining = 1; remaining <= 4; ++remaining) {
        if (after >= 0 && after <= remaining - 1) SetBit(masks->masks[pending][remaining], id);
      }
    }
  }
  cache[vocabulary.identity()] = masks;
  return masks;
}

}  // namespace

std::optional<int> BudgetForEffort(std::string_view effort) {
  if (effort == "low" || effort == "minimal") return 1024;
  if (effort == "medium") return 4096;
  if (effort == "high") return 16384;
  return std::nullopt;
}

Expected<std::unique_ptr<ThinkingProcessor>> ThinkingProcessor::Create(
    ThinkingOptions options, std::unique_ptr<LogitsProcessor> inner) {
  if (options.start.empty()) {
    return Error(ErrorCode::kInvalidArgument, "thinking processor: the start sequence is empty");
  }
  if (options.end.empty()) {
    return Error(ErrorCode::kInvalidArgument, "thinking processor: the end sequence is empty");
  }
  if (options.vocabulary_size == 0 && options.vocabulary != nullptr) {
    options.vocabulary_size = options.vocabulary->size();
  }
  if (options.vocabulary_size == 0) {
    return Error(ErrorCode::kInvalidArgument, "thinking processor: the vocabulary size is 0");
  }
  for (const auto* ids : {&options.start, &options.end, &options.budget_message}) {
    for (const uint32_t id : *ids) {
      if (id >= options.vocabulary_size) {
        return Error(
            ErrorCode::kInvalidArgument,
            "thinking processor: token id " + std::to_string(id) + " is outside the vocabulary");
      }
    }
  }
  return std::unique_ptr<ThinkingProcessor>(
      new ThinkingProcessor(std::move(options), std::move(inner)));
}

ThinkingProcessor::ThinkingProcessor(ThinkingOptions options,
                                     std::unique_ptr<LogitsProcessor> inner)
    : options_(std::move(options)),
      inner_(std::move(inner)),
      start_matcher_(options_.start),
      end_matcher_(options_.end) {
  forced_ = options_.budget_message;
  forced_.insert(forced_.end(), options_.end.begin(), options_.end.end());
  state_ = Initial();
  snapshots_.push_back(state_);
}

ThinkingProcessor::ThinkingProcessor(const ThinkingProcessor& other)
    : LogitsProcessor(other),
      options_(other.options_),
      forced_(other.forced_),
      inner_(other.inner_ ? other.inner_->Clone() : nullptr),
      start_matcher_(other.start_matcher_),
      end_matcher_(other.end_matcher_),
      state_(other.state_),
      absorbed_(other.absorbed_),
      content_from_(other.content_from_),
      snapshots_(other.snapshots_),
      ending_masks_(other.ending_masks_) {}

std::unique_ptr<LogitsProcessor> ThinkingProcessor::Clone() const {
  return std::unique_ptr<LogitsProcessor>(new ThinkingProcessor(*this));
}

ThinkingProcessor::State ThinkingProcessor::Initial() const {
  State state;
  if (options_.prompt_opened) {
    state.phase = options_.budget == 0 ? ThinkingPhase::kTransitioning : ThinkingPhase::kThinking;
  }
  return state;
}

void ThinkingProcessor::Restore(const State& state) {
  state_ = state;
  start_matcher_.Restore(state.start_window);
  end_matcher_.Restore(state.end_window);
}

void ThinkingProcessor::StartTransition(bool watchdog) {
  state_.phase = ThinkingPhase::kTransitioning;
  state_.transition_index = 0;
  if (watchdog) state_.watchdog_fired = true;
}

void ThinkingProcessor::EnterContent() {
  state_.phase = ThinkingPhase::kContent;
  end_matcher_.Reset();
}

int ThinkingProcessor::PendingAfter(uint32_t token, int pending) const {
  for (const char c : options_.vocabulary->bytes(token)) {
    const auto byte = static_cast<uint8_t>(c);
    if (pending > 0) {
      if ((byte & 0xC0) != 0x80) return -1;
      --pending;
    } else if (byte < 0x80) {
      pending = 0;
    } else if ((byte & 0xE0) == 0xC0) {
      pending = 1;
    } else if ((byte & 0xF0) == 0xE0) {
      pending = 2;
    } else if ((byte & 0xF8) == 0xF0) {
      pending = 3;
    } else {
      return -1;
    }
  }
  return pending;
}

void ThinkingProcessor::AdvanceThinking(uint32_t token) {
  if (end_matcher_.Feed(token)) {
    EnterContent();
    return;
  }
  ++state_.thinking_tokens;
  if (options_.vocabulary != nullptr && !options_.vocabulary->is_special(token)) {
    const int pending = PendingAfter(token, state_.utf8_pending);
    state_.utf8_pending = static_cast<uint8_t>(std::max(pending, 0));
  }
  if (options_.budget >= 0 && state_.thinking_tokens >= options_.budget) {
    StartTransition(false);
  } else if (options_.no_content_limit > 0 && state_.thinking_tokens >= options_.no_content_limit) {
    StartTransition(true);
  }
}

bool ThinkingProcessor::Accept(uint32_t token) {
  if (token >= options_.vocabulary_size) return false;
  switch (state_.phase) {
    case ThinkingPhase::kIdle: {
      const bool single_start = options_.start.size() == 1;
      if (inner_ != nullptr && single_start && token != options_.start[0]) {
        // The answer begins without reasoning: the inner processor governs it from here.
        if (!inner_->Accept(token)) return false;
        // The state after this token is CONTENT; the inner processor holds the token.
        content_from_ = absorbed_ + 1;
        state_.phase = ThinkingPhase::kContent;
        state_.start_window.clear();
        ++absorbed_;
        return true;
      }
      if (start_matcher_.Feed(token)) {
        state_.phase =
            options_.budget == 0 ? ThinkingPhase::kTransitioning : ThinkingPhase::kThinking;
      }
      break;
    }
    case ThinkingPhase::kThinking: {
      // The same rule as the mask of the budget's last steps.
      const int remaining = options_.budget - state_.thinking_tokens;
      if (options_.vocabulary != nullptr && options_.budget >= 0 && remaining <= 4 &&
          !options_.vocabulary->is_special(token)) {
        const int pending = PendingAfter(token, state_.utf8_pending);
        if (pending < 0 || pending > remaining - 1) return false;
      }
      AdvanceThinking(token);
      break;
    }
    case ThinkingPhase::kTransitioning:
      if (token != forced_[state_.transition_index]) return false;
      if (++state_.transition_index == forced_.size()) EnterContent();
      break;
    case ThinkingPhase::kContent: {
      if (token == options_.start[0] || token == options_.end[0]) return false;
      if (inner_ != nullptr && !inner_->Accept(token)) return false;
      ++absorbed_;
      return true;
    }
  }
  ++absorbed_;
  state_.start_window = start_matcher_.window();
  state_.end_window = end_matcher_.window();
  if (state_.phase == ThinkingPhase::kContent) content_from_ = absorbed_;
  snapshots_.push_back(state_);
  return true;
}

bool ThinkingProcessor::Rollback(size_t count) {
  if (count > absorbed_) return false;
  const size_t target = absorbed_ - count;
  if (state_.phase == ThinkingPhase::kContent && target >= content_from_) {
    if (inner_ != nullptr && !inner_->Rollback(count)) return false;
    absorbed_ = target;
    return true;
  }
  if (inner_ != nullptr) inner_->Reset();
  Restore(snapshots_[target]);
  snapshots_.resize(target + 1);
  absorbed_ = target;
  return true;
}

void ThinkingProcessor::Reset() {
  if (inner_ != nullptr) inner_->Reset();
  Restore(snapshots_.front());
  snapshots_.resize(1);
  absorbed_ = 0;
  content_from_ = 0;
}

void ThinkingProcessor::FillContentMask(std::span<uint32_t> mask) {
  if (inner_ == nullptr || !inner_->FillMask(mask)) {
    std::fill(mask.begin(), mask.end(), UINT32_MAX);
    const size_t tail = options_.vocabulary_size % 32;
    if (tail != 0 && !mask.empty()) mask[options_.vocabulary_size / 32] = (1u << tail) - 1;
  }
  for (const uint32_t id : {options_.start[0], options_.end[0]}) {
    mask[id >> 5] &= ~(uint32_t{1} << (id & 31));
  }
}

void ThinkingProcessor::FillThinkingMask(std::span<uint32_t> mask, int remaining) {
  if (ending_masks_ == nullptr) {
    ending_masks_ = EndingMasksFor(*options_.vocabulary, [this](uint32_t id, int pending) {
      return PendingAfter(id, pending);
    });
  }
  const std::vector<uint32_t>& ending =
      ending_masks_->masks[std::min<int>(state_.utf8_pending, 3)][std::clamp(remaining, 1, 4)];
  std::copy_n(ending.begin(), std::min(ending.size(), mask.size()), mask.begin());
}

bool ThinkingProcessor::FillMask(std::span<uint32_t> mask) {
  switch (state_.phase) {
    case ThinkingPhase::kIdle: {
      if (inner_ == nullptr || options_.start.size() != 1) return false;
      if (!inner_->FillMask(mask)) return false;
      SetBit(mask, options_.start[0]);
      return true;
    }
    case ThinkingPhase::kThinking: {
      // Only the last steps of a budget can leave a character unfinished for good.
      const int remaining = options_.budget - state_.thinking_tokens;
      if (options_.vocabulary == nullptr || options_.budget < 0 || remaining > 4) return false;
      FillThinkingMask(mask, remaining);
      return true;
    }
    case ThinkingPhase::kTransitioning:
      std::fill(mask.begin(), mask.end(), 0);
      SetBit(mask, forced_[state_.transition_index]);
      return true;
    case ThinkingPhase::kContent:
      FillContentMask(mask);
      return true;
  }
  return false;
}

}  // namespace crux::logits
