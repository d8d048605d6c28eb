// The think engine: the one parser of every reasoning family declared as a ThinkSyntax
// (crux/parse/registry.h), and the compiled form of a declaration.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/parser.h"
#include "crux/parse/registry.h"
#include "crux/text/marker_set.h"

namespace crux::parse {

// A ThinkSyntax with its marker set built (the start, end, answer-start, tool-start and deleted
// markers, in that order). Immutable; one static instance per family, shared by its parsers.
class ThinkFormat {
 public:
  enum class Role : uint8_t { kStart, kEnd, kAnswerStart, kToolStart, kDeleted };

  explicit ThinkFormat(ThinkSyntax syntax);

  const ThinkSyntax& syntax() const { return syntax_; }
  const text::MarkerSet& markers() const { return markers_; }
  // What the marker `id` of markers() does.
  Role role(int id) const { return roles_[static_cast<size_t>(id)]; }
  // The marker summary of the docs and `crux parse --list`: "<think> … </think>", with
  // "[<think>] … (starts inside reasoning)" and "; X Y removed" where they apply.
  std::string_view summary() const { return summary_; }

 private:
  ThinkSyntax syntax_;
  text::MarkerSet markers_;
  std::vector<Role> roles_;
  std::string summary_;
};

std::unique_ptr<ReasoningParser> MakeThinkParser(const ThinkFormat& format,
                                                 const ReasoningOptions& options);

}  // namespace crux::parse
