#include "chat_template/lexer.h"

#include <algorithm>
#include <cstdlib>

#include "chat_template/python.h"

namespace crux::chat_template {
namespace {

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsNameChar(char c) {
  return IsNameStart(c) || IsDigit(c);
}
bool IsBlank(char c) {
  return python::IsSpace(c);
}

// \r\n and \r become \n; one trailing newline goes (keep_trailing_newline=False).
std::string NormaliseNewlines(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string source) : source_(std::move(source)) {
    for (size_t i = 0; i < source_.size(); ++i) {
      if (source_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  Expected<std::vector<Token>> Run();

 private:
  void Location(size_t offset, int& line, int& column) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    line = static_cast<int>(it - line_starts_.begin());
    column = static_cast<int>(offset - *(it - 1)) + 1;
  }
  Error Fail(size_t offset, const std::string& message) const {
    int line = 0;
    int column = 0;
    Location(offset, line, column);
    return Error(ErrorCode::kParse, "line " + std::to_string(line) + ", column " +
                                        std::to_string(column) + ": " + message);
  }
  void Push(TokenKind kind, std::string text, size_t offset) {
    Token token{kind, std::move(text)};
    Location(offset, token.line, token.column);
    tokens_.push_back(std::move(token));
  }
  void EmitData(std::string text, size_t offset, char sign, bool is_variable);
  void SkipAfterEnd(bool strip, bool keep) {
    if (strip) {
      while (pos_ < source_.size() && IsBlank(source_[pos_]))
        ++pos_;
    } else if (!keep && pos_ < source_.size() && source_[pos_] == '\n') {
      ++pos_;  // trim_blocks
    }
    line_starting_ = pos_ > 0 && source_[pos_ - 1] == '\n';
  }
  bool Comment(size_t open);
  bool RawBlock(size_t open);
  Expected<bool> Tag(bool is_block);
  bool TagEnd(bool is_block);
  Expected<bool> TagToken();
  bool Number();
  Expected<bool> StringLiteral();

  std::string source_;
  std::vector<size_t> line_starts_{0};
  std::vector<Token> tokens_;
  std::vector<char> brackets_;
  size_t pos_ = 0;
  bool line_starting_ = true;
  std::string error_;
};

void Lexer::EmitData(std::string text, size_t offset, char sign, bool is_variable) {
  if (sign == '-') {
    while (!text.empty() && IsBlank(text.back()))
      text.pop_back();
  } else if (sign != '+' && !is_variable) {
    const size_t newline = text.rfind('\n');
    const size_t l_pos = newline == std::string::npos ? 0 : newline + 1;
    if (l_pos > 0 || line_starting_) {
      bool blank = l_pos < text.size();
      for (size_t i = l_pos; i < text.size() && blank; ++i)
        blank = IsBlank(text[i]);
      if (blank) text.resize(l_pos);
    }
  }
  if (!text.empty()) Push(TokenKind::kData, std::move(text), offset);
}

bool Lexer::Comment(size_t open) {
  const size_t close = source_.find("#}", open + 2);
  if (close == std::string::npos) return false;
  const char before = close > open + 2 ? source_[close - 1] : '\0';
  pos_ = close + 2;
  SkipAfterEnd(before == '-', before == '+');
  return true;
}

// {% raw %}…{% endraw %}: the text between is data, tags and all.
bool Lexer::RawBlock(size_t open) {
  size_t search = pos_;
  while (true) {
    const size_t tag = source_.find("{%", search);
    if (tag == std::string::npos) return false;
    size_t i = tag + 2;
    const char sign =
        i < source_.size() && (source_[i] == '-' || source_[i] == '+') ? source_[i] : 0;
    if (sign) ++i;
    while (i < source_.size() && IsBlank(source_[i]))
      ++i;
    if (source_.compare(i, 6, "endraw") != 0) {
      search = tag + 2;
      continue;
    }
    i += 6;
    while (i < source_.size() && IsBlank(source_[i]))
      ++i;
    const char end_sign =
        i < source_.size() && (source_[i] == '-' || source_[i] == '+') ? source_[i] : 0;
    if (end_sign) ++i;
    if (source_.compare(i, 2, "%}") != 0) {
      search = tag + 2;
      continue;
    }
    EmitData(source_.substr(pos_, tag - pos_), open, sign, false);
    pos_ = i + 2;
    SkipAfterEnd(end_sign == '-', end_sign == '+');
    return true;
  }
}

Expected<std::vector<Token>> Lexer::Run() {
  while (pos_ < source_.size()) {
    size_t open = pos_;
    while (true) {
      open = source_.find('{', open);
      if (open == std::string::npos || open + 1 >= source_.size()) break;
      const char next = source_[open + 1];
      if (next == '{' || next == '%' || next == '#') break;
      ++open;
    }
    if (open == std::string::npos || open + 1 >= source_.size()) {
      Push(TokenKind::kData, source_.substr(pos_), pos_);
      break;
    }
    const char type = source_[open + 1];
    const char sign = open + 2 < source_.size() ? source_[open + 2] : '\0';
    const char strip = sign == '-' || sign == '+' ? sign : '\0';
    EmitData(source_.substr(pos_, open - pos_), pos_, strip, type == '{');
    pos_ = open + 2 + (strip ? 1 : 0);
    if (type == '#') {
      if (!Comment(open)) return Fail(open, "missing end of comment tag");
      continue;
    }
    if (type == '%') {
      size_t i = pos_;
      while (i < source_.size() && IsBlank(source_[i]))
        ++i;
      size_t j = i + 3;
      if (source_.compare(i, 3, "raw") == 0 && (j >= source_.size() || !IsNameChar(source_[j]))) {
        while (j < source_.size() && IsBlank(source_[j]))
          ++j;
        const bool strip_after = j < source_.size() && source_[j] == '-';
        if (strip_after) ++j;
        if (source_.compare(j, 2, "%}") == 0) {
          // {% raw %} or {% raw -%}: no trim_blocks newline after it, as in Jinja2.
          pos_ = j + 2;
          SkipAfterEnd(strip_after, true);
          if (!RawBlock(open)) return Fail(open, "missing end of raw directive");
          continue;
        }
      }
    }
    Push(type == '%' ? TokenKind::kBlockBegin : TokenKind::kVarBegin, "", open);
    auto done = Tag(type == '%');
    if (!done.ok()) return done.error();
  }
  Push(TokenKind::kEnd, "", source_.size());
  return std::move(tokens_);
}

// The end of the tag at pos_ ("-%}", "+%}", "%}", "-}}", "}}"), consumed when there.
bool Lexer::TagEnd(bool is_block) {
  const char* end = is_block ? "%}" : "}}";
  char sign = source_[pos_];
  size_t at = pos_;
  if (sign == '-' || (is_block && sign == '+')) {
    ++at;
  } else {
    sign = '\0';
  }
  if (source_.compare(at, 2, end) != 0) return false;
  Push(is_block ? TokenKind::kBlockEnd : TokenKind::kVarEnd, "", pos_);
  pos_ = at + 2;
  if (is_block) {
    SkipAfterEnd(sign == '-', sign == '+');
  } else {
    SkipAfterEnd(sign == '-', true);
  }
  return true;
}

Expected<bool> Lexer::Tag(bool is_block) {
  brackets_.clear();
  while (true) {
    while (pos_ < source_.size() && IsBlank(source_[pos_]))
      ++pos_;
    if (pos_ >= source_.size()) return Fail(pos_, "unexpected end of template");
    if (brackets_.empty() && TagEnd(is_block)) return true;
    auto token = TagToken();
    if (!token.ok()) return token.error();
  }
}

bool Lexer::Number() {
  const size_t start = pos_;
  auto digits = [&] {
    const size_t from = pos_;
    while (pos_ < source_.size() &&
           (IsDigit(source_[pos_]) || (source_[pos_] == '_' && pos_ + 1 < source_.size() &&
                                       IsDigit(source_[pos_ + 1]) && pos_ > from))) {
      ++pos_;
    }
    return pos_ > from;
  };
  digits();
  bool is_float = false;
  if (pos_ + 1 < source_.size() && source_[pos_] == '.' && IsDigit(source_[pos_ + 1])) {
    ++pos_;
    digits();
    is_float = true;
  }
  if (pos_ < source_.size() && (source_[pos_] == 'e' || source_[pos_] == 'E')) {
    const size_t mark = pos_;
    ++pos_;
    if (pos_ < source_.size() && (source_[pos_] == '+' || source_[pos_] == '-')) ++pos_;
    if (digits()) {
      is_float = true;
    } else {
      pos_ = mark;
    }
  }
  std::string text;
  for (size_t i = start; i < pos_; ++i) {
    if (source_[i] != '_') text += source_[i];
  }
  Push(is_float ? TokenKind::kFloat : TokenKind::kInteger, text, start);
  if (is_float) {
    tokens_.back().number = std::strtod(text.c_str(), nullptr);
  } else {
    errno = 0;
    tokens_.back().integer = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) return false;
  }
  return true;
}

// Decodes one backslash escape at source_[i] (after the backslash) into `out`; returns the
// index after it.
size_t DecodeEscape(const std::string& s, size_t i, std::string& out) {
  const char c = s[i];
  const auto simple = std::string_view("\\'\"abfnrtv");
  const auto value = std::string_view("\\'\"\a\b\f\n\r\t\v");
  if (const size_t k = simple.find(c); k != std::string_view::npos) {
    out += value[k];
    return i + 1;
  }
  if (c == '\n') return i + 1;
  size_t width = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
  if (width && i + width < s.size()) {
    uint32_t cp = 0;
    for (size_t k = 1; k <= width; ++k) {
      const char h = s[i + k];
      const int d = IsDigit(h)               ? h - '0'
                    : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                             : -1;
      if (d < 0) {
        width = 0;
        break;
      }
      cp = cp * 16 + static_cast<uint32_t>(d);
    }
    if (width && cp <= 0x10ffff) {
      python::AppendUtf8(out, cp);
      return i + 1 + width;
    }
  }
  if (c >= '0' && c <= '7') {
    uint32_t cp = 0;
    size_t k = i;
    while (k < s.size() && k < i + 3 && s[k] >= '0' && s[k] <= '7')
      cp = cp * 8 + (s[k++] - '0');
    python::AppendUtf8(out, cp);
    return k;
  }
  out += '\\';
  return i;
}

Expected<bool> Lexer::StringLiteral() {
  const size_t start = pos_;
  const char quote = source_[pos_++];
  std::string value;
  while (pos_ < source_.size() && source_[pos_] != quote) {
    if (source_[pos_] == '\\' && pos_ + 1 < source_.size()) {
      pos_ = DecodeEscape(source_, pos_ + 1, value);
    } else {
      value += source_[pos_++];
    }
  }
  if (pos_ >= source_.size()) return Fail(start, "unexpected end of string");
  ++pos_;
  Push(TokenKind::kString, std::move(value), start);
  return true;
}

Expected<bool> Lexer::TagToken() {
  const char c = source_[pos_];
  if (IsNameStart(c)) {
    const size_t start = pos_;
    while (pos_ < source_.size() && IsNameChar(source_[pos_]))
      ++pos_;
    Push(TokenKind::kName, source_.substr(start, pos_ - start), start);
    return true;
  }
  if (IsDigit(c)) {
    if (!Number()) return Fail(pos_, "integer literal out of range");
    return true;
  }
  if (c == '"' || c == '\'') return StringLiteral();
  static const char* const operators[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "/",
                                          "*",  "%",  "~",  "[",  "]",  "(",  ")", "{", "}",
                                          "<",  ">",  "=",  ".",  ":",  "|",  ",", ";"};
  for (const char* op : operators) {
    const size_t n = std::char_traits<char>::length(op);
    if (source_.compare(pos_, n, op) != 0) continue;
    if (n == 1 && (c == '(' || c == '[' || c == '{')) brackets_.push_back(c);
    if (n == 1 && (c == ')' || c == ']' || c == '}')) {
      const char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (brackets_.empty() || brackets_.back() != want) {
        return Fail(pos_, std::string("unexpected '") + c + "'");
      }
      brackets_.pop_back();
    }
    Push(TokenKind::kOperator, op, pos_);
    pos_ += n;
    return true;
  }
  return Fail(pos_, std::string("unexpected char '") + c + "'");
}

}  // namespace

Expected<std::vector<Token>> Lex(std::string_view source) {
  return Lexer(NormaliseNewlines(source)).Run();
}

}  // namespace crux::chat_template
