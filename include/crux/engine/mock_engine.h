// The mock engine: replays scripted raw model output so that parsers, pipeline, encoders and
// server run for real without a model. Selected explicitly (`crux serve --engine mock`).
//
// A script is the raw text a model would generate. It is replayed in pieces of at most 4 bytes
// (never splitting a UTF-8 character); each piece counts as one token, so max_tokens and stop
// strings act on it as on a real engine. Prompt tokens are counted the same way on the
// rendered prompt.
//
// A script may hold several turns, separated by lines that are exactly `--- next turn ---`:
// a request whose conversation already has N assistant turns replays turn N+1 (the last turn
// when there are fewer), so a tool call can be followed by a final answer in an agent loop.
// The mock reads N from the rendered prompt itself (MockEngineOptions::assistant_turn_marker),
// so GenerateRequest carries nothing only the mock needs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/engine/engine.h"

namespace crux::engine {

struct MockScript {
  std::string model;               // the model id requests use to pick this script
  std::vector<std::string> turns;  // the raw output replayed, per turn (at least one)
};

// Splits a script file's text into turns.
std::vector<std::string> SplitTurns(std::string_view text);

struct MockEngineOptions {
  std::vector<MockScript> scripts;  // at least one; the first is the default model
  double tokens_per_second = 0;     // 0: as fast as possible
  int default_max_tokens = 1 << 20;
  // What opens an assistant turn in a rendered prompt (the pipeline's ChatML rendering). The
  // conversation's earlier assistant turns are its occurrences before the last one, which
  // opens the turn being generated.
  std::string assistant_turn_marker = "<|im_start|>assistant";
};

// Assistant turns already in the conversation `prompt` renders: occurrences of `marker`
// before the last one (0 when it occurs at most once).
int PriorAssistantTurns(std::string_view prompt, std::string_view marker);

// Reads scripts: a file gives one model named `model_name`; a directory gives one model per
// `*.txt` file, named after the file without its extension (sorted by name).
Expected<std::vector<MockScript>> LoadMockScripts(const std::string& path,
                                                  const std::string& model_name);

std::unique_ptr<Engine> MakeMockEngine(MockEngineOptions options);

// Splits `text` into mock tokens: pieces of at most 4 bytes, whole UTF-8 characters.
std::vector<std::string_view> MockTokens(std::string_view text);

}  // namespace crux::engine
