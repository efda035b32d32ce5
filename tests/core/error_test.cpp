#include "etkit/core/error.h"

#include <gtest/gtest.h>

#include <string>

#include "etkit/core/result.h"

namespace etkit {
namespace {

Result<int> parse_positive(int value) {
  if (value <= 0) {
    return Error::make(ErrorCode::kInvalidArgument, "value %d is not positive", value);
  }
  return value;
}

Result<int> doubled(int value) {
  ETKIT_ASSIGN_OR_RETURN(int parsed, parse_positive(value));
  return parsed * 2;
}

Status check(int value) {
  ETKIT_TRY(parse_positive(value));
  return Ok{};
}

TEST(Error, FormatsMessageAndKeepsCode) {
  Error error = Error::make(ErrorCode::kMalformed, "byte %d: %s", 12, "bad");
  EXPECT_EQ(error.code(), ErrorCode::kMalformed);
  EXPECT_STREQ(error.message(), "byte 12: bad");
  EXPECT_STREQ(to_string(error.code()), "malformed");
}

TEST(Error, ContextIsPrepended) {
  Error error = Error::make(ErrorCode::kTruncated, "cut off")
                    .with_context("file.pte")
                    .with_context("while loading");
  EXPECT_STREQ(error.message(), "while loading: file.pte: cut off");
  EXPECT_EQ(error.code(), ErrorCode::kTruncated);
}

TEST(Error, LongMessagesAreTruncatedNotOverflowed) {
  const std::string long_text(2000, 'x');
  Error error = Error::make(ErrorCode::kInternal, "%s", long_text.c_str());
  EXPECT_EQ(std::string(error.message()).size(), Error::kMaxMessage - 1);
  Error context = error.with_context("%s", long_text.c_str());
  EXPECT_EQ(std::string(context.message()).size(), Error::kMaxMessage - 1);
}

TEST(Result, PropagatesValuesAndErrors) {
  auto good = doubled(4);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 8);
  auto bad = doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_STREQ(bad.error().message(), "value -1 is not positive");
  EXPECT_TRUE(check(3).ok());
  EXPECT_EQ(check(0).error().code(), ErrorCode::kInvalidArgument);
}

TEST(Result, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<int>> result(std::make_unique<int>(7));
  Result<std::unique_ptr<int>> moved(std::move(result));
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(**moved, 7);
}

// Counts live instances, so moves across states must destroy what they
// replace exactly once.
struct Counted {
  static int live;
  std::string text;
  explicit Counted(std::string t) : text(std::move(t)) { ++live; }
  Counted(Counted&& o) noexcept : text(std::move(o.text)) { ++live; }
  Counted& operator=(Counted&& o) noexcept {
    text = std::move(o.text);
    return *this;
  }
  ~Counted() { --live; }
};
int Counted::live = 0;

TEST(Result, MoveAssignmentAcrossValueAndError) {
  {
    Result<Counted> a = Counted("a");
    Result<Counted> b = Counted("b");
    a = std::move(b);  // value <- value
    EXPECT_EQ(a->text, "b");
    a = Result<Counted>(Error::make(ErrorCode::kNotFound, "gone"));  // value <- error
    ASSERT_FALSE(a.ok());
    EXPECT_STREQ(a.error().message(), "gone");
    a = Result<Counted>(Error::make(ErrorCode::kIo, "again"));  // error <- error
    EXPECT_EQ(a.error().code(), ErrorCode::kIo);
    a = Result<Counted>(Counted("c"));  // error <- value
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->text, "c");
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(Result, ErrorStaysSmall) { EXPECT_LE(sizeof(Error), 400u); }

#ifndef NDEBUG
TEST(ResultDeathTest, ReadingTheWrongSideAbortsInDebugBuilds) {
  Result<int> failed = Error::make(ErrorCode::kNotFound, "no such thing");
  EXPECT_DEATH((void)failed.value(), "value of a failed Result: no such thing");
  Result<int> fine = 3;
  EXPECT_DEATH((void)fine.error(), "error of a successful Result");
}
#endif

}  // namespace
}  // namespace etkit
