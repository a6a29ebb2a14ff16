/**
 * The chart's time axis in the browser's zone, 24-hour as a developer tool reads it: `14:05`,
 * with seconds when ticks are less than a minute apart, and the date under the first tick and
 * under each tick that starts a new day. Pure (the zone is the runtime's).
 */

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

function dayOf(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Labels for ticks at `ticks` (seconds since the epoch), `incrementS` seconds apart. */
export function timeTickLabels(ticks: readonly number[], incrementS: number): string[] {
  let previousDay = "";
  return ticks.map((tick) => {
    const date = new Date(tick * 1000);
    const clock = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
    const time = incrementS < 60 ? `${clock}:${pad(date.getSeconds())}` : clock;
    const day = dayOf(date);
    const label = day === previousDay ? time : `${time}\n${day}`;
    previousDay = day;
    return label;
  });
}
