// Value: Python's truthiness, equality, str() and repr() for the types a template sees.
#include "crux/chat_template/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "chat_template/function.h"
#include "chat_template/python.h"
#include "crux/chat_template/json.h"

namespace crux::chat_template {
namespace {

thread_local size_t size_cap = SIZE_MAX;
// A list may hold one item for every this many bytes of the cap: an item takes at least that
// much memory, and printing one at least a few bytes.
constexpr size_t kBytesPerItem = 16;

}  // namespace

SizeCap::SizeCap(size_t cap) : saved_(size_cap) {
  size_cap = cap;
}

SizeCap::~SizeCap() {
  size_cap = saved_;
}

void SizeCap::Bytes(size_t bytes) {
  if (bytes > size_cap) {
    throw RenderError(ErrorCode::kLimit, "the template builds a string of more than " +
                                             std::to_string(size_cap) +
                                             " bytes (the output limit)");
  }
}

void SizeCap::Items(size_t items) {
  if (items > size_cap / kBytesPerItem) {
    throw RenderError(ErrorCode::kLimit, "the template builds a list of more than " +
                                             std::to_string(size_cap / kBytesPerItem) +
                                             " items (a sixteenth of the output limit)");
  }
}

const Value* DictData::Find(const Value& key) const {
  for (const auto& [k, v] : entries) {
    if (k.Equals(key)) return &v;
  }
  return nullptr;
}

const Value* DictData::FindKey(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k.is_string() && k.as_string() == key) return &v;
  }
  return nullptr;
}

Value* DictData::FindKey(std::string_view key) {
  for (auto& [k, v] : entries) {
    if (k.is_string() && k.as_string() == key) return &v;
  }
  return nullptr;
}

void DictData::Set(Value key, Value value) {
  for (auto& [k, v] : entries) {
    if (k.Equals(key)) {
      v = std::move(value);
      return;
    }
  }
  entries.emplace_back(std::move(key), std::move(value));
}

void Value::SetString(std::string s) {
  if (s.size() <= kInlineString) {
    data_ = std::move(s);
    return;
  }
  // Built mutable and shared as const: AppendInPlace may append to it while unshared.
  data_ = SharedString(std::make_shared<std::string>(std::move(s)));
}

bool Value::unshared() const {
  if (const auto* list = std::get_if<std::shared_ptr<ListData>>(&data_)) {
    return list->use_count() == 1;
  }
  if (const auto* dict = std::get_if<std::shared_ptr<DictData>>(&data_)) {
    return dict->use_count() == 1;
  }
  return false;
}

bool Value::AppendInPlace(std::string_view text) {
  if (kind_ != Kind::kString || markup_) return false;
  if (auto* inline_text = std::get_if<std::string>(&data_)) {
    inline_text->append(text);
    if (inline_text->size() > kInlineString) SetString(std::move(*inline_text));
    return true;
  }
  auto& shared = std::get<SharedString>(data_);
  if (shared.use_count() != 1) return false;
  const_cast<std::string&>(*shared).append(text);  // NOLINT: created non-const in SetString
  return true;
}

Value Value::Undefined(std::string hint) {
  Value v;
  v.data_ = std::move(hint);
  return v;
}

Value Value::List(std::vector<Value> items) {
  Value v(Kind::kList);
  v.data_ = std::make_shared<ListData>(ListData{std::move(items), ListFlavor::kList, 0, 0, 1, {}});
  return v;
}

Value Value::Tuple(std::vector<Value> items) {
  Value v(Kind::kTuple);
  v.data_ = std::make_shared<ListData>(ListData{std::move(items), ListFlavor::kList, 0, 0, 1, {}});
  return v;
}

Value Value::Generator(std::vector<Value> items) {
  return Flavored(std::move(items), ListFlavor::kGenerator);
}

Value Value::FailedGenerator(std::string error) {
  Value v = Generator({});
  std::get<std::shared_ptr<ListData>>(v.data_)->deferred_error = std::move(error);
  return v;
}

Value Value::Flavored(std::vector<Value> items, ListFlavor flavor) {
  Value v(Kind::kList);
  auto data = std::make_shared<ListData>();
  data->items = std::move(items);
  data->flavor = flavor;
  v.data_ = std::move(data);
  return v;
}

Value Value::Range(std::vector<Value> items, int64_t start, int64_t stop, int64_t step) {
  Value v = Flavored(std::move(items), ListFlavor::kRange);
  auto& data = *std::get<std::shared_ptr<ListData>>(v.data_);
  data.range_start = start;
  data.range_stop = stop;
  data.range_step = step;
  return v;
}

ListFlavor Value::flavor() const {
  if (kind_ != Kind::kList) return ListFlavor::kList;
  return std::get<std::shared_ptr<ListData>>(data_)->flavor;
}

bool Value::is_indexable() const {
  const ListFlavor f = flavor();
  return kind_ == Kind::kTuple ||
         (kind_ == Kind::kList && (f == ListFlavor::kList || f == ListFlavor::kRange));
}

Value Value::Markup(std::string s) {
  Value v(std::move(s));
  v.markup_ = true;
  return v;
}

Value Value::Dict(std::shared_ptr<DictData> dict) {
  Value v(Kind::kDict);
  v.data_ = std::move(dict);
  return v;
}

Value Value::Dict() {
  return Dict(std::make_shared<DictData>());
}

Value Value::Namespace(std::shared_ptr<DictData> dict) {
  Value v(Kind::kNamespace);
  v.data_ = std::move(dict);
  return v;
}

Value Value::Callable(std::shared_ptr<const Function> function) {
  Value v(Kind::kFunction);
  v.data_ = std::move(function);
  return v;
}

double Value::as_number() const {
  switch (kind_) {
    case Kind::kBool:
      return as_bool() ? 1.0 : 0.0;
    case Kind::kInt:
      return static_cast<double>(as_int());
    case Kind::kFloat:
      return as_float();
    default:
      return 0.0;
  }
}

const void* Value::identity() const {
  switch (kind_) {
    case Kind::kList:
    case Kind::kTuple:
      return std::get<std::shared_ptr<ListData>>(data_).get();
    case Kind::kDict:
    case Kind::kNamespace:
      return std::get<std::shared_ptr<DictData>>(data_).get();
    case Kind::kFunction:
      return function().get();
    default:
      return nullptr;
  }
}

bool Value::Truthy() const {
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNone:
      return false;
    case Kind::kBool:
      return as_bool();
    case Kind::kInt:
      return as_int() != 0;
    case Kind::kFloat:
      return as_float() != 0.0;
    case Kind::kString:
      return !as_string().empty();
    case Kind::kList:
      return is_generator() || !items().empty();
    case Kind::kTuple:
      return !items().empty();
    case Kind::kDict:
      return !dict().entries.empty();
    case Kind::kNamespace:
    case Kind::kFunction:
      return true;
  }
  return false;
}

namespace {

bool DictEquals(const DictData& a, const DictData& b) {
  if (a.entries.size() != b.entries.size()) return false;
  for (const auto& [k, v] : a.entries) {
    const Value* other = b.Find(k);
    if (!other || !v.Equals(*other)) return false;
  }
  return true;
}

bool ItemsEqual(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].Equals(b[i])) return false;
  }
  return true;
}

}  // namespace

bool Value::Equals(const Value& other) const {
  if (is_number() && other.is_number()) {
    if (kind_ != Kind::kFloat && other.kind_ != Kind::kFloat) {
      return (kind_ == Kind::kInt ? as_int() : as_bool()) ==
             (other.kind_ == Kind::kInt ? other.as_int() : other.as_bool());
    }
    return as_number() == other.as_number();
  }
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNone:
      return true;
    case Kind::kString:
      return as_string() == other.as_string();
    case Kind::kList:
    case Kind::kTuple:
      if (flavor() != other.flavor()) return false;
      // The same object is equal to itself, as Python's containers take it (which also keeps
      // a list built as [l, l] over and over from being compared along every path).
      if (identity() == other.identity()) return true;
      if (is_generator()) return false;
      return ItemsEqual(items(), other.items());
    case Kind::kDict:
      return &dict() == &other.dict() || DictEquals(dict(), other.dict());
    default:
      return identity() == other.identity();
  }
}

std::string_view Value::TypeName() const {
  switch (kind_) {
    case Kind::kUndefined:
      return "Undefined";
    case Kind::kNone:
      return "NoneType";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kList:
      switch (flavor()) {
        case ListFlavor::kGenerator:
          return "generator";
        case ListFlavor::kRange:
          return "range";
        case ListFlavor::kDictItems:
          return "dict_items";
        case ListFlavor::kDictKeys:
          return "dict_keys";
        case ListFlavor::kDictValues:
          return "dict_values";
        default:
          return "list";
      }
    case Kind::kTuple:
      return "tuple";
    case Kind::kDict:
      return "dict";
    case Kind::kNamespace:
      return "Namespace";
    case Kind::kFunction:
      return "function";
  }
  return "object";
}

namespace {

void AppendItems(std::string& out, const std::vector<Value>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i].Repr();
    SizeCap::Bytes(out.size());
  }
}

std::string RangeRepr(const ListData& range) {
  std::string out =
      "range(" + std::to_string(range.range_start) + ", " + std::to_string(range.range_stop);
  if (range.range_step != 1) out += ", " + std::to_string(range.range_step);
  return out + ")";
}

void AppendDict(std::string& out, const DictData& dict) {
  out += '{';
  for (size_t i = 0; i < dict.entries.size(); ++i) {
    if (i) out += ", ";
    out += dict.entries[i].first.Repr();
    out += ": ";
    out += dict.entries[i].second.Repr();
    SizeCap::Bytes(out.size());
  }
  out += '}';
}

}  // namespace

void Value::AppendStr(std::string& out) const {
  switch (kind_) {
    case Kind::kUndefined:
      return;
    case Kind::kNone:
      out += "None";
      return;
    case Kind::kBool:
      out += as_bool() ? "True" : "False";
      return;
    case Kind::kInt:
      out += std::to_string(as_int());
      return;
    case Kind::kFloat:
      out += python::FloatRepr(as_float());
      return;
    case Kind::kString:
      out += as_string();
      return;
    default:
      out += Repr();
  }
}

std::string Value::Str() const {
  std::string out;
  AppendStr(out);
  return out;
}

std::string Value::Repr() const {
  std::string out;
  switch (kind_) {
    case Kind::kString:
      if (markup_) return "Markup(" + python::StrRepr(as_string()) + ")";
      return python::StrRepr(as_string());
    case Kind::kList:
      if (is_generator()) return "<generator object>";
      if (flavor() == ListFlavor::kRange)
        return RangeRepr(*std::get<std::shared_ptr<ListData>>(data_));
      if (flavor() != ListFlavor::kList) out += std::string(TypeName()) + "(";
      out += '[';
      AppendItems(out, items());
      out += ']';
      if (flavor() != ListFlavor::kList) out += ')';
      return out;
    case Kind::kTuple:
      out += '(';
      AppendItems(out, items());
      if (items().size() == 1) out += ',';
      out += ')';
      return out;
    case Kind::kDict:
      AppendDict(out, dict());
      return out;
    case Kind::kNamespace:
      out += "<Namespace ";
      AppendDict(out, dict());
      out += '>';
      return out;
    case Kind::kFunction:
      return "<function " + std::string(function()->name()) + ">";
    case Kind::kUndefined:
      return "Undefined";
    default:
      return Str();
  }
}

Value FromJson(const nlohmann::ordered_json& json) {
  switch (json.type()) {
    case nlohmann::ordered_json::value_t::null:
      return Value::None();
    case nlohmann::ordered_json::value_t::boolean:
      return Value(json.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return Value(json.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned:
      return Value(static_cast<int64_t>(json.get<uint64_t>()));
    case nlohmann::ordered_json::value_t::number_float:
      return Value(json.get<double>());
    case nlohmann::ordered_json::value_t::string:
      return Value(json.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      std::vector<Value> items;
      items.reserve(json.size());
      for (const auto& item : json)
        items.push_back(FromJson(item));
      return Value::List(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      auto dict = std::make_shared<DictData>();
      dict->entries.reserve(json.size());
      for (const auto& [key, item] : json.items())
        dict->entries.emplace_back(key, FromJson(item));
      return Value::Dict(std::move(dict));
    }
    default:
      return Value::None();
  }
}

}  // namespace crux::chat_template
