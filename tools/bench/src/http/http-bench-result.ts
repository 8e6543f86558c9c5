import type { Balances } from '../article/article-database.js';
import type { PhaseCpu } from './phase-cpu.js';

/** The sides an http run measures. */
export type SideName =
  'plain' | 'keyed' | 'keyed_unshared' | 'keyed_projector_off' | 'article' | 'replay' | 'article_replay';

/** What `npm run bench -- http` writes to tools/bench/results/http.json. */
export interface HttpBenchResult {
  readonly keyed_rps: number;
  readonly plain_rps: number;
  readonly replay_rps: number;
  readonly keyed_p50_ms: number;
  readonly keyed_p99_ms: number;
  readonly plain_p50_ms: number;
  readonly plain_p99_ms: number;
  readonly replay_p50_ms: number;
  readonly replay_p99_ms: number;
  readonly keyed_vs_plain: number;
  /** Once's keyed payments with shared commits off (`ONCE_SHARED_COMMITS=false`), its projector in-process. */
  readonly keyed_unshared_rps: number;
  readonly keyed_unshared_p50_ms: number;
  readonly keyed_unshared_p99_ms: number;
  readonly keyed_unshared_vs_article: number;
  /** What shared commits buy: keyed with them ÷ keyed without. */
  readonly keyed_vs_keyed_unshared: number;
  /** Once's keyed payments with no projector at all (its own database; the read models are caught up after the run). */
  readonly keyed_projector_off_rps: number;
  readonly keyed_projector_off_p99_ms: number;
  readonly keyed_projector_off_vs_article: number;
  readonly replay_vs_keyed: number;
  /** The article peer (tools/bench/src/article): the single-table design, measured in the same rounds. */
  readonly article_rps: number;
  readonly article_replay_rps: number;
  readonly article_p50_ms: number;
  readonly article_p99_ms: number;
  readonly keyed_vs_article: number;
  readonly replay_vs_article_replay: number;
  /** Answers other than 2xx per phase (conflicts that outlasted the retries, 503s); 0 in a clean run. */
  readonly non_2xx: {
    readonly keyed: number;
    readonly keyed_unshared: number;
    readonly keyed_projector_off: number;
    readonly plain: number;
    readonly replay: number;
    readonly article: number;
    readonly article_replay: number;
  };
  /**
   * Where the machine's CPU went per answered request, medians over each side's phases: the server process (all its
   * threads), its database's PostgreSQL backends by application name, the load generator and the rest.
   */
  readonly cpu_per_request: Readonly<Partial<Record<SideName, PhaseCpu>>>;
  /** Both sides checked after the run: paid amounts equal the sum of recorded payments, and those the confirmed ones. */
  readonly balances: {
    readonly once: Balances;
    readonly once_unshared: Balances;
    readonly once_projector_off: Balances;
    readonly article: Balances;
  };
  readonly connections: number;
  /**
   * With `--sweep`: every side at each number of connections, measured in the same rounds (the fields above are
   * the 16-connection column).
   */
  readonly sweep?: readonly SweepPoint[];
  /**
   * With `--sweep`: Once's keyed p50 ÷ the article's at 1 connection, with shared commits on and off (the latency of
   * one request alone; target at most 1.25).
   */
  readonly p50_vs_article?: { readonly keyed: number; readonly keyed_unshared: number };
  readonly pool_size: number;
  readonly seconds_per_phase: number;
  readonly rounds: number;
  readonly invoices: number;
  readonly postgres: string;
  /** `uptime`'s 1, 5 and 15 minute load averages before and after the run (2 shared cores: measurements are noisy). */
  readonly load_average: { readonly before: readonly number[]; readonly after: readonly number[] };
  /** The machine's logical CPUs (`os.availableParallelism()`), to read the load average against. */
  readonly cpus?: number;
  readonly measured_at: string;
}

/** One number of connections in the sweep: each side's medians there, and Once's ratios to the article's. */
export interface SweepPoint {
  readonly connections: number;
  readonly sides: Readonly<
    Record<
      SideName,
      { readonly rps: number; readonly p50_ms: number; readonly p99_ms: number; readonly cpu_us: number }
    >
  >;
  readonly keyed_vs_article: number;
  readonly keyed_unshared_vs_article: number;
  readonly keyed_projector_off_vs_article: number;
  readonly replay_vs_article_replay: number;
  /** Once's keyed p50 ÷ the article's: below 1, Once answers sooner. */
  readonly keyed_p50_vs_article: number;
  readonly keyed_unshared_p50_vs_article: number;
}
