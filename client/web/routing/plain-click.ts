/**
 * A click the page handles itself: the main button with no modifier. Any other click on a link
 * (middle button, Ctrl or Cmd for a new tab, Shift for a window) is left to the browser, because
 * every view is a URL worth opening elsewhere.
 */
export function isPlainClick(
  event: Pick<MouseEvent, "button" | "metaKey" | "ctrlKey" | "shiftKey" | "altKey">,
): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}
