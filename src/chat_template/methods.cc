// Python's str, list and dict methods as the immutable sandbox exposes them, and the global
// functions Hugging Face's environment provides.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <unordered_map>

#include "chat_template/args.h"
#include "chat_template/builtins.h"
#include "chat_template/python.h"

namespace crux::chat_template {

std::string StripChars(Renderer& renderer, const std::string& s, const Value& chars, bool left,
                       bool right);
std::string ReplaceAll(const std::string& s, const std::string& old, const std::string& with,
                       int64_t count);
std::vector<std::string> SplitLines(const std::string& s);
Value FormatString(Renderer& renderer, const std::string& format, CallArgs& args);

namespace {

using Method = Value (*)(Renderer& renderer, const Value& self, CallArgs& args);

const std::string& Str(const Value& self) {
  return self.as_string();
}

Value StrStrip(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "strip");
  Value chars = p.Get(0, "chars", Value::None());
  p.Done();
  return Value(StripChars(r, Str(self), chars, true, true));
}
Value StrLstrip(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "lstrip");
  Value chars = p.Get(0, "chars", Value::None());
  p.Done();
  return Value(StripChars(r, Str(self), chars, true, false));
}
Value StrRstrip(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "rstrip");
  Value chars = p.Get(0, "chars", Value::None());
  p.Done();
  return Value(StripChars(r, Str(self), chars, false, true));
}

std::vector<Value> SplitWhitespace(const std::string& s, int64_t maxsplit) {
  std::vector<Value> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && python::IsSpace(s[i]))
      ++i;
    if (i >= s.size()) break;
    if (maxsplit >= 0 && static_cast<int64_t>(out.size()) >= maxsplit) {
      size_t end = s.size();
      while (end > i && python::IsSpace(s[end - 1]))
        --end;
      out.emplace_back(s.substr(i, end - i));
      break;
    }
    size_t j = i;
    while (j < s.size() && !python::IsSpace(s[j]))
      ++j;
    out.emplace_back(s.substr(i, j - i));
    SizeCap::Items(out.size());
    i = j;
  }
  return out;
}

Value Split(Renderer& r, const Value& self, CallArgs& args, bool from_right) {
  Params p(r, args, from_right ? "rsplit" : "split");
  Value sep = p.Get(0, "sep", Value::None());
  const int64_t maxsplit = p.Int(1, "maxsplit", -1);
  p.Done();
  const std::string& s = Str(self);
  if (sep.is_none()) {
    if (!from_right || maxsplit < 0) return Value::List(SplitWhitespace(s, maxsplit));
    std::string reversed(s.rbegin(), s.rend());
    std::vector<Value> parts = SplitWhitespace(reversed, maxsplit);
    std::reverse(parts.begin(), parts.end());
    for (Value& part : parts)
      part = Value(std::string(part.as_string().rbegin(), part.as_string().rend()));
    return Value::List(std::move(parts));
  }
  if (!sep.is_string()) r.Fail("must be str or None, not " + std::string(sep.TypeName()));
  const std::string& d = sep.as_string();
  if (d.empty()) r.Fail("empty separator");
  std::vector<Value> out;
  if (!from_right) {
    size_t pos = 0;
    while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
      const size_t at = s.find(d, pos);
      if (at == std::string::npos) break;
      out.emplace_back(s.substr(pos, at - pos));
      SizeCap::Items(out.size());
      pos = at + d.size();
    }
    out.emplace_back(s.substr(pos));
    return Value::List(std::move(out));
  }
  size_t end = s.size();
  while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
    if (end < d.size()) break;
    const size_t at = s.rfind(d, end - d.size());
    if (at == std::string::npos) break;
    out.emplace_back(s.substr(at + d.size(), end - at - d.size()));
    SizeCap::Items(out.size());
    end = at;
  }
  out.emplace_back(s.substr(0, end));
  std::reverse(out.begin(), out.end());
  return Value::List(std::move(out));
}

Value StrSplit(Renderer& r, const Value& self, CallArgs& args) {
  return Split(r, self, args, false);
}
Value StrRsplit(Renderer& r, const Value& self, CallArgs& args) {
  return Split(r, self, args, true);
}

Value Affix(Renderer& r, const Value& self, CallArgs& args, bool prefix) {
  Params p(r, args, prefix ? "startswith" : "endswith");
  Value affix = p.Required(0, prefix ? "prefix" : "suffix");
  p.Done();
  const std::string& s = Str(self);
  auto matches = [&](const Value& v) {
    if (!v.is_string()) {
      r.Fail(std::string(prefix ? "startswith" : "endswith") +
             " first arg must be str or a tuple of str, not " + std::string(v.TypeName()));
    }
    const std::string& a = v.as_string();
    if (a.size() > s.size()) return false;
    return prefix ? s.compare(0, a.size(), a) == 0
                  : s.compare(s.size() - a.size(), a.size(), a) == 0;
  };
  if (affix.kind() == Value::Kind::kTuple) {
    return Value(std::any_of(affix.items().begin(), affix.items().end(), matches));
  }
  return Value(matches(affix));
}

Value StrStartswith(Renderer& r, const Value& self, CallArgs& args) {
  return Affix(r, self, args, true);
}
Value StrEndswith(Renderer& r, const Value& self, CallArgs& args) {
  return Affix(r, self, args, false);
}

Value StrReplace(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "replace");
  Value old = p.Required(0, "old");
  Value with = p.Required(1, "new");
  const int64_t count = p.Int(2, "count", -1);
  p.Done();
  if (!old.is_string() || !with.is_string()) r.Fail("replace() arguments must be str");
  return Value(ReplaceAll(Str(self), old.as_string(), with.as_string(), count));
}

Value StrUpper(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "upper").Done();
  return Value(AsciiUpper(Str(self)));
}
Value StrLower(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "lower").Done();
  return Value(AsciiLower(Str(self)));
}
Value StrCapitalize(Renderer& r, const Value& self, CallArgs& args) {
  return FindFilter("capitalize")(r, self, args);
}
Value StrTitle(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "title").Done();
  std::string s = Str(self);
  bool previous_cased = false;
  for (char& c : s) {
    const bool lower = c >= 'a' && c <= 'z';
    const bool upper = c >= 'A' && c <= 'Z';
    if (lower && !previous_cased) c = static_cast<char>(c - 'a' + 'A');
    if (upper && previous_cased) c = static_cast<char>(c - 'A' + 'a');
    previous_cased = lower || upper;
  }
  return Value(std::move(s));
}

// Converts a byte offset to a code point index.
int64_t CodePointIndex(const std::string& s, size_t byte) {
  return static_cast<int64_t>(python::CodePointCount(std::string_view(s).substr(0, byte)));
}

Value Find(Renderer& r, const Value& self, CallArgs& args, bool from_right, bool raise) {
  Params p(r, args, from_right ? "rfind" : "find");
  Value sub = p.Required(0, "sub");
  p.Done();
  if (!sub.is_string()) r.Fail("must be str, not " + std::string(sub.TypeName()));
  const std::string& s = Str(self);
  const size_t at = from_right ? s.rfind(sub.as_string()) : s.find(sub.as_string());
  if (at == std::string::npos) {
    if (raise) r.Fail("substring not found");
    return Value(-1);
  }
  return Value(CodePointIndex(s, at));
}

Value StrFind(Renderer& r, const Value& self, CallArgs& a) {
  return Find(r, self, a, false, false);
}
Value StrRfind(Renderer& r, const Value& self, CallArgs& a) {
  return Find(r, self, a, true, false);
}
Value StrIndex(Renderer& r, const Value& self, CallArgs& a) {
  return Find(r, self, a, false, true);
}
Value StrRindex(Renderer& r, const Value& self, CallArgs& a) {
  return Find(r, self, a, true, true);
}

Value StrCount(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "count");
  Value sub = p.Required(0, "sub");
  p.Done();
  if (!sub.is_string()) r.Fail("must be str, not " + std::string(sub.TypeName()));
  const std::string& s = Str(self);
  const std::string& t = sub.as_string();
  if (t.empty()) return Value(static_cast<int64_t>(python::CodePointCount(s) + 1));
  int64_t n = 0;
  for (size_t at = s.find(t); at != std::string::npos; at = s.find(t, at + t.size()))
    ++n;
  return Value(n);
}

Value StrJoin(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "join");
  Value items = p.Required(0, "iterable");
  p.Done();
  std::string out;
  bool first = true;
  for (const Value& item : r.Iterate(items)) {
    if (!item.is_string())
      r.Fail("sequence item: expected str instance, " + std::string(item.TypeName()) + " found");
    if (!first) out += Str(self);
    first = false;
    out += item.as_string();
  }
  return Value(std::move(out));
}

Value StrFormat(Renderer& r, const Value& self, CallArgs& args) {
  return FormatString(r, Str(self), args);
}

template <bool (*Pred)(char)>
Value StrIs(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "is").Done();
  const std::string& s = Str(self);
  return Value(!s.empty() && std::all_of(s.begin(), s.end(), Pred));
}
bool IsDigitChar(char c) {
  return c >= '0' && c <= '9';
}
bool IsAlphaChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAlnumChar(char c) {
  return IsDigitChar(c) || IsAlphaChar(c);
}
bool IsSpaceChar(char c) {
  return python::IsSpace(c);
}

Value StrIsLower(Renderer& r, const Value& self, CallArgs& args) {
  return Value(FindTest("lower")(r, self, args));
}
Value StrIsUpper(Renderer& r, const Value& self, CallArgs& args) {
  return Value(FindTest("upper")(r, self, args));
}

Value Justify(Renderer& r, const Value& self, CallArgs& args, int where) {
  Params p(r, args, "ljust");
  const int64_t width = std::min<int64_t>(p.Int(0, "width", 0), 100000);
  const std::string fill = p.String(1, "fillchar", " ");
  p.Done();
  if (python::CodePointCount(fill) != 1)
    r.Fail("The fill character must be exactly one character long");
  const std::string& s = Str(self);
  const auto n = static_cast<int64_t>(python::CodePointCount(s));
  if (width <= n) return self;
  const int64_t pad = width - n;
  const int64_t left = where < 0 ? 0 : where > 0 ? pad : pad / 2 + (pad & width & 1);
  std::string out;
  for (int64_t i = 0; i < left; ++i)
    out += fill;
  out += s;
  for (int64_t i = left; i < pad; ++i)
    out += fill;
  return Value(std::move(out));
}
Value StrLjust(Renderer& r, const Value& self, CallArgs& a) {
  return Justify(r, self, a, -1);
}
Value StrRjust(Renderer& r, const Value& self, CallArgs& a) {
  return Justify(r, self, a, 1);
}
Value StrCenter(Renderer& r, const Value& self, CallArgs& a) {
  return Justify(r, self, a, 0);
}

Value Partition(Renderer& r, const Value& self, CallArgs& args, bool from_right) {
  Params p(r, args, "partition");
  Value sep = p.Required(0, "sep");
  p.Done();
  if (!sep.is_string()) r.Fail("must be str, not " + std::string(sep.TypeName()));
  if (sep.as_string().empty()) r.Fail("empty separator");
  const std::string& s = Str(self);
  const size_t at = from_right ? s.rfind(sep.as_string()) : s.find(sep.as_string());
  if (at == std::string::npos) {
    return from_right ? Value::Tuple({Value(""), Value(""), self})
                      : Value::Tuple({self, Value(""), Value("")});
  }
  return Value::Tuple({Value(s.substr(0, at)), sep, Value(s.substr(at + sep.as_string().size()))});
}
Value StrPartition(Renderer& r, const Value& self, CallArgs& a) {
  return Partition(r, self, a, false);
}
Value StrRpartition(Renderer& r, const Value& self, CallArgs& a) {
  return Partition(r, self, a, true);
}

Value StrSplitlines(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "splitlines").Done();
  std::vector<Value> out;
  for (std::string& line : SplitLines(Str(self)))
    out.emplace_back(std::move(line));
  return Value::List(std::move(out));
}

Value Affixless(Renderer& r, const Value& self, CallArgs& args, bool prefix) {
  Params p(r, args, prefix ? "removeprefix" : "removesuffix");
  const std::string affix = p.String(0, prefix ? "prefix" : "suffix", "");
  p.Done();
  const std::string& s = Str(self);
  if (affix.size() > s.size()) return self;
  if (prefix && s.compare(0, affix.size(), affix) == 0) return Value(s.substr(affix.size()));
  if (!prefix && s.compare(s.size() - affix.size(), affix.size(), affix) == 0) {
    return Value(s.substr(0, s.size() - affix.size()));
  }
  return self;
}
Value StrRemovePrefix(Renderer& r, const Value& self, CallArgs& a) {
  return Affixless(r, self, a, true);
}
Value StrRemoveSuffix(Renderer& r, const Value& self, CallArgs& a) {
  return Affixless(r, self, a, false);
}

Value StrZfill(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "zfill");
  const int64_t width = std::min<int64_t>(p.Int(0, "width", 0), 100000);
  p.Done();
  std::string s = Str(self);
  const auto n = static_cast<int64_t>(python::CodePointCount(s));
  if (width <= n) return self;
  const size_t at = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
  s.insert(at, std::string(width - n, '0'));
  return Value(std::move(s));
}

Value SeqCount(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "count");
  Value x = p.Required(0, "value");
  p.Done();
  return Value(static_cast<int64_t>(std::count_if(self.items().begin(), self.items().end(),
                                                  [&](const Value& v) { return v.Equals(x); })));
}

Value SeqIndex(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "index");
  Value x = p.Required(0, "value");
  p.Done();
  for (size_t i = 0; i < self.items().size(); ++i) {
    if (self.items()[i].Equals(x)) return Value(static_cast<int64_t>(i));
  }
  r.Fail(x.Repr() + " is not in list");
}

Value SeqCopy(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "copy").Done();
  return self.is_mapping() ? Value::Dict(std::make_shared<DictData>(self.dict()))
                           : Value::List(self.items());
}

Value DictGet(Renderer& r, const Value& self, CallArgs& args) {
  Params p(r, args, "get");
  Value key = p.Required(0, "key");
  Value fallback = p.Get(1, "default", Value::None());
  p.Done();
  r.RequireHashable(key);
  const Value* v = self.dict().Find(key);
  return v ? *v : fallback;
}

Value DictItems(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "items").Done();
  std::vector<Value> out;
  for (const auto& [k, v] : self.dict().entries)
    out.push_back(Value::Tuple({k, v}));
  return Value::Flavored(std::move(out), ListFlavor::kDictItems);
}

Value DictKeys(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "keys").Done();
  std::vector<Value> out;
  for (const auto& entry : self.dict().entries)
    out.push_back(entry.first);
  return Value::Flavored(std::move(out), ListFlavor::kDictKeys);
}

Value DictValues(Renderer& r, const Value& self, CallArgs& args) {
  Params(r, args, "values").Done();
  std::vector<Value> out;
  for (const auto& entry : self.dict().entries)
    out.push_back(entry.second);
  return Value::Flavored(std::move(out), ListFlavor::kDictValues);
}

using MethodTable = std::unordered_map<std::string_view, Method>;

const MethodTable& StringMethods() {
  static const MethodTable methods = {
      {"strip", StrStrip},
      {"lstrip", StrLstrip},
      {"rstrip", StrRstrip},
      {"split", StrSplit},
      {"rsplit", StrRsplit},
      {"startswith", StrStartswith},
      {"endswith", StrEndswith},
      {"replace", StrReplace},
      {"upper", StrUpper},
      {"lower", StrLower},
      {"casefold", StrLower},
      {"capitalize", StrCapitalize},
      {"title", StrTitle},
      {"find", StrFind},
      {"rfind", StrRfind},
      {"index", StrIndex},
      {"rindex", StrRindex},
      {"count", StrCount},
      {"join", StrJoin},
      {"format", StrFormat},
      {"isdigit", StrIs<IsDigitChar>},
      {"isdecimal", StrIs<IsDigitChar>},
      {"isnumeric", StrIs<IsDigitChar>},
      {"isalpha", StrIs<IsAlphaChar>},
      {"isalnum", StrIs<IsAlnumChar>},
      {"isspace", StrIs<IsSpaceChar>},
      {"islower", StrIsLower},
      {"isupper", StrIsUpper},
      {"ljust", StrLjust},
      {"rjust", StrRjust},
      {"center", StrCenter},
      {"partition", StrPartition},
      {"rpartition", StrRpartition},
      {"splitlines", StrSplitlines},
      {"removeprefix", StrRemovePrefix},
      {"removesuffix", StrRemoveSuffix},
      {"zfill", StrZfill},
  };
  return methods;
}

const MethodTable& ListMethods() {
  static const MethodTable methods = {{"count", SeqCount}, {"index", SeqIndex}, {"copy", SeqCopy}};
  return methods;
}

const MethodTable& DictMethods() {
  static const MethodTable methods = {{"get", DictGet},
                                      {"items", DictItems},
                                      {"keys", DictKeys},
                                      {"values", DictValues},
                                      {"copy", SeqCopy}};
  return methods;
}

bool IsUnsafe(const Value& subject, std::string_view name) {
  static const std::string_view list_methods[] = {"append", "extend",  "insert", "pop",
                                                  "remove", "reverse", "sort",   "clear"};
  static const std::string_view dict_methods[] = {"pop", "popitem", "setdefault", "update",
                                                  "clear"};
  if (subject.kind() == Value::Kind::kList) {
    return std::find(std::begin(list_methods), std::end(list_methods), name) !=
           std::end(list_methods);
  }
  if (subject.kind() == Value::Kind::kDict) {
    return std::find(std::begin(dict_methods), std::end(dict_methods), name) !=
           std::end(dict_methods);
  }
  return false;
}

}  // namespace

Value FindMethod(const Value& subject, std::string_view name) {
  const MethodTable* table = nullptr;
  if (subject.is_string()) table = &StringMethods();
  if (subject.is_indexable()) table = &ListMethods();
  if (subject.kind() == Value::Kind::kDict) table = &DictMethods();
  if (!table) return Value();
  if (IsUnsafe(subject, name)) {
    return Value::Undefined("access to attribute '" + std::string(name) + "' of '" +
                            std::string(subject.TypeName()) + "' object is unsafe");
  }
  auto it = table->find(name);
  if (it == table->end() || (name == "copy" && subject.flavor() != ListFlavor::kList) ||
      (subject.kind() == Value::Kind::kTuple && name == "copy")) {
    return Value();
  }
  return Value::Callable(std::make_shared<BuiltinFunction>(it->first, it->second, subject));
}

}  // namespace crux::chat_template
