#pragma once

namespace obs {

/**
 * Sets glibc's M_MMAP_THRESHOLD to `bytes`, which also stops glibc from raising it (and its trim
 * threshold) after each large block freed. False when the allocator is not glibc's, or refuses
 * the value.
 */
bool fix_mmap_threshold(int bytes);

}  // namespace obs
