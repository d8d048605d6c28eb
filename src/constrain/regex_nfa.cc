// The NFA builder: code-point sets become alternations of UTF-8 byte-range sequences, counted
// repetition is expanded copy by copy (each copy charged against kMaxNfaStates, so a huge
// count fails fast instead of looping).
#include <array>
#include <string>

#include "regex.h"
#include "regex_internal.h"
#include "string_lexer.h"

namespace crux::constrain::regex {
namespace {

using Kind = NfaState::Kind;

// A run of code points whose UTF-8 encodings are exactly the byte sequences with byte i in
// [first[i], last[i]].
struct ByteRanges {
  std::array<uint8_t, 4> first;
  std::array<uint8_t, 4> last;
  size_t length;
};

}  // namespace

Expected<uint32_t> NfaBuilder::Add(const NfaState& state) {
  if (states_.size() >= kMaxNfaStates) {
    return Error(ErrorCode::kLimit, "the automaton needs more than kMaxNfaStates (" +
                                        std::to_string(kMaxNfaStates) + ") NFA states");
  }
  states_.push_back(state);
  return static_cast<uint32_t>(states_.size() - 1);
}

Expected<uint32_t> NfaBuilder::ByteSequence(const uint8_t* first, const uint8_t* last,
                                            size_t length, uint32_t next) {
  uint32_t current = next;
  for (size_t i = length; i-- > 0;) {
    const uint64_t key = uint64_t{first[i]} << 40 | uint64_t{last[i]} << 32 | current;
    if (auto found = byte_states_.find(key); found != byte_states_.end()) {
      current = found->second;
      continue;
    }
    auto state = Add({Kind::kByte, first[i], last[i], current, 0, 0});
    if (!state) return state;
    byte_states_.emplace(key, *state);
    current = *state;
  }
  return current;
}

Expected<uint32_t> NfaBuilder::CodePoints(const CodePointSet& set, uint32_t next) {
  // Surrogates have no well-formed UTF-8 encoding: ForUtf8Ranges leaves them out.
  std::vector<ByteRanges> sequences;
  auto collect = [&sequences](const grammar::ByteRange* ranges, int length) {
    ByteRanges sequence{};
    for (int i = 0; i < length; ++i) {
      sequence.first[i] = ranges[i].low;
      sequence.last[i] = ranges[i].high;
    }
    sequence.length = static_cast<size_t>(length);
    sequences.push_back(sequence);
    return false;
  };
  for (const CodePointRange& range : set)
    grammar::ForUtf8Ranges(range.first, range.last, collect);
  if (sequences.empty()) return Add({Kind::kFail, 0, 0, 0, 0, 0});
  Expected<uint32_t> result = ByteSequence(
      sequences.back().first.data(), sequences.back().last.data(), sequences.back().length, next);
  for (size_t i = sequences.size() - 1; i-- > 0 && result;) {
    auto branch = ByteSequence(sequences[i].first.data(), sequences[i].last.data(),
                               sequences[i].length, next);
    if (!branch) return branch;
    result = Add({Kind::kSplit, 0, 0, *branch, *result, 0});
  }
  return result;
}

Expected<uint32_t> NfaBuilder::Bytes(std::string_view text, uint32_t next) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  return ByteSequence(bytes, bytes, text.size(), next);
}

Expected<uint32_t> NfaBuilder::AnyString(uint32_t next) {
  auto loop = Add({Kind::kSplit, 0, 0, 0, next, 0});
  if (!loop) return loop;
  auto body = CodePoints({{0, kMaxCodePoint}}, *loop);
  if (!body) return body;
  states_[*loop].next = *body;
  return loop;
}

Expected<uint32_t> NfaBuilder::Regex(const RegexAst& ast, uint32_t next) {
  return Node(ast, ast.root, next);
}

Expected<uint32_t> NfaBuilder::Node(const RegexAst& ast, uint32_t id, uint32_t next) {
  const RegexNode& node = ast.nodes[id];
  switch (node.kind) {
    case RegexNode::Kind::kEmpty:
      return next;
    case RegexNode::Kind::kSet:
      return CodePoints(node.set, next);
    case RegexNode::Kind::kConcat: {
      Expected<uint32_t> current = next;
      for (size_t i = node.children.size(); i-- > 0 && current;)
        current = Node(ast, node.children[i], *current);
      return current;
    }
    case RegexNode::Kind::kAlternation: {
      Expected<uint32_t> result = Node(ast, node.children.back(), next);
      for (size_t i = node.children.size() - 1; i-- > 0 && result;) {
        auto branch = Node(ast, node.children[i], next);
        if (!branch) return branch;
        result = Add({Kind::kSplit, 0, 0, *branch, *result, 0});
      }
      return result;
    }
    case RegexNode::Kind::kRepeat:
      return Repeat(ast, node, next);
    case RegexNode::Kind::kLineStart:
      return Add({Kind::kLineStart, 0, 0, next, 0, 0});
    case RegexNode::Kind::kLineEnd:
      return Add({Kind::kLineEnd, 0, 0, next, 0, 0});
  }
  return next;
}

// x{min,max}: min copies, then max - min nested optional copies (or one loop when unbounded).
Expected<uint32_t> NfaBuilder::Repeat(const RegexAst& ast, const RegexNode& node, uint32_t next) {
  const uint32_t child = node.children[0];
  Expected<uint32_t> current = next;
  if (node.max == kUnbounded) {
    auto loop = Add({Kind::kSplit, 0, 0, 0, next, 0});
    if (!loop) return loop;
    auto body = Node(ast, child, *loop);
    if (!body) return body;
    states_[*loop].next = *body;
    current = *loop;
  } else {
    for (uint32_t i = node.min; i < node.max && current; ++i) {
      auto body = Node(ast, child, *current);
      if (!body) return body;
      current = Add({Kind::kSplit, 0, 0, *body, next, 0});
    }
  }
  for (uint32_t i = 0; i < node.min && current; ++i) {
    auto copy = Add({Kind::kJump, 0, 0, *current, 0, 0});  // charges empty bodies too
    if (!copy) return copy;
    current = Node(ast, child, *copy);
  }
  return current;
}

}  // namespace crux::constrain::regex
