// TZif reading (RFC 8536) for ORC's writer time zones. Hand-written because Debian 12 has no
// library that reads the system zone files including their footer rule: libdate-tz (Debian's
// HowardHinnant date) ignores the footer and so misses daylight saving time after 2037, and
// glibc's localtime_r works only through the process-wide TZ variable. The POSIX rule itself is
// evaluated by Boost.DateTime.
#include "orc/timezone.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <boost/date_time/local_time/local_time.hpp>

namespace rap::orc {

struct TimeZone::Footer {
  boost::local_time::time_zone_ptr zone;
  int64_t std_offset = 0;
  int64_t dst_offset = 0;
};

namespace {

int64_t BE(const std::string& s, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(s[pos + static_cast<size_t>(i)]);
  if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

constexpr int64_t kMaxRuleSeconds = 253402300799;  // 9999-12-31 23:59:59 UTC

bool IsUtcName(const std::string& n) {
  return n.empty() || n == "UTC" || n == "GMT" || n == "Etc/UTC" || n == "Etc/GMT" || n == "Z" || n == "UCT";
}

}  // namespace

Result<std::shared_ptr<const TimeZone>> TimeZone::Parse(const std::string& name, const std::string& tz) {
  auto bad = [&](const std::string& m) { return Status::Corrupt("time zone file of '" + name + "': " + m); };
  if (tz.size() < 44 || tz.compare(0, 4, "TZif") != 0) return bad("not a TZif file");
  const char version = tz[4];
  auto counts = [&](size_t at, int64_t c[6]) {
    for (int i = 0; i < 6; ++i) c[i] = BE(tz, at + 20 + static_cast<size_t>(i) * 4, 4);
  };
  int64_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  counts(0, c);
  size_t pos = 44;
  int tbytes = 4;
  if (version >= '2') {  // skip the 32-bit block, read the 64-bit one
    pos += static_cast<size_t>(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
    if (tz.size() < pos + 44 || tz.compare(pos, 4, "TZif") != 0) return bad("the second header is missing");
    counts(pos, c);
    pos += 44;
    tbytes = 8;
  }
  for (int i = 0; i < 6; ++i) {
    if (c[i] < 0 || c[i] > 100000) return bad("bad counts in the header");
  }
  const size_t need = static_cast<size_t>(c[3] * (tbytes + 1) + c[4] * 6 + c[5] + c[2] * (tbytes + 4) + c[1] + c[0]);
  if (tz.size() < pos + need || c[4] == 0) return bad("cut off");
  auto zone = std::make_shared<TimeZone>();
  zone->name_ = name;
  const size_t idx_at = pos + static_cast<size_t>(c[3]) * static_cast<size_t>(tbytes);
  const size_t type_at = idx_at + static_cast<size_t>(c[3]);
  auto type_offset = [&](size_t t) { return static_cast<int32_t>(BE(tz, type_at + t * 6, 4)); };
  for (int64_t i = 0; i < c[3]; ++i) {
    const size_t t = static_cast<uint8_t>(tz[idx_at + static_cast<size_t>(i)]);
    if (t >= static_cast<size_t>(c[4])) return bad("a transition names a missing type");
    zone->transitions_.push_back(BE(tz, pos + static_cast<size_t>(i) * static_cast<size_t>(tbytes), tbytes));
    zone->offsets_.push_back(type_offset(t));
  }
  zone->initial_offset_ = type_offset(0);
  for (int64_t t = 0; t < c[4]; ++t) {  // RFC 8536: before the first transition, the first standard-time type
    if (tz[type_at + static_cast<size_t>(t) * 6 + 4] == 0) {
      zone->initial_offset_ = type_offset(static_cast<size_t>(t));
      break;
    }
  }
  pos += need;
  if (version >= '2' && pos < tz.size() && tz[pos] == '\n') {
    const size_t end = tz.find('\n', pos + 1);
    const std::string rule = tz.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
    if (!rule.empty()) {
      try {
        auto f = std::make_shared<Footer>();
        auto ptz = boost::shared_ptr<boost::local_time::posix_time_zone>(new boost::local_time::posix_time_zone(rule));
        // Boost.DateTime reads the POSIX offset with the opposite sign ("PST8" gives +8 h).
        f->std_offset = -ptz->base_utc_offset().total_seconds();
        f->dst_offset = ptz->has_dst() ? ptz->dst_offset().total_seconds() : 0;
        f->zone = ptz;
        zone->footer_ = std::move(f);
      } catch (const std::exception& e) {
        return bad("footer rule '" + rule + "': " + e.what());
      }
    }
  }
  return std::shared_ptr<const TimeZone>(std::move(zone));
}

Result<std::shared_ptr<const TimeZone>> TimeZone::Load(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const TimeZone>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  std::shared_ptr<const TimeZone> zone;
  if (IsUtcName(name)) {
    auto z = std::make_shared<TimeZone>();
    z->name_ = name;
    zone = z;
  } else {
    if (name.find("..") != std::string::npos || name[0] == '/') {
      return Status::Corrupt("time zone name '" + name + "' is not an IANA zone name");
    }
    const char* dir = std::getenv("TZDIR");
    const std::string path = std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::NotFound("time zone '" + name + "': " + path + " does not exist (install tzdata)");
    std::ostringstream ss;
    ss << in.rdbuf();
    RAP_ASSIGN_OR_RETURN(zone, Parse(name, ss.str()));
  }
  cache[name] = zone;
  return zone;
}

int64_t TimeZone::OffsetAt(int64_t t) const {
  if (transitions_.empty() && !footer_) return initial_offset_;
  if (!transitions_.empty() && t < transitions_.front()) return initial_offset_;
  if (transitions_.empty() || t >= transitions_.back()) {
    if (!footer_) return offsets_.empty() ? initial_offset_ : offsets_.back();
    if (!footer_->zone->has_dst()) return footer_->std_offset;
    if (t > kMaxRuleSeconds || t < -kMaxRuleSeconds) return footer_->std_offset;  // outside Boost's calendar
    using namespace boost::posix_time;
    try {
      // The rule's DST start (in standard time) and end (in daylight time) of the local year.
      const ptime local_std = from_time_t(0) + seconds(static_cast<long>(t + footer_->std_offset));
      const ptime local_dst = local_std + seconds(static_cast<long>(footer_->dst_offset));
      const auto year = local_std.date().year();
      const ptime start = footer_->zone->dst_local_start_time(year);
      const ptime end = footer_->zone->dst_local_end_time(year);
      const bool dst = start < end ? (local_std >= start && local_dst < end) : (local_std >= start || local_dst < end);
      return dst ? footer_->std_offset + footer_->dst_offset : footer_->std_offset;
    } catch (const std::exception&) {
      return footer_->std_offset;
    }
  }
  const auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  return offsets_[static_cast<size_t>(it - transitions_.begin()) - 1];
}

}  // namespace rap::orc
