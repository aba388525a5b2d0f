// Every object of testdata/fixtures, loaded with the manifest loader and
// defaulted as the API server would, must pass api::Validate with the gates
// of every release that can express it, and with all gates on. Warnings are
// allowed but listed, so a change in them shows in the test log.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "api/cross_validation.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "manifest/loader.h"

namespace dra::api {
namespace {

FeatureGates AllOn() {
  FeatureGates gates = FeatureGates::AllOff();
  for (size_t i = 0; i < kGateCount; ++i) {
    Status s = gates.Set(static_cast<Gate>(i), true);
    EXPECT_TRUE(s.ok());
  }
  return gates;
}

manifest::LoadResult LoadFixtures() {
  manifest::LoadResult result;
  manifest::Loader loader(manifest::LoadOptions{});
  loader.LoadPath(std::string(DRA_TESTDATA_DIR) + "/fixtures", &result);
  return result;
}

TEST(ValidationFixturesTest, EveryFixtureObjectIsValid) {
  manifest::LoadResult loaded = LoadFixtures();
  for (const manifest::LoadMessage& m : loaded.messages) {
    if (m.severity == Severity::kError) ADD_FAILURE() << "loader: " << m.ToString();
  }
  ASSERT_GT(loaded.objects.size(), 20u) << "fixtures not found under " << DRA_TESTDATA_DIR;

  FeatureGates gates = AllOn();
  size_t warnings = 0;
  for (const manifest::LoadedObject& lo : loaded.objects) {
    Object object = lo.object;
    SetDefaults(object, "2026-07-24T10:00:00Z");
    std::string where = (lo.file ? *lo.file : std::string("?")) + ":" + std::to_string(lo.mark.line) + ": " +
                        manifest::ObjectDisplayName(object);
    for (const FieldError& e : Validate(object, gates)) {
      if (e.severity == Severity::kError) {
        ADD_FAILURE() << where << ": " << e.ToString();
      } else {
        ++warnings;
        std::cout << "warning: " << where << ": " << e.ToString() << "\n";
      }
    }
  }
  std::map<std::string, int> kinds;
  for (const manifest::LoadedObject& lo : loaded.objects) ++kinds[std::string(KindName(lo.object))];
  for (const auto& [kind, n] : kinds) std::cout << kind << ": " << n << "\n";
  for (const auto& [kind, n] : loaded.skipped_kinds) std::cout << "skipped " << kind << ": " << n << "\n";
  std::cout << loaded.objects.size() << " objects validated, " << warnings << " warnings\n";
}

// The fixtures use gated fields (taints, consumable capacity, list attributes,
// partitionable devices); with the 1.37 defaults only the alpha-gated ones
// may be reported, as Forbidden — plus, for a list attribute whose list the
// API server drops, the attribute left without a value (a real v1.37.2
// kube-apiserver rejects such a slice).
TEST(ValidationFixturesTest, ReleaseDefaultsOnlyForbidGatedFields) {
  manifest::LoadResult loaded = LoadFixtures();
  FeatureGates gates = FeatureGates::Defaults("1.37").value();
  for (const manifest::LoadedObject& lo : loaded.objects) {
    Object object = lo.object;
    SetDefaults(object, "2026-07-24T10:00:00Z");
    FieldErrors errors = Validate(object, gates);
    auto dropped_list = [&](const FieldError& e) {
      for (const FieldError& w : errors) {
        if (w.type == FieldErrorType::kForbidden && w.field.starts_with(e.field + ".") &&
            w.detail.find("DRAListTypeAttributes") != std::string::npos) {
          return e.detail.starts_with("must specify one of");
        }
      }
      return false;
    };
    for (const FieldError& e : errors) {
      if (e.severity == Severity::kError && e.type != FieldErrorType::kForbidden && !dropped_list(e)) {
        ADD_FAILURE() << manifest::ObjectDisplayName(object) << ": " << e.ToString();
      } else {
        std::cout << "1.37 defaults: " << manifest::ObjectDisplayName(object) << ": " << e.ToString() << "\n";
      }
    }
  }
}

// Taken together the fixtures are consistent: every class a claim names is
// there, pods find their claims, and pools are complete and unique.
TEST(ValidationFixturesTest, FixturesAreConsistentAcrossObjects) {
  manifest::LoadResult loaded = LoadFixtures();
  std::vector<Object> objects;
  for (const manifest::LoadedObject& lo : loaded.objects) objects.push_back(lo.object);
  for (const ObjectFieldError& e : ValidateCrossObject(objects)) {
    ADD_FAILURE() << manifest::ObjectDisplayName(objects[e.object_index]) << ": " << e.error.ToString();
  }
}

}  // namespace
}  // namespace dra::api
