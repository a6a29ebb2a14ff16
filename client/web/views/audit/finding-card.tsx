import { type Finding, figureRows, formatFigure } from "./audit-findings.js";
import { CopyCommand } from "./copy-command.js";
import { FindingEvidence } from "./finding-evidence.js";

/** One finding: code, summary, where, confidence; its figures against the baseline; evidence; follow-ups. */
export function FindingCard({ finding, logsLookback }: { finding: Finding; logsLookback: string }) {
  const figures = figureRows(finding.current, finding.baseline);
  const where = [finding.service, finding.operation].filter((part): part is string => Boolean(part)).join(" · ");
  return (
    <article class={`finding finding-${finding.severity}`} data-code={finding.code}>
      <header>
        <code class="finding-code">{finding.code}</code>
        <span class="finding-summary">{finding.summary}</span>
      </header>
      <p class="finding-meta muted">
        {where && <span class="finding-where">{where}</span>}
        <span>confidence {finding.confidence}</span>
      </p>
      {figures.length > 0 && (
        <table class="figures" aria-label={`${finding.code} figures`}>
          <thead>
            <tr>
              <th scope="col">figure</th>
              <th scope="col" class="num">
                current
              </th>
              <th scope="col" class="num">
                baseline
              </th>
            </tr>
          </thead>
          <tbody>
            {figures.map((row) => (
              <tr key={row.name}>
                <th scope="row">{row.label}</th>
                <td class="num">{formatFigure(row.current)}</td>
                <td class="num">{formatFigure(row.baseline)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <FindingEvidence finding={finding} logsLookback={logsLookback} />
      {finding.followUp.length > 0 && (
        <div class="follow-up">
          <span class="muted">Follow up</span>
          {finding.followUp.map((command) => (
            <CopyCommand key={command} command={command} />
          ))}
        </div>
      )}
    </article>
  );
}
