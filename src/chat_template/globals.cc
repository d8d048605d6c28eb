// The global functions of Hugging Face's environment (range, dict, namespace, joiner,
// raise_exception, strftime_now), and Python's number parsing and string formatting
// (`"%s" % x`, `"{}".format(x)`).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "chat_template/args.h"
#include "chat_template/builtins.h"
#include "chat_template/python.h"

namespace crux::chat_template {

std::optional<int64_t> ParseInt(std::string_view text, int base) {
  size_t b = 0;
  size_t e = text.size();
  while (b < e && python::IsSpace(text[b]))
    ++b;
  while (e > b && python::IsSpace(text[e - 1]))
    --e;
  text = text.substr(b, e - b);
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || base < 2 || base > 36) return std::nullopt;
  int64_t value = 0;
  bool previous_digit = false;
  for (char c : text) {
    if (c == '_' && previous_digit) {
      previous_digit = false;
      continue;
    }
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'z' ? c - 'a' + 10
            : c >= 'A' && c <= 'Z' ? c - 'A' + 10
                                   : 99;
    if (d >= base) return std::nullopt;
    if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, d, &value)) {
      return std::nullopt;
    }
    previous_digit = true;
  }
  if (!previous_digit) return std::nullopt;
  return negative ? -value : value;
}

std::optional<double> ParseFloat(std::string_view text) {
  size_t b = 0;
  size_t e = text.size();
  while (b < e && python::IsSpace(text[b]))
    ++b;
  while (e > b && python::IsSpace(text[e - 1]))
    --e;
  std::string s;
  const std::string_view t = text.substr(b, e - b);
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '_' && i > 0 && i + 1 < t.size() &&
        std::isdigit(static_cast<unsigned char>(t[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(t[i + 1]))) {
      continue;
    }
    if (c == 'x' || c == 'X' || c == 'p' || c == 'P' || c == '_') return std::nullopt;
    s += c;
  }
  if (s.empty()) return std::nullopt;
  const std::string lower = AsciiLower(s);
  const std::string_view body =
      lower[0] == '+' || lower[0] == '-' ? std::string_view(lower).substr(1) : lower;
  if (body == "inf" || body == "infinity" || body == "nan") {
    const double v = body == "nan" ? NAN : INFINITY;
    return lower[0] == '-' ? -v : v;
  }
  if (body.find_first_not_of("0123456789.e+-") != std::string_view::npos ||
      body.find("in") != std::string_view::npos) {
    return std::nullopt;
  }
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

namespace {

struct Spec {
  char fill = ' ';
  char align = 0;
  char sign = '-';
  bool alternate = false;
  bool zero = false;
  int width = 0;
  int precision = -1;
  char type = 0;
};

std::string Pad(std::string body, const Spec& spec, char default_align) {
  const auto n = static_cast<int>(python::CodePointCount(body));
  if (spec.width <= n) return body;
  const int pad = spec.width - n;
  const char align = spec.align ? spec.align : default_align;
  if (align == '<') return body + std::string(pad, spec.fill);
  if (align == '^')
    return std::string(pad / 2, spec.fill) + body + std::string(pad - pad / 2, spec.fill);
  if (align == '=' && !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' ')) {
    return body.substr(0, 1) + std::string(pad, spec.fill) + body.substr(1);
  }
  return std::string(pad, spec.fill) + body;
}

std::string FormatNumber(Renderer& r, const Value& v, const Spec& spec) {
  char buffer[512];
  const char type = spec.type;
  std::string body;
  if (type == 'd' || type == 'x' || type == 'X' || type == 'o' ||
      (type == 0 && v.kind() != Value::Kind::kFloat)) {
    if (v.kind() == Value::Kind::kFloat)
      r.Fail("Unknown format code 'd' for object of type 'float'");
    const int64_t i = v.kind() == Value::Kind::kInt ? v.as_int() : v.as_bool();
    const char* f = type == 'x' ? "%llx" : type == 'X' ? "%llX" : type == 'o' ? "%llo" : "%llu";
    std::snprintf(buffer, sizeof buffer, f,
                  static_cast<unsigned long long>(i < 0 ? -static_cast<unsigned long long>(i) : i));
    body = buffer;
    if (spec.alternate && (type == 'x' || type == 'X' || type == 'o'))
      body = std::string("0") + (type == 'o' ? 'o' : type) + body;
    if (i < 0) body = "-" + body;
  } else if (type == 0 && spec.precision < 0) {
    body = python::FloatRepr(v.as_number());
  } else {
    const char t = type == 0 ? 'g' : type == '%' ? 'f' : type;
    if (t != 'f' && t != 'F' && t != 'e' && t != 'E' && t != 'g' && t != 'G')
      r.Fail("unknown format code");
    const double x = type == '%' ? v.as_number() * 100 : v.as_number();
    const std::string f = std::string("%.*") + t;
    std::snprintf(buffer, sizeof buffer, f.c_str(),
                  spec.precision < 0 ? 6 : std::min(spec.precision, 300), x);
    body = buffer;
    if (type == '%') body += '%';
  }
  if (body[0] != '-' && spec.sign != '-') body = std::string(1, spec.sign) + body;
  Spec s = spec;
  if (spec.zero && !spec.align) {
    s.fill = '0';
    s.align = '=';
  }
  return Pad(body, s, '>');
}

Spec ParseSpec(Renderer& r, std::string_view text) {
  Spec spec;
  size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (text.size() >= 2 && is_align(text[1])) {
    spec.fill = text[0];
    spec.align = text[1];
    i = 2;
  } else if (!text.empty() && is_align(text[0])) {
    spec.align = text[0];
    i = 1;
  }
  if (i < text.size() && (text[i] == '+' || text[i] == '-' || text[i] == ' '))
    spec.sign = text[i++];
  if (i < text.size() && text[i] == '#') spec.alternate = (++i, true);
  if (i < text.size() && text[i] == '0') spec.zero = (++i, true);
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    spec.width = std::min(spec.width * 10 + (text[i++] - '0'), 100000);
  if (i < text.size() && text[i] == '.') {
    ++i;
    spec.precision = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      spec.precision = std::min(spec.precision * 10 + (text[i++] - '0'), 1000);
  }
  if (i < text.size()) spec.type = text[i++];
  if (i != text.size()) r.Fail("invalid format specifier");
  return spec;
}

std::string ApplySpec(Renderer& r, const Value& v, std::string_view spec_text) {
  if (spec_text.empty()) return v.Str();
  const Spec spec = ParseSpec(r, spec_text);
  if (v.is_string() || (!v.is_number())) {
    if (spec.type && spec.type != 's') r.Fail("unknown format code for object of type 'str'");
    std::string s = v.Str();
    if (spec.precision >= 0) {
      const std::vector<size_t> offsets = python::CodePointOffsets(s);
      if (static_cast<size_t>(spec.precision) + 1 < offsets.size())
        s.resize(offsets[spec.precision]);
    }
    return Pad(s, spec, '<');
  }
  return FormatNumber(r, v, spec);
}

}  // namespace

namespace {

// The value a str.format field names: {} / {0} / {name}, then .attr and [key] parts.
Value FormatField(Renderer& r, const std::string& field, CallArgs& args, size_t& next_auto) {
  size_t end = field.find_first_of(".[");
  const std::string head = field.substr(0, end);
  Value v;
  if (head.empty() || std::isdigit(static_cast<unsigned char>(head[0]))) {
    const size_t index = head.empty() ? next_auto++ : std::strtoul(head.c_str(), nullptr, 10);
    if (index >= args.positional.size()) {
      r.Fail("Replacement index " + std::to_string(index) +
             " out of range for positional args tuple");
    }
    v = args.positional[index];
  } else {
    bool found = false;
    for (const auto& [k, x] : args.keyword) {
      if (k == head) {
        v = x;
        found = true;
      }
    }
    if (!found) r.Fail("'" + head + "'");
  }
  while (end != std::string::npos && end < field.size()) {
    const bool attr = field[end] == '.';
    const size_t stop = attr ? field.find_first_of(".[", end + 1) : field.find(']', end);
    const std::string part =
        field.substr(end + 1, (stop == std::string::npos ? field.size() : stop) - end - 1);
    if (attr) {
      v = r.GetAttr(v, part);
    } else {
      auto index = ParseInt(part, 10);
      v = r.GetItem(v, index ? Value(*index) : Value(part));
    }
    end = stop == std::string::npos ? stop : (attr ? stop : stop + 1);
  }
  return v;
}

// One replacement field (the text between { and }): its value, converted and formatted.
std::string FormatReplacement(Renderer& r, std::string field, CallArgs& args, size_t& next_auto) {
  std::string spec;
  if (size_t colon = field.find(':'); colon != std::string::npos) {
    spec = field.substr(colon + 1);
    field.resize(colon);
  }
  char conversion = 0;
  if (size_t bang = field.find('!'); bang != std::string::npos) {
    conversion = bang + 1 < field.size() ? field[bang + 1] : 0;
    field.resize(bang);
  }
  Value v = FormatField(r, field, args, next_auto);
  if (conversion == 'r') v = Value(v.Repr());
  return ApplySpec(r, v, spec);
}

}  // namespace

// str.format: {} {0} {name} {name.attr} {0[key]}, !r / !s, and a format spec.
Value FormatString(Renderer& r, const std::string& format, CallArgs& args) {
  std::string out;
  size_t next_auto = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    const bool doubled = i + 1 < format.size() && format[i + 1] == c;
    if ((c == '{' || c == '}') && doubled) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') r.Fail("Single '}' encountered in format string");
    if (c != '{') {
      out += c;
      continue;
    }
    const size_t close = format.find('}', i);
    if (close == std::string::npos) r.Fail("Single '{' encountered in format string");
    out += FormatReplacement(r, format.substr(i + 1, close - i - 1), args, next_auto);
    SizeCap::Bytes(out.size());
    i = close;
  }
  return Value(std::move(out));
}

namespace {

// One %-conversion of printf-style formatting.
std::string PercentOne(Renderer& r, char type, const Spec& spec, const Value& v) {
  Spec s = spec;
  if (spec.align == '<') s.zero = false;
  switch (type) {
    case 's': {
      std::string text = v.Str();
      if (spec.precision >= 0) {
        const std::vector<size_t> offsets = python::CodePointOffsets(text);
        if (static_cast<size_t>(spec.precision) + 1 < offsets.size())
          text.resize(offsets[spec.precision]);
      }
      return Pad(text, s, s.align ? s.align : '>');
    }
    case 'r':
      return Pad(v.Repr(), s, s.align ? s.align : '>');
    case 'd':
    case 'i':
    case 'x':
    case 'X':
    case 'o': {
      if (!v.is_number())
        r.Fail("%" + std::string(1, type) + " format: a real number is required, not " +
               std::string(v.TypeName()));
      if (v.kind() == Value::Kind::kFloat) {
        // Python: OverflowError for an infinity, ValueError for NaN; a float beyond int64
        // is out of range here.
        const double f = v.as_float();
        if (std::isnan(f)) r.Fail("cannot convert float NaN to integer");
        if (!(f >= -9.2233720368547758e18 && f < 9.2233720368547758e18)) {
          r.Fail(std::isinf(f) ? "cannot convert float infinity to integer"
                               : "%" + std::string(1, type) + " format: " + std::to_string(f) +
                                     " is out of the integer range");
        }
      }
      Value i = v.kind() == Value::Kind::kFloat ? Value(static_cast<int64_t>(v.as_float())) : v;
      s.type = type == 'i' ? 'd' : type;
      if (!s.align) s.align = '>';
      if (s.zero) s.align = 0;
      return FormatNumber(r, i, s);
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G': {
      if (!v.is_number()) r.Fail("must be real number, not " + std::string(v.TypeName()));
      s.type = type;
      if (s.precision < 0) s.precision = 6;
      if (!s.align) s.align = '>';
      if (s.zero) s.align = 0;
      return FormatNumber(r, Value(v.as_number()), s);
    }
    default:
      r.Fail(std::string("unsupported format character '") + type + "'");
  }
}

}  // namespace

Value FormatPercent(Renderer& r, const Value& format, const Value& args) {
  const std::string& f = format.as_string();
  const bool mapping = args.is_mapping();
  std::vector<Value> values =
      args.kind() == Value::Kind::kTuple ? args.items() : std::vector<Value>{args};
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out += f[i];
      continue;
    }
    if (++i >= f.size()) r.Fail("incomplete format");
    Value mapped;
    if (f[i] == '(') {
      const size_t close = f.find(')', i);
      if (close == std::string::npos || !mapping) r.Fail("format requires a mapping");
      const Value* v = args.dict().FindKey(f.substr(i + 1, close - i - 1));
      if (!v) r.Fail("'" + f.substr(i + 1, close - i - 1) + "'");
      mapped = *v;
      i = close + 1;
    }
    Spec spec;
    while (i < f.size() &&
           (f[i] == '-' || f[i] == '0' || f[i] == '+' || f[i] == ' ' || f[i] == '#')) {
      if (f[i] == '-') spec.align = '<';
      if (f[i] == '0') spec.zero = true;
      if (f[i] == '+' || f[i] == ' ') spec.sign = f[i];
      ++i;
    }
    while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])))
      spec.width = std::min(spec.width * 10 + (f[i++] - '0'), 100000);
    if (i < f.size() && f[i] == '.') {
      spec.precision = 0;
      ++i;
      while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])))
        spec.precision = std::min(spec.precision * 10 + (f[i++] - '0'), 1000);
    }
    if (i >= f.size()) r.Fail("incomplete format");
    if (f[i] == '%') {
      out += '%';
      continue;
    }
    if (mapped.is_undefined() && !mapping) {
      if (next >= values.size()) r.Fail("not enough arguments for format string");
      mapped = values[next++];
    } else if (mapped.is_undefined()) {
      mapped = args;
    }
    out += PercentOne(r, f[i], spec, mapped);
    SizeCap::Bytes(out.size());
  }
  // Python skips this check when the argument has __getitem__ (a list, an undefined, …).
  const bool subscriptable = args.kind() == Value::Kind::kList || args.is_undefined();
  if (!mapping && !subscriptable && next < values.size()) {
    r.Fail("not all arguments converted during string formatting");
  }
  return Value(std::move(out));
}

namespace {

Value GlobalRange(Renderer& r, const Value&, CallArgs& args) {
  if (!args.keyword.empty() || args.positional.empty() || args.positional.size() > 3) {
    r.Fail("range expected 1 to 3 integer arguments");
  }
  int64_t bounds[3] = {0, 0, 1};
  for (size_t i = 0; i < args.positional.size(); ++i) {
    const Value& v = args.positional[i];
    if (v.kind() != Value::Kind::kInt && v.kind() != Value::Kind::kBool) {
      r.Fail("'" + std::string(v.TypeName()) + "' object cannot be interpreted as an integer");
    }
    bounds[args.positional.size() == 1 ? 1 : i] =
        v.kind() == Value::Kind::kInt ? v.as_int() : v.as_bool();
  }
  const int64_t start = bounds[0];
  const int64_t stop = bounds[1];
  const int64_t step = bounds[2];
  if (step == 0) r.Fail("range() arg 3 must not be zero");
  const double count = std::ceil((static_cast<double>(stop) - static_cast<double>(start)) /
                                 static_cast<double>(step));
  if (count > 100000) {
    r.Fail("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  }
  std::vector<Value> items;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
    items.emplace_back(i);
  return Value::Range(std::move(items), start, stop, step);
}

std::shared_ptr<DictData> DictFromArgs(Renderer& r, CallArgs& args, const char* name) {
  auto dict = std::make_shared<DictData>();
  if (args.positional.size() > 1) r.Fail(std::string(name) + " expected at most 1 argument");
  if (!args.positional.empty()) {
    const Value& source = args.positional[0];
    if (source.is_mapping()) {
      dict->entries = source.dict().entries;
    } else {
      for (const Value& pair : r.Iterate(source)) {
        const std::vector<Value> kv = r.Iterate(pair);
        if (kv.size() != 2) r.Fail("dictionary update sequence element has the wrong length");
        dict->Set(kv[0], kv[1]);
      }
    }
  }
  for (const auto& [k, v] : args.keyword)
    dict->Set(Value(k), v);
  return dict;
}

Value GlobalDict(Renderer& r, const Value&, CallArgs& args) {
  return Value::Dict(DictFromArgs(r, args, "dict"));
}
Value GlobalNamespace(Renderer& r, const Value&, CallArgs& args) {
  return Value::Namespace(DictFromArgs(r, args, "namespace"));
}

Value GlobalRaise(Renderer& r, const Value&, CallArgs& args) {
  Params p(r, args, "raise_exception");
  Value message = p.Required(0, "message");
  p.Done();
  try {
    r.Fail(message.Str());
  } catch (RenderError& e) {
    e.from_raise_exception = true;
    throw;
  }
}

Value GlobalStrftime(Renderer& r, const Value&, CallArgs& args) {
  Params p(r, args, "strftime_now");
  const std::string format = p.String(0, "format", "");
  p.Done();
  const std::time_t now = static_cast<std::time_t>(r.NowSeconds());
  std::tm local{};
  localtime_r(&now, &local);
  char buffer[1024];
  const size_t n = std::strftime(buffer, sizeof buffer, format.c_str(), &local);
  return Value(std::string(buffer, n));
}

// joiner(sep): "" the first time it is called, then sep.
class Joiner final : public Function {
 public:
  explicit Joiner(std::string sep) : sep_(std::move(sep)) {}
  Value Call(Renderer&, CallArgs&) const override {
    if (!used_) {
      used_ = true;
      return Value("");
    }
    return Value(sep_);
  }
  std::string_view name() const override { return "joiner"; }

 private:
  std::string sep_;
  mutable bool used_ = false;
};

Value GlobalJoiner(Renderer& r, const Value&, CallArgs& args) {
  Params p(r, args, "joiner");
  Value sep = p.Get(0, "sep", Value(", "));
  p.Done();
  return Value::Callable(std::make_shared<Joiner>(sep.Str()));
}

}  // namespace

Value FindGlobal(std::string_view name) {
  using Fn = BuiltinFunction::Fn;
  static const std::pair<std::string_view, Fn> globals[] = {
      {"range", GlobalRange},           {"dict", GlobalDict},
      {"namespace", GlobalNamespace},   {"raise_exception", GlobalRaise},
      {"strftime_now", GlobalStrftime}, {"joiner", GlobalJoiner},
  };
  for (const auto& [global, fn] : globals) {
    if (global == name) {
      return Value::Callable(std::make_shared<BuiltinFunction>(global, fn));
    }
  }
  return Value();
}

}  // namespace crux::chat_template
