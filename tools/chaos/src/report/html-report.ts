import type { RunSummary } from './run-summary.js';
import { barChart, escapeHtml, lineChart } from './svg-charts.js';

const retryOrder = (label: string): number => (label === '10+' ? 10 : Number(label));

/**
 * The run as one self-contained HTML page (inline SVG, no scripts, no external files): throughput with the faults
 * marked, latency percentiles, retries per intent, and the verdicts.
 *
 * @example
 * await writeFile('report.html', renderHtmlReport(summary));
 */
export const renderHtmlReport = (summary: RunSummary): string => {
  const throughput = lineChart(
    [
      { name: 'answers/s', color: '#888', values: summary.throughput.map((bucket) => bucket.answers) },
      { name: '2xx/s', color: '#2a8a3a', values: summary.throughput.map((bucket) => bucket.successes) },
    ],
    summary.faults.map((fault) => ({
      x: fault.at / 1000,
      label: `${fault.fault} → ${fault.target} at ${(fault.at / 1000).toFixed(1)} s`,
    })),
    'seconds since the start (red dashes: injected process and gateway faults)',
  );
  const latency = barChart(
    (['p50', 'p90', 'p99', 'max'] as const).map((name) => ({ label: name, value: summary.latencyMs[name] })),
    'attempt latency (ms), every answered attempt',
  );
  const retries = barChart(
    Object.entries(summary.retriesPerIntent)
      .sort(([a], [b]) => retryOrder(a) - retryOrder(b))
      .map(([label, value]) => ({ label, value })),
    'retries per intent (attempts beyond the first of each copy)',
  );
  const verdictRows = summary.verdicts
    .map(
      (verdict) =>
        `<tr class="${verdict.status}"><td>${escapeHtml(verdict.invariant)}</td><td>${verdict.status}</td><td>${String(verdict.checked)}</td><td>${String(verdict.violationCount)}</td><td>${verdict.violations.map(escapeHtml).join('<br>')}</td></tr>`,
    )
    .join('');
  const faultRows = Object.entries({ ...summary.processFaults, ...summary.proxyFaults })
    .map(([name, count]) => {
      const impact = summary.faultImpact[name];
      const cost = impact
        ? `${String(impact.medianGapSeconds)} s median, ${String(impact.maxGapSeconds)} s worst`
        : 'per request';
      return `<tr><td>${escapeHtml(name)}</td><td>${String(count)}</td><td>${cost}</td></tr>`;
    })
    .join('');
  const statusRows = Object.entries(summary.attemptsByStatus)
    .map(([name, count]) => `<tr><td>${escapeHtml(name)}</td><td>${String(count)}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Once chaos run ${escapeHtml(summary.startedAt)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; max-width: 960px; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; } td, th { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
tr.pass td:nth-child(2) { color: #2a8a3a; font-weight: bold; } tr.fail td:nth-child(2) { color: #c22; font-weight: bold; }
tr.skipped td:nth-child(2) { color: #888; } .verdict { font-size: 1.4rem; font-weight: bold; }
</style></head><body>
<h1>Once chaos run</h1>
<p class="verdict">${summary.passed ? 'PASSED: every invariant holds' : 'FAILED: an invariant is broken'}</p>
<p>${escapeHtml(summary.mode)} mode${summary.streams === undefined ? '' : ` (streams in ${escapeHtml(summary.streams)})`}, seed ${String(summary.seed)}${summary.replicas === undefined ? '' : `, ${String(summary.replicas)} api replicas`}, started ${escapeHtml(summary.startedAt)}, ${String(summary.durationSeconds)} s;
${String(summary.intents)} intents (${String(summary.duplicatedIntents)} sent as 10 concurrent copies), ${String(summary.attempts)} attempts, ${String(summary.replayedAnswers)} replayed answers;
outcomes: ${String(summary.outcomes.succeeded)} succeeded, ${String(summary.outcomes.rejected)} rejected, ${String(summary.outcomes['gave-up'])} without an answer. Load average at the end: ${summary.machine.loadAverage.join(', ')}.</p>
<h2>Verdicts</h2>
<table><tr><th>invariant</th><th>verdict</th><th>checked</th><th>violations</th><th>first violations</th></tr>${verdictRows}</table>
<h2>Throughput</h2>${throughput}
<h2>Latency</h2>${latency}
<h2>Retries per intent</h2>${retries}
<h2>Faults injected</h2><table><tr><th>fault</th><th>count</th><th>longest stretch without a 2xx after it (until the next fault, at most a minute)</th></tr>${faultRows}</table>
<h2>Attempts by answer</h2><table><tr><th>answer</th><th>attempts</th></tr>${statusRows}</table>
</body></html>
`;
};
