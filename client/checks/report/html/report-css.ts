/**
 * The HTML report's stylesheet, inlined into the page so the report needs nothing but its own
 * folder: plain and dense, light or dark as the system prefers, readable on a phone.
 */
export const REPORT_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa; --code: #eff2f5;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9;
  --flaky: #9a6700; --flaky-bg: #fff8c5; --skip: #59636e; --skip-bg: #eff2f5; --link: #0969da;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --panel: #151b23; --code: #1f2630;
    --pass: #3fb950; --pass-bg: #12261e; --fail: #f85149; --fail-bg: #2d1214;
    --flaky: #d29922; --flaky-bg: #2b2111; --skip: #9198a1; --skip-bg: #1f2630; --link: #4493f8;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 13px/1.45 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--link); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
header.run, main { max-width: 1100px; margin: 0 auto; padding: 12px 16px; }
header.run { border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0 0 8px; }
h2 { font-size: 14px; margin: 16px 0 6px; overflow-wrap: anywhere; }
h3 { font-size: 12px; margin: 10px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.totals { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 8px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.badge {
  display: inline-block; min-width: 58px; padding: 0 6px; border-radius: 10px; border: 1px solid currentColor;
  font-size: 11px; font-weight: 600; text-align: center; text-transform: uppercase; white-space: nowrap;
}
.badge.passed, .ok > .line .result { color: var(--pass); background: var(--pass-bg); }
.badge.failed, .bad > .line .result { color: var(--fail); background: var(--fail-bg); }
.badge.flaky { color: var(--flaky); background: var(--flaky-bg); }
.badge.skipped { color: var(--skip); background: var(--skip-bg); }
details.test { border: 1px solid var(--line); border-radius: 6px; margin: 4px 0; background: var(--bg); }
details.test > summary {
  display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 8px; padding: 6px 10px; cursor: pointer;
  list-style-position: inside;
}
details.test > summary .name { flex: 1 1 12em; font-weight: 600; overflow-wrap: anywhere; }
details.test > summary .meta { color: var(--muted); white-space: nowrap; }
details.test.failed { border-color: var(--fail); }
details.test.flaky { border-color: var(--flaky); }
.test-body { padding: 4px 12px 12px; border-top: 1px solid var(--line); }
.muted { color: var(--muted); }
.failure { border-left: 3px solid var(--fail); background: var(--fail-bg); padding: 6px 10px; margin: 8px 0; }
.failure .kind, .tag {
  display: inline-block; font: 600 11px/1.6 ui-monospace, Menlo, Consolas, monospace; padding: 0 5px;
  border-radius: 4px; background: var(--code); color: var(--fg); margin-right: 6px;
}
figure { margin: 6px 0; }
figure img, .step img {
  display: block; max-width: 100%; max-height: 420px; height: auto; border: 1px solid var(--line); border-radius: 4px;
  background: var(--panel);
}
.step img { max-height: 180px; margin-top: 4px; }
figcaption { color: var(--muted); overflow-wrap: anywhere; margin-top: 4px; }
ul.plain, ol.steps { list-style: none; margin: 0; padding: 0; }
ul.plain > li, ol.steps > li { border-top: 1px solid var(--line); padding: 4px 0; overflow-wrap: anywhere; }
ul.plain > li:first-child, ol.steps > li:first-child { border-top: 0; }
.step .line { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 8px; }
.step .idx { color: var(--muted); min-width: 2.2em; text-align: right; }
.step .result { font-size: 11px; font-weight: 600; padding: 0 5px; border-radius: 4px; text-transform: uppercase; }
.step .dur { margin-left: auto; color: var(--muted); white-space: nowrap; }
.step .target { font-weight: 600; }
.step > div:not(.line), .step > a, .step > code { margin-left: calc(2.2em + 8px); display: block; }
.step.bad { background: var(--fail-bg); }
.check .verdict { font-weight: 600; }
.check.ok .verdict { color: var(--pass); }
.check.bad .verdict { color: var(--fail); }
.check.refused .refusals { color: var(--flaky); font-weight: 600; }
blockquote { margin: 2px 0 2px 8px; padding-left: 8px; border-left: 3px solid var(--line); }
.filters { display: flex; flex-wrap: wrap; gap: 4px 12px; margin: 8px 0 0; }
.filters label { cursor: pointer; }
body:has(#show-failed:checked) details.test:not(.failed),
body:has(#show-flaky:checked) details.test:not(.flaky),
body:has(#show-passed:checked) details.test:not(.passed),
body:has(#show-skipped:checked) details.test:not(.skipped) { display: none; }
footer { max-width: 1100px; margin: 0 auto; padding: 8px 16px 24px; color: var(--muted); }
@media (max-width: 600px) {
  header.run, main { padding: 8px; }
  .test-body { padding: 4px 8px 8px; }
  .step > div:not(.line), .step > a, .step > code { margin-left: 0; }
  .step .dur { margin-left: 0; }
}
`;
