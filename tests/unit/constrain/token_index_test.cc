// The merged class walk of a string state's stepped tokens (SplitTokens::ClassesFor): built
// only once a walk showed it pays, and then holding every stepped token exactly once.
#include "constrain/token_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "crux/constrain/vocab.h"

namespace crux::constrain::grammar {
namespace {

// A vocabulary of `tokens`, all normal, none ending generation.
std::shared_ptr<const Vocabulary> OfNormalTokens(std::vector<std::string> tokens) {
  std::vector<TokenKind> kinds(tokens.size(), TokenKind::kNormal);
  return std::make_shared<const Vocabulary>(
      Vocabulary::FromTokens(std::move(tokens), std::move(kinds), {}));
}

// Words of one and two letters up to `last`, each alone, after a blank, before one, and
// between two: the tokens with a blank are the ones a split over letters steps. (An index and
// its splits are kept per vocabulary, so each test takes its own.)
std::shared_ptr<const Vocabulary> WordsAndBlanks(char last) {
  std::vector<std::string> words;
  for (char a = 'a'; a <= last; ++a) {
    words.emplace_back(1, a);
    for (char b = 'a'; b <= last; ++b)
      words.push_back(std::string{a, b});
  }
  std::vector<std::string> tokens;
  for (const std::string& w : words) {
    tokens.push_back(w);
    tokens.push_back(" " + w);
    tokens.push_back(w + " ");
    tokens.push_back(" " + w + " ");
  }
  return OfNormalTokens(std::move(tokens));
}

struct Split {
  std::shared_ptr<const VocabIndex> index;
  std::shared_ptr<const SplitTokens> tokens;
};

Split LettersSafe(char last) {
  Split split;
  split.index = IndexFor(WordsAndBlanks(last));
  ByteSet safe;
  safe.SetRange('a', 'z');
  split.tokens = split.index->SplitTokensFor(safe, ByteSet{});
  return split;
}

TEST(ClassTrie, BuiltOnlyAtCompileAfterAWalkThatPrunedLittle) {
  const Split split = LettersSafe('f');
  const SplitTokens& tokens = *split.tokens;
  ASSERT_GT(tokens.stepped_bytes, 0u);
  const auto classes = ClassTrie::Partition([](uint8_t byte) -> uint8_t {
    if (byte >= 'a' && byte <= 'z') return 0;
    return byte == ' ' ? 1 : 2;
  });
  const FlatTrie& trie = split.index->trie;
  EXPECT_EQ(tokens.ClassesFor(trie, classes, true), nullptr) << "built before any walk";
  // A walk the automaton cut short: building would cost more than it saves.
  tokens.NoteWalk(classes, tokens.stepped_bytes / 4);
  EXPECT_EQ(tokens.ClassesFor(trie, classes, true), nullptr) << "built after a pruned walk";
  tokens.NoteWalk(classes, tokens.stepped_bytes);
  EXPECT_EQ(tokens.ClassesFor(trie, classes, false), nullptr) << "built in a mask step";
  const std::shared_ptr<const ClassTrie> built = tokens.ClassesFor(trie, classes, true);
  ASSERT_NE(built, nullptr);
  EXPECT_EQ(tokens.ClassesFor(trie, classes, true), built) << "kept, not built again";
  EXPECT_EQ(tokens.ClassesFor(trie, classes, false), built) << "kept for mask steps";
  EXPECT_LE((built->size() - 1) * 3, tokens.stepped_bytes);

  // Every token with a blank is stepped, and appears once in the merged trie; the others are
  // safe and do not appear.
  std::vector<uint32_t> listed(built->values.begin(), built->values.end());
  ASSERT_TRUE(built->raw.empty());  // no lexer byte in these tokens
  std::sort(listed.begin(), listed.end());
  std::vector<uint32_t> with_blank;
  const Vocabulary& vocabulary = *split.index->vocabulary;
  for (uint32_t id = 0; id < vocabulary.size(); ++id) {
    if (vocabulary.bytes(id).find(' ') != std::string_view::npos) with_blank.push_back(id);
  }
  EXPECT_EQ(listed, with_blank);
  EXPECT_EQ(tokens.safe_count, vocabulary.size() - with_blank.size());

  // Each token ends at the node whose path of classes is its bytes' classes, and no two
  // children of a node share a class.
  std::vector<std::string> path(built->size());
  for (size_t i = 1; i < built->size(); ++i) {
    size_t parent = i - 1;
    while (built->depth[parent] + 1u != built->depth[i])
      --parent;
    path[i] = path[parent] + static_cast<char>(classes[built->byte[i]]);
    for (size_t sibling = parent + 1; sibling < i; sibling = built->skip[sibling]) {
      EXPECT_NE(classes[built->byte[sibling]], classes[built->byte[i]]) << "node " << i;
    }
  }
  for (size_t i = 0; i < built->size(); ++i) {
    for (uint32_t v = built->begin[i]; v < built->begin[i + 1]; ++v) {
      std::string token_classes;
      for (char c : vocabulary.bytes(built->values[v]))
        token_classes += static_cast<char>(classes[static_cast<uint8_t>(c)]);
      EXPECT_EQ(token_classes, path[i]) << "token " << built->values[v];
    }
  }
}

TEST(ClassTrie, NotBuiltWhereMergingSavesTooLittle) {
  const Split split = LettersSafe('e');
  const SplitTokens& tokens = *split.tokens;
  // Every byte its own class: nothing merges.
  const auto classes = ClassTrie::Partition([](uint8_t byte) { return byte; });
  tokens.NoteWalk(classes, tokens.stepped_bytes);
  EXPECT_EQ(tokens.ClassesFor(split.index->trie, classes, true), nullptr);
}

// Runs of letters up to 20 long, alone and followed by a blank, a dash, a backslash, a quote or
// '!' (which the split kills).
std::shared_ptr<const Vocabulary> LetterRuns() {
  const std::string letters = "abcdefghijklmnopqrst";
  std::vector<std::string> tokens;
  for (size_t n = 1; n <= letters.size(); ++n) {
    const std::string run = letters.substr(0, n);
    for (const char* tail : {"", " ", "-x", "\\n", "\"", "!"})
      tokens.push_back(run + tail);
    tokens.push_back("z" + run);
  }
  return OfNormalTokens(std::move(tokens));
}

// A split of letters under a run limit holds each token where the limit puts it: safe when
// all its bytes are letters and it is no longer than the limit; refused past the limit (a
// count's end); else by its first other byte. Stepped tokens lie under exactly one root,
// whose path is the start of the token. Under kDeepRun a binding limit gives no split.
TEST(SplitTokens, RunLimitPutsEveryTokenWhereTheLimitSays) {
  auto index = IndexFor(LetterRuns());
  const Vocabulary& vocabulary = *index->vocabulary;
  const FlatTrie& trie = index->trie;
  ByteSet safe;
  safe.SetRange('a', 'z');
  ByteSet kill;
  kill.Set('!');
  EXPECT_EQ(index->SplitTokensFor(safe, kill, SplitTokens::kDeepRun - 1), nullptr);
  EXPECT_EQ(index->SplitTokensFor(safe, kill, 21), index->SplitTokensFor(safe, kill))
      << "a limit that does not bind gives the whole split";
  for (size_t limit : {SplitTokens::kDeepRun, SplitTokens::kDeepRun + 5}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    const auto tokens = index->SplitTokensFor(safe, kill, limit);
    ASSERT_NE(tokens, nullptr);
    std::vector<int> under_roots(vocabulary.size(), 0);
    for (size_t k = 0; k < tokens->stepped_roots.size(); ++k) {
      const uint32_t root = tokens->stepped_roots[k];
      const std::string_view path =
          std::string_view(tokens->stepped_paths)
              .substr(tokens->stepped_path_begin[k],
                      tokens->stepped_path_begin[k + 1] - tokens->stepped_path_begin[k]);
      ASSERT_EQ(path.size() + 1, trie.depth[root]);
      for (uint32_t i = root; i < trie.skip[root]; ++i) {
        for (uint32_t v = trie.begin[i]; v < trie.begin[i + 1]; ++v) {
          ++under_roots[trie.values[v]];
          EXPECT_EQ(vocabulary.bytes(trie.values[v]).substr(0, path.size()), path);
        }
      }
    }
    size_t safe_count = 0;
    for (uint32_t id = 0; id < vocabulary.size(); ++id) {
      const std::string_view bytes = vocabulary.bytes(id);
      size_t run = 0;
      while (run < bytes.size() && bytes[run] >= 'a' && bytes[run] <= 'z')
        ++run;
      const bool is_safe = run == bytes.size() && run <= limit;
      const bool stepped = run <= limit && run < bytes.size() &&
                           (bytes[run] == ' ' || bytes[run] == '-' || bytes[run] == '\\');
      const bool listed_safe = (tokens->safe_only[id / 32] >> (id % 32) & 1) != 0;
      EXPECT_EQ(listed_safe, is_safe) << bytes;
      EXPECT_EQ(under_roots[id], stepped ? 1 : 0) << bytes;
      safe_count += is_safe ? 1 : 0;
    }
    EXPECT_EQ(tokens->safe_count, safe_count);
  }
}
// Tokens of letters, digits, signs and UTF-8 text, each alone and beside the others.
std::shared_ptr<const Vocabulary> MixedText() {
  const std::vector<std::string> parts = {
      "ab", "yz", "y", "z", "09", "7", "AB", "_", "-", "é", "\xe4\xb8\xad", " ", "\\n", "\""};
  std::vector<std::string> tokens;
  for (const std::string& a : parts) {
    tokens.push_back(a);
    for (const std::string& b : parts) {
      tokens.push_back(a + b);
      tokens.push_back(a + b + a);
    }
  }
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  return OfNormalTokens(std::move(tokens));
}

// The vocabulary's trie knows, per node, the byte groups and the depth of its subtree; a
// split scan passes over a subtree whose groups it keeps whole. Where a group is kept only in
// part ('y' without 'z', one digit, 'a' without 'b'), or not at all, the scan reads on: every
// token is safe exactly when each of its bytes is.
TEST(SplitTokens, SubtreesPassedByTheirByteGroupsHoldOnlySafeTokens) {
  auto index = IndexFor(MixedText());
  const Vocabulary& vocabulary = *index->vocabulary;
  const FlatTrie& trie = index->trie;
  ASSERT_EQ(trie.groups.size(), trie.size());
  for (size_t i = 0; i < trie.size(); ++i) {
    uint64_t groups = 0;
    uint16_t deepest = 0;
    for (size_t k = i; k < trie.skip[i]; ++k) {
      groups |= uint64_t{1} << FlatTrie::ByteGroup(trie.byte[k]);
      deepest = std::max(deepest, trie.depth[k]);
    }
    ASSERT_EQ(trie.groups[i], groups) << "node " << i;
    ASSERT_EQ(trie.deepest[i], deepest) << "node " << i;
  }
  EXPECT_NE(FlatTrie::ByteGroup('y'), FlatTrie::ByteGroup('x'));
  EXPECT_EQ(FlatTrie::ByteGroup('y'), FlatTrie::ByteGroup('z'));
  EXPECT_NE(FlatTrie::ByteGroup('0'), FlatTrie::ByteGroup('1'));
  EXPECT_NE(FlatTrie::ByteGroup('"'), FlatTrie::ByteGroup('#'));
  auto set_of = [](std::string_view bytes) {
    ByteSet set;
    for (const char c : bytes)
      set.Set(static_cast<uint8_t>(c));
    return set;
  };
  ByteSet high;
  high.SetRange(0x80, 0xFF);
  ByteSet letters_and_high = set_of("abcdefghijklmnopqrstuvwxyz");
  letters_and_high.Add(high);
  const ByteSet safes[] = {set_of("abcdefghijklmnopqrstuvwxyz"),
                           set_of("aby"),
                           set_of("0123456789"),
                           set_of("07ABz_-"),
                           letters_and_high,
                           set_of("abyz09\"\\ ")};
  for (const ByteSet& safe : safes) {
    const auto tokens = index->SplitTokensFor(safe, ByteSet{});
    size_t safe_count = 0;
    size_t longest = 0;  // the longest run of safe text a token starts with
    for (uint32_t id = 0; id < vocabulary.size(); ++id) {
      const std::string_view bytes = vocabulary.bytes(id);
      // The quote and the backslash are never safe text.
      size_t run = 0;
      while (run < bytes.size() && safe.Has(static_cast<uint8_t>(bytes[run])) &&
             bytes[run] != '"' && bytes[run] != '\\') {
        ++run;
      }
      const bool is_safe = run == bytes.size();
      EXPECT_EQ((tokens->safe_only[id / 32] >> (id % 32) & 1) != 0, is_safe) << bytes;
      safe_count += is_safe ? 1 : 0;
      longest = std::max(longest, run);
    }
    EXPECT_EQ(tokens->safe_count, safe_count);
    EXPECT_EQ(tokens->safe_depth, longest);
  }
}

}  // namespace
}  // namespace crux::constrain::grammar
