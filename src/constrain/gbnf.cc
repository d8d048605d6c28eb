// GbnfWriter: rule bookkeeping, literals, JSON building blocks and the text automata. The
// schema's rules are in gbnf_schema.cc.
#include "crux/constrain/gbnf.h"

#include <algorithm>
#include <utility>

#include "crux/base/check.h"
#include "crux/base/utf8.h"
#include "gbnf_internal.h"

namespace crux::constrain {
namespace {

constexpr std::string_view kHexDigits = "0123456789ABCDEF";

bool IsNameChar(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
}

void AppendHexEscape(std::string& out, uint32_t value) {
  out += "\\x";
  out += kHexDigits[(value >> 4) & 0xF];
  out += kHexDigits[value & 0xF];
}

// What text::IsSpace calls a blank (the families' parsers trim these).
constexpr char32_t kBlanks[] = {U' ', U'\t', U'\n', U'\r', U'\f', U'\v'};

bool IsBlank(char32_t cp) {
  return std::find(std::begin(kBlanks), std::end(kBlanks), cp) != std::end(kBlanks);
}

// The KMP automaton of a marker over code points.
class Kmp {
 public:
  explicit Kmp(std::vector<char32_t> marker) : marker_(std::move(marker)) {
    failure_.assign(marker_.size(), 0);
    uint32_t k = 0;
    for (size_t i = 1; i < marker_.size(); ++i) {
      while (k > 0 && marker_[i] != marker_[k])
        k = failure_[k - 1];
      if (marker_[i] == marker_[k]) ++k;
      failure_[i] = k;
    }
    distinct_ = marker_;
    std::sort(distinct_.begin(), distinct_.end());
    distinct_.erase(std::unique(distinct_.begin(), distinct_.end()), distinct_.end());
  }

  uint32_t size() const { return static_cast<uint32_t>(marker_.size()); }
  const std::vector<char32_t>& distinct() const { return distinct_; }

  // The state after `cp` in state `state` (< size()).
  uint32_t Step(uint32_t state, char32_t cp) const {
    while (state > 0 && marker_[state] != cp)
      state = failure_[state - 1];
    return marker_[state] == cp ? state + 1 : 0;
  }

  // True when, from `state`, feeding `end` first completes the marker where `end`'s own first
  // occurrence of it ends (never, when `end` holds none).
  bool EndsRight(uint32_t state, const std::vector<char32_t>& end) const {
    const auto found = std::search(end.begin(), end.end(), marker_.begin(), marker_.end());
    for (size_t j = 0; j < end.size(); ++j) {
      state = Step(state, end[j]);
      if (state == size()) {
        return found != end.end() && j + 1 == static_cast<size_t>(found - end.begin()) + size();
      }
    }
    return found == end.end();
  }

 private:
  std::vector<char32_t> marker_;
  std::vector<uint32_t> failure_;
  std::vector<char32_t> distinct_;
};

// The rules of one GbnfText request: states are (KMP state, mode).
class TextAutomaton {
 public:
  enum Mode : uint8_t { kAny, kStart, kAfterText, kAfterBlank };

  TextAutomaton(GbnfWriter& writer, const GbnfText& rule)
      : writer_(writer),
        rule_(rule),
        kmp_(gbnf::CodePoints(rule.marker)),
        end_(gbnf::CodePoints(rule.end)),
        excluded_(gbnf::CodePoints(rule.excluded)) {
    const std::vector<char32_t> marker = gbnf::CodePoints(rule.marker);
    // Without trimming, an end that starts with the marker is reached by the automaton's own
    // last transition: one parse per text, where a separate end literal would keep two.
    deterministic_ = !rule.trimmed && end_.size() >= marker.size() &&
                     std::equal(marker.begin(), marker.end(), end_.begin());
    rest_ = deterministic_ ? std::vector<char32_t>(end_.begin() + marker.size(), end_.end())
                           : std::vector<char32_t>();
    base_ = writer_.NewName("text");
  }

  std::string Build() {
    const std::string root = State(0, rule_.trimmed ? kStart : kAny);
    for (size_t next = 0; next < pending_.size(); ++next) {
      const auto [state, mode] = pending_[next];
      writer_.AddRule(names_[{state, mode}], Body(state, static_cast<Mode>(mode)));
    }
    return root;
  }

 private:
  std::string State(uint32_t state, Mode mode) {
    auto [it, added] = names_.try_emplace({state, mode});
    if (added) {
      static constexpr std::string_view kSuffix[] = {"", "s", "t", "b"};
      // The first state (where the text starts) is the automaton's name.
      it->second = names_.size() == 1
                       ? base_
                       : writer_.NewName(base_.substr(writer_.prefix().size()) + "-" +
                                         std::to_string(state) + std::string(kSuffix[mode]));
      pending_.emplace_back(state, mode);
    }
    return it->second;
  }

  bool Excluded(char32_t cp) const {
    return std::find(excluded_.begin(), excluded_.end(), cp) != excluded_.end();
  }

  Mode After(char32_t cp) const {
    if (!rule_.trimmed) return kAny;
    return IsBlank(cp) ? kAfterBlank : kAfterText;
  }

  std::string Body(uint32_t state, Mode mode);

  GbnfWriter& writer_;
  const GbnfText& rule_;
  Kmp kmp_;
  std::vector<char32_t> end_;
  std::vector<char32_t> excluded_;
  std::vector<char32_t> rest_;
  bool deterministic_ = false;
  std::string base_;
  std::map<std::pair<uint32_t, uint8_t>, std::string> names_;
  std::vector<std::pair<uint32_t, uint8_t>> pending_;
};

std::string TextAutomaton::Body(uint32_t state, Mode mode) {
  std::vector<std::string> alternatives;
  std::vector<char32_t> special = excluded_;  // out of the "any other character" class
  for (const char32_t cp : kmp_.distinct()) {
    const uint32_t next = kmp_.Step(state, cp);
    if (next == 0 || Excluded(cp)) continue;
    special.push_back(cp);
    if (next == kmp_.size()) {
      std::vector<char32_t> last = {cp};
      last.insert(last.end(), rest_.begin(), rest_.end());
      if (deterministic_) alternatives.push_back(GbnfWriter::Literal(gbnf::Utf8(last)));
      continue;
    }
    if (mode == kStart && IsBlank(cp)) continue;
    alternatives.push_back(gbnf::CodePointLiteral(cp) + " " + State(next, After(cp)));
  }
  std::vector<char32_t> blanks;
  if (rule_.trimmed) {
    for (const char32_t blank : kBlanks) {
      if (std::find(special.begin(), special.end(), blank) == special.end())
        blanks.push_back(blank);
    }
    special.insert(special.end(), std::begin(kBlanks), std::end(kBlanks));
  }
  alternatives.push_back(gbnf::CharClass(special, true) + " " +
                         State(0, rule_.trimmed ? kAfterText : kAny));
  if (mode != kStart && !blanks.empty()) {
    alternatives.push_back(gbnf::CharClass(blanks, false) + " " + State(0, kAfterBlank));
  }
  const bool can_end = !deterministic_ && mode != kAfterBlank && kmp_.EndsRight(state, end_);
  std::string body = GbnfWriter::Alternatives(alternatives);
  if (!can_end) return body;
  if (end_.empty()) return "( " + body + " )?";
  return body + " | " + GbnfWriter::Literal(rule_.end);
}

}  // namespace

namespace gbnf {

std::vector<char32_t> CodePoints(std::string_view text) {
  std::vector<char32_t> out;
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const utf8::CharSpan span = utf8::NextChar(text.substr(i));
    if (!span.valid) {
      out.push_back(lead);  // a byte that is not UTF-8: the code point of its value
      ++i;
      continue;
    }
    char32_t cp = span.length == 1 ? lead : lead & (0x7F >> span.length);
    for (size_t k = 1; k < span.length; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    out.push_back(cp);
    i += span.length;
  }
  return out;
}

std::string Utf8(const std::vector<char32_t>& code_points) {
  std::string out;
  for (const char32_t cp : code_points)
    utf8::AppendCodePoint(out, cp);
  return out;
}

std::string CodePointLiteral(char32_t cp) {
  std::string text;
  utf8::AppendCodePoint(text, cp);
  return GbnfWriter::Literal(text);
}

std::string CharClass(std::vector<char32_t> code_points, bool negated) {
  std::sort(code_points.begin(), code_points.end());
  code_points.erase(std::unique(code_points.begin(), code_points.end()), code_points.end());
  std::string out = negated ? "[^" : "[";
  for (const char32_t cp : code_points) {
    // Characters a class gives a meaning to, and control characters, as \xHH: llama.cpp and
    // xgrammar read that the same way.
    if (cp < 0x20 || cp == 0x7F || cp == '\\' || cp == ']' || cp == '[' || cp == '-' || cp == '^' ||
        cp == '"') {
      AppendHexEscape(out, cp);
    } else {
      utf8::AppendCodePoint(out, cp);
    }
  }
  return out + "]";
}

namespace {

// True when `item` is one quoted literal (what Literal writes).
bool IsLiteral(std::string_view item) {
  if (item.size() < 2 || item.front() != '"' || item.back() != '"') return false;
  for (size_t i = 1; i + 1 < item.size(); ++i) {
    if (item[i] == '\\') {
      ++i;
    } else if (item[i] == '"') {
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace gbnf

std::string GbnfWriter::Alternatives(const std::vector<std::string>& alternatives) {
  std::string out;
  for (const std::string& alternative : alternatives) {
    if (!out.empty()) out += " | ";
    out += alternative;
  }
  return out;
}

std::string GbnfWriter::Sequence(const std::vector<std::string>& items) {
  std::string out;
  bool literal_last = false;  // out ends with a literal: the next one joins it
  for (const std::string& item : items) {
    if (item.empty() || item == "\"\"") continue;
    const bool literal = gbnf::IsLiteral(item);
    if (literal && literal_last) {
      out.pop_back();
      out.append(item, 1);
      continue;
    }
    if (!out.empty()) out += ' ';
    out += item;
    literal_last = literal;
  }
  return out;
}

GbnfWriter::GbnfWriter(std::string prefix) : prefix_(std::move(prefix)) {
  // xgrammar's names start with a letter.
  CRUX_CHECK(std::all_of(prefix_.begin(), prefix_.end(), IsNameChar));
  CRUX_CHECK(prefix_.empty() || (prefix_[0] >= 'a' && prefix_[0] <= 'z'));
  names_.emplace("root", 1);
}

std::string GbnfWriter::Literal(std::string_view text) {
  std::string out = "\"";
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      const utf8::CharSpan span = utf8::NextChar(text.substr(i));
      if (span.valid) {
        out.append(text.substr(i, span.length));
        i += span.length;
      } else {
        AppendHexEscape(out, byte);
        ++i;
      }
      continue;
    }
    ++i;
    switch (byte) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20 || byte == 0x7F) {
          AppendHexEscape(out, byte);
        } else {
          out += static_cast<char>(byte);
        }
    }
  }
  return out + "\"";
}

std::string GbnfWriter::NewName(std::string_view hint) {
  std::string base = prefix_;
  for (const char ch : hint) {
    if (ch >= 'A' && ch <= 'Z') {
      base += static_cast<char>(ch - 'A' + 'a');
    } else {
      base += IsNameChar(ch) ? ch : '-';
    }
  }
  std::string name = base;
  while (names_.contains(name)) {
    uint32_t& next = names_[base];
    name = base + "-" + std::to_string(next++);
  }
  names_.emplace(name, 1);
  return name;
}

void GbnfWriter::AddRule(std::string name, std::string body) {
  names_.try_emplace(name, 1);
  rules_.emplace_back(std::move(name), std::move(body));
}

void GbnfWriter::Loosen(std::string what) {
  if (std::find(loosened_.begin(), loosened_.end(), what) == loosened_.end())
    loosened_.push_back(std::move(what));
}

std::string GbnfWriter::Text(std::string_view root_body) const {
  std::string out = "root ::= ";
  out.append(root_body).append("\n");
  for (const auto& [name, body] : rules_)
    out.append(name).append(" ::= ").append(body).append("\n");
  return out;
}

std::string GbnfWriter::Shared(std::string_view hint, const std::function<std::string()>& body) {
  auto found = shared_.find(hint);
  if (found != shared_.end()) return found->second;
  const std::string name = NewName(hint);
  shared_.emplace(std::string(hint), name);
  AddRule(name, body());
  return name;
}

std::string GbnfWriter::Whitespace(uint32_t max_whitespace) {
  if (max_whitespace == 0) return "";
  return Shared("ws" + std::to_string(max_whitespace),
                [&] { return "[ \\t\\n\\r]{0," + std::to_string(max_whitespace) + "}"; });
}

std::string GbnfWriter::JsonChar() {
  return Shared("char", [] {
    // One code point of a string's contents: plain, a short escape, or \u (a high surrogate
    // only before a low one, as crux's matcher and the validator count code points).
    return R"([^\x22\x5C\x00-\x1F] | "\\" ( [\x22\x5C/bfnrt] | "u" )"
           R"(( [0-9a-cA-Ce-fE-F] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} | )"
           R"([dD] [89abAB] [0-9a-fA-F]{2} "\\u" [dD] [c-fC-F] [0-9a-fA-F]{2} ) ))";
  });
}

std::string GbnfWriter::JsonString() {
  const std::string ch = JsonChar();
  return Shared("string", [&] { return "\"\\\"\" " + ch + "* \"\\\"\""; });
}

std::string GbnfWriter::JsonNumber(JsonNumberKind kind) {
  switch (kind) {
    case JsonNumberKind::kInteger:
      return Shared("integer", [] { return R"("-"? ( "0" | [1-9] [0-9]* ))"; });
    case JsonNumberKind::kNonNegativeInteger:
      return Shared("integer-nonneg", [] { return R"("0" | [1-9] [0-9]*)"; });
    case JsonNumberKind::kPositiveInteger:
      return Shared("integer-pos", [] { return R"([1-9] [0-9]*)"; });
    case JsonNumberKind::kNumber:
      return Shared("number", [] {
        return R"("-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [+\x2D]? [0-9]+ )?)";
      });
    case JsonNumberKind::kNonNegativeNumber:
      return Shared("number-nonneg", [] {
        return R"(( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [+\x2D]? [0-9]+ )?)";
      });
  }
  return "";
}

std::string GbnfWriter::Never() {
  // No code point is outside this class: the rule matches nothing.
  return Shared("never", [] { return R"([^\x00-\U0010FFFF])"; });
}

std::string GbnfWriter::AddJsonValue(const GbnfOptions& options) {
  const uint32_t max_ws = options.max_whitespace;
  const std::string suffix = "-w" + std::to_string(max_ws);
  auto found = shared_.find("value" + suffix);
  if (found != shared_.end()) return found->second;
  const std::string ws = Whitespace(max_ws);
  const std::string string = JsonString();
  const std::string number = JsonNumber(JsonNumberKind::kNumber);
  const std::string value = NewName("value" + suffix);
  shared_.emplace("value" + suffix, value);
  const std::string object = NewName("object" + suffix);
  const std::string array = NewName("array" + suffix);
  const std::string member = NewName("member" + suffix);
  const std::string comma = GbnfWriter::Sequence({ws, "\",\"", ws});
  AddRule(value, GbnfWriter::Alternatives(
                     {object, array, string, number, "\"true\"", "\"false\"", "\"null\""}));
  AddRule(object, GbnfWriter::Sequence(
                      {"\"{\"", ws, "(", member, "(", comma, member, ")*", ws, ")?", "\"}\""}));
  AddRule(member, GbnfWriter::Sequence({string, ws, "\":\"", ws, value}));
  AddRule(array, GbnfWriter::Sequence(
                     {"\"[\"", ws, "(", value, "(", comma, value, ")*", ws, ")?", "\"]\""}));
  return value;
}

std::string GbnfWriter::AddText(const GbnfText& rule) {
  CRUX_CHECK(!rule.marker.empty());
  std::string key = "text\x1F";
  key.append(rule.marker).append("\x1F").append(rule.end).append("\x1F").append(rule.excluded);
  key += rule.trimmed ? 't' : 'f';
  auto found = shared_.find(key);
  if (found != shared_.end()) return found->second;
  TextAutomaton automaton(*this, rule);
  std::string root = automaton.Build();
  shared_.emplace(std::move(key), root);
  return root;
}

std::string GbnfWriter::AddTextUntil(std::string_view marker) {
  return AddText({.marker = marker, .end = marker});
}

std::string GbnfWriter::AddTextWithout(std::string_view marker) {
  return AddText({.marker = marker});
}

GbnfList GbnfWriter::AddList(const std::vector<GbnfItem>& items, std::string_view separator,
                             std::string_view extra) {
  // after[i]: items i.. when one was written (each preceded by the separator); first[i]: when
  // none was yet (one must be). One rule each: O(n) rules for every subset in order.
  const size_t n = items.size();
  const std::string base = NewName("list");
  std::vector<std::string> after(n + 1);
  std::vector<std::string> first(n + 1);
  if (!extra.empty()) {
    after[n] = NewName(base.substr(prefix_.size()) + "-more");
    AddRule(after[n],
            "( " + GbnfWriter::Sequence({std::string(separator), std::string(extra)}) + " )*");
    first[n] = NewName(base.substr(prefix_.size()) + "-extra");
    AddRule(first[n], GbnfWriter::Sequence({std::string(extra), after[n]}));
  }
  bool can_be_empty = true;
  for (size_t i = n; i-- > 0;) {
    const GbnfItem& item = items[i];
    const std::string step = GbnfWriter::Sequence({std::string(separator), item.rule});
    std::string after_body = item.required ? GbnfWriter::Sequence({step, after[i + 1]})
                                           : GbnfWriter::Sequence({"(", step, ")?", after[i + 1]});
    std::string first_body = GbnfWriter::Sequence({item.rule, after[i + 1]});
    if (!item.required && !first[i + 1].empty()) first_body += " | " + first[i + 1];
    can_be_empty = can_be_empty && !item.required;
    const std::string hint = base.substr(prefix_.size()) + "-" + std::to_string(i);
    if (!after_body.empty() && i > 0) {  // after[0] is never asked for
      after[i] = NewName(hint + "a");
      AddRule(after[i], std::move(after_body));
    }
    first[i] = NewName(hint + "f");
    AddRule(first[i], first_body);
  }
  return {first[0], can_be_empty};
}

std::string GbnfWriter::AddSchema(const SchemaIr& ir, const GbnfOptions& options) {
  return AddSchemaValues(ir, {GbnfValue{}}, options)[0];
}

}  // namespace crux::constrain
