import { describe, expect, it } from 'vitest';
import { prometheusNamingProblems } from './prometheus-naming.js';

describe('prometheusNamingProblems', () => {
  it('passes counters ending in _total and other metrics, each with one once_ prefix', () => {
    const exposition = [
      '# HELP once_webhook_attempts_total Attempts',
      '# TYPE once_webhook_attempts_total counter',
      'once_webhook_attempts_total{outcome="delivered"} 3',
      '# TYPE once_scavenger_lag_seconds gauge',
      'once_scavenger_lag_seconds 0',
    ].join('\n');
    expect(prometheusNamingProblems(exposition)).toEqual([]);
  });

  it('names a metric without the prefix, one with it twice, and a counter without _total', () => {
    const exposition = [
      '# TYPE http_request_duration_seconds histogram',
      '# TYPE once_once_outcomes_total counter',
      '# TYPE once_webhook_attempts counter',
    ].join('\n');
    expect(prometheusNamingProblems(exposition)).toEqual([
      'http_request_duration_seconds: not one once_ prefix',
      'once_once_outcomes_total: not one once_ prefix',
      'once_webhook_attempts: a counter without _total',
    ]);
  });
});
