// The values a chat template computes with, modelled on what Jinja2 sees in Python: undefined
// (distinct from none), none, bool, int, float, str, list, tuple, dict (insertion-ordered),
// namespace (the one mutable object) and callables (macros, builtins, bound methods).
//
// A Value is cheap to copy: scalars and short strings are held inline; longer strings,
// containers and callables are shared (immutable once built, namespaces aside), so that a
// 100 KB message read by name or attribute is not copied. Not thread-safe to mutate; a built
// context may be shared between threads rendering concurrently as long as no one mutates it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace crux::chat_template {

class Value;
class Function;  // a callable; defined by the renderer

// The items of a list or tuple.
// What Python object a list value stands for. All iterate like a list; the others differ in
// what Python allows: a generator (map, select, reject, … yield one) is always true and has
// no len() or indexing; a range prints as range(…); dict views (d.items(), d.keys(),
// d.values()) have a len() but no indexing; none of them is JSON-serialisable.
enum class ListFlavor : uint8_t { kList, kGenerator, kRange, kDictItems, kDictKeys, kDictValues };

struct ListData {
  std::vector<Value> items;
  ListFlavor flavor = ListFlavor::kList;
  int64_t range_start = 0;  // kRange: the arguments it was built from
  int64_t range_stop = 0;
  int64_t range_step = 1;
  // kGenerator: the error consuming it raises (Python's generators fail lazily).
  std::string deferred_error;
};

// The entries of a dict or namespace, in insertion order. Lookup is a linear scan: template
// dicts (messages, tool calls, schemas) are small.
struct DictData {
  std::vector<std::pair<Value, Value>> entries;

  const Value* Find(const Value& key) const;
  const Value* FindKey(std::string_view key) const;
  Value* FindKey(std::string_view key);
  // Inserts or replaces `key` (keeping its first position, as Python does).
  void Set(Value key, Value value);
};

class Value {
 public:
  enum class Kind : uint8_t {
    kUndefined,
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kList,
    kTuple,
    kDict,
    kNamespace,
    kFunction,
  };

  Value() = default;                                                        // undefined
  Value(bool b) : kind_(Kind::kBool), data_(b) {}                           // NOLINT: implicit
  Value(int64_t i) : kind_(Kind::kInt), data_(i) {}                         // NOLINT: implicit
  Value(int i) : kind_(Kind::kInt), data_(static_cast<int64_t>(i)) {}       // NOLINT: implicit
  Value(double f) : kind_(Kind::kFloat), data_(f) {}                        // NOLINT: implicit
  Value(std::string s) : kind_(Kind::kString) { SetString(std::move(s)); }  // NOLINT: implicit
  Value(const char* s) : Value(std::string(s)) {}                           // NOLINT: implicit

  static Value None() { return Value(Kind::kNone); }
  // An undefined value that remembers the name it was looked up by (for error messages).
  static Value Undefined(std::string hint);
  static Value List(std::vector<Value> items);
  static Value Tuple(std::vector<Value> items);
  static Value Generator(std::vector<Value> items);
  static Value FailedGenerator(std::string error);
  static Value Flavored(std::vector<Value> items, ListFlavor flavor);
  static Value Range(std::vector<Value> items, int64_t start, int64_t stop, int64_t step);
  // A string marked safe (Jinja2's Markup, from `safe` and `escape`): `+` with a plain string
  // HTML-escapes the plain one.
  static Value Markup(std::string s);
  static Value Dict(std::shared_ptr<DictData> dict);
  static Value Dict();
  static Value Namespace(std::shared_ptr<DictData> dict);
  static Value Callable(std::shared_ptr<const Function> function);

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::kUndefined; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_number() const {
    return kind_ == Kind::kInt || kind_ == Kind::kFloat || kind_ == Kind::kBool;
  }
  bool is_sequence() const { return kind_ == Kind::kList || kind_ == Kind::kTuple; }
  bool is_mapping() const { return kind_ == Kind::kDict; }
  bool is_markup() const { return markup_; }
  bool is_generator() const { return flavor() == ListFlavor::kGenerator; }
  // kList for tuples and non-lists.
  ListFlavor flavor() const;
  // A list, tuple or range: what Python can index and slice.
  bool is_indexable() const;

  bool as_bool() const { return std::get<bool>(data_); }
  int64_t as_int() const { return std::get<int64_t>(data_); }
  double as_float() const { return std::get<double>(data_); }
  // int, bool or float as a double.
  double as_number() const;
  const std::string& as_string() const {
    if (const auto* shared = std::get_if<SharedString>(&data_)) return **shared;
    return std::get<std::string>(data_);
  }
  // Appends `text` in place to a plain string that no other value shares, and returns true;
  // returns false, changing nothing, for anything else. A template's
  // `{% set ns.text = ns.text ~ part %}` then costs the part, not the whole text.
  bool AppendInPlace(std::string_view text);
  // The undefined value's name hint ("" when it has none).
  const std::string& undefined_hint() const { return std::get<std::string>(data_); }
  const std::vector<Value>& items() const {
    return std::get<std::shared_ptr<ListData>>(data_)->items;
  }
  const ListData& list_data() const { return *std::get<std::shared_ptr<ListData>>(data_); }
  const DictData& dict() const { return *std::get<std::shared_ptr<DictData>>(data_); }
  DictData& mutable_dict() const { return *std::get<std::shared_ptr<DictData>>(data_); }
  const std::shared_ptr<const Function>& function() const {
    return std::get<std::shared_ptr<const Function>>(data_);
  }
  // A list, tuple, dict or namespace that no other value shares (so it may be updated in place).
  bool unshared() const;
  // Identity of a shared object (namespace, callable) for `is sameas` and equality.
  const void* identity() const;

  // Python truthiness: undefined, none, false, 0, 0.0, "" and empty containers are false.
  bool Truthy() const;
  // Python `==` (1 == 1.0 == true; [1] != (1,); dicts compare as sets of entries).
  bool Equals(const Value& other) const;
  // Python str(): what `{{ value }}` prints (undefined prints nothing).
  std::string Str() const;
  // Python repr() (strings quoted): what a value prints as inside a list or dict.
  std::string Repr() const;
  // Appends Str() to `out`.
  void AppendStr(std::string& out) const;
  // Python's type name ("str", "int", "dict", "Undefined"), for error messages.
  std::string_view TypeName() const;

 private:
  using SharedString = std::shared_ptr<const std::string>;
  // Strings up to this length are held inline (copied with the value); longer ones are shared.
  static constexpr size_t kInlineString = 32;

  explicit Value(Kind kind) : kind_(kind) {}
  void SetString(std::string s);

  Kind kind_ = Kind::kUndefined;
  bool markup_ = false;
  std::variant<std::string, bool, int64_t, double, std::shared_ptr<ListData>,
               std::shared_ptr<DictData>, std::shared_ptr<const Function>, SharedString>
      data_;
};

}  // namespace crux::chat_template
