// The tiny random-weight model for tests and the quick start (`crux smoke-model`): a real
// vocabulary and a real chat template around a few random layers. Its words are noise, but
// its markers are real tokens, so every structural guarantee (a thinking budget, schema-valid
// JSON, a well-formed tool call) can be checked on it as on a real model.
//
// Available when crux is built with llama.cpp (CRUX_HAVE_LLAMA): the file is written through
// ggml's gguf API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "crux/base/error.h"

namespace crux::engine {

struct SmokeModelOptions {
  std::string vocab_path;     // a vocabulary-only GGUF (llama.cpp's models/ggml-vocab-*.gguf)
  std::string template_text;  // the chat template embedded as tokenizer.chat_template
  std::string out_path;
  // The architecture (qwen3): layers, embedding width, attention heads (query and key/value;
  // head size = embedding / heads), feed-forward width, trained context length.
  int layers = 2;
  int embedding = 64;
  int heads = 4;
  int kv_heads = 2;
  int feed_forward = 128;
  int context_length = 40960;
  uint64_t seed = 1;  // the weights are a function of the seed
};

struct SmokeModelReport {
  size_t tokens = 0;        // vocabulary size
  size_t added_tokens = 0;  // family added tokens written at their real ids (Qwen3: 26)
  size_t parameters = 0;
  size_t bytes = 0;  // the file's size
};

// Writes the model: the vocabulary's tokenizer.* keys (for a Qwen2/3 vocabulary, Qwen3's added
// tokens written over the `[PAD…]` placeholders at their real ids, eos = <|im_end|>), the
// template, qwen3 hyper-parameters and random weights (token_embd F16 N(0,1); projections F32
// N(0,1)/sqrt(fan-in); norms ones; output tied to token_embd). The same options give the same
// file (with the same C++ standard library: std::normal_distribution is theirs). The file is
// written under a temporary name and renamed, so a failed run leaves none. Cost: the default shape
// on Qwen's 151,936-token vocabulary takes about a second and writes 25.7 MB. Errors name the file
// and what is wrong: kNotFound (no vocabulary file), kIo (unreadable vocabulary, unwritable
// output), kParse (not a GGUF file, or one without tokenizer.ggml.tokens), kInvalidArgument (a
// shape that does not divide or is out of range), kLimit (weights over 4 GiB).
Expected<SmokeModelReport> WriteSmokeModel(const SmokeModelOptions& options);

}  // namespace crux::engine
