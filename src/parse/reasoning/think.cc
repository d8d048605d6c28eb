// The think engine: reasoning between a start and an end marker (`<think>…</think>`,
// `[THINK]…[/THINK]`), for every family declared as a ThinkSyntax in the reasoning registry.
// Every block is reasoning, wherever it appears; text outside blocks is content. The start
// marker may be absent when the prompt opened the block (ReasoningOptions::start_in_reasoning,
// else the declaration's `starts_inside`). A nested start marker is dropped, and so is an end
// marker that repeats the close right before it (only whitespace between). Any other end
// marker outside reasoning is lone — the prompt probably opened a block the parser was not
// told about — and is kept verbatim in content (and counted), so that the reasoning and the
// answer it separates stay distinguishable. Deleted markers (GLM's box tags, Cohere's answer
// wrappers) are removed wherever they appear.
#include "parse/reasoning/think.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/text/marker_set.h"
#include "crux/text/stream_buffer.h"
#include "parse/reasoning/channel_writer.h"

namespace crux::parse {
namespace {

class ThinkParser final : public ReasoningParser {
 public:
  ThinkParser(const ThinkFormat& format, const ReasoningOptions& options)
      : start_in_reasoning_(options.start_in_reasoning.value_or(format.syntax().starts_inside)),
        format_(format) {
    Reset();
  }

  void Feed(std::string_view delta, EventSink& out) override { Process(delta, false, out); }
  void Finish(EventSink& out) override { Process({}, true, out); }

  void Reset() override {
    buffer_.Clear();
    writer_.Reset();
    in_reasoning_ = start_in_reasoning_;
    just_closed_ = false;
    block_has_text_ = false;
    prefix_written_ = format_.syntax().content_prefix.empty();
    lone_end_markers_ = 0;
    if (in_reasoning_) writer_.StartReasoningBlock();
  }

  int lone_end_markers() const override { return lone_end_markers_; }

 private:
  void Process(std::string_view delta, bool at_end, EventSink& out) {
    if (!prefix_written_) {
      prefix_written_ = true;
      writer_.Content(format_.syntax().content_prefix, out);
    }
    const std::string_view view = buffer_.Take(delta, at_end);
    size_t pos = 0;
    while (pos < view.size()) {
      const text::ScanResult hit = format_.markers().Scan(view.substr(pos), at_end);
      const std::string_view plain = view.substr(pos, hit.pos);
      writer_.Write(in_reasoning_, plain, out);
      if (just_closed_ && !in_reasoning_ && !text::Trim(plain).empty()) just_closed_ = false;
      if (in_reasoning_ && !text::Trim(plain).empty()) block_has_text_ = true;
      pos += hit.pos;
      if (hit.status != text::ScanStatus::kFound) break;
      pos += hit.length;
      OnMarker(hit.id, out);
    }
    buffer_.Keep(pos);
  }

  void OnMarker(int id, EventSink& out) {
    using Role = ThinkFormat::Role;
    switch (format_.role(id)) {
      case Role::kStart:
        if (!in_reasoning_) {
          in_reasoning_ = true;
          block_has_text_ = false;
          writer_.StartReasoningBlock();
        } else if (block_has_text_) {
          // Nested: blocks do not nest, so the marker is reasoning text and stays visible.
          writer_.Write(true, format_.markers().marker(id), out);
        }
        break;  // a repeated opener before any reasoning text: dropped
      case Role::kEnd:
        if (in_reasoning_) {
          in_reasoning_ = false;
          just_closed_ = true;
        } else if (!just_closed_) {
          writer_.Content(format_.markers().marker(id), out);
          ++lone_end_markers_;
        }
        break;  // repeated: dropped
      case Role::kAnswerStart:
        in_reasoning_ = false;
        break;
      case Role::kToolStart:
        in_reasoning_ = false;
        writer_.Content(format_.markers().marker(id), out);
        break;
      case Role::kDeleted:
        break;
    }
  }

  const bool start_in_reasoning_;
  const ThinkFormat& format_;
  text::StreamBuffer buffer_;
  ChannelWriter writer_;
  bool in_reasoning_ = false;
  bool just_closed_ = false;     // an end marker closed a block, and only whitespace followed
  bool block_has_text_ = false;  // the open reasoning block has had text other than blanks
  bool prefix_written_ = false;
  int lone_end_markers_ = 0;
};

std::vector<std::string> MarkerList(const ThinkSyntax& syntax) {
  std::vector<std::string> list;
  for (const auto* group :
       {&syntax.start, &syntax.end, &syntax.answer_start, &syntax.tool_start, &syntax.deleted}) {
    for (std::string_view marker : *group)
      list.emplace_back(marker);
  }
  return list;
}

std::vector<ThinkFormat::Role> RoleList(const ThinkSyntax& syntax) {
  using Role = ThinkFormat::Role;
  std::vector<Role> roles;
  roles.insert(roles.end(), syntax.start.size(), Role::kStart);
  roles.insert(roles.end(), syntax.end.size(), Role::kEnd);
  roles.insert(roles.end(), syntax.answer_start.size(), Role::kAnswerStart);
  roles.insert(roles.end(), syntax.tool_start.size(), Role::kToolStart);
  roles.insert(roles.end(), syntax.deleted.size(), Role::kDeleted);
  return roles;
}

std::string Joined(const std::vector<std::string_view>& markers, std::string_view separator) {
  std::string out;
  for (std::string_view marker : markers) {
    if (!out.empty()) out += separator;
    out += marker;
  }
  return out;
}

std::string Summary(const ThinkSyntax& syntax) {
  if (syntax.start.empty())
    return "no split: content is " + std::string(syntax.content_prefix) + " + output";
  std::string start = Joined(syntax.start, " | ");
  if (syntax.starts_inside) start = "[" + start + "]";
  std::string summary =
      start + " … " + (syntax.end.empty() ? "the next answer or call" : Joined(syntax.end, " | "));
  if (syntax.starts_inside) summary += " (starts inside reasoning)";
  if (!syntax.answer_start.empty())
    summary += "; " + Joined(syntax.answer_start, " ") + " opens the answer";
  if (!syntax.tool_start.empty())
    summary += "; " + Joined(syntax.tool_start, " ") + " ends reasoning (a call)";
  if (!syntax.deleted.empty()) summary += "; " + Joined(syntax.deleted, " ") + " removed";
  return summary;
}

}  // namespace

ThinkFormat::ThinkFormat(ThinkSyntax syntax)
    : syntax_(std::move(syntax)),
      markers_(MarkerList(syntax_)),
      roles_(RoleList(syntax_)),
      summary_(Summary(syntax_)) {}

std::unique_ptr<ReasoningParser> MakeThinkParser(const ThinkFormat& format,
                                                 const ReasoningOptions& options) {
  return std::make_unique<ThinkParser>(format, options);
}

}  // namespace crux::parse
