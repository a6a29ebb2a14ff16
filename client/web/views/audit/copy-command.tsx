import { useRef, useState } from "preact/hooks";

/** Selects the element's text, so a person can copy it where the clipboard is refused. */
function selectText(element: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

/** A follow-up command as code, with a button that copies it (or selects it when copying is refused). */
export function CopyCommand({ command }: { command: string }) {
  const code = useRef<HTMLElement>(null);
  const [state, setState] = useState<"idle" | "copied" | "selected">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setState("copied");
    } catch {
      if (code.current) selectText(code.current);
      setState("selected");
    }
  };
  return (
    <div class="copy-command">
      <code ref={code}>{command}</code>
      <button type="button" onClick={copy} aria-label={`Copy: ${command}`}>
        {state === "copied" ? "Copied" : state === "selected" ? "Selected: press Ctrl+C" : "Copy"}
      </button>
    </div>
  );
}
