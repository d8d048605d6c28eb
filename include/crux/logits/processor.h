// Logits processors: per-sequence constraints applied to the model's scores before sampling.
//
// A processor sees the tokens generated so far (never the prompt) and either rewrites the
// logits or, on the fast path, writes the set of allowed tokens as a bitmask. It keeps its own
// state, advanced by Accept and undone by Rollback (speculative decoding), so the per-step cost
// does not grow with the output. Process(history, logits) is the history-driven form: it
// catches up with `history` (rolling back where it diverges from what was absorbed) and then
// applies itself.
//
// A ProcessorChain runs processors in a fixed order whatever order they were added in:
//   1. bias       — logit_bias
//   2. penalties  — repetition, presence and frequency penalties
//   3. thinking   — the thinking budget (forces the end of reasoning)
//   4. grammar    — token masks (JSON schema, tool calls): last, so that nothing after it
//                   can re-enable a token it refused.
// The thinking processor owns the grammar of the final answer (its inner processor), because
// the grammar applies to the content after reasoning only.
//
// Thread-safety: a processor belongs to one sequence and is used by one thread at a time;
// Clone() gives an independent copy for a forked sequence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace crux::logits {

enum class Stage : uint8_t { kBias, kPenalties, kThinking, kGrammar };
std::string_view StageName(Stage stage);

// Sets bit `token` of a packed mask (bit i%32 of word i/32).
inline void SetBit(std::span<uint32_t> mask, uint32_t token) {
  mask[token >> 5] |= uint32_t{1} << (token & 31);
}
inline bool TestBit(std::span<const uint32_t> mask, uint32_t token) {
  return (mask[token >> 5] >> (token & 31) & 1) != 0;
}
// Sets every logit whose token is not in `mask` to -infinity (tokens past the mask too).
void ApplyMask(std::span<const uint32_t> mask, std::span<float> logits);

class LogitsProcessor {
 public:
  virtual ~LogitsProcessor() = default;

  virtual Stage stage() const = 0;
  virtual std::string_view name() const = 0;

  // Absorbs the next generated token. False when the processor cannot take it (a token its
  // own mask refused); the state is then unchanged.
  virtual bool Accept(uint32_t token) = 0;
  // Undoes the last `count` accepted tokens. False when fewer are recorded (nothing changes).
  virtual bool Rollback(size_t count) = 0;
  // Back to the state before the first token.
  virtual void Reset() = 0;
  virtual std::unique_ptr<LogitsProcessor> Clone() const = 0;
  // Tokens absorbed so far.
  virtual size_t accepted() const = 0;

  // The fast path: writes the allowed tokens into `mask` (all words are written) and returns
  // true, or returns false when this step allows every token (mask untouched). Processors
  // that rewrite scores rather than restrict them (bias, penalties) return false.
  virtual bool FillMask(std::span<uint32_t> mask) = 0;
  // Rewrites `logits` for the next token. The default applies FillMask.
  virtual void ApplyLogits(std::span<float> logits);

  // The history-driven form: absorbs `history` (generated tokens only; the longest common
  // prefix with what was absorbed is kept, the rest rolled back), then ApplyLogits. An empty
  // history before the first token is the first step. False when a history token was refused
  // (the processor then stands after the tokens it could take).
  bool Process(std::span<const uint32_t> history, std::span<float> logits);

 protected:
  std::vector<uint32_t> scratch_mask_;

 private:
  std::vector<uint32_t> synced_;  // the history Process absorbed
};

// logit_bias: adds a fixed value to given tokens' logits (OpenAI clamps to [-100, 100]; a
// value of -100 bans the token in practice).
class LogitBiasProcessor final : public LogitsProcessor {
 public:
  explicit LogitBiasProcessor(std::unordered_map<uint32_t, float> bias);
  Stage stage() const override { return Stage::kBias; }
  std::string_view name() const override { return "logit_bias"; }
  bool Accept(uint32_t) override {
    ++accepted_;
    return true;
  }
  bool Rollback(size_t count) override;
  void Reset() override { accepted_ = 0; }
  std::unique_ptr<LogitsProcessor> Clone() const override;
  size_t accepted() const override { return accepted_; }
  bool FillMask(std::span<uint32_t>) override { return false; }
  void ApplyLogits(std::span<float> logits) override;

 private:
  std::unordered_map<uint32_t, float> bias_;
  size_t accepted_ = 0;
};

struct PenaltyOptions {
  float repetition = 1.0f;  // > 1 discourages tokens already generated (llama.cpp's form)
  float presence = 0.0f;    // subtracted once from a token already generated
  float frequency = 0.0f;   // subtracted per occurrence
  size_t last_n = 64;       // window of recent tokens the penalties look at (0: all)
};

// Repetition, presence and frequency penalties over the generated tokens. Cost per step:
// proportional to the distinct tokens in the window.
class PenaltiesProcessor final : public LogitsProcessor {
 public:
  explicit PenaltiesProcessor(PenaltyOptions options);
  Stage stage() const override { return Stage::kPenalties; }
  std::string_view name() const override { return "penalties"; }
  bool Accept(uint32_t token) override;
  bool Rollback(size_t count) override;
  void Reset() override;
  std::unique_ptr<LogitsProcessor> Clone() const override;
  size_t accepted() const override { return tokens_.size(); }
  bool FillMask(std::span<uint32_t>) override { return false; }
  void ApplyLogits(std::span<float> logits) override;

 private:
  void Count(uint32_t token, int delta);
  PenaltyOptions options_;
  std::vector<uint32_t> tokens_;
  std::unordered_map<uint32_t, int> counts_;  // in the window
};

// Processors in stage order (stable among equals).
class ProcessorChain {
 public:
  ProcessorChain() = default;
  ProcessorChain(const ProcessorChain& other);
  ProcessorChain& operator=(const ProcessorChain& other);
  ProcessorChain(ProcessorChain&&) noexcept = default;
  ProcessorChain& operator=(ProcessorChain&&) noexcept = default;

  void Add(std::unique_ptr<LogitsProcessor> processor);
  bool empty() const { return processors_.empty(); }
  size_t size() const { return processors_.size(); }
  const LogitsProcessor& at(size_t i) const { return *processors_[i]; }
  LogitsProcessor& at(size_t i) { return *processors_[i]; }

  // Every processor, in order, on `logits`.
  void ApplyLogits(std::span<float> logits);
  // The processors that rewrite scores (bias, penalties), in order; the restricting ones are
  // left to FillMask. An engine that samples from a mask calls this, then FillMask.
  void ApplyScores(std::span<float> logits);
  // The intersection of the processors' masks (words = ceil(vocabulary / 32)); false when
  // no processor restricts this step. Processors that only rewrite scores are skipped.
  bool FillMask(std::span<uint32_t> mask);
  // Every processor takes the token; false (and the token rolled back from those that took
  // it) when one refuses.
  bool Accept(uint32_t token);
  bool Rollback(size_t count);
  void Reset();

 private:
  std::vector<std::unique_ptr<LogitsProcessor>> processors_;
  std::vector<uint32_t> scratch_;
};

}  // namespace crux::logits
