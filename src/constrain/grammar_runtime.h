// The byte-level recogniser behind the matcher (private to constrain/).
//
// A parse is a *thread*: a stack of frames (document, object, key, array, string, number,
// keyword, enum literal), each a flat 48-byte record plus, for objects, a bitset of the
// declared names already written. Several threads run side by side when a value has several
// alternatives (anyOf, oneOf, type lists); a ThreadSet holds them all. Feeding a byte to a
// thread yields zero threads (the byte is refused), one, or several (the byte starts a value
// with several alternatives). Every check that decides whether a prefix can still be
// completed (lengths, bounds, required names, automata) runs on the byte that could break it,
// so a live thread is always completable.
//
// Thread-safety: a Runtime only reads the Specs; the buffers it steps through belong to the
// caller. Cost: a byte costs O(depth of the thread) to copy plus O(1) to check; after warm-up
// the buffers are reused and nothing is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "grammar_specs.h"

namespace crux::constrain::grammar {

inline constexpr int kEndOfInput = 256;  // the byte "fed" to ask whether the document may end

enum class FrameKind : uint8_t {
  kDocument,
  kObject,
  kKey,
  kArray,
  kString,
  kNumber,
  kKeyword,  // true, false, null (Python: True, False, None)
  kLiteral,  // one of an enum's canonical texts
  kCut,      // stands for the frames a walk left out below (see Runtime::TakeCutTouched)
};

struct Frame {
  uint32_t spec = kNone;  // ValueSpec (kDocument: none)
  FrameKind kind = FrameKind::kDocument;
  uint8_t phase = 0;
  uint16_t ws = 0;     // whitespace bytes in a row
  uint32_t count = 0;  // members, items, code points, integer digits
  uint32_t a = 0;      // object: pending member alternatives; string: DFA state; key: name-trie
                       // node; literal: trie node; keyword: which word
  uint32_t b = 0;      // string/key: lexer state; number: flags
  uint32_t c = 0;      // string/key: \u code unit and pending high surrogate
  uint32_t d = 0;      // key: pattern DFA state; number: fraction digits; object: last order
  uint32_t pad = 0;
  uint64_t u = 0;  // number: integer digits' value (saturating)
  uint64_t v = 0;  // number: fraction digits' value

  bool operator==(const Frame&) const = default;
};

// One parse being built: frames bottom to top, and seen_words bitset words per frame.
struct Thread {
  std::vector<Frame> frames;
  std::vector<uint64_t> seen;
};

// Parses side by side, stored flat: thread i is frames [starts[i], starts[i+1]).
class ThreadSet {
 public:
  size_t size() const { return starts_.empty() ? 0 : starts_.size() - 1; }
  bool empty() const { return size() == 0; }
  void Clear() {
    frames_.clear();
    seen_.clear();
    starts_.clear();
  }
  void Append(const Thread& thread, size_t seen_words);
  // Buffer sizes, to give copies room in advance.
  struct Shape {
    size_t frames = 0;
    size_t seen = 0;
    size_t starts = 0;
  };
  Shape shape() const { return {frames_.size(), seen_.size(), starts_.size()}; }
  // Becomes a copy of `other` with room for states up to `room`: a history slot that later
  // receives a larger state (up to `room`) then reuses its buffers.
  void CopyWithRoom(const ThreadSet& other, const Shape& room) {
    frames_.reserve(room.frames);
    seen_.reserve(room.seen);
    starts_.reserve(room.starts);
    frames_ = other.frames_;
    seen_ = other.seen_;
    starts_ = other.starts_;
  }
  void Load(size_t index, size_t seen_words, Thread& out) const;
  // Removes threads equal to an earlier one.
  void Dedupe(size_t seen_words);
  size_t memory_bytes() const {
    return frames_.capacity() * sizeof(Frame) + seen_.capacity() * 8 + starts_.capacity() * 4;
  }
  const Frame& top(size_t index) const { return frames_[starts_[index + 1] - 1]; }
  size_t depth(size_t index) const { return starts_[index + 1] - starts_[index]; }
  const Frame& frame(size_t index, size_t level) const { return frames_[starts_[index] + level]; }

 private:
  bool Equal(size_t i, size_t j, size_t seen_words) const;
  std::vector<Frame> frames_;
  std::vector<uint64_t> seen_;
  std::vector<uint32_t> starts_;
};

class Runtime {
 public:
  Runtime(const Specs& specs, const GrammarOptions& options);

  // The state before any byte.
  void Start(ThreadSet& out) const;
  // Feeds `byte` (or kEndOfInput) to every thread of `in`; the survivors go to `out` (cleared
  // first). Returns !out.empty().
  bool Step(const ThreadSet& in, int byte, ThreadSet& out);
  // Feeds one thread; survivors are appended to `out`.
  void Feed(Thread& thread, int byte, ThreadSet& out);
  bool CanEnd(const ThreadSet& in);
  // One byte for a string frame alone (its parents untouched): 1 taken, 0 refused, 2 the
  // closing quote, with the string complete.
  int StepStringOnly(Frame& frame, int byte) {
    const Outcome outcome = StepString(frame, byte);
    return outcome == Outcome::kConsumed ? 1 : outcome == Outcome::kDone ? 2 : 0;
  }
  // One byte for a number frame alone: 1 taken (the number can still be completed within its
  // bounds), 0 refused, 2 the byte ends the number, which is complete and within its bounds
  // (the byte is then the parent's).
  int StepNumberOnly(Frame& frame, int byte) {
    const Outcome outcome = StepNumber(frame, byte);
    return outcome == Outcome::kConsumed ? 1 : outcome == Outcome::kDoneRetry ? 2 : 0;
  }
  // One byte for the key on top of `thread`, which may hold only the object and the key (the
  // object's seen bits with it): 1 taken, 0 refused, 2 the closing quote, the name not yet
  // closed (Feed closes it).
  int StepKeyOnly(Thread& thread, int byte);
  // The bytes that can follow a member name's closing quote in any object: the colon, and
  // whitespace where it is allowed.
  ByteSet AfterNameBytes() const {
    ByteSet bytes;
    bytes.Set(':');
    if (options_.flexible_whitespace) {
      for (const uint8_t blank : {' ', '\t', '\n', '\r'})
        bytes.Set(blank);
    }
    return bytes;
  }
  // Whether the object under the key on top of `thread` has a place for a name other than
  // the required ones it still lacks (maxProperties).
  bool FreeNameSlot(const Thread& thread) const;
  // Whether a declared name below the key on top of `thread` that the patterns also take can
  // no longer be written (seen, its value impossible, or out of schema order): only then can
  // the patterns lead a name into a dead end.
  bool PatternNameBlockedBelow(const Thread& thread) const;
  // Pops the complete value on top of `thread` as if its end had been read.
  void PopValue(Thread& thread) {
    thread.frames.pop_back();
    thread.seen.resize(thread.frames.size() * specs_.seen_words);
    ChildDone(thread);
  }
  // A superset of the bytes `in` can take next, as four 64-bit words (bit b = byte b): the
  // mask walk skips every subtree whose byte is outside it without stepping. O(threads).
  void NextBytes(const ThreadSet& in, ByteSet& out) const;
  size_t seen_words() const { return specs_.seen_words; }
  const Specs& specs() const { return specs_; }
  // True (and reset) when a step since the last call reached a kCut frame: a value below the
  // frames a walk kept ended, or a byte went to the frames it left out, so that step's result
  // says nothing about the whole thread.
  bool TakeCutTouched() {
    const bool touched = cut_touched_;
    cut_touched_ = false;
    return touched;
  }
  // Threads dropped because more than kMaxLiveThreads were alive.
  size_t dropped_threads() const { return dropped_; }

 private:
  enum class Outcome : uint8_t { kConsumed, kRefused, kDone, kDoneRetry, kStartValue };
  Outcome StepFrame(Thread& thread, int byte);
  Outcome StepDocument(Frame& frame, int byte);
  Outcome StepObject(Thread& thread, int byte);
  Outcome StepKey(Thread& thread, int byte);
  Outcome StepArray(Frame& frame, int byte);
  Outcome StepString(Frame& frame, int byte);
  Outcome StepNumber(Frame& frame, int byte);
  Outcome StepKeyword(Frame& frame, int byte);
  // Keyword `which` (0 true, 1 false, 2 null) as this grammar spells it.
  std::string_view Keyword(uint32_t which) const;
  Outcome StepLiteral(Frame& frame, int byte);
  // Starts a value of alternatives `alts` with `byte` on each alternative's copy of `thread`.
  void StartValue(Thread& thread, AltsId alts, int byte, ThreadSet& out);
  bool PushValue(Thread& thread, SpecId spec, int byte);
  void ChildDone(Thread& thread);
  bool KeyChar(Thread& thread, uint8_t byte);
  bool KeyViable(const Thread& thread) const;
  // Whether the key on top of `thread`, alive in its object's pattern automaton, can still
  // end as a name the patterns take rather than as a declared name that cannot be written.
  bool PatternNameViable(const Thread& thread) const;
  // Whether the name trie's `node` can still spell a name that may follow (only a required
  // one not yet seen where `required_only`).
  bool DeclaredViable(const Thread& thread, uint32_t node, bool required_only = false) const;
  bool KeyProbe(const Thread& thread, uint32_t first, uint32_t last) const;
  bool StringProbe(const Frame& frame, uint32_t first, uint32_t last) const;
  void ThreadNextBytes(const ThreadSet& in, size_t index, ByteSet& out) const;
  void ContainerNextBytes(const Frame& top, ByteSet& out) const;
  void StringNextBytes(const Frame& top, ByteSet& out) const;
  void KeyNextBytes(const ThreadSet& in, size_t index, ByteSet& out) const;
  void ValueStartBytes(AltsId alts, ByteSet& out) const;
  void StringBytes(uint32_t lexer, ByteSet& out) const;
  Outcome KeyClose(Thread& thread);
  bool StringChar(Frame& frame, uint8_t byte, bool lead);
  bool NumberViable(const Frame& frame) const;
  bool NumberFinal(const Frame& frame) const;
  // The required names of `o` not in `seen` (the object's seen-name bits).
  static size_t MissingRequired(const ObjectSpec& o, const uint64_t* seen);
  bool CanAddMember(const Thread& thread, const Frame& object) const;
  bool CanCloseObject(const Thread& thread, const Frame& object) const;
  uint64_t* SeenOf(Thread& thread, size_t frame) const {
    return thread.seen.data() + frame * specs_.seen_words;
  }
  const uint64_t* SeenOf(const Thread& thread, size_t frame) const {
    return thread.seen.data() + frame * specs_.seen_words;
  }

  const Specs& specs_;
  GrammarOptions options_;
  static constexpr size_t kMaxStartNesting = 4;
  std::vector<Thread> scratch_;  // per StartValue nesting level (a value starts inside one)
  size_t scratch_depth_ = 0;
  Thread work_;
  ThreadSet end_scratch_;
  size_t dropped_ = 0;
  bool cut_touched_ = false;
};

}  // namespace crux::constrain::grammar
