// The recogniser's frames. Each StepX handles one byte for one kind of frame and says what
// happened; Feed runs the outcome (pop and hand the byte to the parent, start a value on each
// alternative, keep the thread).
#include "grammar_runtime.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "json_util.h"
#include "number_lexer.h"
#include "string_lexer.h"

namespace crux::constrain::grammar {
namespace {

bool IsWhitespace(int byte) {
  return byte == ' ' || byte == '\t' || byte == '\n' || byte == '\r';
}

// Object phases.
enum : uint8_t {
  kObjOpen,
  kObjInKey,
  kObjAfterKey,
  kObjColon,
  kObjInValue,
  kObjAfterValue,
  kObjComma,
};
// Array phases.
enum : uint8_t { kArrOpen, kArrInItem, kArrAfterItem, kArrComma };
// Document phases.
enum : uint8_t { kDocBefore, kDocAfter, kDocInValue };
// true, false, null; with python_literals, Python's True, False, None.
constexpr std::string_view kKeywords[2][3] = {{"true", "false", "null"}, {"True", "False", "None"}};

using Real = long double;

Real ToReal(const SchemaNumber& number) {
  return number.is_integer ? static_cast<Real>(number.integer) : static_cast<Real>(number.value);
}

// True when the interval of candidate values (ends `lo`, `hi`, each closed or open) meets the
// spec's bounds; with integer_only, when an integer lies in the intersection.
bool MeetsBounds(const NumberSpec& spec, Real lo, bool lo_closed, Real hi, bool hi_closed);

// As MeetsBounds, and when the spec lists enum numbers, one of them must meet the interval:
// some value that reads as it (PrepareNumber) must lie in it.
bool Meets(const NumberSpec& spec, Real lo, bool lo_closed, Real hi, bool hi_closed) {
  if (spec.points.empty()) return MeetsBounds(spec, lo, lo_closed, hi, hi_closed);
  // The first point whose values reach lo (the points' ranges are disjoint and in order).
  const auto at = std::lower_bound(spec.point_high.begin(), spec.point_high.end(), lo);
  if (at == spec.point_high.end()) return false;
  const size_t i = static_cast<size_t>(at - spec.point_high.begin());
  if (spec.point_high[i] == lo && !lo_closed) {
    return i + 1 < spec.point_low.size() &&
           (spec.point_low[i + 1] < hi || (spec.point_low[i + 1] == hi && hi_closed));
  }
  return spec.point_low[i] < hi || (spec.point_low[i] == hi && hi_closed);
}

bool MeetsBounds(const NumberSpec& spec, Real lo, bool lo_closed, Real hi, bool hi_closed) {
  if (spec.low.present) {
    const Real bound = ToReal(spec.low.value);
    const bool closed = !spec.low.exclusive;
    if (bound > lo || (bound == lo && !closed)) {
      lo = bound;
      lo_closed = closed;
    }
  }
  if (spec.high.present) {
    const Real bound = ToReal(spec.high.value);
    const bool closed = !spec.high.exclusive;
    if (bound < hi || (bound == hi && !closed)) {
      hi = bound;
      hi_closed = closed;
    }
  }
  if (spec.integer_only) {
    Real first = std::ceil(lo);
    if (first == lo && !lo_closed) first += 1;
    Real last = std::floor(hi);
    if (last == hi && !hi_closed) last -= 1;
    return first <= last;
  }
  return lo < hi || (lo == hi && lo_closed && hi_closed);
}

// Candidate values |v| in [a, b) (b_closed: [a, b]), mirrored when negative.
bool MeetsMagnitude(const NumberSpec& spec, bool negative, Real a, Real b, bool b_closed) {
  if (!negative) return Meets(spec, a, true, b, b_closed);
  return Meets(spec, -b, b_closed, -a, true);
}

}  // namespace

// ---- ThreadSet -----------------------------------------------------------------------------

void ThreadSet::Append(const Thread& thread, size_t seen_words) {
  if (starts_.empty()) starts_.push_back(0);
  frames_.insert(frames_.end(), thread.frames.begin(), thread.frames.end());
  seen_.insert(seen_.end(), thread.seen.begin(),
               thread.seen.begin() + static_cast<ptrdiff_t>(thread.frames.size() * seen_words));
  starts_.push_back(static_cast<uint32_t>(frames_.size()));
}

void ThreadSet::Load(size_t index, size_t seen_words, Thread& out) const {
  const size_t begin = starts_[index];
  const size_t end = starts_[index + 1];
  out.frames.assign(frames_.begin() + static_cast<ptrdiff_t>(begin),
                    frames_.begin() + static_cast<ptrdiff_t>(end));
  out.seen.assign(seen_.begin() + static_cast<ptrdiff_t>(begin * seen_words),
                  seen_.begin() + static_cast<ptrdiff_t>(end * seen_words));
}

bool ThreadSet::Equal(size_t i, size_t j, size_t seen_words) const {
  if (depth(i) != depth(j)) return false;
  const size_t n = depth(i);
  if (!std::equal(frames_.begin() + starts_[i], frames_.begin() + starts_[i] + n,
                  frames_.begin() + starts_[j])) {
    return false;
  }
  return std::equal(seen_.begin() + starts_[i] * seen_words,
                    seen_.begin() + (starts_[i] + n) * seen_words,
                    seen_.begin() + starts_[j] * seen_words);
}

void ThreadSet::Dedupe(size_t seen_words) {
  const size_t n = size();
  if (n < 2) return;
  size_t kept = 1;
  for (size_t i = 1; i < n; ++i) {
    bool duplicate = false;
    for (size_t j = 0; j < i && !duplicate; ++j)
      duplicate = Equal(i, j, seen_words);
    if (duplicate) continue;
    if (kept != i) {
      // Move thread i down to slot `kept` (earlier slots are already compacted).
      const size_t begin = starts_[i];
      const size_t len = depth(i);
      const size_t to = starts_[kept];
      std::copy(frames_.begin() + begin, frames_.begin() + begin + len, frames_.begin() + to);
      std::copy(seen_.begin() + begin * seen_words, seen_.begin() + (begin + len) * seen_words,
                seen_.begin() + to * seen_words);
      starts_[kept + 1] = static_cast<uint32_t>(to + len);
    }
    ++kept;
  }
  starts_.resize(kept + 1);
  frames_.resize(starts_.back());
  seen_.resize(starts_.back() * seen_words);
}

// ---- Runtime ---------------------------------------------------------------------------------

Runtime::Runtime(const Specs& specs, const GrammarOptions& options)
    : specs_(specs), options_(options), scratch_(kMaxStartNesting) {}

void Runtime::Start(ThreadSet& out) const {
  out.Clear();
  Thread thread;
  thread.frames.push_back(Frame{});
  thread.seen.assign(specs_.seen_words, 0);
  out.Append(thread, specs_.seen_words);
}

bool Runtime::Step(const ThreadSet& in, int byte, ThreadSet& out) {
  out.Clear();
  for (size_t i = 0; i < in.size(); ++i) {
    in.Load(i, specs_.seen_words, work_);
    Feed(work_, byte, out);
  }
  if (out.size() > 1) out.Dedupe(specs_.seen_words);
  return !out.empty();
}

bool Runtime::CanEnd(const ThreadSet& in) {
  return Step(in, kEndOfInput, end_scratch_);
}

void Runtime::Feed(Thread& thread, int byte, ThreadSet& out) {
  for (;;) {
    switch (StepFrame(thread, byte)) {
      case Outcome::kConsumed:
        break;
      case Outcome::kRefused:
        return;
      case Outcome::kDone:
        thread.frames.pop_back();
        thread.seen.resize(thread.frames.size() * specs_.seen_words);
        ChildDone(thread);
        break;
      case Outcome::kDoneRetry:
        thread.frames.pop_back();
        thread.seen.resize(thread.frames.size() * specs_.seen_words);
        ChildDone(thread);
        continue;
      case Outcome::kStartValue:
        StartValue(thread, thread.frames.back().a, byte, out);
        return;
    }
    if (out.size() >= kMaxLiveThreads) {
      ++dropped_;
      return;
    }
    out.Append(thread, specs_.seen_words);
    return;
  }
}

void Runtime::ChildDone(Thread& thread) {
  Frame& parent = thread.frames.back();
  parent.ws = 0;
  switch (parent.kind) {
    case FrameKind::kCut:
      cut_touched_ = true;
      break;
    case FrameKind::kDocument:
      parent.phase = kDocAfter;
      break;
    case FrameKind::kObject:
      if (parent.phase == kObjInKey) {
        parent.phase = kObjAfterKey;
      } else {
        ++parent.count;
        parent.phase = kObjAfterValue;
      }
      break;
    case FrameKind::kArray:
      ++parent.count;
      parent.phase = kArrAfterItem;
      break;
    default:
      break;
  }
}

Runtime::Outcome Runtime::StepFrame(Thread& thread, int byte) {
  Frame& top = thread.frames.back();
  switch (top.kind) {
    case FrameKind::kDocument:
      return StepDocument(top, byte);
    case FrameKind::kObject:
      return StepObject(thread, byte);
    case FrameKind::kKey:
      return StepKey(thread, byte);
    case FrameKind::kArray:
      return StepArray(top, byte);
    case FrameKind::kString:
      return StepString(top, byte);
    case FrameKind::kNumber:
      return StepNumber(top, byte);
    case FrameKind::kKeyword:
      return StepKeyword(top, byte);
    case FrameKind::kLiteral:
      return StepLiteral(top, byte);
    case FrameKind::kCut:
      cut_touched_ = true;
      return Outcome::kRefused;
  }
  return Outcome::kRefused;
}

#define CRUX_WHITESPACE(frame, byte)                                              \
  if (IsWhitespace(byte)) {                                                       \
    if (!options_.flexible_whitespace || (frame).ws >= options_.max_whitespace) { \
      return Outcome::kRefused;                                                   \
    }                                                                             \
    ++(frame).ws;                                                                 \
    return Outcome::kConsumed;                                                    \
  }                                                                               \
  (frame).ws = 0;

Runtime::Outcome Runtime::StepDocument(Frame& frame, int byte) {
  if (!options_.document_whitespace && IsWhitespace(byte)) return Outcome::kRefused;
  CRUX_WHITESPACE(frame, byte)
  if (frame.phase == kDocAfter) return byte == kEndOfInput ? Outcome::kConsumed : Outcome::kRefused;
  if (frame.phase != kDocBefore || byte == kEndOfInput) return Outcome::kRefused;
  frame.phase = kDocInValue;
  frame.a = specs_.root;
  return Outcome::kStartValue;
}

void Runtime::StartValue(Thread& thread, AltsId alts, int byte, ThreadSet& out) {
  if (byte == kEndOfInput) return;
  const std::vector<SpecId>& list = specs_.alts[alts];
  for (size_t k = 0; k < list.size(); ++k) {
    const bool last = k + 1 == list.size();
    Thread* work = &thread;
    if (!last) {
      if (scratch_depth_ + 1 >= scratch_.size()) return;  // cannot happen: values nest once
      Thread& copy = scratch_[++scratch_depth_];
      copy.frames = thread.frames;
      copy.seen = thread.seen;
      work = &copy;
    }
    if (PushValue(*work, list[k], byte)) Feed(*work, byte, out);
    if (!last) --scratch_depth_;
  }
}

// Pushes the frame that starts a value of `spec` with `byte`; false when `spec` cannot start
// with it. The pushed frame then takes the byte.
bool Runtime::PushValue(Thread& thread, SpecId spec_id, int byte) {
  const ValueSpec& spec = specs_.values[spec_id];
  Frame frame;
  frame.spec = spec_id;
  const bool number_byte = byte == '-' || (byte >= '0' && byte <= '9');
  if (spec.has_enum && !(number_byte && !spec.number.points.empty())) {
    if (spec.literals == kNone) return false;
    frame.kind = FrameKind::kLiteral;
    frame.a = LiteralTrie::kRoot;
  } else if (byte == '{' && (spec.types & kTypeObject) != 0) {
    frame.kind = FrameKind::kObject;
    frame.phase = 0xFF;  // the opening brace comes next
  } else if (byte == '[' && (spec.types & kTypeArray) != 0) {
    frame.kind = FrameKind::kArray;
    frame.phase = 0xFF;
  } else if (byte == '"' && (spec.types & kTypeString) != 0) {
    frame.kind = FrameKind::kString;
    frame.phase = 0xFF;
    frame.a = spec.string.dfa == kNone ? 0 : specs_.dfas[spec.string.dfa].start();
    // A pattern that matches nothing (`x^`): no string of this alternative can be written.
    if (spec.string.dfa != kNone && frame.a == kDeadState) return false;
  } else if (number_byte && (spec.types & (kTypeInteger | kTypeNumber)) != 0) {
    frame.kind = FrameKind::kNumber;
  } else if ((byte == Keyword(0)[0] || byte == Keyword(1)[0]) && (spec.types & kTypeBoolean) != 0) {
    frame.kind = FrameKind::kKeyword;
    frame.a = byte == Keyword(0)[0] ? 0 : 1;
  } else if (byte == Keyword(2)[0] && (spec.types & kTypeNull) != 0) {
    frame.kind = FrameKind::kKeyword;
    frame.a = 2;
  } else {
    return false;
  }
  thread.frames.push_back(frame);
  thread.seen.resize(thread.frames.size() * specs_.seen_words, 0);
  std::fill(thread.seen.end() - static_cast<ptrdiff_t>(specs_.seen_words), thread.seen.end(), 0);
  return true;
}

size_t Runtime::MissingRequired(const ObjectSpec& o, const uint64_t* seen) {
  size_t missing = 0;
  for (size_t w = 0; w < o.seen_words; ++w)
    missing += static_cast<size_t>(std::popcount(o.required_by_rank[w] & ~seen[w]));
  return missing;
}

bool Runtime::CanAddMember(const Thread& thread, const Frame& object) const {
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) return true;
  const ObjectSpec& o = specs_.objects[spec.object];
  if (object.count >= o.max_properties) return false;
  const uint64_t* seen = SeenOf(thread, thread.frames.size() - 1);
  const size_t missing = MissingRequired(o, seen);
  if (missing > 0) return true;
  if (object.count + 1 > o.max_properties) return false;
  if (o.undeclared_possible) return true;
  for (size_t w = 0; w < o.seen_words; ++w) {
    if ((o.allowed_by_rank[w] & ~seen[w]) != 0) return true;
  }
  return false;
}

bool Runtime::CanCloseObject(const Thread& thread, const Frame& object) const {
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) return true;
  const ObjectSpec& o = specs_.objects[spec.object];
  if (object.count < o.min_properties) return false;
  return MissingRequired(o, SeenOf(thread, thread.frames.size() - 1)) == 0;
}

Runtime::Outcome Runtime::StepObject(Thread& thread, int byte) {
  Frame& frame = thread.frames.back();
  if (frame.phase == 0xFF) {
    frame.phase = kObjOpen;
    return Outcome::kConsumed;
  }
  CRUX_WHITESPACE(frame, byte)
  switch (frame.phase) {
    case kObjOpen:
    case kObjComma:
      if (byte == '}' && frame.phase == kObjOpen) {
        return CanCloseObject(thread, frame) ? Outcome::kDone : Outcome::kRefused;
      }
      if (byte != '"' || !CanAddMember(thread, frame)) return Outcome::kRefused;
      {
        frame.phase = kObjInKey;
        Frame key;
        key.kind = FrameKind::kKey;
        key.spec = frame.spec;
        const ValueSpec& spec = specs_.values[frame.spec];
        key.a = LiteralTrie::kRoot;
        key.d = kNone;
        if (spec.object != kNone) {
          const ObjectSpec& o = specs_.objects[spec.object];
          if (o.pattern_dfa != kNone) key.d = specs_.dfas[o.pattern_dfa].start();
        }
        thread.frames.push_back(key);
        thread.seen.resize(thread.frames.size() * specs_.seen_words, 0);
      }
      return Outcome::kConsumed;
    case kObjAfterKey:
      if (byte != ':') return Outcome::kRefused;
      frame.phase = kObjColon;
      return Outcome::kConsumed;
    case kObjColon:
      if (byte == kEndOfInput) return Outcome::kRefused;
      frame.phase = kObjInValue;
      return Outcome::kStartValue;
    case kObjAfterValue:
      if (byte == '}') return CanCloseObject(thread, frame) ? Outcome::kDone : Outcome::kRefused;
      if (byte != ',' || !CanAddMember(thread, frame)) return Outcome::kRefused;
      frame.phase = kObjComma;
      return Outcome::kConsumed;
    default:
      return Outcome::kRefused;
  }
}

bool Runtime::DeclaredViable(const Thread& thread, uint32_t node, bool required_only) const {
  const size_t object_index = thread.frames.size() - 2;
  const Frame& object = thread.frames[object_index];
  const ObjectSpec& o = specs_.objects[specs_.values[object.spec].object];
  const uint64_t* seen = SeenOf(thread, object_index);
  const uint32_t first = o.names.first_rank(node);
  const uint32_t last = o.names.last_rank(node);
  for (uint32_t rank = first; rank < last; ++rank) {
    const uint64_t bit = uint64_t{1} << (rank % 64);
    if ((o.allowed_by_rank[rank / 64] & bit) == 0 || (seen[rank / 64] & bit) != 0) continue;
    if (required_only && (o.required_by_rank[rank / 64] & bit) == 0) continue;
    if (options_.any_property_order || o.property_by_rank[rank] + 1 > object.d) return true;
  }
  return false;
}

bool Runtime::FreeNameSlot(const Thread& thread) const {
  const size_t object_index = thread.frames.size() - 2;
  const Frame& object = thread.frames[object_index];
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) return true;
  const ObjectSpec& o = specs_.objects[spec.object];
  if (o.max_properties == UINT64_MAX) return true;
  const uint64_t* seen = SeenOf(thread, object_index);
  const size_t missing = MissingRequired(o, seen);
  return object.count + 1 + missing <= o.max_properties;
}

bool Runtime::KeyViable(const Thread& thread) const {
  const Frame& key = thread.frames.back();
  const Frame& object = thread.frames[thread.frames.size() - 2];
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) return true;
  const ObjectSpec& o = specs_.objects[spec.object];
  if (!FreeNameSlot(thread)) return key.a != kNone && DeclaredViable(thread, key.a, true);
  if (!specs_.alts[o.undeclared].empty()) return true;
  if (key.a != kNone && DeclaredViable(thread, key.a)) return true;
  return o.pattern_dfa != kNone && key.d != kDeadState && PatternNameViable(thread);
}

bool Runtime::PatternNameBlockedBelow(const Thread& thread) const {
  const Frame& key = thread.frames.back();
  if (key.a == kNone) return false;
  const size_t object_index = thread.frames.size() - 2;
  const Frame& object = thread.frames[object_index];
  const ObjectSpec& o = specs_.objects[specs_.values[object.spec].object];
  const uint64_t* seen = SeenOf(thread, object_index);
  const uint32_t first = o.names.first_rank(key.a);
  const uint32_t last = o.names.last_rank(key.a);
  // A word of ranks at a time: the names the patterns take, in [first, last).
  for (uint32_t w = first / 64; first < last && w <= (last - 1) / 64; ++w) {
    const uint32_t low = w == first / 64 ? first % 64 : 0;
    const uint32_t high = w == (last - 1) / 64 ? (last - 1) % 64 : 63;
    uint64_t named =
        o.pattern_named_by_rank[w] & (~uint64_t{0} >> (63 - high)) & (~uint64_t{0} << low);
    if ((named & (seen[w] | ~o.allowed_by_rank[w])) != 0) return true;
    for (; !options_.any_property_order && named != 0; named &= named - 1) {
      const uint32_t rank = w * 64 + static_cast<uint32_t>(std::countr_zero(named));
      if (o.property_by_rank[rank] + 1 <= object.d) return true;
    }
  }
  return false;
}

bool Runtime::PatternNameViable(const Thread& thread) const {
  if (!PatternNameBlockedBelow(thread)) return true;
  const Frame& key = thread.frames.back();
  const Frame& object = thread.frames[thread.frames.size() - 2];
  const ObjectSpec& o = specs_.objects[specs_.values[object.spec].object];
  // Otherwise the declared names below the key are searched beside the automaton: a name
  // that ends off them (a byte that leaves them while the automaton lives, or a prefix of
  // them the patterns take) is an undeclared one; past kMaxNameSearch nodes, taken as viable.
  constexpr size_t kMaxNameSearch = 256;
  const ByteDfa& dfa = specs_.dfas[o.pattern_dfa];
  thread_local std::vector<std::pair<uint32_t, uint32_t>> stack;  // (name node, automaton)
  stack.assign(1, {key.a, key.d});
  for (size_t visits = 0; !stack.empty(); ++visits) {
    if (visits == kMaxNameSearch) return true;
    const auto [node, state] = stack.back();
    stack.pop_back();
    if (o.names.literal(node) == kNone && !specs_.alts[o.undeclared_by_state[state]].empty()) {
      return true;
    }
    uint32_t edge = 0;
    const uint32_t edges = o.names.edge_count(node);
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t next = dfa.Step(state, static_cast<uint8_t>(byte));
      while (edge < edges && o.names.edge_byte(node, edge) < byte)
        ++edge;
      const bool declared = edge < edges && o.names.edge_byte(node, edge) == byte;
      if (next == kDeadState) continue;
      if (!declared) return true;
      stack.emplace_back(o.names.edge_child(node, edge), next);
    }
  }
  return false;
}

bool Runtime::KeyChar(Thread& thread, uint8_t byte) {
  Frame& key = thread.frames.back();
  const Frame& object = thread.frames[thread.frames.size() - 2];
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) return true;
  const ObjectSpec& o = specs_.objects[spec.object];
  if (key.a != kNone) key.a = o.names.Step(key.a, byte);
  if (o.pattern_dfa != kNone && key.d != kDeadState) {
    key.d = specs_.dfas[o.pattern_dfa].Step(key.d, byte);
  }
  return KeyViable(thread);
}

Runtime::Outcome Runtime::KeyClose(Thread& thread) {
  const Frame key = thread.frames.back();
  const size_t object_index = thread.frames.size() - 2;
  Frame& object = thread.frames[object_index];
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) {
    object.a = specs_.any_value;
    return Outcome::kDone;
  }
  const ObjectSpec& o = specs_.objects[spec.object];
  uint64_t* seen = SeenOf(thread, object_index);
  const size_t missing = MissingRequired(o, seen);
  const uint32_t literal = key.a == kNone ? kNone : o.names.literal(key.a);
  if (literal != kNone) {
    const PropertySpec& property = o.properties[literal];
    const uint32_t rank = o.names.rank(literal);
    const uint64_t bit = uint64_t{1} << (rank % 64);
    if ((seen[rank / 64] & bit) != 0 || specs_.alts[property.value].empty()) {
      return Outcome::kRefused;
    }
    if (!property.required && object.count + 1 + missing > o.max_properties) {
      return Outcome::kRefused;
    }
    if (!options_.any_property_order && property.order + 1 <= object.d) return Outcome::kRefused;
    seen[rank / 64] |= bit;
    object.d = std::max(object.d, property.order + 1);
    object.a = property.value;
    return Outcome::kDone;
  }
  AltsId alts = o.undeclared;
  if (o.pattern_dfa != kNone && key.d != kDeadState) alts = o.undeclared_by_state[key.d];
  if (specs_.alts[alts].empty() || object.count + 1 + missing > o.max_properties) {
    return Outcome::kRefused;
  }
  object.a = alts;
  return Outcome::kDone;
}

Runtime::Outcome Runtime::StepKey(Thread& thread, int byte) {
  const int taken = StepKeyOnly(thread, byte);
  if (taken == 0) return Outcome::kRefused;
  return taken == 2 ? KeyClose(thread) : Outcome::kConsumed;
}

int Runtime::StepKeyOnly(Thread& thread, int byte) {
  if (byte == kEndOfInput) return 0;
  struct Sink {
    Runtime& runtime;
    Thread& thread;
    bool Emit(uint8_t decoded, bool) { return runtime.KeyChar(thread, decoded); }
    bool Probe(uint32_t first, uint32_t last) { return runtime.KeyProbe(thread, first, last); }
  } sink{*this, thread};
  uint32_t state = thread.frames.back().b;
  uint32_t code = thread.frames.back().c;
  const LexResult result = LexString(state, code, static_cast<uint8_t>(byte), sink);
  if (result == LexResult::kRefused) return 0;
  if (result == LexResult::kClosed) return state == kLexNormal ? 2 : 0;
  thread.frames.back().b = state;
  thread.frames.back().c = code;
  return 1;
}

namespace {
// Whether some code point in [first, last] takes node `start` to a node that `ends` accepts,
// its UTF-8 bytes through `step_range(node, low, high, add)`, which calls add(next) for the
// nodes the bytes low..high lead to. One-byte code points are whole after their byte and
// decided at once; longer ones a sequence of byte ranges at a time, the nodes each range
// reaches kept as a set, so the cost is bounded by the nodes and not by the code points.
template <typename StepRange, typename Ends>
bool AnyCodePoint(uint32_t first, uint32_t last, uint32_t start, StepRange step_range, Ends ends) {
  if (first < 0x80) {
    bool found = false;
    step_range(start, static_cast<uint8_t>(first), static_cast<uint8_t>(std::min(last, 0x7Fu)),
               [&](uint32_t next) { found = found || ends(next); });
    if (found || last < 0x80) return found;
    first = 0x80;
  }
  bool led = false;  // a longer code point's lead byte must step first
  step_range(start, LeadByte(first), LeadByte(last), [&](uint32_t) { led = true; });
  if (!led) return false;
  thread_local std::vector<uint32_t> from;
  thread_local std::vector<uint32_t> to;
  auto visit = [&](const ByteRange* ranges, int n) {
    from.assign(1, start);
    for (int i = 0; i < n && !from.empty(); ++i) {
      to.clear();
      for (uint32_t node : from)
        step_range(node, ranges[i].low, ranges[i].high, [&](uint32_t next) { to.push_back(next); });
      if (to.size() > 1) {
        std::sort(to.begin(), to.end());
        to.erase(std::unique(to.begin(), to.end()), to.end());
      }
      std::swap(from, to);
    }
    return std::any_of(from.begin(), from.end(), ends);
  };
  return ForUtf8Ranges(first, last, visit);
}
}  // namespace

bool Runtime::KeyProbe(const Thread& thread, uint32_t first, uint32_t last) const {
  const Frame& key = thread.frames.back();
  const size_t object_index = thread.frames.size() - 2;
  const Frame& object = thread.frames[object_index];
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) return true;
  const ObjectSpec& o = specs_.objects[spec.object];
  const bool required_only = !FreeNameSlot(thread);
  if (!required_only && !specs_.alts[o.undeclared].empty()) return true;
  if (!required_only && o.pattern_dfa != kNone && key.d != kDeadState) {
    const ByteDfa& dfa = specs_.dfas[o.pattern_dfa];
    auto step = [&](uint32_t state, uint8_t low, uint8_t high, auto add) {
      for (uint32_t byte = low; byte <= high; ++byte) {
        const uint32_t next = dfa.Step(state, static_cast<uint8_t>(byte));
        if (next != kDeadState) add(next);
      }
    };
    if (AnyCodePoint(first, last, key.d, step, [](uint32_t) { return true; })) return true;
  }
  if (key.a == kNone) return false;
  auto step = [&](uint32_t node, uint8_t low, uint8_t high, auto add) {
    for (uint32_t i = 0; i < o.names.edge_count(node); ++i) {
      const uint8_t byte = o.names.edge_byte(node, i);
      if (byte >= low && byte <= high) add(o.names.edge_child(node, i));
    }
  };
  return AnyCodePoint(first, last, key.a, step,
                      [&](uint32_t node) { return DeclaredViable(thread, node, required_only); });
}

bool Runtime::StringChar(Frame& frame, uint8_t byte, bool lead) {
  const StringSpec& spec = specs_.values[frame.spec].string;
  if (lead && ++frame.count > spec.max_length) return false;
  if (spec.dfa == kNone) return true;
  const ByteDfa& dfa = specs_.dfas[spec.dfa];
  frame.a = dfa.Step(frame.a, byte);
  if (frame.a == kDeadState) return false;
  const uint32_t to_accept = specs_.dfa_min_to_accept[spec.dfa][frame.a];
  if (to_accept == UINT32_MAX) return false;
  return spec.max_length == UINT64_MAX || frame.count + uint64_t{to_accept} <= spec.max_length;
}

bool Runtime::StringProbe(const Frame& frame, uint32_t first, uint32_t last) const {
  const StringSpec& spec = specs_.values[frame.spec].string;
  if (uint64_t{frame.count} + 1 > spec.max_length) return false;
  if (spec.dfa == kNone) return true;
  const ByteDfa& dfa = specs_.dfas[spec.dfa];
  const uint32_t* to_accept = specs_.dfa_min_to_accept[spec.dfa].data();
  auto step = [&](uint32_t state, uint8_t low, uint8_t high, auto add) {
    for (uint32_t byte = low; byte <= high; ++byte) {
      const uint32_t next = dfa.Step(state, static_cast<uint8_t>(byte));
      if (next != kDeadState && to_accept[next] != UINT32_MAX) add(next);
    }
  };
  return AnyCodePoint(first, last, frame.a, step, [&](uint32_t state) {
    return spec.max_length == UINT64_MAX ||
           uint64_t{frame.count} + 1 + to_accept[state] <= spec.max_length;
  });
}

Runtime::Outcome Runtime::StepString(Frame& frame, int byte) {
  if (frame.phase == 0xFF) {
    frame.phase = 0;
    return Outcome::kConsumed;
  }
  if (byte == kEndOfInput) return Outcome::kRefused;
  struct Sink {
    Runtime& runtime;
    Frame& frame;
    bool Emit(uint8_t decoded, bool lead) { return runtime.StringChar(frame, decoded, lead); }
    bool Probe(uint32_t first, uint32_t last) { return runtime.StringProbe(frame, first, last); }
  } sink{*this, frame};
  uint32_t state = frame.b;
  uint32_t code = frame.c;
  const LexResult result = LexString(state, code, static_cast<uint8_t>(byte), sink);
  if (result == LexResult::kRefused) return Outcome::kRefused;
  if (result == LexResult::kClosed) {
    if (state != kLexNormal) return Outcome::kRefused;
    const StringSpec& spec = specs_.values[frame.spec].string;
    if (frame.count < spec.min_length) return Outcome::kRefused;
    if (spec.dfa != kNone && !specs_.dfas[spec.dfa].MatchesAll(frame.a)) {
      return Outcome::kRefused;
    }
    return Outcome::kDone;
  }
  frame.b = state;
  frame.c = code;
  return Outcome::kConsumed;
}

void MagnitudeRange(const NumberSpec& spec, bool negative, Real& low, Real& high);

// An instance's number equals an enum number when its text, read as a double, is the point
// (as the validator reads it): the values within half a unit in the last place of the
// point's double read as it. Each point stands for those values, less 2^-60 of the point at
// either end: far more than the error of the long double arithmetic of the checks (about
// 2^-63), so that no value is let through that reads as another number (a number no digit
// could finish), and far less than the half unit, so that the digits of the point as the
// schema wrote them (within the half unit of its double: 2.00001 is not a double) and those
// that only the long doubles move (0.004000000000000000 with e3 to come is 4 plus 2^-62
// there) are not refused. Values at the very edge of a point's rounding are refused.
void PrepareNumber(NumberSpec& spec) {
  std::vector<Real> points;
  for (const SchemaNumber& point : spec.points) {
    const Real p = ToReal(point);
    if (MeetsBounds(spec, p, true, p, true)) points.push_back(p);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  spec.point_low.clear();
  spec.point_high.clear();
  for (const Real p : points) {
    if (p == 0) {
      spec.point_low.push_back(0);
      spec.point_high.push_back(0);
      continue;
    }
    const auto as_double = static_cast<double>(p);
    int binary = 0;
    (void)std::frexp(std::fabs(as_double), &binary);  // |p| in [2^(binary-1), 2^binary)
    const Real half_unit = std::ldexp(Real{1}, binary - 54);
    // Just above a power of two the unit below is half the unit above.
    const bool power_of_two = std::fabs(as_double) == std::ldexp(1.0, binary - 1);
    const Real margin = std::fabs(p) * 0x1p-60L;
    const Real toward_zero = (power_of_two ? half_unit / 2 : half_unit) - margin;
    const Real away = half_unit - margin;
    const Real center = as_double;
    spec.point_low.push_back(p > 0 ? center - toward_zero : center - away);
    spec.point_high.push_back(p > 0 ? center + away : center + toward_zero);
  }
  for (int side = 0; side < 2; ++side)
    MagnitudeRange(spec, side == 1, spec.magnitude_low[side], spec.magnitude_high[side]);
}

bool AdmitsSomeNumber(const NumberSpec& spec) {
  const Real inf = std::numeric_limits<Real>::infinity();
  return Meets(spec, -inf, false, inf, false);
}

// The magnitudes (|value|) the spec allows on one side of zero: [low, high], either end
// possibly open or infinite, from the bounds and, when there are enum numbers, from those
// of them that are not zero (nothing: low > high).
void MagnitudeRange(const NumberSpec& spec, bool negative, Real& low, Real& high) {
  const Real inf = std::numeric_limits<Real>::infinity();
  low = 0;
  high = inf;
  if (!spec.points.empty()) {
    low = inf;
    high = 0;
    for (const SchemaNumber& point : spec.points) {
      const Real p = ToReal(point);
      if ((p < 0) != negative || p == 0) continue;  // zero: no mantissa with a digit reaches it
      low = std::min(low, std::fabs(p));
      high = std::max(high, std::fabs(p));
    }
    return;
  }
  const Real lo = spec.low.present ? ToReal(spec.low.value) : -inf;
  const Real hi = spec.high.present ? ToReal(spec.high.value) : inf;
  if (!negative) {
    low = std::max<Real>(lo, 0);
    high = hi;
  } else {
    low = std::max<Real>(-hi, 0);
    high = -lo;
  }
}

// 10^e for e in [-kPowerRange, kPowerRange], computed once as std::pow computes them: the
// per-byte viability checks of bounded numbers look them up instead of calling pow.
constexpr int kPowerRange = 120;
Real PowerOfTen(int e) {
  static const std::array<Real, 2 * kPowerRange + 1> powers = [] {
    std::array<Real, 2 * kPowerRange + 1> table{};
    for (int k = -kPowerRange; k <= kPowerRange; ++k)
      table[static_cast<size_t>(k + kPowerRange)] = std::pow(Real{10}, static_cast<Real>(k));
    return table;
  }();
  return powers[static_cast<size_t>(std::clamp(e, -kPowerRange, kPowerRange) + kPowerRange)];
}

// floor(log10(x)) for a finite x > 0, from the binary exponent and one comparison with the
// table of powers instead of a logarithm. Within the table's range it is exact up to the
// table's own rounding, as std::log10 is; callers keep a margin of one either way.
int Log10Floor(Real x) {
  int binary = 0;
  (void)std::frexp(x, &binary);
  // x lies in [2^(binary-1), 2^binary): floor(log10(x)) is this or one more.
  int estimate =
      static_cast<int>(std::floor(static_cast<double>(binary - 1) * 0.30102999566398120));
  if (estimate + 1 <= kPowerRange && x >= PowerOfTen(estimate + 1)) ++estimate;
  return estimate;
}

// True when some exponent e in [-99, 99] puts a value of [a, b) * 10^e within the spec (a > 0,
// or a = 0 for a mantissa of zeros); `b_closed`: of [a, b] (the digits the lexer still takes
// reach b at most; a = b when none can follow).
bool MeetsScaled(const NumberSpec& spec, bool negative, Real a, Real b, bool b_closed) {
  if (a == 0) {
    return b == 0 ? MeetsMagnitude(spec, negative, 0, 0, true)
                  : MeetsMagnitude(spec, negative, 0, b * PowerOfTen(99), b_closed);
  }
  // Most digits keep a value within its bounds as written: exponent 0 first.
  if (MeetsMagnitude(spec, negative, a, b, b_closed)) return true;
  const Real low = spec.magnitude_low[negative ? 1 : 0];
  const Real high = spec.magnitude_high[negative ? 1 : 0];
  // A mantissa with a nonzero digit scales to no magnitude of zero (the exponent has at most
  // two digits): nothing when no other is allowed.
  if (high < low || high <= 0) return false;
  // a*10^e <= high and b*10^e > low, within rounding: test the exponents between the ends
  // (a margin of two either way). Between two bounds, past five exponents inside, one
  // surely fits; an enum's numbers are points, so each exponent is tried (a bisection each).
  int first = low <= 0 ? -99 : Log10Floor(low / b) - 2;
  int last = std::isinf(high) ? 99 : Log10Floor(high / a) + 2;
  first = std::max(first, -99);
  last = std::min(last, 99);
  if (spec.points.empty() && last - first > 6) return true;
  for (int e = first; e <= last; ++e) {
    const Real scale = PowerOfTen(e);
    if (MeetsMagnitude(spec, negative, a * scale, b * scale, b_closed)) return true;
  }
  return false;
}

// -x for an int64 x <= 0, as an unsigned magnitude (INT64_MIN included).
uint64_t Magnitude(int64_t x) {
  return static_cast<uint64_t>(-(x + 1)) + 1;
}

// An integer's digits so far (`whole`, the magnitude) under bounds that are themselves
// integers and no enum: whether `whole` followed by k more digits (k = 0 .. 19) can land
// within the bounds, in exact 64-bit arithmetic. 1 or 0; -1 when the bounds are not such
// integers (the caller then uses long doubles).
int IntegerDigitsViable(const NumberSpec& spec, bool negative, uint64_t whole) {
  if (!spec.points.empty() || (spec.low.present && !spec.low.value.is_integer) ||
      (spec.high.present && !spec.high.value.is_integer)) {
    return -1;
  }
  // The values allowed, both ends closed (an exclusive end past int64 leaves nothing).
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
  if (spec.low.present) {
    lo = spec.low.value.integer;
    if (spec.low.exclusive) {
      if (lo == INT64_MAX) return 0;
      ++lo;
    }
  }
  if (spec.high.present) {
    hi = spec.high.value.integer;
    if (spec.high.exclusive) {
      if (hi == INT64_MIN) return 0;
      --hi;
    }
  }
  if (hi < lo) return 0;
  // The magnitudes allowed on this side of zero.
  uint64_t mag_lo = 0;
  uint64_t mag_hi = 0;
  if (negative) {
    if (lo > 0) return 0;
    mag_lo = hi < 0 ? Magnitude(hi) : 0;
    mag_hi = Magnitude(lo);
  } else {
    if (hi < 0) return 0;
    mag_lo = lo > 0 ? static_cast<uint64_t>(lo) : 0;
    mag_hi = static_cast<uint64_t>(hi);
  }
  uint64_t scale = 1;
  for (int k = 0; k < 20; ++k) {
    uint64_t first = 0;  // whole, then k zeros
    if (__builtin_mul_overflow(whole, scale, &first) || first > mag_hi) return 0;
    uint64_t next = 0;  // whole + 1, then k zeros: one past whole, then k nines
    const uint64_t last = __builtin_mul_overflow(whole + 1, scale, &next) ? UINT64_MAX : next - 1;
    if (last >= mag_lo) return 1;
    if (__builtin_mul_overflow(scale, uint64_t{10}, &scale)) return 0;
  }
  return 0;
}

// With the mantissa fixed, whether some exponent the frame can still write (what is written
// plus at most the digits left; either sign right after `e`) puts the value within the spec.
bool ExponentViable(const NumberSpec& spec, const Frame& frame, Real mantissa) {
  const bool negative = (frame.b & kNumNegative) != 0;
  bool exp_negative = (frame.b & kNumExponentNegative) != 0;
  auto point = [&](uint32_t e) {
    const Real value =
        mantissa * PowerOfTen(exp_negative ? -static_cast<int>(e) : static_cast<int>(e));
    return MeetsMagnitude(spec, negative, value, value, true);
  };
  if (frame.phase != kNumExp) {
    for (int sign = 0; sign < (frame.phase == kNumE ? 2 : 1); ++sign) {
      if (frame.phase == kNumE) exp_negative = sign == 1;
      for (uint32_t e = 0; e < 100; ++e) {
        if (point(e)) return true;
      }
    }
    return false;
  }
  if (point(frame.pad)) return true;
  if (frame.c >= kMaxExponentDigits) return false;
  for (uint32_t e = frame.pad * 10; e < frame.pad * 10 + 10; ++e) {
    if (point(e)) return true;
  }
  return false;
}

bool Runtime::NumberViable(const Frame& frame) const {
  const NumberSpec& spec = specs_.values[frame.spec].number;
  const bool negative = (frame.b & kNumNegative) != 0;
  const bool fractions = !spec.integer_only;
  const Real inf = std::numeric_limits<Real>::infinity();
  const Real whole = static_cast<Real>(frame.u);
  static constexpr Real kPowers[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                     1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                     1e14L, 1e15L, 1e16L, 1e17L, 1e18L};
  const Real scale = kPowers[std::min<uint32_t>(frame.d, kMaxBoundedFracDigits)];
  // The mantissa's value so far, exactly as written.
  const Real mantissa = whole + static_cast<Real>(frame.v) / scale;
  // A side with no bound toward infinity: more digits (or an exponent) reach past anything.
  const bool open_ended =
      spec.points.empty() && (negative ? !spec.low.present : !spec.high.present);
  if (open_ended && frame.phase >= kNumZero && frame.phase <= kNumFrac &&
      (fractions || frame.phase == kNumInt)) {
    return true;
  }
  switch (frame.phase) {
    case kNumStart:
      return Meets(spec, -inf, false, inf, false);
    case kNumMinus:
      return Meets(spec, -inf, false, 0, true);
    case kNumZero:
      if (!fractions) return MeetsMagnitude(spec, negative, 0, 0, true);
      return MeetsScaled(spec, negative, 0, 1, false);
    case kNumInt: {
      if (fractions) return MeetsScaled(spec, negative, whole, whole + 1, false);
      if (const int exact = IntegerDigitsViable(spec, negative, frame.u); exact >= 0) {
        return exact == 1;
      }
      Real factor = 1;
      for (int k = 0; k < 20; ++k, factor *= 10) {
        const Real a = whole * factor;
        const Real b = (whole + 1) * factor;
        // Integers: `whole` followed by k more digits.
        if (MeetsMagnitude(spec, negative, a, b, false)) return true;
        if (!negative && spec.high.present && a > ToReal(spec.high.value)) return false;
        if (negative && spec.low.present && -a < ToReal(spec.low.value)) return false;
        if (!spec.points.empty() && a > spec.magnitude_high[negative ? 1 : 0]) return false;
      }
      return false;
    }
    case kNumDot:
    case kNumFrac: {
      if (!fractions) return MeetsMagnitude(spec, negative, whole, whole, true);
      // The lexer takes kMaxBoundedFracDigits fraction digits at most: the digits still to
      // come reach one unit of the last of them below the next mantissa (none at the limit).
      const Real high =
          whole + static_cast<Real>(frame.v + 1) / scale - 1 / kPowers[kMaxBoundedFracDigits];
      return MeetsScaled(spec, negative, mantissa, std::max(high, mantissa), true);
    }
    case kNumE:
    case kNumExpSign:
    case kNumExp:
      return ExponentViable(spec, frame, mantissa);
    default:
      return true;
  }
}

bool Runtime::NumberFinal(const Frame& frame) const {
  const NumberSpec& spec = specs_.values[frame.spec].number;
  if (!spec.bounded()) return true;
  const bool negative = (frame.b & kNumNegative) != 0;
  SchemaNumber value;
  if (frame.phase == kNumExp) {
    char text[96];
    std::snprintf(text, sizeof(text), "%s%llu.%0*llue%s%u", negative ? "-" : "",
                  static_cast<unsigned long long>(frame.u),
                  static_cast<int>(std::max<uint32_t>(frame.d, 1)),
                  static_cast<unsigned long long>(frame.v),
                  (frame.b & kNumExponentNegative) != 0 ? "-" : "", frame.pad);
    value.value = std::strtod(text, nullptr);
    const double rounded = std::nearbyint(value.value);
    if (rounded == value.value && std::fabs(rounded) < 9.2e18) {
      value.is_integer = true;
      value.integer = static_cast<int64_t>(rounded);
    }
  } else if (frame.v == 0 && frame.u <= static_cast<uint64_t>(INT64_MAX)) {
    value.is_integer = true;
    value.integer = negative ? -static_cast<int64_t>(frame.u) : static_cast<int64_t>(frame.u);
    value.value = static_cast<double>(value.integer);
  } else {
    char text[64];
    std::snprintf(text, sizeof(text), "%s%llu.%0*llu", negative ? "-" : "",
                  static_cast<unsigned long long>(frame.u), static_cast<int>(frame.d),
                  static_cast<unsigned long long>(frame.v));
    value.value = std::strtod(text, nullptr);
  }
  if (spec.low.present) {
    const int order = CompareNumbers(value, spec.low.value);
    if (order < 0 || (order == 0 && spec.low.exclusive)) return false;
  }
  if (spec.high.present) {
    const int order = CompareNumbers(value, spec.high.value);
    if (order > 0 || (order == 0 && spec.high.exclusive)) return false;
  }
  if (spec.points.empty()) return true;
  for (const SchemaNumber& point : spec.points) {
    if (CompareNumbers(value, point) == 0) return true;
  }
  return false;
}

Runtime::Outcome Runtime::StepNumber(Frame& frame, int byte) {
  const NumberSpec& spec = specs_.values[frame.spec].number;
  const NumberMove move =
      frame.phase >= kNumE ? ExponentByte(frame, byte) : MantissaByte(frame, spec, byte);
  if (move == NumberMove::kRefused) return Outcome::kRefused;
  if (move == NumberMove::kEnd) {
    const bool complete = frame.phase == kNumZero || frame.phase == kNumInt ||
                          frame.phase == kNumFrac || frame.phase == kNumExp;
    return complete && NumberFinal(frame) ? Outcome::kDoneRetry : Outcome::kRefused;
  }
  if (spec.bounded() && !NumberViable(frame)) return Outcome::kRefused;
  return Outcome::kConsumed;
}

std::string_view Runtime::Keyword(uint32_t which) const {
  return kKeywords[options_.python_literals ? 1 : 0][which];
}

Runtime::Outcome Runtime::StepKeyword(Frame& frame, int byte) {
  const std::string_view keyword = Keyword(frame.a);
  if (frame.count == keyword.size()) return Outcome::kDoneRetry;
  if (byte != static_cast<uint8_t>(keyword[frame.count])) return Outcome::kRefused;
  ++frame.count;
  return Outcome::kConsumed;
}

Runtime::Outcome Runtime::StepLiteral(Frame& frame, int byte) {
  const LiteralTrie& trie = specs_.literal_sets[specs_.values[frame.spec].literals];
  if (IsWhitespace(byte) && trie.whitespace_after(frame.a) &&
      trie.Step(frame.a, static_cast<uint8_t>(byte)) == kNone) {
    // Inside an object or array of an enum, between tokens. (After a whole value the
    // whitespace is the parent's: the literal ends first when it can.)
    if (trie.literal(frame.a) == kNone) {
      if (!options_.flexible_whitespace || frame.ws >= options_.max_whitespace) {
        return Outcome::kRefused;
      }
      ++frame.ws;
      return Outcome::kConsumed;
    }
  }
  if (byte != kEndOfInput) {
    const uint32_t child = trie.Step(frame.a, static_cast<uint8_t>(byte));
    if (child != kNone) {
      frame.a = child;
      frame.ws = 0;
      return Outcome::kConsumed;
    }
  }
  return trie.literal(frame.a) != kNone ? Outcome::kDoneRetry : Outcome::kRefused;
}

Runtime::Outcome Runtime::StepArray(Frame& frame, int byte) {
  if (frame.phase == 0xFF) {
    frame.phase = kArrOpen;
    return Outcome::kConsumed;
  }
  CRUX_WHITESPACE(frame, byte)
  const ValueSpec& spec = specs_.values[frame.spec];
  const ArraySpec* array = spec.array == kNone ? nullptr : &specs_.arrays[spec.array];
  const uint64_t min_items = array == nullptr ? 0 : array->min_items;
  const uint64_t max_items = array == nullptr ? UINT64_MAX : array->max_items;
  auto item = [&](uint64_t index) {
    return array == nullptr ? specs_.any_value : array->item(index);
  };
  auto can_add = [&]() {
    return frame.count < max_items && !specs_.alts[item(frame.count)].empty();
  };
  switch (frame.phase) {
    case kArrOpen:
      if (byte == ']') return frame.count >= min_items ? Outcome::kDone : Outcome::kRefused;
      [[fallthrough]];
    case kArrComma:
      if (byte == kEndOfInput || !can_add()) return Outcome::kRefused;
      frame.phase = kArrInItem;
      frame.a = item(frame.count);
      return Outcome::kStartValue;
    case kArrAfterItem:
      if (byte == ']') return frame.count >= min_items ? Outcome::kDone : Outcome::kRefused;
      if (byte != ',' || !can_add()) return Outcome::kRefused;
      frame.phase = kArrComma;
      return Outcome::kConsumed;
    default:
      return Outcome::kRefused;
  }
}

#undef CRUX_WHITESPACE

namespace {
void AddWhitespace(ByteSet& out) {
  out.Set(' ');
  out.Set('\t');
  out.Set('\n');
  out.Set('\r');
}
// What may follow a complete scalar: whatever its parent takes after a value.
void AddAfterValue(ByteSet& out) {
  AddWhitespace(out);
  out.Set(',');
  out.Set('}');
  out.Set(']');
}
}  // namespace

void Runtime::ValueStartBytes(AltsId alts, ByteSet& out) const {
  for (SpecId id : specs_.alts[alts]) {
    const ValueSpec& spec = specs_.values[id];
    if (spec.has_enum) {
      if (spec.literals != kNone) {
        const LiteralTrie& trie = specs_.literal_sets[spec.literals];
        for (uint32_t i = 0; i < trie.edge_count(LiteralTrie::kRoot); ++i) {
          out.Set(trie.edge_byte(LiteralTrie::kRoot, i));
        }
      }
      if (!spec.number.points.empty()) {
        out.Set('-');
        out.SetRange('0', '9');
      }
      continue;
    }
    if ((spec.types & kTypeObject) != 0) out.Set('{');
    if ((spec.types & kTypeArray) != 0) out.Set('[');
    if ((spec.types & kTypeString) != 0) out.Set('"');
    if ((spec.types & (kTypeInteger | kTypeNumber)) != 0) {
      out.Set('-');
      out.SetRange('0', '9');
    }
    if ((spec.types & kTypeBoolean) != 0) {
      out.Set(static_cast<uint8_t>(Keyword(0)[0]));
      out.Set(static_cast<uint8_t>(Keyword(1)[0]));
    }
    if ((spec.types & kTypeNull) != 0) out.Set(static_cast<uint8_t>(Keyword(2)[0]));
  }
}

namespace {
// The bytes a string lexer state can take, one set per state, built once.
ByteSet LexerBytes(uint32_t lexer) {
  ByteSet out;
  switch (lexer) {
    case kLexNormal:
      out.SetRange(0x20, 0x7F);
      out.SetRange(0xC2, 0xF4);
      break;
    case kLexEscape:
      for (uint8_t b : {'"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u'})
        out.Set(b);
      break;
    case kLexHex0:
    case kLexHex1:
    case kLexHex2:
    case kLexHex3:
      out.SetRange('0', '9');
      out.SetRange('a', 'f');
      out.SetRange('A', 'F');
      break;
    case kLexHigh:
      out.Set('\\');
      break;
    case kLexHighEscape:
      out.Set('u');
      break;
    default:
      out.SetRange(0x80, 0xBF);
      break;
  }
  return out;
}
}  // namespace

void Runtime::StringBytes(uint32_t lexer, ByteSet& out) const {
  static const auto lexer_sets = [] {
    std::array<ByteSet, kLexHighEscape + 1> sets;
    for (uint32_t state = 0; state <= kLexHighEscape; ++state)
      sets[state] = LexerBytes(state);
    return sets;
  }();
  out.Add(lexer_sets[std::min<uint32_t>(lexer, kLexHighEscape)]);
}

void Runtime::ContainerNextBytes(const Frame& top, ByteSet& out) const {
  if (top.phase == 0xFF) {
    out.Set(top.kind == FrameKind::kObject ? '{' : '[');
    return;
  }
  AddWhitespace(out);
  if (top.kind == FrameKind::kObject) {
    if (top.phase == kObjOpen || top.phase == kObjComma) out.Set('"');
    if (top.phase == kObjOpen || top.phase == kObjAfterValue) out.Set('}');
    if (top.phase == kObjAfterValue) out.Set(',');
    if (top.phase == kObjAfterKey) out.Set(':');
    if (top.phase == kObjColon) ValueStartBytes(top.a, out);
    return;
  }
  if (top.phase == kArrOpen || top.phase == kArrAfterItem) out.Set(']');
  if (top.phase == kArrAfterItem) out.Set(',');
  if (top.phase == kArrOpen || top.phase == kArrComma) {
    const ValueSpec& spec = specs_.values[top.spec];
    const AltsId item =
        spec.array == kNone ? specs_.any_value : specs_.arrays[spec.array].item(top.count);
    if (item != kNone) ValueStartBytes(item, out);
  }
}

void Runtime::KeyNextBytes(const ThreadSet& in, size_t index, ByteSet& out) const {
  const Frame& top = in.top(index);
  if (top.b != kLexNormal) {
    StringBytes(top.b, out);
    return;
  }
  out.Set('"');
  out.Set('\\');
  const Frame& object = in.frame(index, in.depth(index) - 2);
  const ValueSpec& spec = specs_.values[object.spec];
  if (spec.object == kNone) {
    StringBytes(kLexNormal, out);
    return;
  }
  const ObjectSpec& o = specs_.objects[spec.object];
  if (!specs_.alts[o.undeclared].empty()) {
    StringBytes(kLexNormal, out);
    return;
  }
  if (o.pattern_dfa != kNone && top.d != kDeadState) {
    out.Add(specs_.dfa_live_bytes[o.pattern_dfa][top.d]);
  }
  if (top.a == kNone) return;
  for (uint32_t i = 0; i < o.names.edge_count(top.a); ++i)
    out.Set(o.names.edge_byte(top.a, i));
}

void Runtime::StringNextBytes(const Frame& top, ByteSet& out) const {
  if (top.phase == 0xFF) {
    out.Set('"');
    return;
  }
  if (top.b == kLexNormal) {
    out.Set('"');
    out.Set('\\');
    const uint32_t dfa = specs_.values[top.spec].string.dfa;
    if (dfa != kNone) {
      // Raw bytes go to the automaton as they are (escapes are the backslash above).
      const ByteSet& live = specs_.dfa_live_bytes[dfa][top.a];
      ByteSet lexer;
      StringBytes(kLexNormal, lexer);
      for (int w = 0; w < 4; ++w)
        out.words[w] |= live.words[w] & lexer.words[w];
      return;
    }
  }
  StringBytes(top.b, out);
}

void Runtime::ThreadNextBytes(const ThreadSet& in, size_t index, ByteSet& out) const {
  const Frame& top = in.top(index);
  switch (top.kind) {
    case FrameKind::kDocument:
      AddWhitespace(out);
      if (top.phase == kDocBefore) ValueStartBytes(specs_.root, out);
      return;
    case FrameKind::kObject:
    case FrameKind::kArray:
      ContainerNextBytes(top, out);
      return;
    case FrameKind::kString:
      StringNextBytes(top, out);
      return;
    case FrameKind::kKey:
      KeyNextBytes(in, index, out);
      return;
    case FrameKind::kNumber:
      out.SetRange('0', '9');
      out.Set('-');
      out.Set('+');
      out.Set('.');
      out.Set('e');
      out.Set('E');
      AddAfterValue(out);
      return;
    case FrameKind::kKeyword:
      if (top.count < Keyword(top.a).size()) {
        out.Set(static_cast<uint8_t>(Keyword(top.a)[top.count]));
      } else {
        AddAfterValue(out);
      }
      return;
    case FrameKind::kLiteral: {
      const LiteralTrie& trie = specs_.literal_sets[specs_.values[top.spec].literals];
      for (uint32_t i = 0; i < trie.edge_count(top.a); ++i)
        out.Set(trie.edge_byte(top.a, i));
      if (trie.literal(top.a) != kNone) AddAfterValue(out);
      if (trie.whitespace_after(top.a)) AddWhitespace(out);
      return;
    }
    case FrameKind::kCut:
      for (uint64_t& word : out.words)
        word = ~uint64_t{0};
      return;
  }
}

void Runtime::NextBytes(const ThreadSet& in, ByteSet& out) const {
  out = ByteSet{};
  for (size_t i = 0; i < in.size(); ++i)
    ThreadNextBytes(in, i, out);
}

}  // namespace crux::constrain::grammar
