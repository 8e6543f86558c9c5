import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHistory } from './history/index.js';
import { runChaos } from './run-chaos.js';

const outDirectory = await mkdtemp(join(tmpdir(), 'once-chaos-e2e-'));

afterAll(async () => {
  await rm(outDirectory, { recursive: true, force: true });
});

describe('npm run chaos -- --spawn (short run)', () => {
  it('keeps every exactly-once invariant through kill -9 of replicas, the projector leader, the gateway and PostgreSQL', async () => {
    const lines: string[] = [];
    const summary = await runChaos({
      system: { kind: 'spawn', replicas: 2 },
      intents: 300,
      concurrency: 24,
      seed: 300,
      duplicateRate: 0.05,
      cardRate: 0.4,
      attemptTimeoutMs: 8_000,
      proxy: { resetBefore: 0.02, dropAfter: 0.04, delay: 0.01 },
      faultKinds: [
        'kill-api',
        'kill-projector-leader',
        'kill-gateway',
        'kill-postgres',
        'gateway-lost-response',
      ],
      faultIntervalMs: 3_000,
      outDirectory,
      log: (line) => lines.push(line),
    });

    expect(
      summary.verdicts.map((verdict) => [verdict.invariant, verdict.status, verdict.violations]),
      lines.join('\n'),
    ).toEqual(summary.verdicts.map((verdict) => [verdict.invariant, 'pass', []]));
    expect(summary.passed).toBe(true);
    expect(summary.intents).toBe(300);
    expect(summary.duplicatedIntents).toBeGreaterThan(0);
    expect(Object.keys(summary.processFaults).some((fault) => fault.startsWith('kill-'))).toBe(true);

    const history = await readHistory(join(outDirectory, 'history.jsonl'));
    expect(history.filter((record) => record.type === 'intent')).toHaveLength(300);
    expect(history.filter((record) => record.type === 'attempt').length).toBe(summary.attempts);
    const report = await readFile(join(outDirectory, 'report.html'), 'utf8');
    expect(report).toContain('PASSED: every invariant holds');
    expect(report).toContain('<svg');
  }, 900_000);

  it('keeps them with the streams in EventStoreDB (the wire-level test server) through kills of replicas and the projector leader', async () => {
    const lines: string[] = [];
    const directory = join(outDirectory, 'eventstoredb');
    const summary = await runChaos({
      system: { kind: 'spawn', replicas: 2, eventStoreDb: {} },
      intents: 150,
      concurrency: 16,
      seed: 150,
      duplicateRate: 0.05,
      cardRate: 0.4,
      attemptTimeoutMs: 8_000,
      proxy: { resetBefore: 0.02, dropAfter: 0.04, delay: 0.01 },
      faultKinds: ['kill-api', 'kill-projector-leader'],
      faultIntervalMs: 2_000,
      outDirectory: directory,
      log: (line) => lines.push(line),
    });

    expect(
      summary.verdicts.map((verdict) => [verdict.invariant, verdict.status, verdict.violations]),
      lines.join('\n'),
    ).toEqual(summary.verdicts.map((verdict) => [verdict.invariant, 'pass', []]));
    expect(summary.streams).toBe('eventstoredb-wire-test-server');
    expect(lines.some((line) => line.includes('wire-level EventStoreDB test server at esdb://'))).toBe(true);
    expect(Object.keys(summary.processFaults).some((fault) => fault.startsWith('kill-'))).toBe(true);
    // The effects were counted from the events read back from EventStoreDB: none lost, none doubled.
    expect(summary.effects).toMatchObject({ lost: 0, doubled: 0 });
    const report = await readFile(join(directory, 'eventstoredb.html'), 'utf8');
    expect(report).toContain('streams in eventstoredb-wire-test-server');
  }, 600_000);

  it('leaves no reservation and charges once when the completer is down for longer than key retention', async () => {
    const lines: string[] = [];
    const directory = join(outDirectory, 'completer-outage');
    const summary = await runChaos({
      system: { kind: 'spawn', replicas: 1 },
      intents: 20,
      concurrency: 4,
      seed: 37,
      duplicateRate: 0,
      cardRate: 0.5,
      attemptTimeoutMs: 8_000,
      proxy: { resetBefore: 0, dropAfter: 0, delay: 0 },
      faultKinds: [],
      faultIntervalMs: 60_000,
      completerOutage: { payments: 4, retentionSeconds: 3 },
      outDirectory: directory,
      log: (line) => lines.push(line),
    });

    expect(
      summary.verdicts.map((verdict) => [verdict.invariant, verdict.status, verdict.violations]),
      lines.join('\n'),
    ).toEqual(summary.verdicts.map((verdict) => [verdict.invariant, 'pass', []]));
    // The outage happened: every abandoned payment was still in flight after three retentions. A charged one whose
    // webhook was recorded before its request's unknown reply is answered at once and not abandoned; the uncharged
    // ones always are.
    const left = lines.map((line) => /^(\d+) card payments left in flight/.exec(line)?.[1]).find(Boolean);
    expect(Number(left), lines.join('\n')).toBeGreaterThanOrEqual(2);
    expect(lines).toContain(`after the outage the key table shows ${String(left)} of them in flight`);
    const history = await readHistory(join(directory, 'history.jsonl'));
    const outagePayments = history.filter(
      (record) =>
        record.type === 'intent' && record.kind === 'pay-card' && record.intent.startsWith('outage'),
    );
    expect(outagePayments).toHaveLength(4);
    expect(history.some((record) => record.type === 'fault' && record.fault === 'completer-back')).toBe(true);
  }, 600_000);
});
