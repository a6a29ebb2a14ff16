import type { ComponentChildren } from "preact";
import { isPlainClick } from "./plain-click.js";
import { navigate } from "./router.js";

interface LinkProps {
  href: string;
  children?: ComponentChildren;
  class?: string | undefined;
  title?: string | undefined;
  "aria-current"?: "page" | undefined;
  "aria-label"?: string | undefined;
  onClick?: ((event: MouseEvent) => void) | undefined;
}

/**
 * An anchor that navigates inside the page on a plain click, and behaves as a link otherwise
 * (a new tab on a middle or modified click, copy link address), because every view is a URL.
 */
export function Link({ href, children, onClick, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={href}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || !isPlainClick(event)) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
