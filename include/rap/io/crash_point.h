// A test hook for the crash-consistency matrix (docs/reliability.md, tests/reliability/): every
// object-store mutation calls CrashPoint right after it took effect.
//   RAP_CRASH_AFTER_OPS=N  the process SIGKILLs itself right after its Nth crash point;
//   RAP_CRASH_LOG=FILE     one line per crash point is appended to FILE: "N KIND PATH".
// Crash points: Put, PutIfAbsent and Delete of every store once they succeeded, and for the local
// store also the fsync'ed temporary sibling before it is renamed or linked into place ("temp").
// With neither variable set the cost is one load of a static flag per mutation.
#pragma once

#include <string>

namespace rap::io {

void CrashPoint(const char* kind, const std::string& path);

}  // namespace rap::io
