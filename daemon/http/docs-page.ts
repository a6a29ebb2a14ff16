/** `GET /docs`: a self-contained HTML index of the routes in the OpenAPI document. */
import { createHash } from "node:crypto";

/** The page's one style sheet, inline: its hash is what the page's policy allows. */
const STYLE =
  "body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}.m{font-weight:600}code{font-size:13px}";

/**
 * The page's Content-Security-Policy: no script, nothing loaded, its own style sheet alone (by
 * hash, not 'unsafe-inline'), no framing. The page shows only the OpenAPI document, escaped, but
 * it is served on the collector's origin beside the API, so a mistake in it must not be able to
 * run anything there.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

interface Operation {
  summary?: string;
  parameters?: { name: string; in: string }[];
}

export function docsPage(document: Record<string, unknown>): string {
  const info = document.info as { title: string; version: string; description: string };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const rows: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const query = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      rows.push(
        `<tr><td class="m">${escapeHtml(method.toUpperCase())}</td><td><code>${escapeHtml(path)}</code></td>` +
          `<td>${escapeHtml(operation.summary ?? "")}</td><td>${query.map((q) => `<code>${escapeHtml(q)}</code>`).join(" ")}</td></tr>`,
      );
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)} ${escapeHtml(info.version)}: routes</title>
<style>${STYLE}</style>
</head><body>
<h1>${escapeHtml(info.title)} ${escapeHtml(info.version)}</h1>
<p>${escapeHtml(info.description)}</p>
<p>Machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.0.3).</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Purpose</th><th>Query parameters</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>
</body></html>
`;
}
