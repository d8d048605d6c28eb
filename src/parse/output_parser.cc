#include "crux/parse/output_parser.h"

#include "crux/text/marker_set.h"
#include "crux/text/stream_buffer.h"

namespace crux::parse {

// The promotion stage between the reasoning and the tool parser (see output_parser.h). Its
// input is the reasoning stage's events in order: reasoning text, and answer text that ends
// the current reasoning segment. Cost per call is proportional to the text given, except that
// an open block is held (and scanned once) until it closes or the segment ends.
class ToolCallPromotion {
 public:
  explicit ToolCallPromotion(const std::vector<ToolCallBlock>& blocks) : blocks_(blocks) {
    std::vector<std::string> opens;
    for (const ToolCallBlock& b : blocks_) {
      opens.emplace_back(b.open);
      closes_.emplace_back(std::vector<std::string>{std::string(b.close)});
    }
    opens_ = text::MarkerSet(opens);
  }

  void Reasoning(std::string_view text, ToolParser& tools, EventSink& out) {
    if (open_ >= 0) {
      text = ContinueBlock(text, tools, out);
      if (open_ >= 0) return;
    }
    // `pending_` holds a possible start of an open marker from the last call.
    std::string_view view = pending_.Take(text, /*at_end=*/false);
    size_t consumed = 0;
    while (true) {
      const std::string_view rest = view.substr(consumed);
      const text::ScanResult hit = opens_.Scan(rest, /*at_end=*/false);
      Emit(rest.substr(0, hit.pos), out);
      consumed += hit.pos;
      if (hit.status != text::ScanStatus::kFound) break;
      open_ = hit.id;
      block_.assign(rest.substr(hit.pos, hit.length));
      close_from_ = hit.length;
      body_started_ = false;
      const std::string_view after = ContinueBlock(rest.substr(hit.pos + hit.length), tools, out);
      if (open_ >= 0) {
        consumed = view.size();
        break;
      }
      consumed = view.size() - after.size();
    }
    pending_.Keep(consumed);
  }

  // The reasoning segment ended: what is held (an open block or a possible marker start) is
  // reasoning after all.
  void EndSegment(EventSink& out) {
    Emit(pending_.Take({}, /*at_end=*/true), out);
    pending_.Clear();
    Emit(block_, out);
    CloseBlock();
    trim_.StartPart("\n");
  }

  void Reset() {
    pending_.Clear();
    CloseBlock();
    trim_.Reset();
    promoted_ = 0;
  }

  int promoted() const { return promoted_; }

 private:
  // Appends `text` to the open block; on its close marker, promotes the block (or keeps it as
  // reasoning when its body is not a call) and returns the text after it. A body that does not
  // start like a call (`{` or `<` after whitespace) ends the block at once: it is prose that
  // names the marker, and the reasoning streams on without waiting for a close marker.
  std::string_view ContinueBlock(std::string_view text, ToolParser& tools, EventSink& out) {
    const size_t before = block_.size();
    block_.append(text);
    if (!body_started_) {
      while (close_from_ < block_.size() && text::IsSpace(block_[close_from_]))
        ++close_from_;
      if (close_from_ == block_.size()) return {};
      if (block_[close_from_] != '{' && block_[close_from_] != '<') {
        // The deciding byte is new: earlier bytes of the block were all marker or whitespace.
        const std::string_view rest = text.substr(close_from_ - before);
        Emit(std::string_view(block_).substr(0, close_from_), out);
        CloseBlock();
        return rest;
      }
      body_started_ = true;
    }
    const text::ScanResult hit =
        closes_[static_cast<size_t>(open_)].Scan(std::string_view(block_).substr(close_from_),
                                                 /*at_end=*/false);
    if (hit.status != text::ScanStatus::kFound) {
      close_from_ += hit.pos;  // resume at a possible start of the close marker
      return {};
    }
    // The close marker ends inside `text`: it was not complete before.
    const size_t end = close_from_ + hit.pos + hit.length;
    const std::string_view block(block_.data(), end);
    if (LooksLikeCall(block, blocks_[static_cast<size_t>(open_)])) {
      tools.Feed(block, out);
      ++promoted_;
    } else {
      Emit(block, out);
    }
    CloseBlock();
    return text.substr(end - before);
  }

  void CloseBlock() {
    block_.clear();
    open_ = -1;
    close_from_ = 0;
    body_started_ = false;
  }

  // The body between the markers is a JSON object or XML markup, not prose (its start was
  // checked as it arrived; the end is checked here).
  static bool LooksLikeCall(std::string_view block, const ToolCallBlock& markers) {
    const std::string_view body = text::Trim(block.substr(
        markers.open.size(), block.size() - markers.open.size() - markers.close.size()));
    return !body.empty() && (body.front() == '{' || body.front() == '<') &&
           (body.back() == '}' || body.back() == '>');
  }

  // Reasoning out, trimmed at both ends of each segment (removed blocks leave whitespace).
  void Emit(std::string_view text, EventSink& out) {
    if (text.empty()) return;
    scratch_.clear();
    trim_.Append(text, scratch_);
    out.Reasoning(scratch_);
  }

  std::vector<ToolCallBlock> blocks_;
  text::MarkerSet opens_;
  std::vector<text::MarkerSet> closes_;  // per block
  text::StreamBuffer pending_;           // a possible start of an open marker
  std::string block_;                    // the open block so far
  int open_ = -1;                        // index of the open block, or -1
  size_t close_from_ = 0;      // where the body check or the close-marker scan resumes in block_
  bool body_started_ = false;  // the block's first byte after whitespace is `{` or `<`
  text::TrimStream trim_;
  std::string scratch_;
  int promoted_ = 0;
};

OutputParser::OutputParser(std::unique_ptr<ReasoningParser> reasoning,
                           std::unique_ptr<ToolParser> tools,
                           const std::vector<ToolCallBlock>& promoted_blocks)
    : reasoning_(std::move(reasoning)), tools_(std::move(tools)) {
  if (reasoning_ != nullptr && tools_ != nullptr && !promoted_blocks.empty()) {
    promotion_ = std::make_unique<ToolCallPromotion>(promoted_blocks);
  }
}

OutputParser::~OutputParser() = default;

OutputParserStats OutputParser::stats() const {
  OutputParserStats stats;
  if (reasoning_ != nullptr) stats.lone_end_markers = reasoning_->lone_end_markers();
  if (promotion_ != nullptr) stats.promoted_tool_calls = promotion_->promoted();
  return stats;
}

void OutputParser::Feed(std::string_view delta, EventSink& out) {
  if (reasoning_ == nullptr) {
    if (tools_ != nullptr) {
      tools_->Feed(delta, out);
    } else {
      out.Content(delta);
    }
    return;
  }
  stage_.Clear();
  reasoning_->Feed(delta, stage_);
  Route(out);
}

void OutputParser::Finish(EventSink& out) {
  if (reasoning_ != nullptr) {
    stage_.Clear();
    reasoning_->Finish(stage_);
    Route(out);
    if (promotion_ != nullptr) promotion_->EndSegment(out);
  }
  if (tools_ != nullptr) tools_->Finish(out);
}

void OutputParser::Reset() {
  if (reasoning_ != nullptr) reasoning_->Reset();
  if (tools_ != nullptr) tools_->Reset();
  if (promotion_ != nullptr) promotion_->Reset();
  stage_.Clear();
}

void OutputParser::Route(EventSink& out) {
  for (const Event& e : stage_.events()) {
    if (promotion_ != nullptr) {
      if (e.kind == EventKind::kReasoning) {
        promotion_->Reasoning(e.text, *tools_, out);
        continue;
      }
      promotion_->EndSegment(out);
    }
    if (e.kind == EventKind::kContent && tools_ != nullptr) {
      tools_->Feed(e.text, out);
    } else {
      out.Add(e);
    }
  }
}

std::optional<DeltaMessage> DeltaAdapter::ToDelta(const std::vector<Event>& events) {
  DeltaMessage msg;
  for (const Event& e : events) {
    switch (e.kind) {
      case EventKind::kReasoning:
        if (!msg.reasoning) msg.reasoning.emplace();
        msg.reasoning->append(e.text);
        break;
      case EventKind::kContent:
        if (!msg.content) msg.content.emplace();
        msg.content->append(e.text);
        break;
      case EventKind::kToolCallBegin:
        msg.tool_calls.push_back({e.index, e.id, e.name, ""});
        break;
      case EventKind::kToolCallArgs:
        if (!msg.tool_calls.empty() && msg.tool_calls.back().index == e.index) {
          msg.tool_calls.back().arguments.append(e.text);
        } else {
          msg.tool_calls.push_back({e.index, "", "", e.text});
        }
        break;
      case EventKind::kToolCallEnd:
      case EventKind::kToolCallCancel:
        break;
    }
  }
  if (msg.empty()) return std::nullopt;
  return msg;
}

std::optional<DeltaMessage> DeltaAdapter::ExtractStreaming(std::string_view /*previous_text*/,
                                                           std::string_view /*current_text*/,
                                                           std::string_view delta_text) {
  sink_.Clear();
  parser_.Feed(delta_text, sink_);
  return ToDelta(sink_.events());
}

std::optional<DeltaMessage> DeltaAdapter::Finalize() {
  sink_.Clear();
  parser_.Finish(sink_);
  return ToDelta(sink_.events());
}

}  // namespace crux::parse
