// The vocabulary's token trie and string classes.
#include "token_index.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <utility>

#include "number_lexer.h"
#include "string_lexer.h"

namespace crux::constrain::grammar {

FlatTrie FlatTrie::Build(std::vector<std::pair<std::string, uint32_t>> items) {
  std::sort(items.begin(), items.end());
  FlatTrie trie;
  std::vector<uint32_t> path;  // open nodes, by depth - 1
  const std::string* previous = nullptr;
  for (const auto& [key, value] : items) {
    size_t common = 0;
    if (previous != nullptr) {
      while (common < key.size() && common < previous->size() &&
             key[common] == (*previous)[common]) {
        ++common;
      }
    }
    while (path.size() > common) {
      trie.skip[path.back()] = static_cast<uint32_t>(trie.size());
      path.pop_back();
    }
    for (size_t i = common; i < key.size(); ++i) {
      path.push_back(static_cast<uint32_t>(trie.size()));
      trie.byte.push_back(static_cast<uint8_t>(key[i]));
      trie.depth.push_back(static_cast<uint16_t>(i + 1));
      trie.skip.push_back(0);
      trie.begin.push_back(static_cast<uint32_t>(trie.values.size()));
    }
    trie.max_depth = std::max(trie.max_depth, key.size());
    trie.values.push_back(value);
    previous = &key;
  }
  while (!path.empty()) {
    trie.skip[path.back()] = static_cast<uint32_t>(trie.size());
    path.pop_back();
  }
  trie.begin.push_back(static_cast<uint32_t>(trie.values.size()));
  trie.root.fill(FlatTrie::kNoNode);
  for (size_t i = 0; i < trie.size(); i = trie.skip[i])
    trie.root[trie.byte[i]] = static_cast<uint32_t>(i);
  const size_t n = trie.size();
  trie.child_begin.reserve(n + 1);
  trie.child_byte.reserve(n);
  trie.child_node.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    trie.child_begin.push_back(static_cast<uint32_t>(trie.child_node.size()));
    for (size_t child = i + 1; child < trie.skip[i]; child = trie.skip[child]) {
      trie.child_byte.push_back(trie.byte[child]);
      trie.child_node.push_back(static_cast<uint32_t>(child));
    }
  }
  trie.child_begin.push_back(static_cast<uint32_t>(trie.child_node.size()));
  return trie;
}

size_t FlatTrie::Find(std::string_view path) const {
  if (path.empty()) return SIZE_MAX;
  size_t node = SIZE_MAX;
  for (char c : path) {
    node = Child(node, static_cast<uint8_t>(c));
    if (node == SIZE_MAX) return SIZE_MAX;
  }
  return node;
}

size_t FlatTrie::Child(size_t node, uint8_t next) const {
  if (node == SIZE_MAX) return root[next] == kNoNode ? SIZE_MAX : root[next];
  // The children's packed bytes, not their scattered entries.
  const uint8_t* first = child_byte.data() + child_begin[node];
  const uint8_t* last = child_byte.data() + child_begin[node + 1];
  const uint8_t* found = std::find(first, last, next);
  if (found == last) return SIZE_MAX;
  return child_node[static_cast<size_t>(found - child_byte.data())];
}

TokenMask::TokenMask(std::vector<uint32_t> words) {
  size_t non_zero = 0;
  for (uint32_t word : words)
    non_zero += word != 0 ? 1 : 0;
  if (non_zero * 4 > words.size()) {
    dense_ = std::move(words);
    return;
  }
  sparse_.reserve(non_zero);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] != 0) sparse_.push_back({static_cast<uint32_t>(i), words[i]});
  }
}

void TokenMask::OrInto(std::span<uint32_t> mask) const {
  if (!dense_.empty()) {
    for (size_t i = 0; i < mask.size(); ++i)
      mask[i] |= dense_[i];
    return;
  }
  for (auto [index, bits] : sparse_)
    mask[index] |= bits;
}

void TokenMask::OrIntoAnd(std::span<uint32_t> mask, std::span<const uint32_t> other) const {
  if (!dense_.empty()) {
    for (size_t i = 0; i < mask.size(); ++i)
      mask[i] |= dense_[i] & other[i];
    return;
  }
  for (auto [index, bits] : sparse_)
    mask[index] |= bits & other[index];
}

bool TokenMask::Has(uint32_t token) const {
  const uint32_t bit = 1u << (token % 32);
  if (!dense_.empty()) return (dense_[token / 32] & bit) != 0;
  const auto it = std::lower_bound(sparse_.begin(), sparse_.end(), token / 32,
                                   [](const std::pair<uint32_t, uint32_t>& entry, uint32_t index) {
                                     return entry.first < index;
                                   });
  return it != sparse_.end() && it->first == token / 32 && (it->second & bit) != 0;
}

size_t FlatTrie::memory_bytes() const {
  return byte.size() * (1 + 2 + 4 + 4) + values.size() * 4 + child_begin.size() * 4 +
         child_byte.size() * 5 + groups.size() * 8 + deepest.size() * 2;
}

uint8_t FlatTrie::ByteGroup(uint8_t byte) {
  static const std::array<uint8_t, 256> table = [] {
    std::array<uint8_t, 256> group{};
    std::array<bool, 256> set{};
    uint8_t next = 0;
    auto put = [&](int first, int last, int step) {
      for (int b = first; b <= last; b += step) {
        for (int k = b; k < b + step && k <= last; ++k) {
          group[k] = next;
          set[k] = true;
        }
        ++next;
      }
    };
    put(0x00, 0x1F, 32);  // 0: control bytes
    put('"', '"', 1);
    put('\\', '\\', 1);
    put(' ', ' ', 1);
    put('0', '9', 1);  // 4..13
    put('A', 'Z', 2);  // 14..26
    put('a', 'z', 2);  // 27..39
    // The other printable bytes and DEL (31 of them), in pairs: 40..55.
    int pending = -1;
    for (int b = 0x21; b < 0x80; ++b) {
      if (set[b]) continue;
      group[b] = next;
      set[b] = true;
      if (pending < 0) {
        pending = b;
      } else {
        pending = -1;
        ++next;
      }
    }
    if (pending >= 0) ++next;
    put(0x80, 0xBF, 16);  // continuation bytes: 56..59
    put(0xC0, 0xDF, 16);  // two-byte leads: 60, 61
    put(0xE0, 0xEF, 16);  // three-byte leads: 62
    put(0xF0, 0xFF, 16);  // the rest: 63
    return group;
  }();
  return table[byte];
}

void FlatTrie::Summarize() {
  const size_t n = size();
  groups.assign(n, 0);
  deepest.assign(n, 0);
  // Depth-first order: a node's subtree is [i, skip[i]); each node, once its subtree is
  // done, adds its summary to its parent's (the node below it on the stack).
  std::vector<uint32_t> open;
  auto close = [&] {
    const uint32_t done = open.back();
    open.pop_back();
    if (open.empty()) return;
    groups[open.back()] |= groups[done];
    deepest[open.back()] = std::max(deepest[open.back()], deepest[done]);
  };
  for (size_t i = 0; i < n; ++i) {
    while (!open.empty() && skip[open.back()] <= i)
      close();
    groups[i] = uint64_t{1} << ByteGroup(byte[i]);
    deepest[i] = depth[i];
    open.push_back(static_cast<uint32_t>(i));
  }
  while (!open.empty())
    close();
}

size_t VocabIndex::memory_bytes() const {
  size_t total = trie.memory_bytes();
  std::vector<const StringClass*> classes;
  for (const StringClass& c : string_classes)
    classes.push_back(&c);
  classes.push_back(&after_quote);
  for (const StringClass* cls : classes) {
    const StringClass& c = *cls;
    total += c.inside.memory_bytes() + c.suffixes.memory_bytes() + c.escaped_prefix.size() * 40 +
             c.members.memory_bytes() + c.suffix_first.size();
    for (const TokenMask& mask : c.inside_at_most)
      total += mask.memory_bytes();
  }
  return total;
}

namespace {

// Where a token leads from lexer state `start` inside a string.
struct TokenInString {
  LexResult result = LexResult::kOk;
  size_t close_at = 0;            // byte index of the closing quote
  uint32_t code_points = 0;       // added before the quote (or in all)
  std::string decoded;            // the bytes the prefix decodes to
  bool backslash_before = false;  // an escape precedes the quote
};

TokenInString Classify(std::string_view bytes, uint32_t start) {
  TokenInString out;
  uint32_t state = start;
  uint32_t code = 0;
  struct Sink {
    TokenInString& out;
    bool Emit(uint8_t byte, bool lead) {
      if (lead) ++out.code_points;
      out.decoded.push_back(static_cast<char>(byte));
      return true;
    }
    bool Probe(uint32_t, uint32_t) { return true; }
  } emit{out};
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto byte = static_cast<uint8_t>(bytes[i]);
    if (byte == '\\') out.backslash_before = true;
    const LexResult result = LexString(state, code, byte, emit);
    if (result == LexResult::kRefused) {
      out.result = result;
      return out;
    }
    if (result == LexResult::kClosed) {
      out.result = result;
      out.close_at = i;
      return out;
    }
  }
  // A token that ends inside an escape will add a code point when the escape ends: count it,
  // so that a length bound that leaves no room refuses it. (A token that ends inside a \u
  // escape leads to a state whose class is not precomputed; the matcher walks there.)
  if (state >= kLexEscape) ++out.code_points;
  return out;
}

void SetBit(std::vector<uint32_t>& mask, uint32_t token) {
  mask[token / 32] |= 1u << (token % 32);
}

// With `after_quote`, the tokens that open a string (their first byte a quote) seen from just
// after that quote: their bytes after the first are classified.
StringClass BuildClass(const Vocabulary& vocabulary, uint32_t start, bool after_quote = false) {
  StringClass c;
  const size_t words = vocabulary.mask_words();
  std::vector<uint32_t> inside(words, 0);
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> members;
  std::vector<std::vector<uint32_t>> by_code_points;  // inside tokens, by code points added
  std::map<std::string, uint32_t> groups;
  std::vector<std::pair<std::string, uint32_t>> suffix_items;
  for (uint32_t id = 0; id < vocabulary.size(); ++id) {
    if (vocabulary.is_special(id)) continue;
    std::string_view bytes = vocabulary.bytes(id);
    if (after_quote) {
      if (bytes.size() < 2 || bytes[0] != '"') continue;
      bytes.remove_prefix(1);
    }
    const TokenInString where = Classify(bytes, start);
    if (where.result == LexResult::kRefused) continue;
    if (where.result == LexResult::kOk) {
      SetBit(inside, id);
      c.max_inside_code_points = std::max(c.max_inside_code_points, where.code_points);
      if (start == kLexNormal && where.code_points < kMaxLengthMasks) {
        if (by_code_points.size() <= where.code_points)
          by_code_points.resize(where.code_points + 1);
        by_code_points[where.code_points].push_back(id);
      }
      continue;
    }
    if (where.backslash_before) c.escaped_prefix.push_back({id, where.decoded});
    const std::string suffix(bytes.substr(where.close_at + 1));
    if (suffix.empty()) {
      c.close_exactly.push_back({id, where.code_points});
      continue;
    }
    auto [entry, inserted] = groups.try_emplace(suffix, static_cast<uint32_t>(members.size()));
    if (inserted) {
      members.emplace_back();
      c.suffix_first.push_back(static_cast<uint8_t>(suffix[0]));
      suffix_items.push_back({suffix, entry->second});
    }
    members[entry->second].push_back({id, where.code_points});
  }
  c.inside = TokenMask(std::move(inside));
  c.members = Groups<std::pair<uint32_t, uint32_t>>(members);
  c.suffixes = FlatTrie::Build(std::move(suffix_items));
  // Each mask adds the tokens one code point longer to the one before.
  std::vector<uint32_t> running(words, 0);
  for (const std::vector<uint32_t>& tokens : by_code_points) {
    for (uint32_t id : tokens)
      SetBit(running, id);
    c.inside_at_most.emplace_back(running);
  }
  return c;
}

NumberClass BuildNumberClass(const Vocabulary& vocabulary, NumberVariant variant, uint8_t phase) {
  NumberClass c;
  std::vector<uint32_t> inside(vocabulary.mask_words(), 0);
  std::vector<std::vector<uint32_t>> members;
  NumberSpec spec;
  spec.integer_only = variant != kNumberAny;
  spec.zero_fraction_ok = variant == kNumberIntegerZeroFraction;
  std::map<std::string, uint32_t> groups;
  std::vector<std::pair<std::string, uint32_t>> rest_items;
  for (uint32_t id = 0; id < vocabulary.size(); ++id) {
    if (vocabulary.is_special(id)) continue;
    const std::string_view bytes = vocabulary.bytes(id);
    Frame frame;
    frame.kind = FrameKind::kNumber;
    frame.phase = phase;
    size_t end = bytes.size();
    bool dead = false;
    for (size_t i = 0; i < bytes.size(); ++i) {
      const int byte = static_cast<uint8_t>(bytes[i]);
      const NumberMove move =
          frame.phase >= kNumE ? ExponentByte(frame, byte) : MantissaByte(frame, spec, byte);
      if (move == NumberMove::kTaken) continue;
      dead = move == NumberMove::kRefused || !NumberComplete(frame.phase);
      end = i;
      break;
    }
    // A token that ends the number at its first byte is the parent's: the matcher walks the
    // vocabulary's trie from the state after the number for those.
    if (dead || end == 0) continue;
    if (end == bytes.size()) {
      SetBit(inside, id);
      c.max_int_digits = std::max(c.max_int_digits, frame.count);
      c.max_frac_digits = std::max(c.max_frac_digits, frame.d);
      c.max_exp_digits = std::max(c.max_exp_digits, frame.c);
      continue;
    }
    const std::string rest(bytes.substr(end));
    auto [entry, inserted] = groups.try_emplace(rest, static_cast<uint32_t>(members.size()));
    if (inserted) {
      members.emplace_back();
      rest_items.push_back({rest, entry->second});
    }
    members[entry->second].push_back(id);
  }
  c.inside = TokenMask(std::move(inside));
  c.members = Groups<uint32_t>(members);
  c.rests = FlatTrie::Build(std::move(rest_items));
  return c;
}

bool IsJsonWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

WhitespaceClass BuildWhitespaceClass(const Vocabulary& vocabulary) {
  WhitespaceClass c;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> members;
  std::map<std::string, uint32_t> groups;
  std::vector<std::pair<std::string, uint32_t>> rest_items;
  for (uint32_t id = 0; id < vocabulary.size(); ++id) {
    if (vocabulary.is_special(id)) continue;
    const std::string_view bytes = vocabulary.bytes(id);
    size_t run = 0;
    while (run < bytes.size() && IsJsonWhitespace(bytes[run]))
      ++run;
    if (run == 0) continue;
    const auto length = static_cast<uint32_t>(run);
    if (run == bytes.size()) {
      c.only.push_back({length, id});
      continue;
    }
    auto [group, inserted] =
        groups.try_emplace(std::string(bytes.substr(run)), static_cast<uint32_t>(members.size()));
    if (inserted) {
      members.emplace_back();
      rest_items.push_back({group->first, group->second});
    }
    members[group->second].push_back({length, id});
  }
  c.members = Groups<std::pair<uint32_t, uint32_t>>(members);
  std::sort(c.only.begin(), c.only.end());
  c.rests = FlatTrie::Build(std::move(rest_items));
  return c;
}

std::shared_ptr<const VocabIndex> Build(const std::shared_ptr<const Vocabulary>& vocabulary) {
  const auto begin = std::chrono::steady_clock::now();
  auto index = std::make_shared<VocabIndex>();
  index->vocabulary = vocabulary;
  std::vector<std::pair<std::string, uint32_t>> items;
  items.reserve(vocabulary->size());
  for (uint32_t id = 0; id < vocabulary->size(); ++id) {
    if (vocabulary->is_special(id)) continue;
    items.push_back({std::string(vocabulary->bytes(id)), id});
    index->max_token_bytes = std::max(index->max_token_bytes, vocabulary->bytes(id).size());
  }
  index->trie = FlatTrie::Build(std::move(items));
  index->trie.Summarize();
  for (uint32_t state = 0; state < kLexClassStates; ++state) {
    index->string_classes.push_back(BuildClass(*vocabulary, state));
  }
  for (int variant = 0; variant < kNumberVariants; ++variant) {
    for (uint8_t phase = 0; phase < kNumberPhases; ++phase) {
      index->number_classes.push_back(
          BuildNumberClass(*vocabulary, static_cast<NumberVariant>(variant), phase));
    }
  }
  index->whitespace = BuildWhitespaceClass(*vocabulary);
  index->after_quote = BuildClass(*vocabulary, kLexNormal, true);
  index->build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  return index;
}

}  // namespace

namespace {

enum SplitAction : uint8_t { kRefuse, kStep, kDown };

// The bytes of `safe` that are the automaton's: quotes, backslashes and control bytes belong
// to the string's lexer.
ByteSet TextBytes(const ByteSet& safe) {
  ByteSet text = safe;
  text.words[0] &= ~(uint64_t{0xFFFFFFFF} | uint64_t{1} << '"');
  text.words[1] &= ~(uint64_t{1} << ('\\' - 64));
  return text;
}

// What a trie node's byte does in a split scan: go down (a safe text byte), step the node's
// subtree (a backslash, or text that does not kill), or refuse it.
std::array<uint8_t, 256> SplitActions(const ByteSet& text, const ByteSet& kill) {
  std::array<uint8_t, 256> action{};
  for (int b = 0; b < 256; ++b) {
    const auto byte = static_cast<uint8_t>(b);
    if (text.Has(byte)) {
      action[b] = kDown;
    } else if (byte == '\\' || (byte >= 0x20 && byte != '"' && !kill.Has(byte))) {
      action[b] = kStep;
    }
  }
  return action;
}

}  // namespace

std::shared_ptr<SplitTokens> VocabIndex::ScanSplit(const ByteSet& safe, const ByteSet& kill) const {
  const ByteSet text = TextBytes(safe);
  auto tokens = std::make_shared<SplitTokens>();
  tokens->safe = safe;
  tokens->kill = kill;
  tokens->safe_only.assign(vocabulary->mask_words(), 0);
  const std::array<uint8_t, 256> action = SplitActions(text, kill);
  // Down the trie (every non-special token) through safe bytes only: the tokens ending on
  // the way are safe; below the first other byte, a whole subtree is refused (that byte
  // kills) or stepped. A node's values and those of its subtree lie together in trie order,
  // so the safe ones are marked a run of nodes at a time.
  auto mark = [&](uint32_t from, uint32_t to) {  // values[from, to)
    for (uint32_t k = from; k < to; ++k) {
      const uint32_t id = trie.values[k];
      tokens->safe_only[id / 32] |= 1u << (id % 32);
    }
    tokens->safe_count += to - from;
  };
  // The byte groups all of whose bytes go down: a subtree of those alone is safe as a whole.
  uint64_t down_groups = ~uint64_t{0};
  for (int b = 0; b < 256; ++b) {
    if (action[b] != kDown)
      down_groups &= ~(uint64_t{1} << FlatTrie::ByteGroup(static_cast<uint8_t>(b)));
  }
  const bool summarized = trie.groups.size() == trie.size();
  size_t deepest = 0;
  size_t run_begin = 0;  // the first node of the current run of safe nodes
  const size_t n = trie.size();
  for (size_t i = 0; i < n;) {
    const size_t depth = trie.depth[i];
    const uint8_t act = action[trie.byte[i]];
    if (act == kDown) {
      if (summarized && (trie.groups[i] & ~down_groups) == 0) {
        deepest = std::max<size_t>(deepest, trie.deepest[i]);
        i = trie.skip[i];  // the run goes on past the whole subtree
        continue;
      }
      deepest = std::max(deepest, depth);
      ++i;
      continue;
    }
    mark(trie.begin[run_begin], trie.begin[i]);
    if (act == kStep) {
      // The path: the first depth - 1 bytes of the subtree's first token.
      const std::string_view path =
          vocabulary->bytes(trie.values[trie.begin[i]]).substr(0, depth - 1);
      tokens->stepped_path_begin.push_back(static_cast<uint32_t>(tokens->stepped_paths.size()));
      tokens->stepped_roots.push_back(static_cast<uint32_t>(i));
      tokens->stepped_paths += path;
      tokens->stepped_bytes += path.size() + (trie.skip[i] - i);
    }
    i = trie.skip[i];
    run_begin = i;
  }
  mark(trie.begin[run_begin], trie.begin[n]);
  tokens->safe_depth = deepest;
  tokens->stepped_path_begin.push_back(static_cast<uint32_t>(tokens->stepped_paths.size()));
  return tokens;
}

// `whole` cut at runs of `limit` safe bytes (at least kDeepRun): the safe nodes deeper than
// that are refused with their subtrees, so their tokens leave safe_only and the stepped roots
// below them go.
std::shared_ptr<SplitTokens> VocabIndex::WithRunLimit(const SplitTokens& whole,
                                                      size_t limit) const {
  auto tokens = std::make_shared<SplitTokens>();
  tokens->safe = whole.safe;
  tokens->kill = whole.kill;
  tokens->safe_only = whole.safe_only;
  tokens->safe_count = whole.safe_count;
  tokens->safe_depth = limit;
  std::vector<uint32_t> cut;  // the refused subtrees' roots, in trie order
  for (uint32_t node : whole.DeepRuns(trie)) {
    if (trie.depth[node] <= limit) continue;
    if (trie.depth[node] == limit + 1) cut.push_back(node);
    for (uint32_t k = trie.begin[node]; k < trie.begin[node + 1]; ++k) {
      const uint32_t id = trie.values[k];
      tokens->safe_only[id / 32] &= ~(1u << (id % 32));
      --tokens->safe_count;
    }
  }
  // Both lists are in trie order: a root of `whole` goes when it lies under the last cut
  // before it.
  size_t next_cut = 0;
  for (size_t r = 0; r < whole.stepped_roots.size(); ++r) {
    const uint32_t root = whole.stepped_roots[r];
    while (next_cut < cut.size() && cut[next_cut] < root)
      ++next_cut;
    if (next_cut > 0 && root < trie.skip[cut[next_cut - 1]]) continue;
    const uint32_t begin = whole.stepped_path_begin[r];
    const uint32_t length = whole.stepped_path_begin[r + 1] - begin;
    tokens->stepped_path_begin.push_back(static_cast<uint32_t>(tokens->stepped_paths.size()));
    tokens->stepped_roots.push_back(root);
    tokens->stepped_paths += std::string_view(whole.stepped_paths).substr(begin, length);
    tokens->stepped_bytes += length + (trie.skip[root] - root);
  }
  tokens->stepped_path_begin.push_back(static_cast<uint32_t>(tokens->stepped_paths.size()));
  return tokens;
}

std::shared_ptr<const SplitTokens> VocabIndex::SplitTokensFor(const ByteSet& safe,
                                                              const ByteSet& kill,
                                                              size_t run_limit) const {
  if (run_limit < trie.max_depth) {
    auto whole = SplitTokensFor(safe, kill);
    if (whole->safe_depth <= run_limit) return whole;
    if (run_limit < SplitTokens::kDeepRun) return nullptr;
    return WithRunLimit(*whole, run_limit);  // not kept: the limit varies from state to state
  }
  SplitKey key{};
  for (size_t w = 0; w < 4; ++w) {
    key[w] = safe.words[w];
    key[4 + w] = kill.words[w];
  }
  {
    std::lock_guard<std::mutex> lock(split_mutex_);
    auto found = split_sets_.find(key);
    if (found != split_sets_.end()) {
      found->second.last_use = ++split_uses_;
      return found->second.tokens;
    }
  }
  auto tokens = ScanSplit(safe, kill);
  std::lock_guard<std::mutex> lock(split_mutex_);
  auto [at, added] = split_sets_.try_emplace(key, KeptSplit{tokens, ++split_uses_});
  if (!added) return at->second.tokens;  // made meanwhile by another thread
  split_bytes_ += tokens->memory_bytes();
  // Over the budget, the least recently used go (their users keep their own references).
  while (split_bytes_ > kMaxSplitTokenBytes && split_sets_.size() > 1) {
    auto oldest = std::min_element(
        split_sets_.begin(), split_sets_.end(),
        [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
    split_bytes_ -= oldest->second.tokens->memory_bytes();
    split_sets_.erase(oldest);
  }
  return tokens;
}

const std::vector<uint32_t>& SplitTokens::DeepRuns(const FlatTrie& trie) const {
  std::call_once(deep_once_, [&] {
    const ByteSet text = TextBytes(safe);
    for (size_t i = 0; i < trie.size();) {
      if (!text.Has(trie.byte[i])) {
        i = trie.skip[i];
        continue;
      }
      if (trie.depth[i] > kDeepRun) deep_runs_.push_back(static_cast<uint32_t>(i));
      ++i;
    }
  });
  return deep_runs_;
}

size_t SplitTokens::memory_bytes() const {
  return sizeof(SplitTokens) + safe_only.size() * 4 + stepped_roots.size() * 4 +
         stepped_paths.size() + stepped_path_begin.size() * 4;
}

namespace {
std::atomic<size_t> kept_class_trie_bytes{0};  // over every SplitTokens of the process
}  // namespace

SplitTokens::~SplitTokens() {
  for (const auto& kept : class_tries_) {
    if (kept.trie != nullptr) kept_class_trie_bytes -= kept.trie->memory_bytes();
  }
}

std::shared_ptr<const ClassTrie> SplitTokens::ClassesFor(const FlatTrie& trie,
                                                         const std::array<uint8_t, 256>& classes,
                                                         bool may_build) const {
  {
    std::lock_guard<std::mutex> lock(class_mutex_);
    auto seen = std::find_if(class_tries_.begin(), class_tries_.end(),
                             [&](const KeptClasses& kept) { return kept.partition == classes; });
    if (seen == class_tries_.end()) return nullptr;
    if (seen->built || !may_build) return seen->trie;
  }
  auto built = ClassTrie::Build(trie, *this, classes);
  std::lock_guard<std::mutex> lock(class_mutex_);
  for (auto& kept : class_tries_) {
    if (kept.partition != classes) continue;
    if (kept.built) return kept.trie;
    const size_t bytes = built == nullptr ? 0 : built->memory_bytes();
    kept.built = true;
    if (kept_class_trie_bytes + bytes <= kMaxKeptClassTrieBytes) {
      kept_class_trie_bytes += bytes;
      kept.trie = built;
    }  // else kept as built and null: walked as they are from now on
  }
  return built;
}

void SplitTokens::NoteWalk(const std::array<uint8_t, 256>& classes, size_t steps) const {
  if (steps * 2 < stepped_bytes) return;
  std::lock_guard<std::mutex> lock(class_mutex_);
  for (const auto& kept : class_tries_) {
    if (kept.partition == classes) return;
  }
  if (class_tries_.size() < kMaxClassTries) class_tries_.push_back({classes, false, nullptr});
}

size_t ClassTrie::memory_bytes() const {
  return byte.size() * (1 + 2 + 4 + 4 + 4) + values.size() * 4 + raw.size() * 4;
}

namespace {

// The room of a ClassTree, kept per thread between builds (see ReadyClassTrieScratch).
struct ClassTreeRoom {
  std::vector<uint32_t> first_child;
  std::vector<uint32_t> next_sibling;
  std::vector<uint32_t> parent;
  std::vector<uint8_t> byte_of;
  std::vector<std::pair<uint32_t, uint32_t>> ends;
  std::vector<std::pair<uint32_t, uint32_t>> raws;
  std::vector<uint32_t> subtree;  // Flatten's
  std::vector<uint32_t> order;
};

ClassTreeRoom& ThreadClassTreeRoom() {
  thread_local ClassTreeRoom room;
  return room;
}

// A ClassTrie as it is merged: each node's children in a list (first_child, next_sibling), in
// the thread's room.
struct ClassTree {
  static constexpr size_t kMaxNodes = size_t{1} << 20;
  ClassTree(const std::array<uint8_t, 256>& partition, size_t node_bound)
      : classes(partition), max_nodes(std::min(node_bound, kMaxNodes)) {
    first_child.assign(1, kNone);
    next_sibling.assign(1, kNone);
    parent.assign(1, kNone);
    byte_of.assign(1, 0);
    ends.clear();
    raws.clear();
  }
  const std::array<uint8_t, 256>& classes;
  const size_t max_nodes;
  ClassTreeRoom& room = ThreadClassTreeRoom();
  std::vector<uint32_t>& first_child = room.first_child;
  std::vector<uint32_t>& next_sibling = room.next_sibling;
  std::vector<uint32_t>& parent = room.parent;
  std::vector<uint8_t>& byte_of = room.byte_of;
  std::vector<std::pair<uint32_t, uint32_t>>& ends = room.ends;  // (node, token)
  std::vector<std::pair<uint32_t, uint32_t>>& raws = room.raws;  // (node, FlatTrie node)
  size_t merged = 0;  // byte steps the merged nodes stand for

  // The child of `node` for `byte`'s class, made when missing; kNone past max_nodes.
  uint32_t Descend(uint32_t node, uint8_t byte) {
    const uint8_t cls = classes[byte];
    for (uint32_t c = first_child[node]; c != kNone; c = next_sibling[c]) {
      if (classes[byte_of[c]] == cls) return c;
    }
    if (byte_of.size() >= max_nodes) return kNone;
    const auto made = static_cast<uint32_t>(byte_of.size());
    byte_of.push_back(byte);
    parent.push_back(node);
    first_child.push_back(kNone);
    next_sibling.push_back(first_child[node]);
    first_child[node] = made;
    return made;
  }

  // Merges every stepped path and subtree; false when a path holds a lexer byte or the tree
  // grows past max_nodes.
  bool Merge(const FlatTrie& trie, const SplitTokens& tokens) {
    ends.reserve(trie.values.size());
    std::vector<uint32_t> at_depth(trie.max_depth + 1, 0);
    // Per depth, the last (parent, class) looked up and its child: the next trie sibling of
    // that class (the letters after `a`, say) finds its node there without a search.
    std::vector<uint64_t> last_key(trie.max_depth + 1, 0);
    std::vector<uint32_t> last_made(trie.max_depth + 1, kNone);
    for (size_t k = 0; k < tokens.stepped_roots.size(); ++k) {
      uint32_t node = 0;
      for (uint32_t p = tokens.stepped_path_begin[k]; p < tokens.stepped_path_begin[k + 1]; ++p) {
        const auto byte = static_cast<uint8_t>(tokens.stepped_paths[p]);
        if (classes[byte] == ClassTrie::kLexerByte) return false;
        node = Descend(node, byte);
        if (node == kNone) return false;
        ++merged;
      }
      const uint32_t root = tokens.stepped_roots[k];
      at_depth[trie.depth[root] - 1u] = node;
      for (size_t i = root; i < trie.skip[root];) {
        const size_t depth = trie.depth[i];
        const uint32_t above = at_depth[depth - 1];
        const uint8_t byte = trie.byte[i];
        if (classes[byte] == ClassTrie::kLexerByte) {
          raws.emplace_back(above, static_cast<uint32_t>(i));
          i = trie.skip[i];
          continue;
        }
        const uint64_t key = uint64_t{above} * 256 + classes[byte] + 1;
        if (last_key[depth] != key) {
          last_key[depth] = key;
          last_made[depth] = Descend(above, byte);
        }
        const uint32_t made = last_made[depth];
        if (made == kNone) return false;
        ++merged;
        for (uint32_t v = trie.begin[i]; v < trie.begin[i + 1]; ++v)
          ends.emplace_back(made, trie.values[v]);
        at_depth[depth] = made;
        ++i;
      }
    }
    return true;
  }

  // The flat trie, in depth-first order: a node's subtree size gives its skip, and children
  // come after their parents.
  std::shared_ptr<ClassTrie> Flatten() const {
    const size_t n = byte_of.size();
    std::vector<uint32_t>& subtree = room.subtree;
    subtree.assign(n, 1);
    for (size_t i = n - 1; i > 0; --i)
      subtree[parent[i]] += subtree[i];
    auto out = std::make_shared<ClassTrie>();
    out->byte.resize(n);
    out->depth.resize(n);
    out->skip.resize(n);
    std::vector<uint32_t>& order = room.order;  // merged node -> flat index
    order.assign(n, 0);
    std::vector<uint32_t> stack{0};
    uint32_t next = 0;
    while (!stack.empty()) {
      const uint32_t node = stack.back();
      stack.pop_back();
      const uint32_t at = next++;
      order[node] = at;
      out->byte[at] = byte_of[node];
      out->depth[at] = node == 0 ? 0 : static_cast<uint16_t>(out->depth[order[parent[node]]] + 1);
      out->skip[at] = at + subtree[node];
      for (uint32_t c = first_child[node]; c != kNone; c = next_sibling[c])
        stack.push_back(c);
    }
    Group(ends, order, out->begin, out->values);
    Group(raws, order, out->raw_begin, out->raw);
    return out;
  }

  // (node, value) items grouped by flat node, a counting sort.
  static void Group(const std::vector<std::pair<uint32_t, uint32_t>>& items,
                    const std::vector<uint32_t>& order, std::vector<uint32_t>& starts,
                    std::vector<uint32_t>& values) {
    const size_t n = order.size();
    starts.assign(n + 1, 0);
    for (const auto& item : items)
      ++starts[order[item.first] + 1];
    for (size_t i = 0; i < n; ++i)
      starts[i + 1] += starts[i];
    std::vector<uint32_t> fill(starts.begin(), starts.end() - 1);
    values.resize(items.size());
    for (const auto& [node, value] : items)
      values[fill[order[node]]++] = value;
  }
};

}  // namespace

void ReadyClassTrieScratch(size_t tokens) {
  ClassTreeRoom& room = ThreadClassTreeRoom();
  if (room.ends.capacity() >= tokens) return;
  // Written once, so that a build touches no fresh page for them: every token ends at most
  // once, and a merged trie holds at most a node per token in practice (a third of its bytes).
  auto ready = [](auto& vector, size_t size) {
    vector.resize(size);
    vector.clear();
  };
  ready(room.ends, tokens);
  for (auto* nodes :
       {&room.first_child, &room.next_sibling, &room.parent, &room.subtree, &room.order})
    ready(*nodes, tokens);
  ready(room.byte_of, tokens);
}

std::shared_ptr<const ClassTrie> ClassTrie::Build(const FlatTrie& trie, const SplitTokens& tokens,
                                                  const std::array<uint8_t, 256>& classes) {
  // Past a third of the byte steps to merge (at most stepped_bytes: a lexer byte's subtree is
  // not merged) in nodes, the merged trie cannot be small enough, so the build stops there.
  ClassTree tree(classes, tokens.stepped_bytes / 3 + 1);
  if (!tree.Merge(trie, tokens)) return nullptr;
  if ((tree.byte_of.size() - 1) * 3 > tree.merged) return nullptr;  // merging saves too little
  return tree.Flatten();
}

std::shared_ptr<const VocabIndex> IndexFor(const std::shared_ptr<const Vocabulary>& vocabulary) {
  // Indexes are kept (not only while a grammar holds one), so that compiling a schema never
  // rebuilds one; the few most recently used vocabularies stay.
  constexpr size_t kKeptVocabularies = 4;
  static std::mutex mutex;
  static std::vector<std::pair<uint64_t, std::shared_ptr<const VocabIndex>>> kept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < kept.size(); ++i) {
      if (kept[i].first != vocabulary->identity()) continue;
      auto index = kept[i].second;
      std::rotate(kept.begin(), kept.begin() + static_cast<ptrdiff_t>(i),
                  kept.begin() + static_cast<ptrdiff_t>(i) + 1);
      return index;
    }
  }
  auto index = Build(vocabulary);
  std::lock_guard<std::mutex> lock(mutex);
  kept.insert(kept.begin(), {vocabulary->identity(), index});
  if (kept.size() > kKeptVocabularies) kept.pop_back();
  return index;
}

}  // namespace crux::constrain::grammar
