/**
 * The no-progress guard: the same action repeated while the page's fingerprint stays the same
 * means the agent is stuck. Pure.
 */
export const STALL_REPEATS = 3;

export interface StallVerdict {
  action: string;
  repeats: number;
}

export class StallGuard {
  private lastAction: string | null = null;
  private repeats = 0;

  constructor(private readonly limit: number = STALL_REPEATS) {}

  /**
   * Records one action and whether it changed the page. Returns a verdict when the same action
   * has now run `limit` times in a row without any change.
   */
  observe(action: string, pageChanged: boolean): StallVerdict | null {
    if (pageChanged || action !== this.lastAction) {
      this.lastAction = action;
      this.repeats = pageChanged ? 0 : 1;
      if (pageChanged) this.lastAction = null;
      return null;
    }
    this.repeats += 1;
    return this.repeats >= this.limit ? { action, repeats: this.repeats } : null;
  }
}

/** A stable text for an action: tool name and arguments with sorted keys. */
export function actionKey(tool: string, args: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.entries(args).sort(([a], [b]) => a.localeCompare(b)));
  return `${tool} ${JSON.stringify(sorted)}`;
}
