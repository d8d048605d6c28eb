// Auto-detection of the tool-call family, read by DetectToolParserFromOutput,
// DetectToolParserFromTemplate and the `auto` parser. Its tables are built from the formats'
// declarations (ToolParserInfo::detect_markers and template_needles).
//
// Output markers are the start markers a family's calls begin with. Markers shared by several
// families (`<tool_call>`, `<function=`, `<|start|>`) are resolved by the bytes that follow
// them. Bare forms (a JSON envelope or a Python call list) count only at the start of the
// output. Template needles are strings only one family's chat template contains; rows are tried
// by rank, from the most specific to the most generic, and the first row whose needles all
// occur wins.
#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse {
namespace tools {
namespace {

// How a marker's family is decided.
enum class Resolve : uint8_t {
  kDirect,       // the row's family
  kToolCallTag,  // <tool_call>: a JSON object → hermes, a JSON list → tng, <function= →
                 // qwen3_xml, a bare name → glm47
  kFunctionTag,  // <function=f>: JSON body → llama, <parameter= → qwen3_xml, else not a call
  kStartTag,     // <|start|>: a channel before the message → harmony, none → muse_glimmer
  kCallsTag,     // <tool_calls>: a JSON list → apriel, an object → minimax (M1), a plain
                 // <tool_call> → hy3 (Hy3-preview) when `<tool_sep>` follows its name, else
                 // hy_v4 (HY V4) when `<arg_key>` or `</tool_call>` does
};

struct OutputMarker {
  std::string_view marker;
  std::string_view family;
  Resolve resolve = Resolve::kDirect;
};

// Markers that several formats declare, and how the bytes after them decide.
constexpr std::array<std::pair<std::string_view, Resolve>, 4> kSharedMarkers = {{
    {"<tool_call>", Resolve::kToolCallTag},
    {"<function=", Resolve::kFunctionTag},
    {"<|start|>", Resolve::kStartTag},
    {"<tool_calls>", Resolve::kCallsTag},
}};

Resolve ResolveFor(std::string_view marker) {
  for (const auto& [shared, resolve] : kSharedMarkers) {
    if (shared == marker) return resolve;
  }
  return Resolve::kDirect;
}

// Every format's detect markers, once each, in registry order.
const std::vector<OutputMarker>& OutputMarkers() {
  static const std::vector<OutputMarker> rows = [] {
    std::vector<OutputMarker> out;
    for (const ToolParserInfo& info : ToolParsers()) {
      for (std::string_view marker : info.detect_markers) {
        const bool seen = std::any_of(
            out.begin(), out.end(), [&](const OutputMarker& row) { return row.marker == marker; });
        if (!seen) out.push_back({marker, info.name, ResolveFor(marker)});
      }
    }
    return out;
  }();
  return rows;
}

struct TemplateRow {
  int rank;
  std::string_view family;
  std::array<std::string_view, 2> needles;  // all present ("" = unused)
};

// Every format's chat-template needles, most specific (lowest rank) first.
const std::vector<TemplateRow>& TemplateRows() {
  static const std::vector<TemplateRow> rows = [] {
    std::vector<TemplateRow> out;
    for (const ToolParserInfo& info : ToolParsers()) {
      for (const TemplateNeedles& needles : info.template_needles) {
        out.push_back({needles.rank, info.name, {needles.first, needles.second}});
      }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const TemplateRow& a, const TemplateRow& b) { return a.rank < b.rank; });
    return out;
  }();
  return rows;
}

constexpr size_t kMaxLookahead = 320;

Detection Need(bool at_end) {
  return at_end ? Detection{} : Detection{Verdict::kNeedMore, {}};
}
Detection Found(std::string_view family) {
  return {Verdict::kFamily, family};
}

size_t SkipSpace(std::string_view text, size_t i) {
  while (i < text.size() && text::IsSpace(text[i]))
    ++i;
  return i;
}

// -1 when `text` at `i` cannot start with `word`, 0 when it is a proper prefix, 1 when it does.
int WordAt(std::string_view text, size_t i, std::string_view word) {
  const std::string_view rest = text.substr(std::min(i, text.size()));
  if (rest.starts_with(word)) return 1;
  return rest.size() < word.size() && word.starts_with(rest) ? 0 : -1;
}

// After `<tool_call>`.
Detection ResolveToolCall(std::string_view text, bool at_end) {
  const size_t i = SkipSpace(text, 0);
  if (i == text.size()) return Need(at_end);
  if (text[i] == '{') return Found("hermes");
  if (text[i] == '[') return Found("tng");
  const int function = WordAt(text, i, "<function=");
  if (function == 1) return Found("qwen3_xml");
  if (function == 0) return Need(at_end);
  if (!IsNameStart(text[i])) return {};
  size_t end = i;
  while (end < text.size() && IsNameByte(text[end]))
    ++end;
  if (end == text.size()) return Need(at_end);
  return text[end] == '\n' || text[end] == '<' ? Found("glm47") : Detection{};
}

// After `<function=`.
Detection ResolveFunction(std::string_view text, bool at_end) {
  size_t i = 0;
  while (i < text.size() && IsNameByte(text[i]))
    ++i;
  if (i == text.size()) return Need(at_end);
  if (i == 0 || text[i] != '>') return {};
  i = SkipSpace(text, i + 1);
  if (i == text.size()) return Need(at_end);
  if (text[i] == '{') return Found("llama");
  const int parameter = WordAt(text, i, "<parameter=");
  if (parameter == 1) return Found("qwen3_xml");
  return parameter == 0 ? Need(at_end) : Detection{};
}

// After `<|start|>`: the header runs to `<|message|>`; Harmony headers name a channel.
Detection ResolveStart(std::string_view text, bool at_end) {
  const size_t message = text.find("<|message|>");
  const size_t channel = text.find("<|channel|>");
  if (channel != std::string_view::npos && channel < message) return Found("harmony");
  if (message != std::string_view::npos) return Found("muse_glimmer");
  return Need(at_end);
}

// After `<tool_calls>`.
Detection ResolveCalls(std::string_view text, bool at_end) {
  const size_t i = SkipSpace(text, 0);
  if (i == text.size()) return Need(at_end);
  if (text[i] == '[') return Found("apriel");
  if (text[i] == '{') return Found("minimax");
  const int call = WordAt(text, i, "<tool_call>");
  if (call == 0) return Need(at_end);
  if (call == -1) return {};
  // The call's name, then `<tool_sep>` (Hy3-preview) or a key / the call's end (HY V4).
  size_t end = i + std::string_view("<tool_call>").size();
  while (end < text.size() && IsNameByte(text[end]))
    ++end;
  if (end == text.size()) return Need(at_end);
  const int sep = WordAt(text, end, "<tool_sep>");
  const int key = WordAt(text, SkipSpace(text, end), "<arg_key>");
  const int close = WordAt(text, end, "</tool_call>");
  if (sep == 1) return Found("hy3");
  if (key == 1 || close == 1) return Found("hy_v4");
  return sep == 0 || key == 0 || close == 0 ? Need(at_end) : Detection{};
}

// `text` starts with '{': a call envelope whose first key is "name" (or "type") → `family`.
Detection EnvelopeAt(std::string_view text, bool at_end, std::string_view family) {
  const size_t i = SkipSpace(text, 1);
  if (i == text.size()) return Need(at_end);
  if (text[i] != '"') return {};
  const size_t close = text.find('"', i + 1);
  const bool complete = close != std::string_view::npos;
  const std::string_view key =
      text.substr(i + 1, complete ? close - i - 1 : std::string_view::npos);
  if (!CanStartEnvelope(key, complete)) return {};
  return complete ? Found(family) : Need(at_end);
}

const OutputMarker& RowOf(int id) {
  return OutputMarkers()[static_cast<size_t>(id)];
}

bool Registered(std::string_view family) {
  return FindParserInfo(ToolParsers(), family) != nullptr;
}

}  // namespace

const text::MarkerSet& OutputStartMarkers() {
  static const text::MarkerSet set = [] {
    std::vector<std::string> markers;
    for (const OutputMarker& row : OutputMarkers())
      markers.emplace_back(row.marker);
    return text::MarkerSet(markers);
  }();
  return set;
}

Detection ClassifyAtMarker(int id, std::string_view text, bool at_end) {
  const OutputMarker& row = RowOf(id);
  const std::string_view after = text.substr(row.marker.size());
  if (!at_end && after.size() > kMaxLookahead) at_end = true;  // undecided for too long
  const std::string_view window = after.substr(0, kMaxLookahead);
  switch (row.resolve) {
    case Resolve::kDirect:
      return Found(row.family);
    case Resolve::kToolCallTag:
      return ResolveToolCall(window, at_end);
    case Resolve::kFunctionTag:
      return ResolveFunction(window, at_end);
    case Resolve::kStartTag:
      return ResolveStart(window, at_end);
    case Resolve::kCallsTag:
      return ResolveCalls(window, at_end);
  }
  return {};
}

Detection ClassifyBareStart(std::string_view text, bool at_end) {
  if (text.empty()) return Need(at_end);
  if (!at_end && text.size() > kMaxLookahead) at_end = true;
  text = text.substr(0, kMaxLookahead);
  if (text[0] == '{') return EnvelopeAt(text, at_end, "llama");
  if (text[0] == '[') {
    const size_t i = SkipSpace(text, 1);
    if (i == text.size()) return Need(at_end);
    if (text[i] == '{') return EnvelopeAt(text.substr(i), at_end, "xlam");  // [{"name": …
    const int list = CallListAt(text, at_end);
    if (list == 0) return Need(at_end);
    return list > 0 ? Found("pythonic") : Detection{};
  }
  for (const std::string_view lead : {std::string_view(" to="), std::string_view("to=")}) {
    const int at = WordAt(text, 0, lead);
    if (at == 0) return Need(at_end);
    if (at == 1) return ResolveStart(text, at_end);
  }
  return {};
}

std::optional<std::string_view> DetectFromOutput(std::string_view text) {
  const std::string_view start = text::TrimLeft(text);
  const text::MarkerSet& markers = OutputStartMarkers();
  const text::ScanResult first = markers.Scan(start, true);
  if (first.status != text::ScanStatus::kFound || first.pos != 0) {
    const Detection bare = ClassifyBareStart(start, true);
    if (bare.verdict == Verdict::kFamily) return bare.family;
  }
  size_t pos = 0;
  while (pos < text.size()) {
    const text::ScanResult hit = markers.Scan(text.substr(pos), true);
    if (hit.status != text::ScanStatus::kFound) break;
    const Detection d = ClassifyAtMarker(hit.id, text.substr(pos + hit.pos), true);
    if (d.verdict == Verdict::kFamily) return d.family;
    pos += hit.pos + 1;
  }
  return std::nullopt;
}

std::optional<std::string_view> DetectFromTemplate(std::string_view source) {
  for (const TemplateRow& row : TemplateRows()) {
    const bool all = std::all_of(row.needles.begin(), row.needles.end(), [&](std::string_view n) {
      return n.empty() || source.find(n) != std::string_view::npos;
    });
    if (all) return row.family;
  }
  return std::nullopt;
}

bool IsRegisteredFamily(std::string_view family) {
  return Registered(family);
}

}  // namespace tools

std::optional<std::string_view> DetectToolParserFromOutput(std::string_view text) {
  return tools::DetectFromOutput(text);
}

std::optional<std::string_view> DetectToolParserFromTemplate(std::string_view template_source) {
  return tools::DetectFromTemplate(template_source);
}

}  // namespace crux::parse
