import { nativeAddon } from "./native-addon.js";

/**
 * Blocks of this size or more go straight to the operating system (mmap) and back when freed.
 * Ordinary exports, a few kilobytes to a few hundred, stay below it.
 */
export const MMAP_THRESHOLD_BYTES = 1024 * 1024;

/**
 * Fixes glibc's threshold for handing large blocks to the operating system, before the
 * collector's threads start. By default glibc raises that threshold to the size of each large
 * block freed (up to 32 MiB), and its trim threshold with it, so after one large body (its
 * buffers, the JSON parser's for it) blocks of up to that size come from the threads' arenas,
 * which keep what is freed: bench/hostile-memory's worst cases peaked tens of megabytes higher
 * (docs/perf-history/design-decisions.md). The setting is process-wide and the same for every
 * later call. Answers whether the threshold is now fixed: false without the native module or on
 * another allocator, which keep their own ways.
 */
export function fixAllocatorThreshold(): boolean {
  return nativeAddon?.fixMallocMmapThreshold(MMAP_THRESHOLD_BYTES) ?? false;
}
