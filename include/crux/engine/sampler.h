// Sampling of the next token from processed logits, in llama.cpp's default order: top_k, then
// top_p and min_p on the probabilities at temperature 1, then temperature, then a draw. A mask
// (from the grammar processors) removes tokens before any of it. Temperature 0 (or top_k 1)
// is greedy.
//
// Cost: one pass over the vocabulary, in blocks of 64 logits whose maximum is taken with vector
// instructions: a block is skipped unless it holds a token that can matter (within min_p of
// the best logit, or within 30 nats at temperature 1 when min_p is off: the rest carry less
// than 1e-8 of the probability in a 152k vocabulary); then work proportional to those
// candidates only. No pass exponentiates the whole vocabulary.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "crux/engine/engine.h"

namespace crux::engine {

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);

  // The next token from `logits`, or -1 when no token is allowed (every logit masked or
  // -infinity). `mask`: one bit per token (bit i%32 of word i/32); empty: every token allowed.
  int32_t Sample(std::span<const float> logits, std::span<const uint32_t> mask);

 private:
  float MaxAllowed(std::span<const float> logits, std::span<const uint32_t> mask,
                   int32_t& argmax) const;
  void Collect(std::span<const float> logits, std::span<const uint32_t> mask, float cut, size_t k);
  int32_t Draw();

  SamplingParams params_;
  std::mt19937_64 rng_;
  std::vector<std::pair<float, int32_t>> candidates_;
  std::vector<double> weights_;
};

}  // namespace crux::engine
