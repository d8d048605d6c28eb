#include <algorithm>
#include <string_view>

#include "crux/text/stream_buffer.h"
#include "tool_grammar.h"

namespace crux::logits::tools {
namespace {

// What the families' parsers trim (text::Trim): a raw value must read the same after it.
bool Blank(uint8_t byte) {
  return text::IsSpace(static_cast<char>(byte));
}

// The longest prefix of `text` that is a suffix of text[0, matched) + byte.
uint32_t Advance(std::string_view text, uint32_t matched, uint8_t byte) {
  if (matched < text.size() && static_cast<uint8_t>(text[matched]) == byte) return matched + 1;
  for (uint32_t length = std::min<uint32_t>(matched, static_cast<uint32_t>(text.size()));
       length > 0; --length) {
    // Candidate: text[0, length) == (text[0, matched) + byte) ends.
    if (static_cast<uint8_t>(text[length - 1]) != byte) continue;
    if (text.substr(0, length - 1) == text.substr(matched - (length - 1), length - 1))
      return length;
  }
  return 0;
}

// The terminator's marker: the terminator without its blanks.
std::string_view Core(std::string_view text) {
  return text::Trim(text);
}

// One byte of well-formed UTF-8. `state`: continuation bytes still due (bits 0-1) and the
// range the next one must be in (bits 8-15, 16-23); `code_points` counts characters begun.
bool StepUtf8(uint32_t& state, uint32_t& code_points, uint8_t byte) {
  uint32_t more = state & 3;
  uint32_t low = (state >> 8) & 0xFF;
  uint32_t high = (state >> 16) & 0xFF;
  if (more > 0) {
    if (byte < low || byte > high) return false;
    --more;
    low = 0x80;
    high = 0xBF;
  } else {
    low = 0x80;
    high = 0xBF;
    if (byte == 0 || (byte >= 0x80 && byte < 0xC2) || byte > 0xF4) return false;
    if (byte >= 0xC2) more = byte < 0xE0 ? 1 : byte < 0xF0 ? 2 : 3;
    if (byte == 0xE0) low = 0xA0;
    if (byte == 0xED) high = 0x9F;
    if (byte == 0xF0) low = 0x90;
    if (byte == 0xF4) high = 0x8F;
    ++code_points;
  }
  state = more | (low << 8) | (high << 16);
  return true;
}

}  // namespace

void SmallTrie::Add(std::string_view text, uint32_t index) {
  uint32_t node = 0;
  if (index < 64) nodes[0].below |= uint64_t{1} << index;
  for (const char ch : text) {
    const auto byte = static_cast<uint8_t>(ch);
    uint32_t next = Step(node, byte);
    if (next == kNone) {
      next = static_cast<uint32_t>(nodes.size());
      auto& edges = nodes[node].edges;
      edges.insert(std::lower_bound(edges.begin(), edges.end(), std::make_pair(byte, 0u)),
                   {byte, next});
      nodes.emplace_back();
    }
    node = next;
    if (index < 64) nodes[node].below |= uint64_t{1} << index;
  }
  nodes[node].terminal = index;
}

uint32_t SmallTrie::Step(uint32_t node, uint8_t byte) const {
  for (const auto& [edge, child] : nodes[node].edges) {
    if (edge == byte) return child;
    if (edge > byte) break;
  }
  return kNone;
}

std::string_view Walker::DynamicText(const Cursor& cursor, char* buffer) const {
  const Op& op = g_.ops[cursor.op];
  if (op.kind == OpKind::kName || op.kind == OpKind::kNameString) {
    const Tool& tool = g_.tools[cursor.tool];
    return op.kind == OpKind::kName ? tool.name : tool.name_json;
  }
  if (op.kind == OpKind::kKeyAgain) return g_.tools[cursor.tool].params[cursor.param].key;
  if (op.kind == OpKind::kIndex || op.kind == OpKind::kIndex1) {
    unsigned value = cursor.calls + (op.kind == OpKind::kIndex1 ? 1u : 0u);
    char digits[12];
    size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    for (size_t i = 0; i < n; ++i)
      buffer[i] = digits[n - 1 - i];
    return {buffer, n};
  }
  return op.text;
}

bool Walker::Enter(Cursor& cursor, uint32_t op_index) {
  while (true) {
    if (op_index == kNone) return false;
    const Op& op = g_.ops[op_index];
    cursor.op = op_index;
    cursor.a = 0;
    switch (op.kind) {
      case OpKind::kText:
        if (op.text.empty()) {
          op_index = op.next;
          continue;
        }
        cursor.phase = Phase::kText;
        return true;
      case OpKind::kName:
      case OpKind::kNameString:
        cursor.phase = cursor.tool == kNone ? Phase::kName : Phase::kText;
        return true;
      case OpKind::kIndex:
      case OpKind::kIndex1:
      case OpKind::kKeyAgain:
        cursor.phase = Phase::kText;
        return true;
      case OpKind::kId:
        cursor.phase = Phase::kId;
        return true;
      case OpKind::kArgs:
        if (!g_.key_value) return OpenHole(cursor, kNone, 0);
        cursor.used = 0;
        op_index = op.next;
        continue;
      case OpKind::kAfterCall:
      case OpKind::kMembers:
        return EnterBranch(cursor, op_index);
      case OpKind::kEnd:
        cursor.phase = Phase::kEnd;
        return true;
      case OpKind::kKey:
        cursor.phase = Phase::kKey;
        return true;
      case OpKind::kValueType:
      case OpKind::kIsString:
        cursor.phase = Phase::kWord;
        return true;
      case OpKind::kValue:
        return EnterValue(cursor);
    }
    return false;
  }
}

bool Walker::EnterBranch(Cursor& cursor, uint32_t op_index) {
  const Op& op = g_.ops[op_index];
  cursor.phase = Phase::kBranch;
  uint32_t live = 2;
  if (op.kind == OpKind::kAfterCall) {
    if (g_.options.parallel) live |= 1;
  } else {
    const Tool& tool = g_.tools[cursor.tool];
    if ((tool.all & ~cursor.used) != 0) live |= 1;
    if ((tool.required & ~cursor.used) != 0) live &= ~2u;
  }
  cursor.b = live;
  if (live == 0) return false;
  for (int which = 1; which <= 2; ++which) {
    if (live != static_cast<uint32_t>(which)) continue;
    if (Alternative(cursor, op_index, which).text.empty()) {
      TakeAlternative(cursor, which);
      return cursor.phase != Phase::kDone;
    }
  }
  return true;
}

const Grammar::Alternative& Walker::Alternative(const Cursor& cursor, uint32_t op_index,
                                                int which) const {
  if (which == 2) return g_.finish_alt[op_index];
  return g_.ops[op_index].kind == OpKind::kMembers && cursor.used == 0 ? g_.continue_first[op_index]
                                                                       : g_.continue_alt[op_index];
}

void Walker::TakeAlternative(Cursor& cursor, int which) {
  const Op& op = g_.ops[cursor.op];
  const uint32_t target = Alternative(cursor, cursor.op, which).target;
  if (which == 1) {
    if (op.kind == OpKind::kAfterCall) {
      ++cursor.calls;
      cursor.tool = kNone;
      cursor.used = 0;
    }
    cursor.param = kNone;
    cursor.type = 0;
  }
  if (!Enter(cursor, target)) cursor.phase = Phase::kDone;
}

bool Walker::EnterValue(Cursor& cursor) {
  const Param& param = g_.tools[cursor.tool].params[cursor.param];
  const bool raw = cursor.type != 0 ? cursor.type == constrain::kTypeString : param.raw;
  if (raw && g_.ops[cursor.op].quoted != kNone) return Enter(cursor, g_.ops[cursor.op].quoted);
  if (raw) {
    cursor.phase = param.has_enum ? Phase::kEnum : Phase::kRaw;
    cursor.a = cursor.b = cursor.c = cursor.d = cursor.marker = 0;
    return true;
  }
  uint8_t types = cursor.type;
  if (param.json_types != 0) types = types == 0 ? param.json_types : types & param.json_types;
  return OpenHole(cursor, cursor.param, types);
}

bool Walker::OpenHole(Cursor& cursor, uint32_t param, uint8_t types) {
  auto grammar = g_.JsonGrammar(cursor.tool, param, types);
  if (grammar == nullptr) return false;
  holes_.emplace_back(std::move(grammar));
  journal_.push_back({static_cast<uint32_t>(holes_.size() - 1), true});
  cursor.phase = Phase::kJson;
  cursor.hole = static_cast<uint32_t>(holes_.size() - 1);
  cursor.a = 0;
  cursor.b = kPyOutside;
  cursor.c = 0;
  return true;
}

bool Walker::Exit(Cursor& cursor) {
  return Enter(cursor, g_.ops[cursor.op].next);
}

bool Walker::EnterLead(Cursor& cursor, size_t consumed) {
  cursor.calls = 0;
  cursor.tool = kNone;
  const std::string& open = g_.ops[g_.block_op].text;
  if (consumed < open.size()) {
    cursor.phase = Phase::kText;
    cursor.op = g_.block_op;
    cursor.a = static_cast<uint32_t>(consumed);
    return true;
  }
  if (!Enter(cursor, g_.call_op)) return false;
  const size_t rest = consumed - open.size();
  if (rest == 0) return true;
  cursor.a = static_cast<uint32_t>(rest);
  if (cursor.a == g_.ops[cursor.op].text.size()) return Enter(cursor, g_.ops[cursor.op].next);
  return true;
}

bool Walker::FeedLead(Cursor& cursor, uint8_t byte, bool& literal) {
  const std::string& lead = g_.lead;
  if (cursor.phase == Phase::kBlanks) {
    if (Blank(byte) && cursor.a < g_.options.max_leading_blanks) {
      ++cursor.a;
      return true;
    }
    if (g_.options.mode == ToolChoiceMode::kAuto) {
      cursor.phase = Phase::kAnchor;
      cursor.a = 0;
    } else if (!EnterLead(cursor, 0)) {
      return false;
    }
    return Feed(cursor, byte, literal);
  }
  if (cursor.phase == Phase::kAnchor) {
    if (static_cast<uint8_t>(lead[cursor.a]) != byte) {
      cursor.phase = Phase::kPlain;
      return true;
    }
    if (++cursor.a == lead.size()) {
      if (!EnterLead(cursor, lead.size())) return false;
      cursor.tentative = g_.tentative_name ? 1 : 0;
    }
    return true;
  }
  // kFree: watch for the trigger.
  const std::string& trigger = g_.trigger;
  uint32_t k = cursor.a;
  while (k > 0 && static_cast<uint8_t>(trigger[k]) != byte)
    k = g_.kmp[k - 1];
  if (static_cast<uint8_t>(trigger[k]) == byte) ++k;
  if (k == trigger.size()) return EnterLead(cursor, trigger.size());
  cursor.a = k;
  return true;
}

bool Walker::FeedBranch(Cursor& cursor, uint8_t byte, bool& literal) {
  const std::string_view texts[3] = {
      {}, Alternative(cursor, cursor.op, 1).text, Alternative(cursor, cursor.op, 2).text};
  const uint32_t offset = cursor.a;
  uint32_t live = 0;
  for (uint32_t which = 1; which <= 2; ++which) {
    if ((cursor.b & which) != 0 && offset < texts[which].size() &&
        static_cast<uint8_t>(texts[which][offset]) == byte)
      live |= which;
  }
  if (live != 0) {
    cursor.a = offset + 1;
    cursor.b = live;
    if ((live == 1 || live == 2) && texts[live].size() == cursor.a)
      TakeAlternative(cursor, static_cast<int>(live));
    return cursor.phase != Phase::kDone;
  }
  for (uint32_t which = 1; which <= 2; ++which) {
    if ((cursor.b & which) != 0 && offset == texts[which].size()) {
      TakeAlternative(cursor, static_cast<int>(which));
      return cursor.phase != Phase::kDone && Feed(cursor, byte, literal);
    }
  }
  return false;
}

bool Walker::FeedTrie(Cursor& cursor, uint8_t byte, bool& literal) {
  const Tool* tool = cursor.tool == kNone ? nullptr : &g_.tools[cursor.tool];
  const SmallTrie* trie = nullptr;
  uint64_t allowed = ~uint64_t{0};
  switch (cursor.phase) {
    case Phase::kName:
      trie = &g_.names;
      break;
    case Phase::kKey:
      trie = &tool->key_trie;
      allowed = ~cursor.used;
      break;
    case Phase::kWord:
      trie = &tool->params[cursor.param].type_trie;
      break;
    default:
      trie = &tool->params[cursor.param].enum_trie;
      break;
  }
  auto usable = [&](uint32_t node) {
    return cursor.phase != Phase::kKey || (trie->nodes[node].below & allowed) != 0;
  };
  auto complete = [&](uint32_t node) {
    const uint32_t index = trie->nodes[node].terminal;
    switch (cursor.phase) {
      case Phase::kName:
        cursor.tool = index;
        break;
      case Phase::kKey:
        cursor.param = index;
        cursor.used |= uint64_t{1} << index;
        break;
      case Phase::kWord:
        cursor.type = tool->params[cursor.param].type_bits[index];
        break;
      default:
        break;
    }
    return Enter(cursor, g_.ops[cursor.op].next);
  };
  auto terminal = [&](uint32_t node) {
    const uint32_t index = trie->nodes[node].terminal;
    return index != kNone && (cursor.phase != Phase::kKey || ((allowed >> index) & 1) != 0);
  };
  const uint32_t next = trie->Step(cursor.a, byte);
  if (next != kNone && usable(next)) {
    literal = false;
    cursor.a = next;
    if (terminal(next) && trie->nodes[next].edges.empty()) return complete(next);
    return true;
  }
  if (terminal(cursor.a)) return complete(cursor.a) && Feed(cursor, byte, literal);
  return false;
}

bool Walker::FeedRaw(Cursor& cursor, uint8_t byte, bool& literal) {
  const Param& param = g_.tools[cursor.tool].params[cursor.param];
  const Op& after = g_.ops[g_.ops[cursor.op].next];
  const std::string_view stop = after.text;
  const std::string_view core = Core(stop);
  uint32_t utf8 = cursor.d & 0xFFFFFF;
  if (!StepUtf8(utf8, cursor.a, byte)) return false;
  if (g_.cdata && byte == '&') return false;
  const uint32_t matched = Advance(stop, cursor.b, byte);
  const uint32_t core_matched = Advance(core, cursor.c, byte);
  if (matched != cursor.b + 1) literal = false;  // the value's byte, not the terminator's
  // A pending match that holds a marker (Op::sealed) cannot be given up.
  if (cursor.b >= after.sealed && matched != cursor.b + 1) return false;
  if (g_.cdata && ((byte == '<' && matched == 0) || (cursor.b > 0 && matched != cursor.b + 1)))
    return false;
  const auto core_at = static_cast<uint32_t>(core.data() - stop.data());
  if (core_matched == core.size() && matched != core_at + core.size()) return false;
  if (cursor.a - matched > param.max_length) return false;
  // Bytes that leave the pending match of the terminator are the value's: it neither starts
  // nor ends with a blank, so that every family's trimming reads the same string.
  uint32_t flags = cursor.d >> 24;  // 1: the value has begun; 2: its last byte is a blank
  const uint32_t leaving = cursor.b + 1 - matched;
  if (leaving > 0) {
    auto pending = [&](uint32_t i) { return i < cursor.b ? static_cast<uint8_t>(stop[i]) : byte; };
    if ((flags & 1) == 0 && Blank(pending(0))) return false;
    flags = 1 | (Blank(pending(leaving - 1)) ? 2 : 0);
  }
  // A pending match of the terminator must leave a way on: finishing it (the value before it
  // is complete) or giving it up later (a byte that breaks it keeps the value well-formed and
  // within its maximum). A value that could neither end nor go on is refused before it is
  // written; so "\n\n" inside a value is fine where the value may still grow.
  if (matched > 0) {
    const bool can_finish = cursor.a - matched >= param.min_length && (flags & 2) == 0;
    const bool can_break = !g_.cdata &&
                           !((flags & 1) == 0 && Blank(static_cast<uint8_t>(stop[0]))) &&
                           core_matched < core.size() && matched < after.sealed &&
                           uint64_t{cursor.a} + 1 <= param.max_length;
    if (!can_finish && !can_break) return false;
  }
  // A value at its maximum length must be able to end: not on a blank.
  if (matched == 0 && cursor.a >= param.max_length && (flags & 2) != 0) return false;
  // Once the terminator's marker is written the value is over: the rest of the terminator
  // must follow, so the value's length and last byte are checked there.
  if (cursor.c == core.size() && matched != cursor.b + 1) return false;
  if (core_matched == core.size() || matched == stop.size()) {
    if (cursor.a - matched < param.min_length || (flags & 2) != 0) return false;
  }
  if (matched == stop.size()) return Enter(cursor, after.next);
  // Another marker the parser scans for must not end inside the value (the terminator's own
  // marker ends the value instead).
  if (!g_.marker_next.empty()) {
    const uint32_t marker = g_.marker_next[cursor.marker][byte];
    if (g_.marker_hit[marker] != 0 && core_matched != core.size() && matched < after.sealed)
      return false;
    cursor.marker = marker;
  }
  cursor.b = matched;
  cursor.c = core_matched;
  cursor.d = utf8 | (flags << 24);
  return true;
}

bool Walker::FeedTentative(Cursor& cursor, uint8_t byte, bool& literal) {
  Cursor next = cursor;
  next.tentative = 0;
  const size_t mark = journal_.size();
  if (Feed(next, byte, literal)) {
    const bool before_args =
        next.phase == Phase::kName || (next.phase == Phase::kText && next.op < g_.args_op);
    next.tentative = before_args ? 1 : 0;
    cursor = next;
    return true;
  }
  Undo(mark);
  cursor.tentative = 0;
  cursor.phase = Phase::kPlain;
  return true;
}

bool Walker::Feed(Cursor& cursor, uint8_t byte, bool& literal) {
  if (cursor.tentative != 0) return FeedTentative(cursor, byte, literal);
  switch (cursor.phase) {
    case Phase::kBlanks:
    case Phase::kAnchor:
    case Phase::kFree:
      return FeedLead(cursor, byte, literal);
    case Phase::kPlain:
      return true;
    case Phase::kText: {
      char buffer[16];
      const std::string_view text = DynamicText(cursor, buffer);
      if (g_.ops[cursor.op].kind != OpKind::kText) literal = false;
      if (static_cast<uint8_t>(text[cursor.a]) != byte) return false;
      if (++cursor.a == text.size()) return Enter(cursor, g_.ops[cursor.op].next);
      return true;
    }
    case Phase::kBranch:
      return FeedBranch(cursor, byte, literal);
    case Phase::kName:
    case Phase::kKey:
    case Phase::kWord:
    case Phase::kEnum:
      return FeedTrie(cursor, byte, literal);
    case Phase::kId:
      literal = false;
      if (((byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9')) && cursor.a < 32) {
        ++cursor.a;
        return true;
      }
      return cursor.a > 0 && Enter(cursor, g_.ops[cursor.op].next) && Feed(cursor, byte, literal);
    case Phase::kJson: {
      literal = false;
      constrain::Matcher& matcher = holes_[cursor.hole];
      const char ch = static_cast<char>(byte);
      uint32_t escape = cursor.b;
      // A refused escape is inside a string, where the value cannot end either.
      if (g_.python && !PyEscapeStep(escape, byte)) return false;
      if (matcher.AcceptBytes(std::string_view(&ch, 1))) {
        uint32_t marker = cursor.c;
        if (!g_.marker_next.empty() && !g_.MarkerStep(marker, std::string_view(&ch, 1))) {
          matcher.Rollback(1);  // a marker the parser would stop at, inside the value
          return false;
        }
        cursor.c = marker;
        journal_.push_back({cursor.hole, false});
        if (cursor.a == 0) cursor.a = byte + 1u;  // the value's first byte
        cursor.b = escape;
        return true;
      }
      return matcher.CanEnd() && Exit(cursor) && Feed(cursor, byte, literal);
    }
    case Phase::kRaw:
      return FeedRaw(cursor, byte, literal);
    case Phase::kEnd:
    case Phase::kDone:
      return false;
  }
  return false;
}

bool Walker::FeedBytes(Cursor& cursor, std::string_view bytes, bool& literal) {
  for (const char ch : bytes) {
    if (!Feed(cursor, static_cast<uint8_t>(ch), literal)) return false;
  }
  return true;
}

bool Walker::CanEnd(const Cursor& cursor) const {
  if (cursor.tentative != 0) return true;  // the answer is plain text so far
  switch (cursor.phase) {
    case Phase::kEnd:
    case Phase::kFree:
    case Phase::kPlain:
    case Phase::kAnchor:
      return true;
    case Phase::kBlanks:
      return g_.options.mode == ToolChoiceMode::kAuto;
    case Phase::kBranch:
      return (cursor.b & 2) != 0 && g_.finish_alt[cursor.op].text.size() == cursor.a &&
             g_.finish_alt[cursor.op].target == g_.end_op;
    default:
      return false;
  }
}

void Walker::Undo(size_t mark) {
  while (journal_.size() > mark) {
    const JournalEntry entry = journal_.back();
    journal_.pop_back();
    if (entry.created) {
      holes_.pop_back();
    } else {
      holes_[entry.hole].Rollback(1);
    }
  }
}

}  // namespace crux::logits::tools
