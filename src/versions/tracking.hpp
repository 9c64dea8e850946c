// How a version finds what changed in a GDS_create array, whose memory the
// program writes itself: by the kernel's write tracking where it can
// (core::PageTracker: only the pages written since the last version are
// compared and copied), else by comparing every block with its last
// version. Tracking costs the program a trap at the first store into each
// page after a version; where most pages are written between versions that
// costs more than comparing everything, so tracking pauses (no traps, every
// block compared) and resumes when versions find little changed again.
// Tracking has a cost of its own too, whatever was written: the scan that
// reads and protects the pages again (a TLB flush on every core the
// process ran on: 50-100 us on the test VM). A small array compares in
// less (97 KiB: 10-20 us), so it tracks only where the scan costs less.
// Per process, and local: which blocks a process copies is its own affair.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/array.hpp"
#include "core/page_tracker.hpp"

namespace gds::versions {

enum class WriteTracking { automatic, kernel, compare };  // GDS_WRITE_TRACKING: auto, kernel, compare

struct Tracking {
  std::unique_ptr<core::PageTracker> tracker;  // null: every block compared
  std::string method;                          // how, for GDS_SHOW_INFO and the docs' wording
  bool now = false;             // the version being made compares and copies the tracked pages' blocks only
  std::uint64_t written = 0;    // bytes of the pages the tracker reported for it
  std::uint64_t trapped = 0;    // pages among them (a trap each)
  double freeze_seconds = 0;    // its freeze (the compare where it compared)
  double compare_seconds = 0;   // the fastest freeze that compared every block, the first aside (0: none yet)
  bool first = true;            // no version made yet
  double take_seconds = 0;      // the last take() that scanned the pages (0: none yet): tracking's own cost
  bool adapt = true;            // pause and resume by cost (GDS_WRITE_TRACKING=auto); kernel: track always
  // GDS_TEST_TRACKING_MODEL=1 (tests): the costs modelled, not timed: a
  // page compared costs 1, a trap 1, a scan 0, so pausing and resuming
  // follow the pages written alone, the same on every run.
  bool modelled = false;
};

// GDS_WRITE_TRACKING's value, or false if it is none of auto, kernel, compare.
bool parse_write_tracking(const char *text, WriteTracking *out);
const char *write_tracking_name(WriteTracking w);

// At attach, for a GDS_create array: the tracker opened as `setting` says
// (kernel: a warning where it cannot be; auto: refused where a device
// could write the memory unseen). Says how with GDS_SHOW_INFO.
void open_tracking(core::Array &a, WriteTracking setting);
// In the exchange, once the log is drained: the blocks of the pages written
// since the last version made suspect (compared with their base next), and
// Tracking::now set where the version need not compare the others.
void take_tracked(core::Array &a);
// After a version is made: tracking paused where its traps cost the
// program more than comparing would, resumed where comparing found little
// changed. `changed_bytes`: what the version copied.
void adapt_tracking(core::Array &a, std::uint64_t changed_bytes);

}  // namespace gds::versions
