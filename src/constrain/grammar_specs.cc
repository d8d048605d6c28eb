// SchemaIr → grammar tables: disjunctive normal form of every value position, merged specs.
#include "grammar_specs.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "json_util.h"

namespace crux::constrain::grammar {

// ---- LiteralTrie -------------------------------------------------------------------------

void LiteralTrie::Add(std::string_view text, uint32_t index) {
  uint32_t node = kRoot;
  for (char c : text) {
    const auto byte = static_cast<uint8_t>(c);
    uint32_t child = kNone;
    for (const Edge& edge : building_[node]) {
      if (edge.byte == byte) child = edge.child;
    }
    if (child == kNone) {
      child = static_cast<uint32_t>(nodes_.size());
      Node next;
      next.depth = nodes_[node].depth + 1;
      next.last = byte;
      const Node& parent = nodes_[node];
      if (parent.in_string) {
        next.in_string = parent.escaped || byte != '"';
        next.escaped = !parent.escaped && byte == '\\';
      } else {
        next.in_string = byte == '"';
      }
      nodes_.push_back(next);
      building_.emplace_back();
      building_[node].push_back({byte, child});
    }
    node = child;
  }
  nodes_[node].literal = index;
  if (ranks_.size() <= index) ranks_.resize(index + 1, kNone);
}

uint32_t LiteralTrie::Number(uint32_t node, uint32_t& next_rank) {
  // Iterative depth-first numbering: ranks follow byte order because edges are sorted.
  struct Item {
    uint32_t node;
    size_t next_edge;
  };
  std::vector<Item> stack = {{node, 0}};
  while (!stack.empty()) {
    Item& top = stack.back();
    Node& current = nodes_[top.node];
    if (top.next_edge == 0) {
      current.first_rank = next_rank;
      if (current.literal != kNone) ranks_[current.literal] = next_rank++;
    }
    const std::vector<Edge>& edges = building_[top.node];
    if (top.next_edge < edges.size()) {
      const uint32_t child = edges[top.next_edge++].child;
      stack.push_back({child, 0});
      continue;
    }
    current.last_rank = next_rank;
    stack.pop_back();
  }
  return next_rank;
}

void LiteralTrie::Finish() {
  for (std::vector<Edge>& edges : building_) {
    std::sort(edges.begin(), edges.end(),
              [](const Edge& a, const Edge& b) { return a.byte < b.byte; });
  }
  uint32_t next_rank = 0;
  Number(kRoot, next_rank);
  edges_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i].edges_begin = static_cast<uint32_t>(edges_.size());
    edges_.insert(edges_.end(), building_[i].begin(), building_[i].end());
    nodes_[i].edges_end = static_cast<uint32_t>(edges_.size());
  }
  auto structural = [](uint8_t byte) {
    return byte == '{' || byte == '[' || byte == ',' || byte == ':' || byte == '}' || byte == ']';
  };
  for (size_t i = 1; i < nodes_.size(); ++i) {
    Node& n = nodes_[i];
    if (n.in_string) continue;
    bool before_structural = n.edges_end > n.edges_begin;
    for (uint32_t e = n.edges_begin; e < n.edges_end; ++e) {
      before_structural = before_structural && structural(edges_[e].byte);
    }
    n.whitespace_after = structural(n.last) || n.last == '"' || before_structural;
  }
  building_.clear();
  building_.shrink_to_fit();
}

uint32_t LiteralTrie::Step(uint32_t node, uint8_t byte) const {
  const Node& current = nodes_[node];
  for (uint32_t i = current.edges_begin; i < current.edges_end; ++i) {
    if (edges_[i].byte == byte) return edges_[i].child;
    if (edges_[i].byte > byte) break;
  }
  return kNone;
}

size_t LiteralTrie::memory_bytes() const {
  return nodes_.size() * sizeof(Node) + edges_.size() * sizeof(Edge) +
         ranks_.size() * sizeof(uint32_t);
}

size_t Specs::memory_bytes() const {
  size_t total = values.size() * sizeof(ValueSpec);
  for (const auto& list : alts)
    total += list.size() * sizeof(SpecId) + sizeof(list);
  for (const ArraySpec& array : arrays)
    total += sizeof(array) + array.prefix.size() * 4;
  for (const ObjectSpec& object : objects) {
    total += sizeof(object) + object.names.memory_bytes() +
             object.undeclared_by_state.size() * sizeof(AltsId);
    for (const PropertySpec& property : object.properties) {
      total += sizeof(property) + property.name.size();
    }
  }
  for (const LiteralTrie& trie : literal_sets)
    total += trie.memory_bytes();
  for (const ByteDfa& dfa : dfas)
    total += dfa.memory_bytes();
  for (const std::string& key : dfa_keys)
    total += key.size();
  return total;
}

namespace {

std::string KeyOf(const std::vector<NodeId>& nodes) {
  return std::string(reinterpret_cast<const char*>(nodes.data()), nodes.size() * sizeof(NodeId));
}

// Canonical JSON text `json` with its keywords outside strings spelled as Python's (True,
// False, None).
std::string PythonSpelling(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 8);
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < json.size()) {
        out.push_back(json[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (json.substr(i).starts_with("true")) {
      out.append("True");
      i += 3;
    } else if (json.substr(i).starts_with("false")) {
      out.append("False");
      i += 4;
    } else if (json.substr(i).starts_with("null")) {
      out.append("None");
      i += 3;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// A node that constrains nothing itself: a `$ref` alone, an `allOf` of others, `{}` (every
// other field as a default node has it). A conjunction without it is the same value, so a
// spec is shared by the many places that name one definition through nodes of their own.
bool Transparent(const SchemaNode& n) {
  static const SchemaNode bare;
  SchemaNode own = n;
  own.ref = kNoNode;
  own.all_of.clear();
  return own == bare;
}

class Builder {
 public:
  Builder(const SchemaIr& ir, const GrammarOptions& options) : ir_(ir), options_(options) {
    ExpandStructuredEnums();
  }
  Expected<Specs> Build();

 private:
  using Conj = std::vector<NodeId>;
  using Choices = std::vector<const std::vector<NodeId>*>;

  Expected<AltsId> Alternatives(Conj seeds);
  void Close(NodeId id, Conj& conj, Choices& choices) const;
  Status Dnf(Conj conj, Choices choices, size_t next, std::vector<Conj>& out);
  bool Satisfiable(const Conj& conj) const;
  Expected<SpecId> Spec(const Conj& flat);
  // Removes from every alternative list the specs no JSON value meets (an empty number range,
  // a string no pattern takes within its length, a required member or a first item that no
  // value meets), so that the matcher never opens a value it cannot finish.
  void DropEmptySpecs();
  bool Admits(const ValueSpec& spec, const std::vector<uint8_t>& admits) const;
  Status FillEnum(const Conj& flat, ValueSpec& spec);
  Status FillString(const Conj& flat, ValueSpec& spec);
  void FillNumber(const Conj& flat, ValueSpec& spec) const;
  Status FillArray(const Conj& flat, ValueSpec& spec);
  Status FillObject(const Conj& flat, ValueSpec& spec);
  std::vector<std::string> ObjectNames(const Conj& flat, std::vector<RegexSource>& pattern_sources,
                                       ObjectSpec& object) const;
  Status FillDeclared(const Conj& flat, const std::vector<std::string>& names,
                      const std::vector<RegexSource>& pattern_sources, ObjectSpec& object);
  Status FillUndeclared(const Conj& flat, const std::vector<RegexSource>& pattern_sources,
                        ObjectSpec& object);
  Expected<AltsId> MemberAlternatives(const Conj& flat, const std::string* name,
                                      const std::vector<bool>& pattern_matched);
  // (`all_must_match`: a string's automaton, where every source must match: states from
  // which they cannot all match are dead.)
  Expected<uint32_t> Dfa(std::vector<RegexSource> sources, bool all_must_match = false);
  bool NodeOpensObject(const SchemaNode& node) const {
    return !node.properties.empty() || !node.required.empty() || !node.pattern_properties.empty() ||
           node.additional_properties != kNoNode || node.min_properties > 0 ||
           node.max_properties != UINT64_MAX;
  }

  void ExpandStructuredEnums();
  NodeId Synthetic(const Json& value, const std::string& pointer);
  NodeId NewNode(const std::string& pointer);

  SchemaIr ir_;  // a copy: structured enum values become nodes of their own
  GrammarOptions options_;
  Specs specs_;
  std::unordered_map<std::string, AltsId> alts_memo_;
  std::unordered_map<std::string, SpecId> spec_memo_;
  std::unordered_map<std::string, uint32_t> dfa_memo_;
  std::vector<bool> one_of_reported_;
  std::vector<bool> property_names_reported_;
  std::vector<uint8_t> transparent_;  // per node: it constrains nothing itself
};

// Per state of `dfa`: the bytes that do not lead to kDeadState (a union of byte classes).
std::vector<ByteSet> LiveBytes(const ByteDfa& dfa) {
  std::vector<ByteSet> class_bytes(dfa.class_count());
  for (int byte = 0; byte < 256; ++byte)
    class_bytes[dfa.ClassOf(static_cast<uint8_t>(byte))].Set(static_cast<uint8_t>(byte));
  std::vector<ByteSet> live(dfa.state_count());
  for (uint32_t state = 0; state < dfa.state_count(); ++state) {
    for (size_t c = 0; c < class_bytes.size(); ++c) {
      if (dfa.StepClass(state, c) != kDeadState) live[state].Add(class_bytes[c]);
    }
  }
  return live;
}

// Fewest code points from each state of `dfa` to one where every source matches (shortest
// paths on the reversed automaton: a lead byte costs one code point, a continuation byte
// nothing). One edge per byte class, which never mixes continuation bytes with others.
std::vector<uint32_t> MinToAccept(const ByteDfa& dfa) {
  const size_t n = dfa.state_count();
  std::vector<uint32_t> class_weight(dfa.class_count());
  for (int byte = 0; byte < 256; ++byte)
    class_weight[dfa.ClassOf(static_cast<uint8_t>(byte))] = (byte & 0xC0) == 0x80 ? 0 : 1;
  std::vector<uint32_t> begin(n + 1, 0);  // edges into each state, grouped
  for (uint32_t s = 0; s < n; ++s) {
    for (size_t c = 0; c < class_weight.size(); ++c) {
      if (const uint32_t t = dfa.StepClass(s, c); t != kDeadState) ++begin[t + 1];
    }
  }
  for (size_t s = 0; s < n; ++s)
    begin[s + 1] += begin[s];
  std::vector<std::pair<uint32_t, uint32_t>> reverse(begin[n]);  // (from, weight)
  std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
  for (uint32_t s = 0; s < n; ++s) {
    for (size_t c = 0; c < class_weight.size(); ++c) {
      if (const uint32_t t = dfa.StepClass(s, c); t != kDeadState) {
        reverse[fill[t]++] = {s, class_weight[c]};
      }
    }
  }
  std::vector<uint32_t> distance(n, UINT32_MAX);
  std::vector<uint32_t> queue;
  for (uint32_t s = 0; s < n; ++s) {
    if (dfa.MatchesAll(s)) {
      distance[s] = 0;
      queue.push_back(s);
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t t = queue[head];
    for (uint32_t e = begin[t]; e < begin[t + 1]; ++e) {
      const auto [s, weight] = reverse[e];
      if (distance[t] + weight < distance[s]) {
        distance[s] = distance[t] + weight;
        queue.push_back(s);
      }
    }
  }
  return distance;
}

NodeId Builder::NewNode(const std::string& pointer) {
  ir_.nodes.emplace_back();
  ir_.pointers.push_back(pointer);
  return static_cast<NodeId>(ir_.nodes.size() - 1);
}

// The schema that admits exactly `value`: objects and arrays by structure (any key order,
// any whitespace, numbers by value), scalars as a one-value enum.
NodeId Builder::Synthetic(const Json& value, const std::string& pointer) {
  const NodeId id = NewNode(pointer);
  if (value.is_object()) {
    const NodeId none = NewNode(pointer);
    ir_.nodes[none].always_false = true;
    ir_.nodes[none].types = 0;
    std::vector<PropertySchema> properties;
    std::vector<std::string> required;
    for (auto it = value.begin(); it != value.end(); ++it) {
      properties.push_back({it.key(), Synthetic(it.value(), pointer)});
      required.push_back(it.key());
    }
    SchemaNode& node = ir_.nodes[id];
    node.types = kTypeObject;
    node.properties = std::move(properties);
    node.required = std::move(required);
    node.additional_properties = none;
  } else if (value.is_array()) {
    const NodeId none = NewNode(pointer);
    ir_.nodes[none].always_false = true;
    ir_.nodes[none].types = 0;
    std::vector<NodeId> items;
    for (const Json& item : value)
      items.push_back(Synthetic(item, pointer));
    SchemaNode& node = ir_.nodes[id];
    node.types = kTypeArray;
    node.min_items = items.size();
    node.prefix_items = std::move(items);
    node.items = none;
  } else {
    ir_.nodes[id].has_enum = true;
    ir_.nodes[id].enum_values = {CanonicalJson(value)};
  }
  return id;
}

// An enum or const with objects or arrays among its values becomes a choice between the
// scalar values (kept as canonical texts) and one structural schema per object or array.
void Builder::ExpandStructuredEnums() {
  const size_t original = ir_.nodes.size();
  if (ir_.pointers.size() < original) ir_.pointers.resize(original);
  for (NodeId id = 0; id < original; ++id) {
    std::vector<std::vector<std::string>> lists;
    if (ir_.nodes[id].has_enum) lists.push_back(ir_.nodes[id].enum_values);
    if (ir_.nodes[id].const_value) lists.push_back({*ir_.nodes[id].const_value});
    bool structured = false;
    for (const auto& list : lists) {
      for (const std::string& value : list) {
        structured = structured || (!value.empty() && (value[0] == '{' || value[0] == '['));
      }
    }
    if (!structured) continue;
    const std::string pointer = ir_.pointers[id];
    ir_.nodes[id].has_enum = false;
    ir_.nodes[id].enum_values.clear();
    ir_.nodes[id].const_value.reset();
    for (const auto& list : lists) {
      std::vector<NodeId> choices;
      std::vector<std::string> scalars;
      for (const std::string& value : list) {
        if (value.empty() || (value[0] != '{' && value[0] != '[')) {
          scalars.push_back(value);
          continue;
        }
        auto parsed = ParseJson(value);
        if (parsed.ok()) choices.push_back(Synthetic(*parsed, pointer));
      }
      if (!scalars.empty()) {
        const NodeId scalar = NewNode(pointer);
        ir_.nodes[scalar].has_enum = true;
        ir_.nodes[scalar].enum_values = std::move(scalars);
        choices.push_back(scalar);
      }
      const NodeId choice = NewNode(pointer);
      ir_.nodes[choice].any_of = std::move(choices);
      ir_.nodes[id].all_of.push_back(choice);
    }
  }
}

Expected<Specs> Builder::Build() {
  one_of_reported_.assign(ir_.nodes.size(), false);
  property_names_reported_.assign(ir_.nodes.size(), false);
  transparent_.reserve(ir_.nodes.size());
  for (const SchemaNode& node : ir_.nodes)
    transparent_.push_back(Transparent(node) ? 1 : 0);
  specs_.not_enforced = ir_.not_enforced;
  auto any = Alternatives({});
  if (!any) return any.error();
  specs_.any_value = *any;
  auto root = Alternatives({ir_.root});
  if (!root) return root.error();
  specs_.root = *root;
  for (const ByteDfa& dfa : specs_.dfas)
    specs_.dfa_live_bytes.push_back(LiveBytes(dfa));
  for (const ByteDfa& dfa : specs_.dfas) {
    specs_.dfa_min_to_accept.push_back(MinToAccept(dfa));
    specs_.dfa_reach.push_back(ComputeDfaReach(dfa, specs_.dfa_min_to_accept.back()));
  }
  for (ValueSpec& spec : specs_.values)
    PrepareNumber(spec.number);
  DropEmptySpecs();
  // Whether a member can be written is known only now: recursive schemas name alternative
  // lists that were still being built when their object was.
  for (ObjectSpec& object : specs_.objects) {
    specs_.seen_words = std::max(specs_.seen_words, object.seen_words);
    std::fill(object.allowed_by_rank.begin(), object.allowed_by_rank.end(), 0);
    for (const PropertySpec& property : object.properties) {
      const uint32_t rank = object.names.rank(property.order);
      if (!specs_.alts[property.value].empty()) {
        object.allowed_by_rank[rank / 64] |= uint64_t{1} << (rank % 64);
      }
    }
    object.undeclared_possible = !specs_.alts[object.undeclared].empty();
    for (AltsId alts : object.undeclared_by_state) {
      if (!specs_.alts[alts].empty()) object.undeclared_possible = true;
    }
  }
  return std::move(specs_);
}

bool Builder::Admits(const ValueSpec& spec, const std::vector<uint8_t>& admits) const {
  auto some = [&](AltsId alts) {
    return std::any_of(specs_.alts[alts].begin(), specs_.alts[alts].end(),
                       [&](SpecId id) { return admits[id] != 0; });
  };
  constexpr uint8_t kNumbers = kTypeInteger | kTypeNumber;
  if (spec.has_enum) {
    if ((spec.types & ~kNumbers) != 0 && spec.literals != kNone) return true;
    return (spec.types & kNumbers) != 0 && AdmitsSomeNumber(spec.number);
  }
  if ((spec.types & (kTypeNull | kTypeBoolean)) != 0) return true;
  if ((spec.types & kNumbers) != 0 && AdmitsSomeNumber(spec.number)) return true;
  if ((spec.types & kTypeString) != 0) {
    const StringSpec& s = spec.string;
    bool fits = s.min_length <= s.max_length;
    if (fits && s.dfa != kNone) {
      // The fewest code points the automaton takes to match (UINT32_MAX: it matches nothing).
      const uint32_t start = specs_.dfas[s.dfa].start();
      const uint32_t fewest =
          start == kDeadState ? UINT32_MAX : specs_.dfa_min_to_accept[s.dfa][start];
      fits = fewest != UINT32_MAX && fewest <= s.max_length;
    }
    if (fits) return true;
  }
  if ((spec.types & kTypeArray) != 0) {
    if (spec.array == kNone) return true;
    const ArraySpec& a = specs_.arrays[spec.array];
    bool items = a.min_items <= a.max_items;
    for (uint64_t i = 0; items && i < a.min_items && i <= a.prefix.size(); ++i)
      items = some(a.item(i));
    if (items) return true;
  }
  if ((spec.types & kTypeObject) != 0) {
    if (spec.object == kNone) return true;
    const ObjectSpec& o = specs_.objects[spec.object];
    uint64_t required = 0;
    uint64_t writable = 0;
    bool members = o.min_properties <= o.max_properties;
    for (const PropertySpec& property : o.properties) {
      const bool can = some(property.value);
      writable += can ? 1 : 0;
      if (property.required) {
        ++required;
        members = members && can;
      }
    }
    bool undeclared = some(o.undeclared);
    for (AltsId alts : o.undeclared_by_state)
      undeclared = undeclared || some(alts);
    members =
        members && required <= o.max_properties && (undeclared || writable >= o.min_properties);
    if (members) return true;
  }
  return false;
}

void Builder::DropEmptySpecs() {
  // Least fixpoint: a spec admits a value once some type of it has one whose parts (required
  // members, the first min_items items) do. Specs are numbered after the specs that contain
  // them, so one sweep from the last settles a tree; a spec is looked at again only when a
  // part numbered before it (recursion) comes to admit a value.
  const size_t n = specs_.values.size();
  std::vector<std::vector<SpecId>> users(n);  // per spec: the specs whose parts list it
  auto note = [&](SpecId user, AltsId alts) {
    if (alts == kNone) return;
    for (SpecId part : specs_.alts[alts])
      users[part].push_back(user);
  };
  for (size_t id = 0; id < n; ++id) {
    const ValueSpec& spec = specs_.values[id];
    const auto user = static_cast<SpecId>(id);
    if (spec.has_enum) continue;
    if (spec.array != kNone) {
      const ArraySpec& a = specs_.arrays[spec.array];
      for (uint64_t i = 0; i < a.min_items && i <= a.prefix.size(); ++i)
        note(user, a.item(i));
    }
    if (spec.object != kNone) {
      const ObjectSpec& o = specs_.objects[spec.object];
      for (const PropertySpec& property : o.properties)
        note(user, property.value);
      note(user, o.undeclared);
      for (AltsId alts : o.undeclared_by_state)
        note(user, alts);
    }
  }
  std::vector<uint8_t> admits(n, 0);
  std::vector<uint8_t> queued(n, 0);
  std::vector<SpecId> pending;
  // `sweeping`: in the first sweep, from the last spec down, only a user already passed (a
  // higher number: recursion) is queued; the others come later in the sweep.
  auto admit = [&](SpecId id, bool sweeping) {
    admits[id] = 1;
    for (SpecId user : users[id]) {
      if (admits[user] != 0 || queued[user] != 0 || (sweeping && user < id)) continue;
      queued[user] = 1;
      pending.push_back(user);
    }
  };
  for (size_t id = n; id-- > 0;) {
    if (Admits(specs_.values[id], admits)) admit(static_cast<SpecId>(id), true);
  }
  while (!pending.empty()) {
    const SpecId id = pending.back();
    pending.pop_back();
    queued[id] = 0;
    if (admits[id] == 0 && Admits(specs_.values[id], admits)) admit(id, false);
  }
  for (std::vector<SpecId>& list : specs_.alts)
    std::erase_if(list, [&](SpecId id) { return admits[id] == 0; });
}

void Builder::Close(NodeId id, Conj& conj, Choices& choices) const {
  if (std::find(conj.begin(), conj.end(), id) != conj.end()) return;
  conj.push_back(id);
  const SchemaNode& node = ir_.node(id);
  if (node.ref != kNoNode) Close(node.ref, conj, choices);
  for (NodeId part : node.all_of)
    Close(part, conj, choices);
  if (!node.any_of.empty()) choices.push_back(&node.any_of);
  if (!node.one_of.empty()) choices.push_back(&node.one_of);
}

bool Builder::Satisfiable(const Conj& conj) const {
  uint8_t types = kTypeAny;
  for (NodeId id : conj) {
    const SchemaNode& node = ir_.node(id);
    if (node.always_false) return false;
    types &= WithIntegers(node.types);
  }
  return types != 0;
}

Status Builder::Dnf(Conj conj, Choices choices, size_t next, std::vector<Conj>& out) {
  if (!Satisfiable(conj)) return {};
  if (next == choices.size()) {
    auto transparent = [&](NodeId id) { return transparent_[id] != 0; };
    if (!std::all_of(conj.begin(), conj.end(), transparent)) {
      conj.erase(std::remove_if(conj.begin(), conj.end(), transparent), conj.end());
    }
    std::sort(conj.begin(), conj.end());
    if (std::find(out.begin(), out.end(), conj) == out.end()) out.push_back(std::move(conj));
    if (out.size() > kMaxGrammarAlternatives) {
      return Error(ErrorCode::kLimit, "a value has more than kMaxGrammarAlternatives (" +
                                          std::to_string(kMaxGrammarAlternatives) +
                                          ") combinations of anyOf/oneOf branches");
    }
    return {};
  }
  for (NodeId branch : *choices[next]) {
    Conj branch_conj = conj;
    Choices branch_choices = choices;
    Close(branch, branch_conj, branch_choices);
    if (Status status = Dnf(std::move(branch_conj), std::move(branch_choices), next + 1, out);
        !status) {
      return status;
    }
  }
  return {};
}

Expected<AltsId> Builder::Alternatives(Conj seeds) {
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  const std::string key = KeyOf(seeds);
  if (auto found = alts_memo_.find(key); found != alts_memo_.end()) return found->second;
  const auto id = static_cast<AltsId>(specs_.alts.size());
  alts_memo_.emplace(key, id);
  specs_.alts.emplace_back();
  Conj conj;
  Choices choices;
  for (NodeId seed : seeds)
    Close(seed, conj, choices);
  std::vector<Conj> flats;
  if (Status status = Dnf(std::move(conj), std::move(choices), 0, flats); !status) {
    return status.error();
  }
  std::vector<SpecId> list;
  for (const Conj& flat : flats) {
    auto spec = Spec(flat);
    if (!spec) return spec.error();
    // An enum with no value of the allowed types leaves no type: nothing can be written.
    if (specs_.values[*spec].types == 0) continue;
    list.push_back(*spec);
  }
  specs_.alts[id] = std::move(list);
  return id;
}

Expected<SpecId> Builder::Spec(const Conj& flat) {
  const std::string key = KeyOf(flat);
  if (auto found = spec_memo_.find(key); found != spec_memo_.end()) return found->second;
  if (specs_.values.size() >= kMaxGrammarSpecs) {
    return Error(ErrorCode::kLimit, "the schema needs more than kMaxGrammarSpecs (" +
                                        std::to_string(kMaxGrammarSpecs) +
                                        ") distinct value constraints");
  }
  const auto id = static_cast<SpecId>(specs_.values.size());
  spec_memo_.emplace(key, id);
  specs_.values.emplace_back();
  ValueSpec spec;
  for (NodeId node : flat)
    spec.types &= WithIntegers(ir_.node(node).types);
  for (NodeId node : flat) {
    const SchemaNode& n = ir_.node(node);
    if (n.one_of.size() > 1 && !one_of_reported_[node]) {
      // oneOf is enforced as anyOf unless its branches admit disjoint types.
      uint8_t seen = 0;
      bool disjoint = true;
      for (NodeId branch : n.one_of) {
        const uint8_t types = WithIntegers(ir_.node(branch).types);
        if ((seen & types) != 0) disjoint = false;
        seen |= types;
      }
      one_of_reported_[node] = true;
      if (!disjoint) {
        const std::string& pointer = node < ir_.pointers.size() ? ir_.pointers[node] : "";
        specs_.not_enforced.push_back({"oneOf", pointer + "/oneOf"});
      }
    }
    if (n.property_names != kNoNode && !property_names_reported_[node]) {
      // Names are matched against declared names and patternProperties only.
      property_names_reported_[node] = true;
      const std::string& pointer = node < ir_.pointers.size() ? ir_.pointers[node] : "";
      specs_.not_enforced.push_back({"propertyNames", pointer + "/propertyNames"});
    }
  }
  if (Status status = FillEnum(flat, spec); !status) return status.error();
  FillNumber(flat, spec);
  if (!spec.has_enum) {
    if (Status status = FillString(flat, spec); !status) return status.error();
    if (Status status = FillArray(flat, spec); !status) return status.error();
    if (Status status = FillObject(flat, spec); !status) return status.error();
  }
  specs_.values[id] = std::move(spec);
  return id;
}

Status Builder::FillEnum(const Conj& flat, ValueSpec& spec) {
  bool constrained = false;
  std::vector<std::string> allowed;
  for (NodeId id : flat) {
    const SchemaNode& node = ir_.node(id);
    std::vector<std::string> values;
    if (node.has_enum) values = node.enum_values;
    if (node.const_value) {
      if (node.has_enum &&
          std::find(values.begin(), values.end(), *node.const_value) == values.end()) {
        values.clear();
      } else {
        values = {*node.const_value};
      }
    }
    if (!node.has_enum && !node.const_value) continue;
    if (!constrained) {
      allowed = std::move(values);
      constrained = true;
      continue;
    }
    std::erase_if(allowed, [&](const std::string& value) {
      return std::find(values.begin(), values.end(), value) == values.end();
    });
  }
  if (!constrained) return {};
  std::erase_if(allowed, [&](const std::string& value) {
    const uint8_t type = TypeOfCanonical(value);
    return (spec.types & type) == 0;
  });
  // Numbers are compared by value (1.0 equals 1), everything else by canonical text.
  spec.has_enum = true;
  uint8_t types = 0;
  LiteralTrie trie;
  uint32_t texts = 0;
  for (const std::string& value : allowed) {
    const uint8_t type = TypeOfCanonical(value);
    if ((type & (kTypeInteger | kTypeNumber)) != 0) {
      auto number = ParseJson(value);
      if (number.ok() && number->is_number()) {
        spec.number.points.push_back(ToSchemaNumber(*number));
      }
      types |= kTypeInteger | kTypeNumber;
      continue;
    }
    types |= type;
    trie.Add(options_.python_literals ? PythonSpelling(value) : value, texts++);
  }
  spec.types &= types;
  if (texts > 0) {
    trie.Finish();
    spec.literals = static_cast<uint32_t>(specs_.literal_sets.size());
    specs_.literal_sets.push_back(std::move(trie));
  }
  return {};
}

Expected<uint32_t> Builder::Dfa(std::vector<RegexSource> sources, bool all_must_match) {
  // One source matches exactly where some source does: nothing to prune.
  all_must_match = all_must_match && sources.size() > 1;
  std::string key = all_must_match ? "all\0" : "";
  for (const RegexSource& source : sources) {
    key += std::to_string(static_cast<int>(source.kind)) + ":" +
           std::to_string(static_cast<int>(source.format)) + ":" + source.text + '\0';
  }
  if (auto found = dfa_memo_.find(key); found != dfa_memo_.end()) return found->second;
  auto dfa = CompileRegexes(sources);
  if (!dfa) return dfa.error();
  const auto id = static_cast<uint32_t>(specs_.dfas.size());
  specs_.dfas.push_back(all_must_match ? dfa->MatchingAllOnly() : std::move(*dfa));
  specs_.dfa_keys.push_back(key);
  dfa_memo_.emplace(std::move(key), id);
  return id;
}

Status Builder::FillString(const Conj& flat, ValueSpec& spec) {
  if ((spec.types & kTypeString) == 0) return {};
  std::vector<RegexSource> sources;
  for (NodeId id : flat) {
    const SchemaNode& node = ir_.node(id);
    spec.string.min_length = std::max(spec.string.min_length, node.min_length);
    spec.string.max_length = std::min(spec.string.max_length, node.max_length);
    if (node.has_pattern) {
      // A repeated class: its count becomes the length bound (see AsCountedClass).
      if (auto counted = AsCountedClass(node.pattern)) {
        spec.string.min_length = std::max(spec.string.min_length, counted->min);
        spec.string.max_length = std::min(spec.string.max_length, counted->max);
        sources.push_back(
            {RegexSource::Kind::kPattern, std::move(counted->loop), StringFormat::kNone});
      } else {
        sources.push_back({RegexSource::Kind::kPattern, node.pattern, StringFormat::kNone});
      }
    }
    if (node.format != StringFormat::kNone) {
      sources.push_back({RegexSource::Kind::kFormat, "", node.format});
      spec.string.max_length =
          std::min(spec.string.max_length, FormatMaxLength(node.format).max_length);
    }
  }
  if (sources.empty()) return {};
  auto dfa = Dfa(std::move(sources), /*all_must_match=*/true);
  if (!dfa) return dfa.error();
  spec.string.dfa = *dfa;
  return {};
}

void Builder::FillNumber(const Conj& flat, ValueSpec& spec) const {
  NumberSpec& number = spec.number;
  number.integer_only = (spec.types & kTypeNumber) == 0 && number.points.empty();
  number.zero_fraction_ok = number.integer_only && ir_.draft != Draft::kDraft4;
  auto tighten = [](NumberBound& bound, const SchemaNumber& value, bool exclusive, int sign) {
    if (!bound.present) {
      bound = {true, exclusive, value};
      return;
    }
    const int order = CompareNumbers(value, bound.value) * sign;
    if (order > 0 || (order == 0 && exclusive)) bound = {true, exclusive, value};
  };
  for (NodeId id : flat) {
    const SchemaNode& node = ir_.node(id);
    if (node.minimum) tighten(number.low, *node.minimum, false, 1);
    if (node.exclusive_minimum) tighten(number.low, *node.exclusive_minimum, true, 1);
    if (node.maximum) tighten(number.high, *node.maximum, false, -1);
    if (node.exclusive_maximum) tighten(number.high, *node.exclusive_maximum, true, -1);
  }
}

Status Builder::FillArray(const Conj& flat, ValueSpec& spec) {
  if ((spec.types & kTypeArray) == 0) return {};
  ArraySpec array;
  size_t prefix = 0;
  bool constrained = false;
  for (NodeId id : flat) {
    const SchemaNode& node = ir_.node(id);
    prefix = std::max(prefix, node.prefix_items.size());
    array.min_items = std::max(array.min_items, node.min_items);
    array.max_items = std::min(array.max_items, node.max_items);
    constrained = constrained || !node.prefix_items.empty() || node.items != kNoNode ||
                  node.min_items > 0 || node.max_items != UINT64_MAX;
  }
  if (!constrained) return {};
  for (size_t i = 0; i <= prefix; ++i) {
    Conj seeds;
    for (NodeId id : flat) {
      const SchemaNode& node = ir_.node(id);
      const NodeId item = i < node.prefix_items.size() ? node.prefix_items[i] : node.items;
      if (item != kNoNode) seeds.push_back(item);
    }
    auto alts = Alternatives(std::move(seeds));
    if (!alts) return alts.error();
    if (i < prefix) {
      array.prefix.push_back(*alts);
    } else {
      array.rest = *alts;
    }
  }
  spec.array = static_cast<uint32_t>(specs_.arrays.size());
  specs_.arrays.push_back(std::move(array));
  return {};
}

// The alternatives of a member's value: `name` (null for an undeclared name whose patterns
// matched as `pattern_matched` says, over every node's patternProperties in order).
Expected<AltsId> Builder::MemberAlternatives(const Conj& flat, const std::string* name,
                                             const std::vector<bool>& pattern_matched) {
  Conj seeds;
  size_t pattern_index = 0;
  for (NodeId id : flat) {
    const SchemaNode& node = ir_.node(id);
    bool covered = false;
    if (name != nullptr) {
      for (const PropertySchema& property : node.properties) {
        if (property.name == *name) {
          seeds.push_back(property.schema);
          covered = true;
        }
      }
    }
    for (const PropertySchema& pattern : node.pattern_properties) {
      if (pattern_index < pattern_matched.size() && pattern_matched[pattern_index]) {
        seeds.push_back(pattern.schema);
        covered = true;
      }
      ++pattern_index;
    }
    if (covered) continue;
    if (node.additional_properties != kNoNode) {
      seeds.push_back(node.additional_properties);
    } else if (options_.strict_objects && !node.properties.empty()) {
      // Strict mode closes objects that declare properties.
      const auto empty = static_cast<AltsId>(specs_.alts.size());
      specs_.alts.emplace_back();
      return empty;
    }
  }
  return Alternatives(std::move(seeds));
}

// The names an object's nodes declare or require (first-seen order, no repeats), its
// patternProperties as automaton sources, and its property-count bounds.
std::vector<std::string> Builder::ObjectNames(const Conj& flat,
                                              std::vector<RegexSource>& pattern_sources,
                                              ObjectSpec& object) const {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (NodeId id : flat) {
    const SchemaNode& node = ir_.node(id);
    for (const PropertySchema& property : node.properties)
      add(property.name);
    for (const std::string& required : node.required)
      add(required);
    for (const PropertySchema& pattern : node.pattern_properties) {
      pattern_sources.push_back({RegexSource::Kind::kPattern, pattern.name, StringFormat::kNone});
    }
    object.min_properties = std::max(object.min_properties, node.min_properties);
    object.max_properties = std::min(object.max_properties, node.max_properties);
  }
  return names;
}

Status Builder::FillDeclared(const Conj& flat, const std::vector<std::string>& names,
                             const std::vector<RegexSource>& pattern_sources, ObjectSpec& object) {
  // Which patterns each declared name matches.
  std::vector<uint32_t> single_dfas;
  for (const RegexSource& source : pattern_sources) {
    auto dfa = Dfa({source});
    if (!dfa) return dfa.error();
    single_dfas.push_back(*dfa);
  }
  std::vector<bool> pattern_named;  // by declared name
  for (size_t i = 0; i < names.size(); ++i) {
    std::vector<bool> matched(pattern_sources.size(), false);
    for (size_t p = 0; p < single_dfas.size(); ++p) {
      const ByteDfa& dfa = specs_.dfas[single_dfas[p]];
      const uint32_t state = RunDfa(dfa, names[i]);
      matched[p] = state != kDeadState && dfa.MatchesAll(state);
    }
    auto value = MemberAlternatives(flat, &names[i], matched);
    if (!value) return value.error();
    bool required = false;
    for (NodeId id : flat) {
      const auto& list = ir_.node(id).required;
      required = required || std::find(list.begin(), list.end(), names[i]) != list.end();
    }
    object.names.Add(names[i], static_cast<uint32_t>(i));
    object.properties.push_back({names[i], *value, static_cast<uint32_t>(i), required});
    pattern_named.push_back(std::find(matched.begin(), matched.end(), true) != matched.end());
  }
  object.names.Finish();
  object.seen_words = std::max<size_t>(1, (names.size() + 63) / 64);
  object.property_by_rank.assign(object.properties.size(), 0);
  object.allowed_by_rank.assign(object.seen_words, 0);  // filled by Build
  object.required_by_rank.assign(object.seen_words, 0);
  object.pattern_named_by_rank.assign(object.seen_words, 0);
  for (const PropertySpec& property : object.properties) {
    const uint32_t rank = object.names.rank(property.order);
    const uint64_t bit = uint64_t{1} << (rank % 64);
    if (property.required) object.required_by_rank[rank / 64] |= bit;
    if (pattern_named[property.order]) object.pattern_named_by_rank[rank / 64] |= bit;
    object.property_by_rank[rank] = property.order;
  }
  return {};
}

Status Builder::FillUndeclared(const Conj& flat, const std::vector<RegexSource>& pattern_sources,
                               ObjectSpec& object) {
  auto none = MemberAlternatives(flat, nullptr, std::vector<bool>(pattern_sources.size()));
  if (!none) return none.error();
  object.undeclared = *none;
  if (pattern_sources.empty()) return {};
  auto dfa = Dfa(pattern_sources);
  if (!dfa) return dfa.error();
  object.pattern_dfa = *dfa;
  // Copied out first: compiling member values may add automata (and move this one).
  const size_t state_count = specs_.dfas[*dfa].state_count();
  std::vector<std::vector<bool>> matches(state_count);
  for (uint32_t state = 0; state < state_count; ++state) {
    for (size_t p = 0; p < pattern_sources.size(); ++p) {
      matches[state].push_back(specs_.dfas[*dfa].Matches(state, p));
    }
  }
  object.undeclared_by_state.assign(state_count, *none);
  for (uint32_t state = 0; state < state_count; ++state) {
    const std::vector<bool>& matched = matches[state];
    if (std::find(matched.begin(), matched.end(), true) == matched.end()) continue;
    auto alts = MemberAlternatives(flat, nullptr, matched);
    if (!alts) return alts.error();
    object.undeclared_by_state[state] = *alts;
  }
  return {};
}

Status Builder::FillObject(const Conj& flat, ValueSpec& spec) {
  if ((spec.types & kTypeObject) == 0) return {};
  bool constrained = false;
  for (NodeId id : flat)
    constrained = constrained || NodeOpensObject(ir_.node(id));
  if (!constrained) return {};
  ObjectSpec object;
  std::vector<RegexSource> pattern_sources;
  const std::vector<std::string> names = ObjectNames(flat, pattern_sources, object);
  if (Status status = FillDeclared(flat, names, pattern_sources, object); !status) return status;
  if (Status status = FillUndeclared(flat, pattern_sources, object); !status) return status;
  // allowed_by_rank and undeclared_possible are set by Build, once every list is complete.
  spec.object = static_cast<uint32_t>(specs_.objects.size());
  specs_.objects.push_back(std::move(object));
  return {};
}

}  // namespace

Expected<Specs> BuildSpecs(const SchemaIr& schema, const GrammarOptions& options) {
  Builder builder(schema, options);
  return builder.Build();
}

}  // namespace crux::constrain::grammar
