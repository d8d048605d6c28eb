// The ECMAScript pattern parser: a recursive descent over the grammar of ECMA-262 §22.2.1 in
// non-unicode mode, with the Annex B leniencies schemas rely on (`]`, `{` and `}` as literals
// where they cannot start a class or a quantifier), into a RegexAst of code-point sets.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include "crux/base/utf8.h"
#include "regex_internal.h"

namespace crux::constrain::regex {
namespace {

constexpr size_t kMaxGroupDepth = 256;

// ECMAScript WhiteSpace and LineTerminator: the set of \s.
const CodePointSet& SpaceSet() {
  static const CodePointSet set = Normalize({{0x09, 0x0D},
                                             {0x20, 0x20},
                                             {0xA0, 0xA0},
                                             {0x1680, 0x1680},
                                             {0x2000, 0x200A},
                                             {0x2028, 0x2029},
                                             {0x202F, 0x202F},
                                             {0x205F, 0x205F},
                                             {0x3000, 0x3000},
                                             {0xFEFF, 0xFEFF}});
  return set;
}
const CodePointSet& DigitSet() {
  static const CodePointSet set = {{'0', '9'}};
  return set;
}
const CodePointSet& WordSet() {
  static const CodePointSet set = Normalize({{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}});
  return set;
}
// `.`: every code point but the line terminators.
const CodePointSet& DotSet() {
  static const CodePointSet set =
      Complement(Normalize({{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}}));
  return set;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One class atom: a code point, or a set for \d-style escapes.
struct ClassAtom {
  bool is_set = false;
  char32_t code_point = 0;
  CodePointSet set;
};

class Parser {
 public:
  explicit Parser(std::string_view pattern) : text_(pattern) {}

  Expected<RegexAst> Parse() {
    auto root = Disjunction();
    if (!root) return root.error();
    if (pos_ < text_.size()) return Invalid("unmatched `)`");
    ast_.root = *root;
    return std::move(ast_);
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }
  bool Accept(char c) {
    if (AtEnd() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  Error Invalid(std::string_view what) const {
    return Error(ErrorCode::kInvalidArgument,
                 "invalid pattern at byte " + std::to_string(pos_) + ": " + std::string(what));
  }
  Error Unsupported(std::string_view what) const {
    return Error(ErrorCode::kUnsupported, "pattern uses " + std::string(what) + " at byte " +
                                              std::to_string(pos_) + ", outside the subset");
  }
  uint32_t Add(RegexNode node) {
    ast_.nodes.push_back(std::move(node));
    return static_cast<uint32_t>(ast_.nodes.size() - 1);
  }
  uint32_t AddSet(CodePointSet set) {
    RegexNode node;
    node.kind = RegexNode::Kind::kSet;
    node.set = std::move(set);
    return Add(std::move(node));
  }

  Expected<uint32_t> Disjunction();
  Expected<uint32_t> Alternative();
  Expected<uint32_t> Term();
  Expected<uint32_t> Group();
  Expected<uint32_t> Quantified(uint32_t atom);
  bool ReadBraces(uint32_t& min, uint32_t& max);
  Expected<uint32_t> Class();
  Expected<ClassAtom> ClassAtomAt();
  Expected<ClassAtom> Escape(bool in_class);
  Expected<char32_t> HexEscape(size_t digits);
  Expected<char32_t> UnicodeEscape();
  Expected<char32_t> LiteralCodePoint();

  std::string_view text_;
  size_t pos_ = 0;
  size_t depth_ = 0;
  RegexAst ast_;
};

Expected<uint32_t> Parser::Disjunction() {
  if (++depth_ > kMaxGroupDepth) {
    return Error(ErrorCode::kLimit,
                 "pattern nests groups deeper than " + std::to_string(kMaxGroupDepth));
  }
  std::vector<uint32_t> branches;
  while (true) {
    auto branch = Alternative();
    if (!branch) return branch;
    branches.push_back(*branch);
    if (!Accept('|')) break;
  }
  --depth_;
  if (branches.size() == 1) return branches[0];
  RegexNode node;
  node.kind = RegexNode::Kind::kAlternation;
  node.children = std::move(branches);
  return Add(std::move(node));
}

Expected<uint32_t> Parser::Alternative() {
  std::vector<uint32_t> terms;
  while (!AtEnd() && Peek() != '|' && Peek() != ')') {
    auto term = Term();
    if (!term) return term;
    terms.push_back(*term);
  }
  if (terms.size() == 1) return terms[0];
  RegexNode node;
  node.kind = terms.empty() ? RegexNode::Kind::kEmpty : RegexNode::Kind::kConcat;
  node.children = std::move(terms);
  return Add(std::move(node));
}

Expected<uint32_t> Parser::Term() {
  const char c = Peek();
  RegexNode assertion;
  if (c == '^' || c == '$') {
    ++pos_;
    assertion.kind = c == '^' ? RegexNode::Kind::kLineStart : RegexNode::Kind::kLineEnd;
    if (!AtEnd() && std::string_view("*+?").find(Peek()) != std::string_view::npos) {
      return Invalid("nothing to repeat");
    }
    return Add(std::move(assertion));
  }
  if (c == '\\' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == 'b' || text_[pos_ + 1] == 'B')) {
    return Unsupported(text_[pos_ + 1] == 'b' ? "word boundary `\\b`" : "word boundary `\\B`");
  }
  Expected<uint32_t> atom = 0;
  if (c == '(') {
    atom = Group();
  } else if (c == '[') {
    atom = Class();
  } else if (c == '.') {
    ++pos_;
    atom = AddSet(DotSet());
  } else if (c == '*' || c == '+' || c == '?') {
    return Invalid("nothing to repeat");
  } else if (c == '{') {
    uint32_t min = 0;
    uint32_t max = 0;
    const size_t start = pos_;
    if (ReadBraces(min, max)) return Invalid("nothing to repeat");
    pos_ = start + 1;
    atom = AddSet({{'{', '{'}});
  } else if (c == '\\') {
    auto escape = Escape(false);
    if (!escape) return escape.error();
    atom = AddSet(escape->is_set ? std::move(escape->set)
                                 : CodePointSet{{escape->code_point, escape->code_point}});
  } else {
    auto code_point = LiteralCodePoint();
    if (!code_point) return code_point.error();
    atom = AddSet({{*code_point, *code_point}});
  }
  if (!atom) return atom;
  return Quantified(*atom);
}

Expected<uint32_t> Parser::Group() {
  ++pos_;  // (
  if (Accept('?')) {
    if (Accept(':')) {
    } else if (text_.substr(pos_, 1) == "=" || text_.substr(pos_, 1) == "!") {
      return Unsupported(Peek() == '=' ? "lookahead `(?=`" : "negative lookahead `(?!`");
    } else if (text_.substr(pos_, 2) == "<=" || text_.substr(pos_, 2) == "<!") {
      return Unsupported(text_[pos_ + 1] == '=' ? "lookbehind `(?<=`"
                                                : "negative lookbehind `(?<!`");
    } else if (Accept('<')) {
      const size_t close = text_.find('>', pos_);
      if (close == std::string_view::npos || close == pos_) return Invalid("bad group name");
      pos_ = close + 1;
    } else {
      return Unsupported("the group modifier `(?" + std::string(text_.substr(pos_, 1)) + "`");
    }
  }
  auto inner = Disjunction();
  if (!inner) return inner;
  if (!Accept(')')) return Invalid("unterminated group");
  return inner;
}

// Reads `{n}`, `{n,}` or `{n,m}` at pos_ (advancing past it); false, with pos_ anywhere, when
// the text there is not one. Counts saturate at kUnbounded - 1.
bool Parser::ReadBraces(uint32_t& min, uint32_t& max) {
  if (!Accept('{')) return false;
  auto number = [&](uint32_t& out) {
    const size_t start = pos_;
    uint64_t value = 0;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
      value = std::min<uint64_t>(value * 10 + static_cast<uint64_t>(Peek() - '0'), kUnbounded - 1);
      ++pos_;
    }
    out = static_cast<uint32_t>(value);
    return pos_ > start;
  };
  if (!number(min)) return false;
  max = min;
  if (Accept(',')) {
    max = kUnbounded;
    if (!AtEnd() && Peek() != '}' && !number(max)) return false;
  }
  return Accept('}');
}

Expected<uint32_t> Parser::Quantified(uint32_t atom) {
  if (AtEnd()) return atom;
  const size_t quantifier_begin = pos_;
  uint32_t min = 0;
  uint32_t max = 0;
  const char c = Peek();
  if (c == '*' || c == '+' || c == '?') {
    ++pos_;
    min = c == '+' ? 1 : 0;
    max = c == '?' ? 1 : kUnbounded;
  } else if (c == '{') {
    const size_t start = pos_;
    if (!ReadBraces(min, max)) {
      pos_ = start;  // a literal `{`, read by the next Term
      return atom;
    }
    if (min > max) return Invalid("numbers out of order in `{}` quantifier");
  } else {
    return atom;
  }
  Accept('?');  // lazy: the same language
  const size_t quantifier_end = pos_;
  if (!AtEnd() && std::string_view("*+?{").find(Peek()) != std::string_view::npos) {
    uint32_t ignored_min = 0;
    uint32_t ignored_max = 0;
    const size_t start = pos_;
    const bool braces = Peek() != '{' || ReadBraces(ignored_min, ignored_max);
    pos_ = start;
    if (braces) return Invalid("nothing to repeat");
  }
  RegexNode node;
  node.kind = RegexNode::Kind::kRepeat;
  node.children = {atom};
  node.min = min;
  node.max = max;
  node.quantifier_begin = static_cast<uint32_t>(quantifier_begin);
  node.quantifier_end = static_cast<uint32_t>(quantifier_end);
  return Add(std::move(node));
}

Expected<uint32_t> Parser::Class() {
  ++pos_;  // [
  const bool negated = Accept('^');
  std::vector<CodePointRange> ranges;
  while (true) {
    if (AtEnd()) return Invalid("unterminated character class");
    if (Accept(']')) break;
    auto first = ClassAtomAt();
    if (!first) return first.error();
    const bool range = pos_ + 1 < text_.size() && Peek() == '-' && text_[pos_ + 1] != ']';
    if (!range || first->is_set) {
      if (first->is_set) {
        ranges.insert(ranges.end(), first->set.begin(), first->set.end());
      } else {
        ranges.push_back({first->code_point, first->code_point});
      }
      continue;
    }
    ++pos_;  // -
    auto last = ClassAtomAt();
    if (!last) return last.error();
    if (last->is_set) {  // Annex B: `[a-\d]` is a, -, and the digits
      ranges.push_back({first->code_point, first->code_point});
      ranges.push_back({'-', '-'});
      ranges.insert(ranges.end(), last->set.begin(), last->set.end());
      continue;
    }
    if (last->code_point < first->code_point) return Invalid("range out of order in class");
    ranges.push_back({first->code_point, last->code_point});
  }
  CodePointSet set = Normalize(std::move(ranges));
  return AddSet(negated ? Complement(set) : std::move(set));
}

Expected<ClassAtom> Parser::ClassAtomAt() {
  if (Peek() == '\\') {
    if (pos_ + 1 < text_.size() && text_[pos_ + 1] == 'b') {
      pos_ += 2;
      return ClassAtom{false, 0x08, {}};  // backspace inside a class
    }
    return Escape(true);
  }
  auto code_point = LiteralCodePoint();
  if (!code_point) return code_point.error();
  return ClassAtom{false, *code_point, {}};
}

// An escape at pos_ (the backslash), outside a class or inside one.
// The set of a class escape (`\\d`, `\\w`, `\\s`, upper case: its complement, by the caller).
CodePointSet ClassEscapeSet(char c) {
  if (c == 'd' || c == 'D') return DigitSet();
  if (c == 'w' || c == 'W') return WordSet();
  return SpaceSet();
}

// The character of a one-letter control escape (`\\n`, `\\t`, `\\r`, `\\f`, `\\v`).
char32_t ControlEscape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case 'f':
      return '\f';
    default:
      return '\v';
  }
}

Expected<ClassAtom> Parser::Escape(bool in_class) {
  ++pos_;
  if (AtEnd()) return Invalid("`\\` at the end of the pattern");
  const char c = Peek();
  ++pos_;
  auto set = [](const CodePointSet& s, bool complement) {
    return ClassAtom{true, 0, complement ? Complement(s) : s};
  };
  auto single = [](char32_t code_point) { return ClassAtom{false, code_point, {}}; };
  switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 's':
    case 'S':
      return set(ClassEscapeSet(c), c == 'D' || c == 'W' || c == 'S');
    case 'n':
    case 't':
    case 'r':
    case 'f':
    case 'v':
      return single(ControlEscape(c));
    case 'x': {
      auto value = HexEscape(2);
      if (!value) return value.error();
      return single(*value);
    }
    case 'u': {
      auto value = UnicodeEscape();
      if (!value) return value.error();
      return single(*value);
    }
    case 'c':
      if (!AtEnd() && std::isalpha(static_cast<unsigned char>(Peek()))) {
        return single(static_cast<char32_t>(text_[pos_++]) % 32);
      }
      return Unsupported("the control escape `\\c` without a letter");
    case '0':
      if (!AtEnd() && Peek() >= '0' && Peek() <= '9') return Unsupported("octal escape `\\0`");
      return single(0);
    case 'k':
      return Unsupported("named backreference `\\k`");
    case 'p':
    case 'P':
      return Unsupported(c == 'p' ? "property escape `\\p`" : "property escape `\\P`");
    default:
      break;
  }
  if (c >= '1' && c <= '9') {
    return Unsupported(std::string(in_class ? "octal escape `\\" : "backreference `\\") + c + "`");
  }
  if (std::isalnum(static_cast<unsigned char>(c))) {
    return Unsupported(std::string("escape `\\") + c + "`");
  }
  --pos_;
  auto code_point = LiteralCodePoint();  // an escaped metacharacter or other symbol
  if (!code_point) return code_point.error();
  return single(*code_point);
}

Expected<char32_t> Parser::HexEscape(size_t digits) {
  char32_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    const int digit = pos_ + i < text_.size() ? HexValue(text_[pos_ + i]) : -1;
    if (digit < 0) return Unsupported("a malformed hex escape");
    value = value * 16 + static_cast<char32_t>(digit);
  }
  pos_ += digits;
  return value;
}

// \uHHHH, with a following \uHHHH low surrogate combined into one code point. A lone
// surrogate is kept as itself: no well-formed UTF-8 encodes it, so it matches nothing.
Expected<char32_t> Parser::UnicodeEscape() {
  if (!AtEnd() && Peek() == '{') return Unsupported("`\\u{…}` (unicode mode only)");
  auto high = HexEscape(4);
  if (!high) return high;
  if (*high < 0xD800 || *high > 0xDBFF || text_.substr(pos_, 2) != "\\u") return high;
  const size_t saved = pos_;
  pos_ += 2;
  auto low = HexEscape(4);
  if (!low || *low < 0xDC00 || *low > 0xDFFF) {
    pos_ = saved;
    return high;
  }
  return 0x10000 + ((*high - 0xD800) << 10) + (*low - 0xDC00);
}

Expected<char32_t> Parser::LiteralCodePoint() {
  const utf8::CharSpan span = utf8::NextChar(text_.substr(pos_));
  if (!span.valid) return Invalid("ill-formed UTF-8");
  const auto* bytes = reinterpret_cast<const unsigned char*>(text_.data() + pos_);
  char32_t value = span.length == 1 ? bytes[0] : bytes[0] & (0x7F >> span.length);
  for (size_t i = 1; i < span.length; ++i)
    value = (value << 6) | (bytes[i] & 0x3F);
  pos_ += span.length;
  return value;
}

}  // namespace

CodePointSet Normalize(std::vector<CodePointRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const CodePointRange& a, const CodePointRange& b) { return a.first < b.first; });
  CodePointSet out;
  for (const CodePointRange& range : ranges) {
    if (!out.empty() && range.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, range.last);
    } else {
      out.push_back(range);
    }
  }
  return out;
}

CodePointSet Complement(const CodePointSet& set) {
  CodePointSet out;
  char32_t next = 0;
  for (const CodePointRange& range : set) {
    if (range.first > next) out.push_back({next, range.first - 1});
    next = range.last + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return out;
}

namespace {

// The end of the group or class opening at `open`, skipping escapes and classes; npos when it
// is unterminated. With `find_bar`, instead the first `|` outside any group from `open` on.
size_t Scan(std::string_view text, size_t open, bool find_bar) {
  int depth = 0;
  bool in_class = false;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (text.substr(i + 1, 1) == "]") ++i;  // `[]` is the empty class
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0 && !find_bar) return i;
    } else if (c == '|' && depth == 0 && find_bar) {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<PatternTrack> SplitLeadingLookaheads(std::string_view pattern) {
  std::vector<PatternTrack> lookaheads;
  size_t pos = 1;
  while (pattern.substr(0, 1) == "^" &&
         (pattern.substr(pos, 3) == "(?!" || pattern.substr(pos, 3) == "(?=")) {
    const size_t close = Scan(pattern, pos, false);
    if (close == std::string_view::npos) break;
    const std::string_view inner = pattern.substr(pos + 3, close - pos - 3);
    std::string track = "^(?:";  // appended piecewise: g++ 12 misreads the + chain
    track += inner;
    track += ')';
    lookaheads.push_back({std::move(track), pattern[pos + 2] == '!'});
    pos = close + 1;
  }
  const std::string_view rest = pattern.substr(std::min(pos, pattern.size()));
  if (lookaheads.empty() || Scan(rest, 0, true) != std::string_view::npos) {
    return {{std::string(pattern), false}};
  }
  std::string main_track = "^";
  main_track += rest;
  std::vector<PatternTrack> tracks = {{std::move(main_track), false}};
  tracks.insert(tracks.end(), lookaheads.begin(), lookaheads.end());
  return tracks;
}

Expected<RegexAst> ParseRegex(std::string_view pattern) {
  return Parser(pattern).Parse();
}

}  // namespace crux::constrain::regex
