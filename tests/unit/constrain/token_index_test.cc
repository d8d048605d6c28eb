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
  std::vector<TokenKind> kinds(tokens.size(), TokenKind::kNormal);
  return std::make_shared<const Vocabulary>(
      Vocabulary::FromTokens(std::move(tokens), std::move(kinds), {}));
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

TEST(ClassTrie, BuiltOnlyAfterAWalkThatPrunedLittle) {
  const Split split = LettersSafe('f');
  const SplitTokens& tokens = *split.tokens;
  ASSERT_GT(tokens.stepped_bytes, 0u);
  const auto classes = ClassTrie::Partition([](uint8_t byte) -> uint8_t {
    if (byte >= 'a' && byte <= 'z') return 0;
    return byte == ' ' ? 1 : 2;
  });
  const FlatTrie& trie = split.index->trie;
  EXPECT_EQ(tokens.ClassesFor(trie, classes), nullptr) << "built before any walk";
  // A walk the automaton cut short: building would cost more than it saves.
  tokens.NoteWalk(classes, tokens.stepped_bytes / 4);
  EXPECT_EQ(tokens.ClassesFor(trie, classes), nullptr) << "built after a pruned walk";
  tokens.NoteWalk(classes, tokens.stepped_bytes);
  const std::shared_ptr<const ClassTrie> built = tokens.ClassesFor(trie, classes);
  ASSERT_NE(built, nullptr);
  EXPECT_EQ(tokens.ClassesFor(trie, classes), built) << "kept, not built again";
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
}

TEST(ClassTrie, NotBuiltWhereMergingSavesTooLittle) {
  const Split split = LettersSafe('e');
  const SplitTokens& tokens = *split.tokens;
  // Every byte its own class: nothing merges.
  const auto classes = ClassTrie::Partition([](uint8_t byte) { return byte; });
  tokens.NoteWalk(classes, tokens.stepped_bytes);
  EXPECT_EQ(tokens.ClassesFor(split.index->trie, classes), nullptr);
}

}  // namespace
}  // namespace crux::constrain::grammar
