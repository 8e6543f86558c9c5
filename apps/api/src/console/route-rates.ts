import type { Registry } from 'prom-client';

interface RouteCounts {
  method: string;
  route: string;
  requests: number;
  status409: number;
  status422: number;
  keyed: number;
  replays: number;
}

const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);

/**
 * Replay, 409 and 422 rates per route since this process started, read from its own Prometheus counters (the
 * request histogram's counts by status, the idempotency outcomes by route). Counters are per process and carry no
 * tenant, so these are the service's rates, not one tenant's.
 *
 * @example
 * const routes = await routeRates(app.metricsRegistry);
 */
export const routeRates = async (registry: Registry) => {
  const byRoute = new Map<string, RouteCounts>();
  const counts = (method: string, route: string): RouteCounts => {
    const id = `${method} ${route}`;
    let entry = byRoute.get(id);
    if (!entry) {
      entry = { method, route, requests: 0, status409: 0, status422: 0, keyed: 0, replays: 0 };
      byRoute.set(id, entry);
    }
    return entry;
  };
  const durations = await registry.getSingleMetric('once_http_request_duration_seconds')?.get();
  for (const sample of durations?.values ?? []) {
    if ((sample as { metricName?: string }).metricName !== 'once_http_request_duration_seconds_count')
      continue;
    const { method, route, status_code: status } = sample.labels;
    if (typeof method !== 'string' || typeof route !== 'string' || route === 'unmatched') continue;
    const entry = counts(method, route);
    entry.requests += sample.value;
    if (status === '409') entry.status409 += sample.value;
    if (status === '422') entry.status422 += sample.value;
  }
  const outcomes = await registry.getSingleMetric('once_idempotency_outcomes_total')?.get();
  for (const sample of outcomes?.values ?? []) {
    const { route, outcome } = sample.labels;
    if (typeof route !== 'string') continue;
    // Only commands are keyed, and every command route is a POST.
    const entry = counts('POST', route);
    entry.keyed += sample.value;
    if (outcome === 'replay') entry.replays += sample.value;
  }
  return [...byRoute.values()]
    .map((entry) => ({
      ...entry,
      replayRate: ratio(entry.replays, entry.keyed),
      conflictRate: ratio(entry.status409, entry.requests),
      unprocessableRate: ratio(entry.status422, entry.requests),
    }))
    .sort((a, b) => b.requests - a.requests || a.route.localeCompare(b.route));
};
