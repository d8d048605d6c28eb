#include "crux/logits/processor.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>

namespace crux::logits {

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kBias:
      return "bias";
    case Stage::kPenalties:
      return "penalties";
    case Stage::kThinking:
      return "thinking";
    case Stage::kGrammar:
      return "grammar";
  }
  return "grammar";
}

void ApplyMask(std::span<const uint32_t> mask, std::span<float> logits) {
  constexpr float kMinus = -std::numeric_limits<float>::infinity();
  const size_t covered = std::min(logits.size(), mask.size() * 32);
  for (size_t word = 0; word * 32 < covered; ++word) {
    const uint32_t bits = mask[word];
    if (bits == UINT32_MAX) continue;
    const size_t end = std::min(covered, word * 32 + 32);
    if (bits == 0) {
      std::fill(logits.begin() + static_cast<ptrdiff_t>(word * 32),
                logits.begin() + static_cast<ptrdiff_t>(end), kMinus);
      continue;
    }
    for (size_t i = word * 32; i < end; ++i) {
      if ((bits >> (i & 31) & 1) == 0) logits[i] = kMinus;
    }
  }
  for (size_t i = covered; i < logits.size(); ++i)
    logits[i] = kMinus;
}

void LogitsProcessor::ApplyLogits(std::span<float> logits) {
  scratch_mask_.assign((logits.size() + 31) / 32, 0);
  if (FillMask(scratch_mask_)) ApplyMask(scratch_mask_, logits);
}

bool LogitsProcessor::Process(std::span<const uint32_t> history, std::span<float> logits) {
  size_t common = 0;
  while (common < synced_.size() && common < history.size() && synced_[common] == history[common]) {
    ++common;
  }
  bool ok = true;
  if (common < synced_.size()) {
    if (!Rollback(synced_.size() - common)) {
      // Older than the processor can undo: start again from the first token.
      Reset();
      common = 0;
    }
    synced_.resize(common);
  }
  for (size_t i = common; i < history.size(); ++i) {
    if (!Accept(history[i])) {
      ok = false;
      break;
    }
    synced_.push_back(history[i]);
  }
  ApplyLogits(logits);
  return ok;
}

LogitBiasProcessor::LogitBiasProcessor(std::unordered_map<uint32_t, float> bias)
    : bias_(std::move(bias)) {}

bool LogitBiasProcessor::Rollback(size_t count) {
  if (count > accepted_) return false;
  accepted_ -= count;
  return true;
}

std::unique_ptr<LogitsProcessor> LogitBiasProcessor::Clone() const {
  return std::make_unique<LogitBiasProcessor>(*this);
}

void LogitBiasProcessor::ApplyLogits(std::span<float> logits) {
  for (const auto& [token, value] : bias_) {
    if (token < logits.size()) logits[token] += value;
  }
}

PenaltiesProcessor::PenaltiesProcessor(PenaltyOptions options) : options_(options) {}

void PenaltiesProcessor::Count(uint32_t token, int delta) {
  auto it = counts_.try_emplace(token, 0).first;
  it->second += delta;
  if (it->second == 0) counts_.erase(it);
}

bool PenaltiesProcessor::Accept(uint32_t token) {
  tokens_.push_back(token);
  Count(token, 1);
  if (options_.last_n != 0 && tokens_.size() > options_.last_n) {
    Count(tokens_[tokens_.size() - 1 - options_.last_n], -1);
  }
  return true;
}

bool PenaltiesProcessor::Rollback(size_t count) {
  if (count > tokens_.size()) return false;
  for (size_t i = 0; i < count; ++i) {
    Count(tokens_.back(), -1);
    tokens_.pop_back();
    // The token that slides back into the window.
    if (options_.last_n != 0 && tokens_.size() >= options_.last_n) {
      Count(tokens_[tokens_.size() - options_.last_n], 1);
    }
  }
  return true;
}

void PenaltiesProcessor::Reset() {
  tokens_.clear();
  counts_.clear();
}

std::unique_ptr<LogitsProcessor> PenaltiesProcessor::Clone() const {
  return std::make_unique<PenaltiesProcessor>(*this);
}

void PenaltiesProcessor::ApplyLogits(std::span<float> logits) {
  for (const auto& [token, count] : counts_) {
    if (token >= logits.size()) continue;
    float& logit = logits[token];
    if (options_.repetition != 1.0f) {
      logit = logit > 0 ? logit / options_.repetition : logit * options_.repetition;
    }
    logit -= options_.presence + options_.frequency * static_cast<float>(count);
  }
}

ProcessorChain::ProcessorChain(const ProcessorChain& other) {
  for (const auto& processor : other.processors_)
    processors_.push_back(processor->Clone());
}

ProcessorChain& ProcessorChain::operator=(const ProcessorChain& other) {
  if (this != &other) {
    ProcessorChain copy(other);
    *this = std::move(copy);
  }
  return *this;
}

void ProcessorChain::Add(std::unique_ptr<LogitsProcessor> processor) {
  const Stage stage = processor->stage();
  auto at = std::upper_bound(processors_.begin(), processors_.end(), stage,
                             [](Stage s, const auto& p) { return s < p->stage(); });
  processors_.insert(at, std::move(processor));
}

void ProcessorChain::ApplyLogits(std::span<float> logits) {
  for (auto& processor : processors_)
    processor->ApplyLogits(logits);
}

void ProcessorChain::ApplyScores(std::span<float> logits) {
  for (auto& processor : processors_) {
    if (processor->stage() == Stage::kBias || processor->stage() == Stage::kPenalties) {
      processor->ApplyLogits(logits);
    }
  }
}

bool ProcessorChain::FillMask(std::span<uint32_t> mask) {
  bool restricted = false;
  for (auto& processor : processors_) {
    if (!restricted) {
      restricted = processor->FillMask(mask);
      continue;
    }
    scratch_.assign(mask.size(), 0);
    if (!processor->FillMask(scratch_)) continue;
    for (size_t i = 0; i < mask.size(); ++i)
      mask[i] &= scratch_[i];
  }
  return restricted;
}

bool ProcessorChain::Accept(uint32_t token) {
  for (size_t i = 0; i < processors_.size(); ++i) {
    if (processors_[i]->Accept(token)) continue;
    for (size_t j = 0; j < i; ++j)
      processors_[j]->Rollback(1);
    return false;
  }
  return true;
}

bool ProcessorChain::Rollback(size_t count) {
  for (const auto& processor : processors_) {
    if (processor->accepted() < count) return false;
  }
  for (auto& processor : processors_)
    processor->Rollback(count);
  return true;
}

void ProcessorChain::Reset() {
  for (auto& processor : processors_)
    processor->Reset();
}

}  // namespace crux::logits
