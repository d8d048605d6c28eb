// What the upstream engine writes to and reads from an upstream's /v1/completions (private to
// engine/upstream/): the request body per upstream kind, and the fields of one streamed chunk.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "crux/base/error.h"
#include "crux/engine/engine.h"
#include "crux/engine/upstream_engine.h"

namespace crux::engine::upstream {

// The JSON body of a streaming completion of `request` for an upstream of `kind` serving
// `model`: prompt, stream with usage, sampling, max_tokens, the penalties and logit_bias, and
// the requirements in the kind's own fields (grammar, reasoning budget, special-token
// rendering). Stop strings are not sent: crux applies them itself.
// `token_markers`: the upstream's vocabulary has each reasoning marker as one token, so a
// llama-server gets the requirements' token_grammar.
std::string CompletionBody(const GenerateRequest& request, UpstreamKind kind,
                           std::string_view model, bool token_markers = false);

// Whether an upstream of `kind` enforces a request's grammar / thinking budget.
Engine::RequirementSupport SupportOf(UpstreamKind kind);

struct Chunk {
  std::string text;
  std::optional<std::string> finish_reason;  // "stop", "length", …
  bool has_usage = false;
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int cached_tokens = 0;
};

// One `data:` payload of the stream (or a whole non-streamed completion body). Errors: kParse
// (not JSON, or no object), kUnavailable quoting an `{"error": …}` payload.
Expected<Chunk> ReadChunk(std::string_view data);

// The message of an upstream's error body ({"error": {"message"}} or {"error": "…"}, else the
// text itself), cut to a readable length.
std::string ErrorMessageOf(std::string_view body);

}  // namespace crux::engine::upstream
