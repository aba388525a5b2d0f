#include "base/strings.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace dra {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(SplitTest, KeepsEmptyPiecesLikeGo) {
  EXPECT_EQ(Split("a/b/c", '/'), (Pieces{"a", "b", "c"}));
  EXPECT_EQ(Split("abc", '/'), (Pieces{"abc"}));
  EXPECT_EQ(Split("", '/'), (Pieces{""}));
  EXPECT_EQ(Split("/", '/'), (Pieces{"", ""}));
  EXPECT_EQ(Split("a//b", '/'), (Pieces{"a", "", "b"}));
  EXPECT_EQ(Split("a/b/", '/'), (Pieces{"a", "b", ""}));
  EXPECT_EQ(Split("/a", '/'), (Pieces{"", "a"}));
  EXPECT_EQ(Split("1.2.3", '.'), (Pieces{"1", "2", "3"}));
}

TEST(SplitTest, PiecesViewTheInput) {
  const std::string text = "x.y";
  Pieces pieces = Split(text, '.');
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].data(), text.data());
  EXPECT_EQ(pieces[1].data(), text.data() + 2);
}

TEST(SplitNTest, StopsAfterNMinusOnePieces) {
  EXPECT_EQ(SplitN("1.2.3.4", '.', 3), (Pieces{"1", "2", "3.4"}));
  EXPECT_EQ(SplitN("1.2", '.', 3), (Pieces{"1", "2"}));
  EXPECT_EQ(SplitN("1.2.3", '.', 1), (Pieces{"1.2.3"}));
  EXPECT_EQ(SplitN("", '.', 2), (Pieces{""}));
  EXPECT_EQ(SplitN("a..", '.', 2), (Pieces{"a", "."}));
}

TEST(ToBaseTest, WritesDigitsWithoutPrefix) {
  EXPECT_EQ(UintToBase(0, 2, false), "0");
  EXPECT_EQ(UintToBase(5, 2, false), "101");
  EXPECT_EQ(UintToBase(8, 8, false), "10");
  EXPECT_EQ(UintToBase(255, 16, false), "ff");
  EXPECT_EQ(UintToBase(255, 16, true), "FF");
  EXPECT_EQ(UintToBase(1234567890, 10, false), "1234567890");
  EXPECT_EQ(UintToBase(std::numeric_limits<uint64_t>::max(), 16, false), "ffffffffffffffff");
}

TEST(ToBaseTest, SignedKeepsTheSign) {
  EXPECT_EQ(IntToBase(0, 16, false), "0");
  EXPECT_EQ(IntToBase(-255, 16, true), "-FF");
  EXPECT_EQ(IntToBase(-5, 2, false), "-101");
  EXPECT_EQ(IntToBase(std::numeric_limits<int64_t>::min(), 16, false), "-8000000000000000");
  EXPECT_EQ(IntToBase(std::numeric_limits<int64_t>::max(), 8, false), "777777777777777777777");
}

}  // namespace
}  // namespace dra
