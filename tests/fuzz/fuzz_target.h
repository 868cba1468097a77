// One fuzz target = one file tests/fuzz/<name>_fuzz.cc with RAP_FUZZ_TARGET(<name>) { body }.
//
// With RAP_FUZZ=ON (clang) each file becomes its own libFuzzer executable rap_fuzz_<name>
// (LLVMFuzzerTestOneInput). In every build, the same bodies are also compiled into the GoogleTest
// executable rap_test_fuzz_replay_test, which registers them by name and replays the committed
// corpus and regression inputs (tests/fuzz/corpus/<name>, tests/fuzz/regressions/<name>) through
// them, so a fixed crash stays fixed under gcc, release and the sanitizer suites alike.
//
// A body must accept any bytes: it may return early, but never crash, hang or allocate without bound
// (errors are rap::Status values and are simply dropped here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace rap::fuzz {

using FuzzFunction = int (*)(const uint8_t* data, size_t size);

// Every target compiled into this executable, by name.
inline std::map<std::string, FuzzFunction>& Registry() {
  static std::map<std::string, FuzzFunction> targets;
  return targets;
}

struct Register {
  Register(const char* name, FuzzFunction f) { Registry()[name] = f; }
};

}  // namespace rap::fuzz

#ifdef RAP_FUZZ_MAIN
#define RAP_FUZZ_TARGET(name)                                                      \
  static int RapFuzz_##name(const uint8_t* data, size_t size);                     \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {        \
    return RapFuzz_##name(data, size);                                             \
  }                                                                                \
  static int RapFuzz_##name(const uint8_t* data, size_t size)
#else
#define RAP_FUZZ_TARGET(name)                                                      \
  static int RapFuzz_##name(const uint8_t* data, size_t size);                     \
  static const ::rap::fuzz::Register rap_fuzz_register_##name(#name, &RapFuzz_##name); \
  static int RapFuzz_##name(const uint8_t* data, size_t size)
#endif
