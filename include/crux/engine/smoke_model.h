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

// Writes the model. Errors name the file and what is wrong: kNotFound / kIo (unreadable
// vocabulary, unwritable output), kParse (not a GGUF file, or one without tokenizer keys),
// kInvalidArgument (a shape that does not divide).
Expected<SmokeModelReport> WriteSmokeModel(const SmokeModelOptions& options);

}  // namespace crux::engine
