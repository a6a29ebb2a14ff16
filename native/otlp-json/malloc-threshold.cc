// glibc's allocator threshold for handing large blocks straight to the operating system. The
// process's one native module carries it, beside the JSON decoder; see
// daemon/process-allocator.ts for why obsd fixes it.
#include "malloc-threshold.h"

// Any C library header defines __GLIBC__ on glibc.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace obs {

bool fix_mmap_threshold(int bytes) {
#if defined(__GLIBC__)
  // mallopt answers 1 on success, 0 for a value it refuses (past half its largest heap).
  return mallopt(M_MMAP_THRESHOLD, bytes) == 1;
#else
  (void)bytes;
  return false;
#endif
}

}  // namespace obs
