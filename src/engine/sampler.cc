#include "crux/engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace crux::engine {
namespace {

// Candidates further than this below the best logit (at temperature 1) are dropped when no
// min_p is set: e^-30 is below 1e-13, so even 152k of them carry less than 1e-8.
constexpr float kNegligible = 30.0f;

bool Allowed(std::span<const uint32_t> mask, size_t token) {
  return mask.empty() || (token >> 5 < mask.size() && (mask[token >> 5] >> (token & 31) & 1) != 0);
}

}  // namespace

Sampler::Sampler(const SamplingParams& params) : params_(params) {
  rng_.seed(params.seed != 0 ? params.seed : std::random_device{}());
}

float Sampler::MaxAllowed(std::span<const float> logits, std::span<const uint32_t> mask,
                          int32_t& argmax) const {
  float best = -std::numeric_limits<float>::infinity();
  argmax = -1;
  if (mask.empty()) {
    for (size_t i = 0; i < logits.size(); ++i) {
      if (logits[i] > best) {
        best = logits[i];
        argmax = static_cast<int32_t>(i);
      }
    }
    return best;
  }
  const size_t words = std::min(mask.size(), (logits.size() + 31) / 32);
  for (size_t w = 0; w < words; ++w) {
    for (uint32_t bits = mask[w]; bits != 0; bits &= bits - 1) {
      const size_t i = w * 32 + static_cast<size_t>(__builtin_ctz(bits));
      if (i < logits.size() && logits[i] > best) {
        best = logits[i];
        argmax = static_cast<int32_t>(i);
      }
    }
  }
  return best;
}

void Sampler::Collect(std::span<const float> logits, std::span<const uint32_t> mask, float floor) {
  candidates_.clear();
  if (mask.empty()) {
    for (size_t i = 0; i < logits.size(); ++i) {
      if (logits[i] >= floor) candidates_.emplace_back(logits[i], static_cast<int32_t>(i));
    }
    return;
  }
  for (size_t i = 0; i < logits.size(); ++i) {
    if (logits[i] >= floor && Allowed(mask, i)) {
      candidates_.emplace_back(logits[i], static_cast<int32_t>(i));
    }
  }
}

int32_t Sampler::Draw() {
  const float top = candidates_.front().first;
  const double temperature = params_.temperature;
  weights_.resize(candidates_.size());
  double total = 0;
  for (size_t i = 0; i < candidates_.size(); ++i) {
    weights_[i] = std::exp((candidates_[i].first - top) / temperature);
    total += weights_[i];
  }
  std::uniform_real_distribution<double> uniform(0.0, total);
  double at = uniform(rng_);
  for (size_t i = 0; i < candidates_.size(); ++i) {
    at -= weights_[i];
    if (at < 0) return candidates_[i].second;
  }
  return candidates_.back().second;
}

int32_t Sampler::Sample(std::span<const float> logits, std::span<const uint32_t> mask) {
  int32_t argmax = -1;
  const float best = MaxAllowed(logits, mask, argmax);
  if (argmax < 0 || std::isinf(best)) return -1;
  if (params_.temperature <= 0 || params_.top_k == 1) return argmax;

  const float min_p = static_cast<float>(params_.min_p);
  const float floor = min_p > 0 ? best + std::log(std::min(min_p, 1.0f)) : best - kNegligible;
  Collect(logits, mask, floor);
  const auto by_logit = [](const auto& a, const auto& b) { return a.first > b.first; };
  if (params_.top_k > 0 && candidates_.size() > static_cast<size_t>(params_.top_k)) {
    std::nth_element(candidates_.begin(), candidates_.begin() + params_.top_k, candidates_.end(),
                     by_logit);
    candidates_.resize(static_cast<size_t>(params_.top_k));
  }
  std::sort(candidates_.begin(), candidates_.end(), by_logit);
  if (params_.top_p < 1.0 && candidates_.size() > 1) {
    double total = 0;
    for (const auto& c : candidates_)
      total += std::exp(static_cast<double>(c.first - best));
    double kept = 0;
    size_t keep = 0;
    while (keep < candidates_.size()) {
      kept += std::exp(static_cast<double>(candidates_[keep].first - best));
      ++keep;
      if (kept >= params_.top_p * total) break;
    }
    candidates_.resize(keep);
  }
  return Draw();
}

}  // namespace crux::engine
