#include "discover/normalize.h"

#include <gtest/gtest.h>

namespace dra::discover {
namespace {

TEST(CoerceSemver, Table) {
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      {"580.95.05", "580.95.5"},
      {"570.195.03", "570.195.3"},
      {"580.105.08", "580.105.8"},
      {"13.0", "13.0.0"},
      {"9.0", "9.0.0"},
      {"12", "12.0.0"},
      {"v1.2.3", "1.2.3"},
      {"1.2.3-rc.1", "1.2.3-rc.1"},
      {"1.2.3+build.7", "1.2.3+build.7"},
      {"007.0.010", "7.0.10"},
  };
  for (const Case& c : cases) {
    StatusOr<std::string> v = CoerceSemver(c.in);
    ASSERT_TRUE(v.ok()) << c.in << ": " << v.status().ToString();
    EXPECT_EQ(*v, c.out) << c.in;
  }
  for (const char* bad : {"", "1.2.3.4", "a.b", "1..2", "1.2.3-", "1.2.3-01", "1.2.x", "v"}) {
    EXPECT_FALSE(CoerceSemver(bad).ok()) << bad;
  }
}

TEST(CudaDriverVersionString, DropsTheLastDigit) {
  EXPECT_EQ(CudaDriverVersionString(13000), "13.0");
  EXPECT_EQ(CudaDriverVersionString(12040), "12.4");
  EXPECT_EQ(CudaDriverVersionString(12085), "12.8");
  EXPECT_EQ(*CoerceSemver(CudaDriverVersionString(12090)), "12.9.0");
}

TEST(NormalizeBusId, Forms) {
  EXPECT_EQ(*NormalizeBusId("00000000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(*NormalizeBusId("00000000:A0:1D.0"), "0000:a0:1d.0");
  EXPECT_EQ(*NormalizeBusId("0000:18:00.0"), "0000:18:00.0");  // already 4 digits
  EXPECT_EQ(*NormalizeBusId(std::string("00000000:18:00.0\0junk", 21)), "0000:18:00.0");
  StatusOr<std::string> high = NormalizeBusId("00010000:18:00.0");  // non-zero high domain
  ASSERT_FALSE(high.ok());
  EXPECT_NE(high.status().message().find("00010000:18:00.0"), std::string::npos);
  EXPECT_FALSE(NormalizeBusId("garbage").ok());
}

TEST(EnumNames, Tables) {
  EXPECT_EQ(ArchitectureName(9), "Hopper");
  EXPECT_EQ(ArchitectureName(8), "Ada Lovelace");
  EXPECT_EQ(ArchitectureName(0xffffffffu), "Unknown");
  EXPECT_FALSE(ArchitectureName(11).has_value());
  EXPECT_EQ(BrandName(14), "Nvidia");
  EXPECT_EQ(BrandName(2), "Tesla");
  EXPECT_FALSE(BrandName(17).has_value());
  EXPECT_FALSE(BrandName(-1).has_value());
  EXPECT_EQ(AddressingModeName(1), "HMM");
  EXPECT_FALSE(AddressingModeName(3).has_value());
}

TEST(GiProfileShape, IndexTable) {
  EXPECT_EQ(GiProfileShapeOf(0x0)->slices, 1);
  EXPECT_EQ(GiProfileShapeOf(0x4)->slices, 7);
  EXPECT_EQ(GiProfileShapeOf(0x5)->slices, 8);
  EXPECT_EQ(GiProfileShapeOf(0x7)->suffix, "+me");
  EXPECT_EQ(GiProfileShapeOf(0x9)->suffix, "");
  EXPECT_EQ(GiProfileShapeOf(0x9)->slices, 1);
  EXPECT_EQ(GiProfileShapeOf(0xC)->suffix, "+gfx");
  EXPECT_EQ(GiProfileShapeOf(0xE)->suffix, "-me");
  EXPECT_EQ(GiProfileShapeOf(0x10)->suffix, "+me.all");
  EXPECT_FALSE(GiProfileShapeOf(0x11).has_value());
  EXPECT_EQ(CiProfileIndicesFor(7), std::string_view("\x04\x08"));
  EXPECT_EQ(CiProfileIndicesFor(1), std::string_view("\x00", 1));
}

TEST(MigProfileGigabytes, H200) {
  const uint64_t total = 143771ull << 20;  // 150754820096 bytes
  EXPECT_EQ(MigProfileGigabytes(16384, total), 18);
  EXPECT_EQ(MigProfileGigabytes(33024, total), 35);
  EXPECT_EQ(MigProfileGigabytes(33280, total), 35);
  EXPECT_EQ(MigProfileGigabytes(71168, total), 71);  // 0.5 * 141 = 70.5 rounds away from zero
  EXPECT_EQ(MigProfileGigabytes(143360, total), 141);
}

TEST(MigProfileGigabytes, A100And40GiBTotal) {
  const uint64_t total = 40ull << 30;
  EXPECT_EQ(MigProfileGigabytes(4864, total), 5);
  EXPECT_EQ(MigProfileGigabytes(9856, total), 10);
  EXPECT_EQ(MigProfileGigabytes(19968, total), 20);
  EXPECT_EQ(MigProfileGigabytes(40192, total), 40);
  EXPECT_EQ(MigProfileGigabytes(1ull << 40, total), -1);
  EXPECT_EQ(MigProfileGigabytes(100, 0), 0);
}

TEST(MigNames, Format) {
  EXPECT_EQ(MigProfileName(3, 71, ""), "3g.71gb");
  EXPECT_EQ(MigProfileName(1, 5, "+me"), "1g.5gb+me");
  EXPECT_EQ(CanonicalMigProfile("1g.18gb+me"), "1g18gb-me");
  EXPECT_EQ(CanonicalMigProfile("1g.5gb+me.all"), "1g5gb-meall");
  EXPECT_EQ(CanonicalMigProfile("7g.141gb"), "7g141gb");
  EXPECT_EQ(CanonicalMigProfile("+X+"), "x");
  EXPECT_EQ(CamelToDnsLabel("copyEngines"), "copy-engines");
  EXPECT_EQ(CamelToDnsLabel("jpegEngines"), "jpeg-engines");
  EXPECT_EQ(CamelToDnsLabel("memory"), "memory");
}

}  // namespace
}  // namespace dra::discover
