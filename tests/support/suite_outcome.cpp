// For test binaries that ctest runs one suite per process
// (cmake/EtkitGtestSuites.cmake): says so when every test a run selected
// was skipped, so that ctest reports the suite as skipped rather than
// passed. Only then: a run with a failure or a pass prints nothing.

#include <gtest/gtest.h>

#include <cstdio>

namespace {

class SuiteOutcome : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest& unit) override {
    if (unit.successful_test_count() == 0 && unit.failed_test_count() == 0 && unit.skipped_test_count() > 0) {
      std::printf("etkit-tests: every selected test was skipped\n");
      std::fflush(stdout);
    }
  }
};

[[maybe_unused]] const bool kSuiteOutcomeListening = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new SuiteOutcome);
  return true;
}();

}  // namespace
