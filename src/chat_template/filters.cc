// Jinja2's builtin filters (with Hugging Face's tojson) and tests, by name.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "chat_template/args.h"
#include "chat_template/builtins.h"
#include "chat_template/python.h"

namespace crux::chat_template {

std::string Params::String(size_t index, std::string_view name, std::string fallback) {
  Value v = Get(index, name);
  if (v.is_undefined() && !args_.Has(index, name)) return fallback;
  if (!v.is_string())
    renderer_.Fail(std::string(fn_) + "(): '" + std::string(name) + "' must be a string");
  return v.as_string();
}

int64_t Params::Int(size_t index, std::string_view name, int64_t fallback) {
  Value v = Get(index, name, Value(fallback));
  if (v.kind() == Value::Kind::kBool) return v.as_bool();
  if (v.kind() != Value::Kind::kInt) {
    renderer_.Fail(std::string(fn_) + "(): '" + std::string(name) + "' must be an integer");
  }
  return v.as_int();
}

std::string AsciiLower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string AsciiUpper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

Value IgnoreCase(const Value& value) {
  return value.is_string() ? Value(AsciiLower(value.as_string())) : value;
}

int64_t Length(Renderer& renderer, const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kUndefined:
      return 0;
    case Value::Kind::kString:
      return static_cast<int64_t>(python::CodePointCount(value.as_string()));
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      if (value.is_generator()) break;
      return static_cast<int64_t>(value.items().size());
    case Value::Kind::kDict:
      return static_cast<int64_t>(value.dict().entries.size());
    default:
      break;
  }
  { renderer.Fail("object of type '" + std::string(value.TypeName()) + "' has no len()"); }
}

Value LookupPath(Renderer& renderer, const Value& item, const std::string& path) {
  Value current = item;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string::npos) dot = path.size();
    const std::string part = path.substr(start, dot - start);
    const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
    current = renderer.GetItem(
        current, digits ? Value(static_cast<int64_t>(std::strtoll(part.c_str(), nullptr, 10)))
                        : Value(part));
    start = dot + 1;
  }
  return current;
}

namespace {

// A filter's string result, Markup when its input was (Markup's methods return Markup).
Value KeepMarkup(const Value& input, std::string result) {
  return input.is_markup() ? Value::Markup(std::move(result)) : Value(std::move(result));
}

std::string Strip(std::string_view s, const Value& chars, bool left, bool right) {
  auto strip_char = [&](char c) {
    if (chars.is_undefined() || chars.is_none()) return python::IsSpace(c);
    return chars.as_string().find(c) != std::string::npos;
  };
  size_t begin = 0;
  size_t end = s.size();
  if (left) {
    while (begin < end && strip_char(s[begin]))
      ++begin;
  }
  if (right) {
    while (end > begin && strip_char(s[end - 1]))
      --end;
  }
  return std::string(s.substr(begin, end - begin));
}

}  // namespace

// Shared with methods.cc: str.strip / lstrip / rstrip.
std::string StripChars(Renderer& renderer, const std::string& s, const Value& chars, bool left,
                       bool right) {
  if (!chars.is_undefined() && !chars.is_none() && !chars.is_string()) {
    renderer.Fail("strip arg must be None or str");
  }
  return Strip(s, chars, left, right);
}

std::string ReplaceAll(const std::string& s, const std::string& old, const std::string& with,
                       int64_t count) {
  std::string out;
  size_t pos = 0;
  int64_t done = 0;
  if (old.empty()) {
    const std::vector<size_t> offsets = python::CodePointOffsets(s);
    for (size_t i = 0; i + 1 < offsets.size(); ++i) {
      if (count < 0 || done < count) {
        out += with;
        ++done;
        SizeCap::Bytes(out.size());
      }
      out.append(s, offsets[i], offsets[i + 1] - offsets[i]);
    }
    if (count < 0 || done < count) out += with;
    return out;
  }
  while (count < 0 || done < count) {
    const size_t at = s.find(old, pos);
    if (at == std::string::npos) break;
    out.append(s, pos, at - pos);
    out += with;
    SizeCap::Bytes(out.size());
    pos = at + old.size();
    ++done;
  }
  out.append(s, pos);
  return out;
}

namespace {

Value FilterTojson(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "tojson");
  python::JsonOptions options;
  options.ensure_ascii = p.Get(0, "ensure_ascii", Value(false)).Truthy();
  Value indent = p.Get(1, "indent", Value::None());
  Value separators = p.Get(2, "separators", Value::None());
  options.sort_keys = p.Get(3, "sort_keys", Value(false)).Truthy();
  p.Done();
  if (indent.kind() == Value::Kind::kInt) {
    options.indent_set = true;
    options.indent = std::string(
        static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(indent.as_int(), 1000))), ' ');
    options.item_separator = ",";
  } else if (indent.is_string()) {
    options.indent_set = true;
    options.indent = indent.as_string();
    options.item_separator = ",";
  } else if (!indent.is_none()) {
    r.Fail("tojson(): indent must be an integer or a string");
  }
  if (!separators.is_none()) {
    if (!separators.is_sequence() || separators.items().size() != 2 ||
        !separators.items()[0].is_string() || !separators.items()[1].is_string()) {
      r.Fail("tojson(): separators must be a pair of strings");
    }
    options.item_separator = separators.items()[0].as_string();
    options.key_separator = separators.items()[1].as_string();
  }
  std::string error;
  auto text = python::JsonDumps(x, options, error);
  if (!text) r.Fail(error);
  return Value(std::move(*text));
}

Value FilterLength(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "length").Done();
  return Value(Length(r, x));
}

Value FilterTrim(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "trim");
  Value chars = p.Get(0, "chars", Value::None());
  p.Done();
  return KeepMarkup(x, StripChars(r, x.Str(), chars, true, true));
}

Value FilterString(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "string").Done();
  return x.is_string() ? x : Value(x.Str());
}

Value FilterUpper(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "upper").Done();
  return KeepMarkup(x, AsciiUpper(x.Str()));
}

Value FilterLower(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "lower").Done();
  return KeepMarkup(x, AsciiLower(x.Str()));
}

Value FilterCapitalize(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "capitalize").Done();
  std::string s = AsciiLower(x.Str());
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return KeepMarkup(x, std::move(s));
}

Value FilterTitle(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "title").Done();
  std::string s = x.Str();
  bool word_start = true;
  for (char& c : s) {
    const bool separator =
        python::IsSpace(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
    if (separator) {
      word_start = true;
      continue;
    }
    if (word_start) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    } else if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
    word_start = false;
  }
  return Value(std::move(s));
}

Value FilterReplace(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "replace");
  Value old = p.Required(0, "old");
  Value with = p.Required(1, "new");
  Value count = p.Get(2, "count", Value::None());
  p.Done();
  int64_t n = -1;
  if (count.kind() == Value::Kind::kInt) n = count.as_int();
  return Value(ReplaceAll(x.Str(), old.Str(), with.Str(), n));
}

Value FilterSafe(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "safe").Done();
  return x.is_markup() ? x : Value::Markup(x.Str());
}

Value FilterDefault(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "default");
  Value fallback = p.Get(0, "default_value", Value(""));
  const bool boolean = p.Bool(1, "boolean", false);
  p.Done();
  if (x.is_undefined() || (boolean && !x.Truthy())) return fallback;
  return x;
}

Value FilterFirst(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "first").Done();
  std::vector<Value> items = r.Iterate(x);
  if (items.empty()) return Value::Undefined("no first item, sequence was empty");
  return items.front();
}

Value FilterLast(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "last").Done();
  if (x.is_generator()) r.Fail("'generator' object is not reversible");
  std::vector<Value> items = r.Iterate(x);
  if (items.empty()) return Value::Undefined("no last item, sequence was empty");
  return items.back();
}

Value FilterList(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "list").Done();
  return Value::List(r.Iterate(x));
}

Value FilterItems(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "items").Done();
  if (x.is_undefined()) return Value::Generator({});
  if (!x.is_mapping()) r.Fail("can only get item pairs from a mapping");
  std::vector<Value> items;
  for (const auto& [k, v] : x.dict().entries)
    items.push_back(Value::Tuple({k, v}));
  return Value::Generator(std::move(items));
}

Value FilterJoin(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "join");
  Value separator = p.Get(0, "d", Value(""));
  Value attribute = p.Get(1, "attribute", Value::None());
  p.Done();
  const std::string sep = separator.Str();
  std::string out;
  bool first = true;
  for (const Value& item : r.Iterate(x)) {
    if (!first) out += sep;
    first = false;
    if (attribute.is_none()) {
      item.AppendStr(out);
    } else {
      LookupPath(r, item, attribute.Str()).AppendStr(out);
    }
    SizeCap::Bytes(out.size());
  }
  return Value(std::move(out));
}

Value FilterMap(Renderer& r, const Value& x, CallArgs& args) {
  std::vector<Value> out;
  if (!x.Truthy()) return Value::Generator({});
  if (args.positional.empty()) {
    Params p(r, args, "map");
    Value attribute = p.Required(0, "attribute");
    Value fallback = p.Get(1, "default", Value());
    p.Done();
    for (const Value& item : r.Iterate(x)) {
      Value v = LookupPath(r, item, attribute.Str());
      out.push_back(v.is_undefined() && !fallback.is_undefined() ? fallback : v);
    }
    return Value::Generator(std::move(out));
  }
  const std::string name = args.positional[0].Str();
  for (const Value& item : r.Iterate(x)) {
    CallArgs rest;
    rest.positional.assign(args.positional.begin() + 1, args.positional.end());
    rest.keyword = args.keyword;
    out.push_back(r.ApplyFilter(name, item, rest));
  }
  return Value::Generator(std::move(out));
}

Value SelectOrReject(Renderer& r, const Value& x, CallArgs& args, bool select, bool by_attribute) {
  if (!x.Truthy()) return Value::Generator({});
  size_t offset = 0;
  std::string attribute;
  if (by_attribute) {
    if (args.positional.empty()) r.Fail("missing parameter for attribute name");
    attribute = args.positional[0].Str();
    offset = 1;
  }
  std::vector<Value> out;
  for (const Value& item : r.Iterate(x)) {
    const Value subject = by_attribute ? LookupPath(r, item, attribute) : item;
    bool pass = false;
    if (args.positional.size() > offset) {
      CallArgs rest;
      rest.positional.assign(args.positional.begin() + offset + 1, args.positional.end());
      rest.keyword = args.keyword;
      pass = r.ApplyTest(args.positional[offset].Str(), subject, rest);
    } else {
      pass = subject.Truthy();
    }
    if (pass == select) out.push_back(item);
  }
  return Value::Generator(std::move(out));
}

Value FilterSelect(Renderer& r, const Value& x, CallArgs& a) {
  return SelectOrReject(r, x, a, true, false);
}
Value FilterReject(Renderer& r, const Value& x, CallArgs& a) {
  return SelectOrReject(r, x, a, false, false);
}
Value FilterSelectAttr(Renderer& r, const Value& x, CallArgs& a) {
  return SelectOrReject(r, x, a, true, true);
}
Value FilterRejectAttr(Renderer& r, const Value& x, CallArgs& a) {
  return SelectOrReject(r, x, a, false, true);
}

}  // namespace
}  // namespace crux::chat_template

namespace crux::chat_template {

// Python's int(str) and float(str) (surrounding whitespace, sign, underscores between digits).
std::optional<int64_t> ParseInt(std::string_view text, int base);
std::optional<double> ParseFloat(std::string_view text);
Value FormatPercent(Renderer& renderer, const Value& format, const Value& args);

namespace {

Value FilterInt(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "int");
  Value fallback = p.Get(0, "default", Value(0));
  const int64_t base = p.Int(1, "base", 10);
  p.Done();
  if (x.is_undefined()) r.Fail("'" + x.undefined_hint() + "' is undefined");
  switch (x.kind()) {
    case Value::Kind::kInt:
      return x;
    case Value::Kind::kBool:
      return Value(static_cast<int64_t>(x.as_bool()));
    case Value::Kind::kFloat:
      if (std::isnan(x.as_float()) || std::isinf(x.as_float()))
        r.Fail("cannot convert float to integer");
      if (std::fabs(x.as_float()) >= 9.2e18) r.Fail("integer overflow", ErrorCode::kLimit);
      return Value(static_cast<int64_t>(x.as_float()));
    case Value::Kind::kString: {
      if (auto i = ParseInt(x.as_string(), static_cast<int>(base))) return Value(*i);
      if (auto f = ParseFloat(x.as_string())) {
        if (std::isnan(*f) || std::isinf(*f)) r.Fail("cannot convert float to integer");
        if (std::fabs(*f) >= 9.2e18) r.Fail("integer overflow", ErrorCode::kLimit);
        return Value(static_cast<int64_t>(*f));
      }
      return fallback;
    }
    default:
      return fallback;
  }
}

Value FilterFloat(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "float");
  Value fallback = p.Get(0, "default", Value(0.0));
  p.Done();
  if (x.is_undefined()) r.Fail("'" + x.undefined_hint() + "' is undefined");
  if (x.is_number()) return Value(x.as_number());
  if (x.is_string()) {
    if (auto f = ParseFloat(x.as_string())) return Value(*f);
  }
  return fallback;
}

}  // namespace

// str.splitlines() (the line breaks Python knows in ASCII, and U+0085, U+2028, U+2029).
std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> lines;
  std::string line;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    size_t skip = 0;
    if (c == '\n' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' || c == '\x1e') {
      skip = 1;
    } else if (c == '\r') {
      skip = i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
    } else if (c == '\xc2' && i + 1 < s.size() && s[i + 1] == '\x85') {
      skip = 2;
    } else if (c == '\xe2' && i + 2 < s.size() && s[i + 1] == '\x80' &&
               (s[i + 2] == '\xa8' || s[i + 2] == '\xa9')) {
      skip = 3;
    }
    if (skip) {
      lines.push_back(std::move(line));
      SizeCap::Items(lines.size());
      line.clear();
      i += skip - 1;
    } else {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

namespace {

Value FilterIndent(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "indent");
  Value width = p.Get(0, "width", Value(4));
  const bool first = p.Bool(1, "first", false);
  const bool blank = p.Bool(2, "blank", false);
  p.Done();
  if (!x.is_string()) r.Fail("indent(): the value must be a string");
  std::string indentation;
  if (width.is_string()) {
    indentation = width.as_string();
  } else if (width.kind() == Value::Kind::kInt) {
    indentation.assign(static_cast<size_t>(std::clamp<int64_t>(width.as_int(), 0, 10000)), ' ');
  } else {
    r.Fail("indent(): width must be an integer or a string");
  }
  const std::vector<std::string> lines = SplitLines(x.as_string() + "\n");
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) {
      out += '\n';
      if (blank || !lines[i].empty()) out += indentation;
    }
    out += lines[i];
    SizeCap::Bytes(out.size());
  }
  if (first) out = indentation + out;
  return Value(std::move(out));
}

// Sorts `items` by `key` (stable; reverse keeps equal items in order, as sorted() does).
void SortBy(Renderer& r, std::vector<Value>& items, const std::vector<Value>& keys, bool reverse) {
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return reverse ? LessThan(r, keys[b], keys[a]) : LessThan(r, keys[a], keys[b]);
  });
  std::vector<Value> sorted;
  sorted.reserve(items.size());
  for (size_t i : order)
    sorted.push_back(items[i]);
  items = std::move(sorted);
}

Value FilterDictsort(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "dictsort");
  const bool case_sensitive = p.Bool(0, "case_sensitive", false);
  const std::string by = p.String(1, "by", "key");
  const bool reverse = p.Bool(2, "reverse", false);
  p.Done();
  if (!x.is_mapping()) r.Fail("dictsort(): the value must be a mapping");
  if (by != "key" && by != "value") r.Fail("You can only sort by either \"key\" or \"value\"");
  std::vector<Value> items;
  std::vector<Value> keys;
  for (const auto& [k, v] : x.dict().entries) {
    items.push_back(Value::Tuple({k, v}));
    const Value& key = by == "key" ? k : v;
    keys.push_back(case_sensitive ? key : IgnoreCase(key));
  }
  SortBy(r, items, keys, reverse);
  return Value::List(std::move(items));
}

std::vector<Value> Keys(Renderer& r, const std::vector<Value>& items, const Value& attribute,
                        bool case_sensitive) {
  std::vector<Value> keys;
  keys.reserve(items.size());
  for (const Value& item : items) {
    Value key = attribute.is_none() ? item : LookupPath(r, item, attribute.Str());
    keys.push_back(case_sensitive ? key : IgnoreCase(key));
  }
  return keys;
}

Value FilterSort(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "sort");
  const bool reverse = p.Bool(0, "reverse", false);
  const bool case_sensitive = p.Bool(1, "case_sensitive", false);
  Value attribute = p.Get(2, "attribute", Value::None());
  p.Done();
  std::vector<Value> items = r.Iterate(x);
  // Jinja2 sorts by a list of the comma-separated attributes: items compare element-wise,
  // equal elements first (so equal undefined attributes never meet `<`).
  std::vector<std::string> parts;
  if (!attribute.is_none()) {
    const std::string text = attribute.Str();
    for (size_t start = 0;;) {
      const size_t comma = text.find(',', start);
      parts.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  std::vector<Value> keys;
  for (const Value& item : items) {
    std::vector<Value> key;
    if (parts.empty()) key.push_back(case_sensitive ? item : IgnoreCase(item));
    for (const std::string& part : parts) {
      Value v = LookupPath(r, item, part);
      key.push_back(case_sensitive ? v : IgnoreCase(v));
    }
    keys.push_back(Value::List(std::move(key)));
  }
  SortBy(r, items, keys, reverse);
  return Value::List(std::move(items));
}

Value FilterUnique(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "unique");
  const bool case_sensitive = p.Bool(0, "case_sensitive", false);
  Value attribute = p.Get(1, "attribute", Value::None());
  p.Done();
  std::vector<Value> items = r.Iterate(x);
  std::vector<Value> keys = Keys(r, items, attribute, case_sensitive);
  std::vector<Value> out;
  std::vector<Value> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    r.RequireHashable(keys[i]);
    if (std::any_of(seen.begin(), seen.end(), [&](const Value& s) { return s.Equals(keys[i]); })) {
      continue;
    }
    seen.push_back(keys[i]);
    out.push_back(items[i]);
  }
  return Value::Generator(std::move(out));
}

Value MinOrMax(Renderer& r, const Value& x, CallArgs& args, bool max) {
  Params p(r, args, max ? "max" : "min");
  const bool case_sensitive = p.Bool(0, "case_sensitive", false);
  Value attribute = p.Get(1, "attribute", Value::None());
  p.Done();
  std::vector<Value> items = r.Iterate(x);
  if (items.empty()) return Value::Undefined("no aggregated item, sequence was empty");
  std::vector<Value> keys = Keys(r, items, attribute, case_sensitive);
  size_t best = 0;
  for (size_t i = 1; i < items.size(); ++i) {
    if (max ? LessThan(r, keys[best], keys[i]) : LessThan(r, keys[i], keys[best])) best = i;
  }
  return items[best];
}

Value FilterMin(Renderer& r, const Value& x, CallArgs& a) {
  return MinOrMax(r, x, a, false);
}
Value FilterMax(Renderer& r, const Value& x, CallArgs& a) {
  return MinOrMax(r, x, a, true);
}

Value FilterSum(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "sum");
  Value attribute = p.Get(0, "attribute", Value::None());
  Value total = p.Get(1, "start", Value(0));
  p.Done();
  for (const Value& item : r.Iterate(x)) {
    total =
        BinaryOp(r, "+", total, attribute.is_none() ? item : LookupPath(r, item, attribute.Str()));
  }
  return total;
}

Value FilterAbs(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "abs").Done();
  if (x.kind() == Value::Kind::kFloat) return Value(std::fabs(x.as_float()));
  if (x.kind() == Value::Kind::kBool) return Value(static_cast<int64_t>(x.as_bool()));
  if (x.kind() != Value::Kind::kInt)
    r.Fail("bad operand type for abs(): '" + std::string(x.TypeName()) + "'");
  if (x.as_int() == INT64_MIN) r.Fail("integer overflow", ErrorCode::kLimit);
  return Value(x.as_int() < 0 ? -x.as_int() : x.as_int());
}

Value FilterRound(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "round");
  const int64_t precision = p.Int(0, "precision", 0);
  const std::string method = p.String(1, "method", "common");
  p.Done();
  if (!x.is_number()) r.Fail("round(): the value must be a number");
  if (method != "common" && method != "ceil" && method != "floor") {
    r.Fail("method must be common, ceil or floor");
  }
  if (method == "common" && x.kind() == Value::Kind::kBool) return Value(int64_t{x.as_bool()});
  if (method == "common" && x.kind() != Value::Kind::kFloat) return x;
  const double v = x.as_number();
  if (method == "common") {
    if (std::isnan(v) || std::isinf(v) || precision > 300) return Value(v);
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, "%.*f", static_cast<int>(std::max<int64_t>(precision, 0)),
                  v);
    double rounded = std::strtod(buffer, nullptr);
    if (precision < 0) {
      const double scale = std::pow(10.0, static_cast<double>(-precision));
      rounded = std::nearbyint(v / scale) * scale;
    }
    return Value(rounded);
  }
  const double scale = std::pow(10.0, static_cast<double>(precision));
  return Value((method == "ceil" ? std::ceil(v * scale) : std::floor(v * scale)) / scale);
}

Value FilterReverse(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "reverse").Done();
  std::vector<Value> items = r.Iterate(x);
  std::reverse(items.begin(), items.end());
  // reversed() where Python can (an iterator), else list(value) reversed: a generator gives a list.
  if (x.is_generator()) return Value::List(std::move(items));
  if (!x.is_string()) return Value::Generator(std::move(items));
  std::string out;
  for (const Value& c : items)
    out += c.as_string();
  return Value(std::move(out));
}

Value FilterCenter(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "center");
  const int64_t width = std::min<int64_t>(p.Int(0, "width", 80), 100000);
  p.Done();
  std::string s = x.Str();
  const auto n = static_cast<int64_t>(python::CodePointCount(s));
  if (width <= n) return Value(std::move(s));
  const int64_t pad = width - n;
  const int64_t left = pad / 2 + (pad & width & 1);
  return Value(std::string(left, ' ') + s + std::string(pad - left, ' '));
}

Value FilterWordcount(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "wordcount").Done();
  const std::string s = x.Str();
  int64_t count = 0;
  bool in_word = false;
  for (char c : s) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || (c & 0x80);
    if (word && !in_word) ++count;
    in_word = word;
  }
  return Value(count);
}

Value FilterEscape(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "escape").Done();
  if (x.is_markup()) return x;
  return Value::Markup(HtmlEscape(x.Str()));
}

Value FilterForceEscape(Renderer& r, const Value& x, CallArgs& args) {
  Params(r, args, "forceescape").Done();
  return Value::Markup(HtmlEscape(x.Str()));
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

Value FilterFormat(Renderer& r, const Value& x, CallArgs& args) {
  if (!args.keyword.empty() && !args.positional.empty()) {
    r.Fail("can't handle positional and keyword arguments at the same time");
  }
  if (!args.keyword.empty()) {
    auto dict = std::make_shared<DictData>();
    for (const auto& [k, v] : args.keyword)
      dict->Set(Value(k), v);
    return FormatPercent(r, Value(x.Str()), Value::Dict(std::move(dict)));
  }
  return FormatPercent(r, Value(x.Str()), Value::Tuple(args.positional));
}

Value FilterAttr(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "attr");
  Value name = p.Required(0, "name");
  p.Done();
  if (!name.is_string()) return Value::Undefined("attribute");
  if (x.is_mapping()) {
    if (const Value* v = x.dict().FindKey(name.as_string())) return *v;
  }
  return r.GetAttr(x, name.as_string());
}

Value FilterBatch(Renderer& r, const Value& x, CallArgs& args) {
  Params p(r, args, "batch");
  const int64_t count = p.Int(0, "linecount", 1);
  Value fill = p.Get(1, "fill_with", Value::None());
  p.Done();
  if (count <= 0) r.Fail("batch(): linecount must be positive");
  std::vector<Value> out;
  std::vector<Value> row;
  for (const Value& item : r.Iterate(x)) {
    row.push_back(item);
    if (static_cast<int64_t>(row.size()) == count) {
      out.push_back(Value::List(std::move(row)));
      row.clear();
    }
  }
  if (!row.empty()) {
    if (!fill.is_none()) {
      while (static_cast<int64_t>(row.size()) < count)
        row.push_back(fill);
    }
    out.push_back(Value::List(std::move(row)));
  }
  return Value::Generator(std::move(out));
}

// A filter that is a generator in Jinja2: its failures surface only when the result is consumed.
template <FilterFn Fn>
Value Lazy(Renderer& r, const Value& x, CallArgs& args) {
  try {
    return Fn(r, x, args);
  } catch (const RenderError& e) {
    if (e.code == ErrorCode::kLimit) throw;
    return Value::FailedGenerator(e.message);
  }
}

const std::unordered_map<std::string_view, FilterFn>& Filters() {
  static const std::unordered_map<std::string_view, FilterFn> filters = {
      {"tojson", FilterTojson},
      {"length", FilterLength},
      {"count", FilterLength},
      {"trim", FilterTrim},
      {"string", FilterString},
      {"upper", FilterUpper},
      {"lower", FilterLower},
      {"capitalize", FilterCapitalize},
      {"title", FilterTitle},
      {"replace", FilterReplace},
      {"safe", FilterSafe},
      {"default", FilterDefault},
      {"d", FilterDefault},
      {"first", FilterFirst},
      {"last", FilterLast},
      {"list", FilterList},
      {"items", Lazy<FilterItems>},
      {"join", FilterJoin},
      {"map", Lazy<FilterMap>},
      {"select", Lazy<FilterSelect>},
      {"reject", Lazy<FilterReject>},
      {"selectattr", Lazy<FilterSelectAttr>},
      {"rejectattr", Lazy<FilterRejectAttr>},
      {"int", FilterInt},
      {"float", FilterFloat},
      {"indent", FilterIndent},
      {"dictsort", FilterDictsort},
      {"sort", FilterSort},
      {"unique", Lazy<FilterUnique>},
      {"min", FilterMin},
      {"max", FilterMax},
      {"sum", FilterSum},
      {"abs", FilterAbs},
      {"round", FilterRound},
      {"reverse", FilterReverse},
      {"center", FilterCenter},
      {"wordcount", FilterWordcount},
      {"escape", FilterEscape},
      {"e", FilterEscape},
      {"forceescape", FilterForceEscape},
      {"format", FilterFormat},
      {"attr", FilterAttr},
      {"batch", Lazy<FilterBatch>},
  };
  return filters;
}

}  // namespace

FilterFn FindFilter(std::string_view name) {
  const auto& filters = Filters();
  auto it = filters.find(name);
  return it == filters.end() ? nullptr : it->second;
}

}  // namespace crux::chat_template
