#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace dra {
namespace {

TEST(StatusTest, DefaultIsOkWithEmptyMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(Status(StatusCode::kOk, "ignored").message(), "");
}

TEST(StatusTest, WithContextPrefixesOutsideIn) {
  Status s = NotFoundError("no such key: model").WithContext("selector 1").WithContext("claim default/c0");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "claim default/c0: selector 1: no such key: model");
  EXPECT_EQ(s.ToString(), "NOT_FOUND: claim default/c0: selector 1: no such key: model");
  EXPECT_TRUE(OkStatus().WithContext("x").ok());
}

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd");
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  DRA_ASSIGN_OR_RETURN(int h, Half(x));
  DRA_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  DRA_RETURN_IF_ERROR(Half(x));
  return OkStatus();
}

TEST(StatusOrTest, PropagatesValuesAndErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  StatusOr<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(StatusOrTest, HoldsMoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> p = std::make_unique<int>(7);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> owned = std::move(p).value();
  EXPECT_EQ(*owned, 7);
}

}  // namespace
}  // namespace dra
