#include "crux/logits/tool_calls.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>

#include "crux/text/stream_buffer.h"
#include "tool_grammar.h"

namespace crux::logits {

using tools::Cursor;
using tools::Phase;
using tools::Walker;

struct ToolCallGrammar::Impl {
  std::unique_ptr<tools::Grammar> grammar;
};

ToolCallGrammar::ToolCallGrammar(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ToolCallGrammar::~ToolCallGrammar() = default;

bool ToolCallGrammar::exact() const {
  const std::vector<tools::Tool>& declared = impl_->grammar->tools;
  return std::all_of(declared.begin(), declared.end(),
                     [](const tools::Tool& tool) { return tool.exact; });
}

Expected<std::shared_ptr<const ToolCallGrammar>> ToolCallGrammar::Compile(
    const parse::CallGrammar& family, std::vector<parse::ToolSpec> tools,
    std::shared_ptr<const constrain::Vocabulary> vocabulary, ToolCallOptions options) {
  auto grammar =
      tools::CompileGrammar(family, std::move(tools), std::move(vocabulary), std::move(options));
  if (!grammar) return grammar.error();
  auto impl = std::make_unique<Impl>();
  impl->grammar = *std::move(grammar);
  return std::make_shared<const ToolCallGrammar>(std::move(impl));
}

struct ToolCallProcessor::State {
  struct Snapshot {
    Cursor cursor;
    size_t journal = 0;
    size_t text = 0;
  };
  Cursor cursor;
  std::vector<constrain::Matcher> holes;
  std::vector<tools::JournalEntry> journal;
  std::vector<Snapshot> snapshots;
  std::string text;
  // Walk scratch, per trie depth.
  std::vector<Cursor> stack;
  std::vector<size_t> marks;
  std::vector<uint8_t> literal;
  std::vector<size_t> rollback_steps;  // Rollback's per-hole count
};

namespace {

const tools::Grammar& G(const ToolCallGrammar& grammar) {
  return *grammar.impl().grammar;
}

bool TestWord(const std::vector<uint32_t>& mask, uint32_t token) {
  return (mask[token >> 5] >> (token & 31) & 1) != 0;
}

void Initial(const tools::Grammar& g, Walker& walker, Cursor& cursor) {
  cursor = Cursor{};
  const bool blank_first = !g.lead.empty() && text::IsSpace(g.lead[0]);
  const bool blanks = g.options.max_leading_blanks > 0 && !blank_first;
  if (g.options.mode == ToolChoiceMode::kAuto) {
    cursor.phase = !g.trigger.empty() ? Phase::kFree : blanks ? Phase::kBlanks : Phase::kAnchor;
  } else if (blanks) {
    cursor.phase = Phase::kBlanks;
  } else if (!walker.EnterLead(cursor, 0)) {
    cursor.phase = Phase::kDone;
  }
}

// Marks every token whose bytes `from` can take. Special tokens only where their bytes went to
// forced or free text.
void Walk(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker, const Cursor& from,
          std::span<uint32_t> mask, uint32_t first_node = 0, uint32_t end_node = UINT32_MAX) {
  const tools::TokenIndex& index = *g.index;
  const constrain::Vocabulary& vocabulary = *g.vocabulary;
  const size_t depth_limit = constrain::kMaxTokenBytes + 2;
  s.stack.resize(depth_limit);
  s.marks.resize(depth_limit);
  s.literal.resize(depth_limit);
  s.stack[0] = from;
  s.marks[0] = s.journal.size();
  s.literal[0] = 1;
  const auto nodes = std::min(end_node, static_cast<uint32_t>(index.size()));
  for (uint32_t i = first_node; i < nodes;) {
    const uint16_t depth = index.depth[i];
    walker.Undo(s.marks[depth - 1]);
    Cursor cursor = s.stack[depth - 1];
    bool literal = s.literal[depth - 1] != 0;
    if (!walker.Feed(cursor, index.byte[i], literal)) {
      i = index.end[i];
      continue;
    }
    if (cursor.phase == Phase::kPlain) {
      for (uint32_t k = index.first[i]; k < index.first[index.end[i]]; ++k) {
        const uint32_t token = index.tokens[k];
        if (TestWord(index.free_mask, token)) SetBit(mask, token);
      }
      i = index.end[i];
      continue;
    }
    s.stack[depth] = cursor;
    s.literal[depth] = literal ? 1 : 0;
    s.marks[depth] = s.journal.size();
    const bool special_fits = tools::SpecialFits(g, literal, cursor);
    for (uint32_t k = index.first[i]; k < index.first[i + 1]; ++k) {
      const uint32_t token = index.tokens[k];
      if (!special_fits && vocabulary.is_special(token)) continue;
      SetBit(mask, token);
    }
    ++i;
  }
  walker.Undo(s.marks[0]);
}

// True when `token` can be taken from `from` (the holes left as they were).
bool TryToken(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
              const Cursor& from, uint32_t token) {
  const size_t mark = s.journal.size();
  Cursor cursor = from;
  bool literal = true;
  const bool ok = walker.FeedBytes(cursor, g.vocabulary->bytes(token), literal) &&
                  (!g.vocabulary->is_special(token) || tools::SpecialFits(g, literal, cursor));
  walker.Undo(mark);
  return ok;
}

void FreeMask(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
              std::span<uint32_t> mask) {
  const uint32_t matched = s.cursor.a;
  {
    std::lock_guard<std::mutex> lock(g.free_mutex);
    if (g.free_masks[matched]) {
      std::copy(g.free_masks[matched]->begin(), g.free_masks[matched]->end(), mask.begin());
      return;
    }
  }
  const tools::TokenIndex& index = *g.index;
  auto computed = std::make_shared<std::vector<uint32_t>>(mask.size());
  for (size_t w = 0; w < mask.size(); ++w)
    (*computed)[w] = index.free_mask[w] | index.eog_mask[w];
  // Only a token holding the trigger's last byte can complete the trigger and go on wrongly.
  const auto last = static_cast<uint8_t>(g.trigger.back());
  for (const uint32_t token : index.containing[last]) {
    if (TryToken(g, s, walker, s.cursor, token)) {
      SetBit(*computed, token);
    } else {
      (*computed)[token >> 5] &= ~(uint32_t{1} << (token & 31));
    }
  }
  std::copy(computed->begin(), computed->end(), mask.begin());
  std::lock_guard<std::mutex> lock(g.free_mutex);
  if (!g.free_masks[matched]) g.free_masks[matched] = std::move(computed);
}

// A raw value at a character boundary whose length is either far from its maximum or within
// the counted range: tokens are decided by masks (length, blanks, the terminator's bytes), the
// tokens holding the terminator's bytes are stepped, and the tokens that go on with a pending
// match of the terminator (or its marker) are walked.
bool RawFast(const tools::Grammar& g, const Cursor& cursor) {
  if (cursor.phase != Phase::kRaw || (cursor.d & 3) != 0) return false;
  const tools::Param& param = g.tools[cursor.tool].params[cursor.param];
  return param.max_length >= uint64_t{cursor.a} + g.index->max_token_code_points ||
         param.max_length - cursor.a <= tools::TokenIndex::kCountedCodePoints;
}

// Tokens of no terminator byte that fit the room left (shorter, or exactly as long and not
// ending on a blank), not starting with a blank unless the value has begun.
void RawSafeTokens(const tools::Grammar& g, uint64_t room, bool begun, std::span<uint32_t> mask) {
  const tools::TokenIndex& index = *g.index;
  if (room >= index.max_token_code_points) {
    for (size_t w = 0; w < mask.size(); ++w)
      mask[w] = g.raw_safe[w] & (begun ? ~uint32_t{0} : ~index.starts_blank[w]);
    return;
  }
  const std::vector<uint32_t>& shorter = room == 0 ? index.at_most[0] : index.at_most[room - 1];
  const std::vector<uint32_t>& fitting = index.at_most[room];
  for (size_t w = 0; w < mask.size(); ++w) {
    const uint32_t length_ok = shorter[w] | (fitting[w] & ~shorter[w] & ~index.ends_blank[w]);
    mask[w] = g.raw_safe[w] & length_ok & (begun ? ~uint32_t{0} : ~index.starts_blank[w]);
  }
}

// Steps `token` from `from` (the holes left as they were): whether it is taken, and whether
// the cursor left the raw value on the way.
bool TryRawToken(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
                 const Cursor& from, uint32_t token, bool& left) {
  const size_t mark = s.journal.size();
  Cursor cursor = from;
  bool literal = true;
  bool ok = true;
  left = false;
  for (const char ch : g.vocabulary->bytes(token)) {
    left = left || cursor.phase != Phase::kRaw;
    if (!walker.Feed(cursor, static_cast<uint8_t>(ch), literal)) {
      ok = false;
      break;
    }
  }
  left = left || cursor.phase != Phase::kRaw;
  walker.Undo(mark);
  return ok;
}

// The class of a raw-value cursor (see Grammar::RawClass), computed on first use.
const tools::Grammar::RawClass& RawClassOf(const tools::Grammar& g, ToolCallProcessor::State& s,
                                           Walker& walker, const Cursor& cursor) {
  tools::Grammar::RawClasses& classes = *g.raw_classes;
  const uint64_t key = (uint64_t{cursor.marker} << 44) | (uint64_t{cursor.b} << 24) |
                       (uint64_t{cursor.c} << 4) | (cursor.d >> 24 & 3);
  {
    std::lock_guard<std::mutex> lock(classes.mutex);
    auto found = classes.by_state.find(key);
    if (found != classes.by_state.end()) return *found->second;
  }
  auto computed = std::make_shared<tools::Grammar::RawClass>();
  computed->allowed.assign(g.vocabulary->mask_words(), 0);
  for (const uint32_t token : g.raw_candidates) {
    bool left = false;
    const bool ok = TryRawToken(g, s, walker, cursor, token, left);
    if (left) {
      computed->leaving.push_back(token);
    } else if (ok) {
      SetBit(computed->allowed, token);
    }
  }
  std::lock_guard<std::mutex> lock(classes.mutex);
  auto& slot = classes.by_state[key];
  if (!slot) slot = std::move(computed);
  return *slot;
}

// Decides the tokens that begin with `byte` again, each walked exactly from `cursor`.
void RewalkByte(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
                const Cursor& cursor, std::span<uint32_t> mask, uint8_t byte) {
  const tools::TokenIndex& index = *g.index;
  const uint32_t node = index.root_child[byte];
  if (node == UINT32_MAX) return;
  for (uint32_t k = index.first[node]; k < index.first[index.end[node]]; ++k) {
    const uint32_t token = index.tokens[k];
    mask[token >> 5] &= ~(uint32_t{1} << (token & 31));
  }
  Walk(g, s, walker, cursor, mask, node, index.end[node]);
}

// The special tokens that may end a raw value (Grammar::raw_special), each tried.
void RawSpecialTokens(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
                      const Cursor& cursor, std::span<uint32_t> mask) {
  for (const uint32_t token : g.raw_special) {
    if (!TestBit(mask, token) && TryToken(g, s, walker, cursor, token)) SetBit(mask, token);
  }
}

void RawMask(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
             std::span<uint32_t> mask) {
  const tools::TokenIndex& index = *g.index;
  const Cursor cursor = s.cursor;
  const tools::Param& param = g.tools[cursor.tool].params[cursor.param];
  const tools::Op& after = g.ops[g.ops[cursor.op].next];
  const std::string_view stop = after.text;
  const bool begun = (cursor.d >> 24 & 1) != 0;
  // A token that gives up a pending match makes its bytes the value's: refused where the
  // value would then start with a blank, in CDATA formats, and where the match holds the
  // terminator's marker or another (the value is over: only the terminator goes on).
  const bool pending = cursor.b > 0;
  const bool blank_start = text::IsSpace(stop[0]);
  const bool over = cursor.c == text::Trim(stop).size() || cursor.b >= after.sealed;
  if (over) {
    std::fill(mask.begin(), mask.end(), 0);
    RewalkByte(g, s, walker, cursor, mask, static_cast<uint8_t>(stop[cursor.b]));
    return RawSpecialTokens(g, s, walker, cursor, mask);
  }
  if (pending && (g.cdata || (!begun && blank_start))) {
    std::fill(mask.begin(), mask.end(), 0);
  } else {
    RawSafeTokens(g, param.max_length - cursor.a, begun || pending, mask);
  }
  const uint64_t stop_size = stop.size();
  const bool classed = cursor.a >= param.min_length + stop_size &&
                       param.max_length - cursor.a >= index.max_token_code_points + stop_size;
  if (classed) {
    const tools::Grammar::RawClass& raw = RawClassOf(g, s, walker, cursor);
    for (size_t w = 0; w < mask.size(); ++w)
      mask[w] |= raw.allowed[w];
    for (const uint32_t token : raw.leaving) {
      if (!TestBit(mask, token) && TryToken(g, s, walker, cursor, token)) SetBit(mask, token);
    }
  } else {
    for (const uint32_t token : g.raw_candidates) {
      if (!TestBit(mask, token) && TryToken(g, s, walker, cursor, token)) SetBit(mask, token);
    }
  }
  // Tokens that go on with the pending match: walked exactly.
  const size_t core_at = static_cast<size_t>(text::Trim(stop).data() - stop.data());
  for (const int which : {0, 1}) {
    const uint32_t matched = which == 0 ? cursor.b : cursor.c;
    if (matched == 0) continue;
    const auto next = static_cast<uint8_t>(which == 0 ? stop[matched] : stop[core_at + matched]);
    RewalkByte(g, s, walker, cursor, mask, next);
  }
  // Tokens that go on with a pending match of another marker the value must not hold (from
  // the root, a token can end one only by holding it whole: those are stepped above).
  for (int b = 0; b < 256 && cursor.marker != 0; ++b) {
    if (g.marker_next[cursor.marker][b] != g.marker_next[0][b])
      RewalkByte(g, s, walker, cursor, mask, static_cast<uint8_t>(b));
  }
  RawSpecialTokens(g, s, walker, cursor, mask);
}

// True when a JSON value that began with byte `first_plus_one` - 1 (0: not begun) can end
// with `last`: a container with its closing bracket, a string with its quote, a number with a
// digit, true/false with e, null with l.
bool Closes(uint32_t first_plus_one, uint8_t last) {
  if (first_plus_one == 0) return true;
  const auto first = static_cast<uint8_t>(first_plus_one - 1);
  switch (first) {
    case '{':
      return last == '}';
    case '[':
      return last == ']';
    case '"':
      return last == '"';
    case 't':
    case 'f':
    case 'T':  // Python's True, False, None
    case 'F':
    case 'N':
      return last == 'e';
    case 'n':
      return last == 'l';
    default:
      return last >= '0' && last <= '9';
  }
}

// Python-keyword values: the JSON strings Python reads differently are refused (tools::PyEscape).
// The walker refuses them byte by byte; the matcher's mask does not know them, so its allowed
// tokens are checked here: every one in the middle of an escape, otherwise only those holding
// a backslash. The escape lexer runs over the token's bytes (the texts between values hold no
// quote or backslash, so it reads them as the walker would), and a token it refuses is tried
// exactly through the walker.
void PythonEscapes(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
                   std::span<uint32_t> mask) {
  const uint32_t from = s.cursor.b;
  auto check = [&](uint32_t token) {
    uint32_t state = from;
    for (const char ch : g.vocabulary->bytes(token)) {
      if (tools::PyEscapeStep(state, static_cast<uint8_t>(ch))) continue;
      if (!TryToken(g, s, walker, s.cursor, token))
        mask[token >> 5] &= ~(uint32_t{1} << (token & 31));
      return;
    }
  };
  if (from >= tools::kPyBackslash) {
    for (size_t w = 0; w < mask.size(); ++w) {
      for (uint32_t word = mask[w]; word != 0; word &= word - 1)
        check(static_cast<uint32_t>(w * 32 + static_cast<size_t>(__builtin_ctz(word))));
    }
    return;
  }
  for (const uint32_t token : g.index->containing['\\']) {
    if (TestBit(mask, token)) check(token);
  }
}

// Key-value formats: a JSON value never holds a marker its family's parser scans for
// (Grammar::marker_next). The matcher's mask does not know them, so the allowed tokens that
// could end one are tried exactly: those holding a whole marker and, where the value ends
// with part of one, those that go on with it.
void ValueMarkers(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
                  std::span<uint32_t> mask) {
  const uint32_t from = s.cursor.c;
  auto check = [&](uint32_t token) {
    uint32_t state = from;
    if (!TestBit(mask, token) || g.MarkerStep(state, g.vocabulary->bytes(token))) return;
    if (!TryToken(g, s, walker, s.cursor, token))
      mask[token >> 5] &= ~(uint32_t{1} << (token & 31));
  };
  for (const uint32_t token : g.marker_tokens)
    check(token);
  if (from == 0) return;
  const tools::TokenIndex& index = *g.index;
  for (int b = 0; b < 256; ++b) {
    if (g.marker_next[from][b] == 0 || index.root_child[b] == UINT32_MAX) continue;
    const uint32_t node = index.root_child[b];
    for (uint32_t k = index.first[node]; k < index.first[index.end[node]]; ++k)
      check(index.tokens[k]);
  }
}

void JsonMask(const tools::Grammar& g, ToolCallProcessor::State& s, Walker& walker,
              std::span<uint32_t> mask) {
  const tools::TokenIndex& index = *g.index;
  constrain::Matcher& matcher = s.holes[s.cursor.hole];
  matcher.FillMask(mask);
  for (size_t w = 0; w < mask.size(); ++w)
    mask[w] &= ~index.eog_mask[w];
  bool first_ok[256];
  for (int b = 0; b < 256; ++b) {
    const uint32_t token = index.byte_token[b];
    first_ok[b] = token == UINT32_MAX || TestBit(mask, token);
  }
  const size_t mark = s.journal.size();
  Cursor exited = s.cursor;
  if (!walker.Exit(exited)) {
    walker.Undo(mark);
    return;
  }
  const size_t exited_mark = s.journal.size();
  if (matcher.CanEnd()) {
    Walk(g, s, walker, exited, mask);
    if (walker.CanEnd(exited)) {
      for (size_t w = 0; w < mask.size(); ++w)
        mask[w] |= index.eog_mask[w];
    }
  }
  for (int b = 0; b < 256; ++b) {
    Cursor probe = exited;
    bool literal = true;
    const bool follows = walker.Feed(probe, static_cast<uint8_t>(b), literal);
    walker.Undo(exited_mark);
    if (!follows) continue;
    for (const auto& [token, split] : index.splits[b]) {
      if (TestBit(mask, token)) continue;
      const std::string_view bytes = g.vocabulary->bytes(token);
      if (!first_ok[static_cast<uint8_t>(bytes[0])]) continue;
      if (!Closes(s.cursor.a, static_cast<uint8_t>(bytes[split - 1]))) continue;
      if (!matcher.AcceptBytes(bytes.substr(0, split))) continue;
      if (matcher.CanEnd()) {
        Cursor cursor = exited;
        bool literal_rest = true;
        if (walker.FeedBytes(cursor, bytes.substr(split), literal_rest)) SetBit(mask, token);
        walker.Undo(exited_mark);
      }
      matcher.Rollback(1);
    }
  }
  walker.Undo(mark);
  if (g.python) PythonEscapes(g, s, walker, mask);
  if (!g.marker_next.empty()) ValueMarkers(g, s, walker, mask);
}

}  // namespace

ToolCallProcessor::ToolCallProcessor(std::shared_ptr<const ToolCallGrammar> grammar)
    : grammar_(std::move(grammar)), state_(std::make_unique<State>()) {
  Reset();
}

ToolCallProcessor::ToolCallProcessor(const ToolCallProcessor& other)
    : LogitsProcessor(other),
      grammar_(other.grammar_),
      state_(std::make_unique<State>(*other.state_)) {}

ToolCallProcessor::~ToolCallProcessor() = default;

void ToolCallProcessor::Reset() {
  State& s = *state_;
  s.holes.clear();
  s.journal.clear();
  s.snapshots.clear();
  s.text.clear();
  Walker walker(G(*grammar_), s.holes, s.journal);
  Initial(G(*grammar_), walker, s.cursor);
  s.journal.clear();
}

std::unique_ptr<LogitsProcessor> ToolCallProcessor::Clone() const {
  return std::make_unique<ToolCallProcessor>(*this);
}

size_t ToolCallProcessor::accepted() const {
  return state_->snapshots.size();
}

bool ToolCallProcessor::in_block() const {
  const Phase phase = state_->cursor.phase;
  return phase != Phase::kBlanks && phase != Phase::kAnchor && phase != Phase::kFree &&
         phase != Phase::kPlain && state_->cursor.tentative == 0;
}

const std::string& ToolCallProcessor::text() const {
  return state_->text;
}

bool ToolCallProcessor::Accept(uint32_t token) {
  const tools::Grammar& g = G(*grammar_);
  State& s = *state_;
  if (token >= g.vocabulary->size()) return false;
  const State::Snapshot snapshot{s.cursor, s.journal.size(), s.text.size()};
  Walker walker(g, s.holes, s.journal);
  if (TestWord(g.index->eog_mask, token)) {
    Cursor cursor = s.cursor;
    if (cursor.phase == Phase::kJson && s.holes[cursor.hole].CanEnd() && !walker.Exit(cursor)) {
      walker.Undo(snapshot.journal);
      return false;
    }
    if (!walker.CanEnd(cursor)) {
      walker.Undo(snapshot.journal);
      return false;
    }
    s.cursor = cursor;
    s.cursor.phase = Phase::kDone;
    s.snapshots.push_back(snapshot);
    return true;
  }
  const std::string_view bytes = g.vocabulary->bytes(token);
  const bool special = g.vocabulary->is_special(token);
  uint32_t marker = s.cursor.c;
  if (!special && !g.python && s.cursor.phase == Phase::kJson &&
      (g.marker_next.empty() || g.MarkerStep(marker, bytes)) &&
      s.holes[s.cursor.hole].AcceptToken(token)) {
    s.cursor.c = marker;
    s.journal.push_back({s.cursor.hole, false});
    if (s.cursor.a == 0) s.cursor.a = static_cast<uint8_t>(bytes[0]) + 1u;
  } else {
    Cursor cursor = s.cursor;
    bool literal = true;
    if (bytes.empty() || !walker.FeedBytes(cursor, bytes, literal) ||
        (special && !tools::SpecialFits(g, literal, cursor))) {
      walker.Undo(snapshot.journal);
      return false;
    }
    s.cursor = cursor;
  }
  s.text.append(bytes);
  s.snapshots.push_back(snapshot);
  return true;
}

bool ToolCallProcessor::Rollback(size_t count) {
  State& s = *state_;
  if (count > s.snapshots.size()) return false;
  const State::Snapshot& target = s.snapshots[s.snapshots.size() - count];
  // Every matcher must still hold the steps to undo.
  std::vector<size_t>& steps = s.rollback_steps;
  steps.assign(s.holes.size(), 0);
  for (size_t i = target.journal; i < s.journal.size(); ++i) {
    const tools::JournalEntry& entry = s.journal[i];
    if (!entry.created && entry.hole < steps.size()) ++steps[entry.hole];
  }
  for (size_t h = 0; h < steps.size(); ++h) {
    if (steps[h] > s.holes[h].history_size()) return false;
  }
  Walker walker(G(*grammar_), s.holes, s.journal);
  walker.Undo(target.journal);
  s.cursor = target.cursor;
  s.text.resize(target.text);
  s.snapshots.resize(s.snapshots.size() - count);
  return true;
}

bool ToolCallProcessor::FillMask(std::span<uint32_t> mask) {
  const tools::Grammar& g = G(*grammar_);
  State& s = *state_;
  const tools::TokenIndex& index = *g.index;
  Walker walker(g, s.holes, s.journal);
  std::fill(mask.begin(), mask.end(), 0);
  switch (s.cursor.phase) {
    case Phase::kDone:
      return true;
    case Phase::kEnd:
      std::copy(index.eog_mask.begin(), index.eog_mask.end(), mask.begin());
      return true;
    case Phase::kPlain:
      for (size_t w = 0; w < mask.size(); ++w)
        mask[w] = index.free_mask[w] | index.eog_mask[w];
      return true;
    case Phase::kFree:
      FreeMask(g, s, walker, mask);
      return true;
    case Phase::kJson:
      JsonMask(g, s, walker, mask);
      return true;
    default:
      break;
  }
  if (RawFast(g, s.cursor)) {
    RawMask(g, s, walker, mask);
  } else if (s.cursor.phase == Phase::kRaw && (s.cursor.d & 3) != 0) {
    // Inside a character: only tokens starting with a continuation byte it allows.
    for (uint32_t byte = s.cursor.d >> 8 & 0xFF; byte <= (s.cursor.d >> 16 & 0xFF); ++byte) {
      const uint32_t node = index.root_child[byte];
      if (node != UINT32_MAX) Walk(g, s, walker, s.cursor, mask, node, index.end[node]);
    }
  } else {
    Walk(g, s, walker, s.cursor, mask);
  }
  if (walker.CanEnd(s.cursor)) {
    for (size_t w = 0; w < mask.size(); ++w)
      mask[w] |= index.eog_mask[w];
  }
  return true;
}

}  // namespace crux::logits
