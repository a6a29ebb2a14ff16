/**
 * One test's live frames: the screencast's frames, thinned by the frame interval, written as
 * numbered JPEG files under the report directory; each kept frame is announced by its path
 * (relative to the report directory) once its file is complete.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { type Screencast, startScreencast } from "../browser/screencast.js";
import type { FrameThrottle } from "./frame-throttle.js";

export const FRAME_DIR = "frames";

export interface LiveFramesOptions {
  debuggerAddress: string;
  /** Where this test's frames go. */
  dir: string;
  reportDir: string;
  throttle: FrameThrottle;
  viewport: { width: number; height: number } | null;
  onFrame: (path: string) => void;
  now?: () => number;
}

export async function startLiveFrames(options: LiveFramesOptions): Promise<Screencast> {
  const now = options.now ?? Date.now;
  let count = 0;
  mkdirSync(options.dir, { recursive: true });
  return startScreencast(
    options.debuggerAddress,
    (jpeg) => {
      if (!options.throttle.admit(now())) return;
      count += 1;
      const path = join(options.dir, `frame-${String(count).padStart(4, "0")}.jpg`);
      writeFileSync(path, jpeg);
      options.onFrame(relative(options.reportDir, path));
    },
    options.viewport ?? undefined,
  );
}
