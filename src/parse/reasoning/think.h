// The think engine: the one parser of every reasoning family declared as a ThinkSyntax
// (crux/parse/registry.h), and the compiled form of a declaration.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "crux/parse/parser.h"
#include "crux/parse/registry.h"
#include "crux/text/marker_set.h"

namespace crux::parse {

// A ThinkSyntax with its marker set built: the start markers, then the end markers, then the
// deleted ones. Immutable; one static instance per family, shared by its parsers.
class ThinkFormat {
 public:
  explicit ThinkFormat(ThinkSyntax syntax);

  const ThinkSyntax& syntax() const { return syntax_; }
  const text::MarkerSet& markers() const { return markers_; }
  bool is_start(int id) const { return id < static_cast<int>(syntax_.start.size()); }
  bool is_end(int id) const {
    return !is_start(id) && id < static_cast<int>(syntax_.start.size() + syntax_.end.size());
  }
  // The marker summary of the docs and `crux parse --list`: "<think> … </think>", with
  // "[<think>] … (starts inside reasoning)" and "; X Y removed" where they apply.
  std::string_view summary() const { return summary_; }

 private:
  ThinkSyntax syntax_;
  text::MarkerSet markers_;
  std::string summary_;
};

std::unique_ptr<ReasoningParser> MakeThinkParser(const ThinkFormat& format,
                                                 const ReasoningOptions& options);

}  // namespace crux::parse
