// The llama.cpp engine: runs a GGUF model in-process (crux serve --model M.gguf).
//
// One llama_context serves `parallel` slots with continuous batching: every step decodes one
// token for each generating slot and, in the same batch, the next chunk of any prompt being
// read, so new requests prefill while others generate. Each slot keeps the tokens its cache
// holds; a request goes to the free slot sharing the longest prefix with its prompt, and only
// the rest of the prompt is evaluated (a multi-turn chat does not read its history again).
// Prompts are tokenized through a small cache of recent prompts: only the text after the last
// special token the new prompt shares with a cached one is tokenized again.
//
// Per step and slot: logit_bias and penalties rewrite the logits, the thinking budget and the
// grammar processors fill a token mask, the sampler draws (engine/sampler.h), the processors
// accept the token, and the detokenizer emits whole UTF-8 characters (special tokens the
// parsers need, such as <think> or <tool_call>, rendered as their text) through the stop
// strings. Generation ends on an end-of-generation token, a stop string, max_tokens, a full
// context, or cancellation (checked every step; the slot is free for the next request at once).
//
// Available when crux is built with llama.cpp (CRUX_HAVE_LLAMA).
#pragma once

#include <memory>
#include <string>

#include "crux/base/error.h"
#include "crux/engine/engine.h"

namespace crux::engine {

struct LlamaEngineOptions {
  std::string model_path;
  std::string model_id;        // the name requests use; empty: the file's name without .gguf
  int context_size = 4096;     // tokens one sequence may hold, prompt and output together
  int parallel = 4;            // slots: sequences generated at once
  int threads = 0;             // CPU threads; 0: the machine's cores
  int batch_size = 512;        // tokens per decode call
  int gpu_layers = 0;          // layers offloaded to a GPU build's device (-1: all)
  int default_max_tokens = 0;  // 0: until the context is full
  bool progress_bar = false;   // draw a loading bar on stderr (a terminal); else log lines
};

// Loads the model and starts the engine's thread. Errors: kNotFound (no such file), kParse (a
// file llama.cpp cannot load as a model), kInvalidArgument (bad sizes), kUnavailable (the
// context could not be created).
Expected<std::unique_ptr<Engine>> MakeLlamaEngine(const LlamaEngineOptions& options);

}  // namespace crux::engine
