// A chat template: Jinja source parsed once into a tree, rendered any number of times over
// a context (messages, tools, add_generation_prompt, bos_token, … as top-level variables),
// exactly as Hugging Face transformers renders it with Python Jinja2: an immutable sandbox
// (list and dict methods that mutate raise), trim_blocks and lstrip_blocks, break/continue,
// `{% generation %}` blocks, a tojson filter that does not escape HTML, raise_exception and
// strftime_now.
//
// Thread-safety: a parsed Template is immutable; Render may run concurrently on one Template.
// Cost: parsing is linear in the source; rendering allocates the output and the values the
// template builds, and is bounded by RenderLimits (so no input renders forever). A template
// keeps what its top-level loops rendered in its recent renders (at most 16 loops and 64 MB of
// text, behind a lock) and replays the iterations whose inputs are unchanged
// (RenderOptions::reuse_loops).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crux/base/error.h"
#include "crux/chat_template/value.h"

namespace crux::chat_template {

class Node;

// Bounds on one render; exceeding one is an ErrorCode::kLimit error.
struct RenderLimits {
  size_t max_output_bytes = size_t{64} << 20;
  // Loop iterations, macro calls and filter applications together.
  uint64_t max_steps = 50'000'000;
  // Nested macro calls (Jinja2 would hit Python's recursion limit).
  int max_call_depth = 200;
};

struct RenderOptions {
  RenderLimits limits;
  // The wall clock strftime_now formats (local time); the system clock when empty.
  std::function<int64_t()> now_seconds;
  // Replay the iterations of top-level loops that an earlier render of this template already
  // rendered from the same inputs (the same message, the same values read), instead of running
  // them again: a conversation sent again with a new turn costs about what the new turn costs.
  // The output is the same either way.
  bool reuse_loops = true;
};

// A template error: ErrorCode::kParse for syntax, kInvalidArgument for a failure while
// rendering (undefined attribute, type error, raise_exception), kLimit for RenderLimits.
// Messages start with "line L, column C: "; raise_exception's message is kept as given after
// that prefix and the error carries the tag "raise_exception".
class Template {
 public:
  ~Template();
  Template(const Template&) = delete;
  Template& operator=(const Template&) = delete;

  // Parses `source`; errors name the line and column.
  static Expected<std::shared_ptr<const Template>> Parse(std::string_view source);

  // Renders over `context`, a dict whose keys become the template's variables.
  Expected<std::string> Render(const Value& context, const RenderOptions& options = {}) const;

 private:
  Template();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Parsed templates keyed by their source, shared between requests. Thread-safe.
class TemplateCache {
 public:
  Expected<std::shared_ptr<const Template>> Get(const std::string& source);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Template>> templates_;
};

}  // namespace crux::chat_template
