// Time zones for ORC timestamps: a TIMESTAMP column stores seconds relative to 2015-01-01
// 00:00:00 in the writer's time zone (named in the stripe footer), so turning them into the
// writer's wall clock needs that zone's UTC offsets. Read from the system's tz database (Debian's
// tzdata, /usr/share/zoneinfo or $TZDIR): the TZif transitions, and for instants after the last
// transition the file's POSIX TZ footer rule, evaluated by Boost.DateTime's posix_time_zone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rap/util/result.h"

namespace rap::orc {

class TimeZone {
 public:
  // A zone by its IANA name ("America/Los_Angeles"); "", "UTC", "GMT" and "Etc/UTC" are UTC.
  // Cached: every name is loaded once per process.
  static Result<std::shared_ptr<const TimeZone>> Load(const std::string& name);
  // Parses TZif bytes (versions 1 to 4); `name` names them in errors.
  static Result<std::shared_ptr<const TimeZone>> Parse(const std::string& name, const std::string& tzif);

  // The zone's offset from UTC, in seconds, at the UTC instant `utc_seconds`.
  int64_t OffsetAt(int64_t utc_seconds) const;
  const std::string& name() const { return name_; }

 private:
  struct Footer;
  std::string name_;
  std::vector<int64_t> transitions_;      // UTC instants, ascending
  std::vector<int32_t> offsets_;          // offset in force from transitions_[i]
  int32_t initial_offset_ = 0;            // before the first transition
  std::shared_ptr<const Footer> footer_;  // the POSIX rule after the last transition (may be null)
};

}  // namespace rap::orc
