#include "base/base64.h"

#include <gtest/gtest.h>

namespace dra {
namespace {

// RFC 4648 §10 test vectors.
TEST(Base64Test, EncodesRfcVectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("\xFB\xFF\xBF"), "+/+/");
  EXPECT_EQ(Base64Encode(std::string_view("\0\0", 2)), "AAA=");
}

TEST(Base64Test, StrictDecodesPaddedTextAndSkipsWhitespace) {
  EXPECT_EQ(*Base64Decode(""), "");
  EXPECT_EQ(*Base64Decode("Zg=="), "f");
  EXPECT_EQ(*Base64Decode("Zm8="), "fo");
  EXPECT_EQ(*Base64Decode("Zm9vYmFy"), "foobar");
  EXPECT_EQ(*Base64Decode("+/+/"), "\xFB\xFF\xBF");
  EXPECT_EQ(*Base64Decode(" Zm9v\nYmE=\r\n\t"), "fooba");
}

TEST(Base64Test, StrictErrors) {
  EXPECT_EQ(Base64Decode("Zm9vYmE").status().message(), "invalid base64: length is not a multiple of 4");
  EXPECT_EQ(Base64Decode("Zg=vYmE=").status().message(), "invalid base64: unexpected character at offset 2");
  EXPECT_EQ(Base64Decode("Zm$v").status().message(), "invalid base64: unexpected character at offset 2");
  EXPECT_EQ(Base64Decode("a===").status().message(), "invalid base64: unexpected character at offset 1");
  EXPECT_EQ(Base64Decode("Zm=v").status().message(), "invalid base64: unexpected character at offset 3");
  EXPECT_EQ(Base64Decode("Zm\n$v").status().message(), "invalid base64: unexpected character at offset 2");
  EXPECT_EQ(Base64Decode("Zm$v").status().code(), StatusCode::kInvalidArgument);
}

// The cases kube/kubeconfig_test.cc had for the kubeconfig decoder.
TEST(Base64Test, StrictAsKubeconfigDataFields) {
  EXPECT_EQ(*Base64Decode("aGVsbG8="), "hello");
  EXPECT_EQ(*Base64Decode("aGVs\nbG8h"),
            "hell"
            "o!");
  EXPECT_EQ(*Base64Decode("aA=="), "h");
  EXPECT_FALSE(Base64Decode("aGVsbG8").ok());   // length
  EXPECT_FALSE(Base64Decode("aG=sbG8=").ok());  // padding inside
  EXPECT_FALSE(Base64Decode("aGV$bG8=").ok());  // alphabet
  EXPECT_FALSE(Base64Decode("a===").ok());      // too much padding
}

TEST(Base64Test, LenientStopsAtPaddingAndAcceptsItMissing) {
  constexpr Base64Syntax kLenient = Base64Syntax::kLenient;
  EXPECT_EQ(*Base64Decode("", kLenient), "");
  EXPECT_EQ(*Base64Decode("Zm9vYmE=", kLenient), "fooba");
  EXPECT_EQ(*Base64Decode("Zm9vYmE", kLenient), "fooba");
  EXPECT_EQ(*Base64Decode("Zg", kLenient), "f");
  EXPECT_EQ(*Base64Decode("Z", kLenient), "");         // a partial byte is dropped
  EXPECT_EQ(*Base64Decode("Zg==$$$", kLenient), "f");  // what follows '=' is ignored
  EXPECT_EQ(*Base64Decode("=Zg", kLenient), "");
}

TEST(Base64Test, LenientErrors) {
  constexpr Base64Syntax kLenient = Base64Syntax::kLenient;
  EXPECT_EQ(Base64Decode("Zm$v", kLenient).status().message(), "invalid base64");
  EXPECT_EQ(Base64Decode("Zm9v\n", kLenient).status().message(), "invalid base64");
  EXPECT_EQ(Base64Decode("Zm9v\n", kLenient).status().code(), StatusCode::kInvalidArgument);
}

TEST(Base64Test, RoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  for (size_t len = 0; len <= all.size(); len += 37) {
    const std::string_view data(all.data(), len);
    EXPECT_EQ(*Base64Decode(Base64Encode(data)), data);
    EXPECT_EQ(*Base64Decode(Base64Encode(data), Base64Syntax::kLenient), data);
  }
}

}  // namespace
}  // namespace dra
