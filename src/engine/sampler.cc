#include "crux/engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace crux::engine {
namespace {

// Candidates further than this below the best logit (at temperature 1) are dropped when no
// min_p is set: e^-30 is below 1e-13, so even 152k of them carry less than 1e-8.
constexpr float kNegligible = 30.0f;

constexpr size_t kBlock = 64;

// The largest of kBlock floats, eight lanes at a time (GCC/Clang vector extensions: one
// instruction per lane group where the target has vectors, plain code elsewhere).
using Lanes = float __attribute__((vector_size(32)));

float BlockMax(const float* p) {
  Lanes m;
  std::memcpy(&m, p, sizeof(m));
  for (size_t i = 8; i < kBlock; i += 8) {
    Lanes v;
    std::memcpy(&v, p + i, sizeof(v));
    m = m > v ? m : v;
  }
  float best = m[0];
  for (int k = 1; k < 8; ++k)
    best = best > m[k] ? best : m[k];
  return best;
}

bool Allowed(std::span<const uint32_t> mask, size_t token) {
  return mask.empty() || (token >> 5 < mask.size() && (mask[token >> 5] >> (token & 31) & 1) != 0);
}

}  // namespace

Sampler::Sampler(const SamplingParams& params) : params_(params) {
  rng_.seed(params.seed != 0 ? params.seed : std::random_device{}());
}

// Without a mask: the largest logit in blocks of kBlock, whose inner maximum the compiler
// vectorizes; the index is looked up in the one block that holds it.
float Sampler::MaxAllowed(std::span<const float> logits, std::span<const uint32_t> mask,
                          int32_t& argmax) const {
  float best = -std::numeric_limits<float>::infinity();
  argmax = -1;
  if (mask.empty()) {
    size_t best_block = 0;
    size_t i = 0;
    for (; i + kBlock <= logits.size(); i += kBlock) {
      const float m = BlockMax(logits.data() + i);
      if (m > best) {
        best = m;
        best_block = i;
      }
    }
    for (size_t j = best_block; j < std::min(best_block + kBlock, logits.size()); ++j) {
      if (logits[j] == best && argmax < 0) argmax = static_cast<int32_t>(j);
    }
    for (; i < logits.size(); ++i) {
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

// One pass: blocks whose maximum is below the bar are skipped whole. The bar is `cut` below
// the best logit so far and, with top_k, the k-th best so far (the candidates are then a
// min-heap of k), so a flat distribution costs no more than a peaked one. Candidates that
// fall behind the final best are dropped at the end.
void Sampler::Collect(std::span<const float> logits, std::span<const uint32_t> mask, float cut,
                      size_t k) {
  candidates_.clear();
  float best = -std::numeric_limits<float>::infinity();
  float bar = best;
  const auto by_logit_desc = [](const auto& a, const auto& b) { return a.first > b.first; };
  const auto visit = [&](size_t j) {
    const float l = logits[j];
    if (l < bar || !Allowed(mask, j)) return;
    if (k > 0 && candidates_.size() == k) {
      if (l <= candidates_.front().first) return;
      std::pop_heap(candidates_.begin(), candidates_.end(), by_logit_desc);
      candidates_.back() = {l, static_cast<int32_t>(j)};
    } else {
      candidates_.emplace_back(l, static_cast<int32_t>(j));
    }
    if (k > 0) std::push_heap(candidates_.begin(), candidates_.end(), by_logit_desc);
    best = std::max(best, l);
    bar = best - cut;
    if (k > 0 && candidates_.size() == k) bar = std::max(bar, candidates_.front().first);
  };
  size_t i = 0;
  for (; i + kBlock <= logits.size(); i += kBlock) {
    if (BlockMax(logits.data() + i) < bar) continue;
    for (size_t j = i; j < i + kBlock; ++j)
      visit(j);
  }
  for (; i < logits.size(); ++i)
    visit(i);
  const float floor = best - cut;
  std::erase_if(candidates_, [floor](const auto& c) { return c.first < floor; });
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
  if (params_.temperature <= 0 || params_.top_k == 1) {
    int32_t argmax = -1;
    const float best = MaxAllowed(logits, mask, argmax);
    return std::isinf(best) ? -1 : argmax;
  }
  const float min_p = static_cast<float>(params_.min_p);
  // min_p acts at temperature 1 (llama.cpp's order), so its cut is exact; without it, the
  // negligible tail widens with the temperature that flattens it.
  const float cut = min_p > 0
                        ? -std::log(std::min(min_p, 1.0f))
                        : kNegligible * std::max(1.0f, static_cast<float>(params_.temperature));
  Collect(logits, mask, cut, static_cast<size_t>(std::max(params_.top_k, 0)));
  const auto by_logit = [](const auto& a, const auto& b) { return a.first > b.first; };
  std::sort(candidates_.begin(), candidates_.end(), by_logit);
  if (candidates_.empty() || std::isinf(candidates_.front().first)) return -1;
  const float best = candidates_.front().first;
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
