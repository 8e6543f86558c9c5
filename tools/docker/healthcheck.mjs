// Container health checks (plain Node, no curl in the slim image). Exit 0 when healthy, 1 otherwise.
//   node tools/docker/healthcheck.mjs http <url>   - the service answers 2xx at <url> within 2 s
//   node tools/docker/healthcheck.mjs projector    - PostgreSQL (DATABASE_URL) answers and a projector holds its
//                                                    projection leases (session advisory locks)
import pg from 'pg';

const [mode, url] = process.argv.slice(2);

const httpHealthy = async (target) => {
  const response = await fetch(target, { signal: AbortSignal.timeout(2_000) });
  return response.ok;
};

const projectorHealthy = async () => {
  const client = new pg.Client({
    connectionString: process.env.DATABASE_URL,
    connectionTimeoutMillis: 2_000,
  });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS leases FROM pg_locks
        WHERE locktype = 'advisory' AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return rows[0].leases > 0;
  } finally {
    await client.end();
  }
};

const checks = { http: () => httpHealthy(url), projector: projectorHealthy };
const check = checks[mode];
if (!check) {
  console.error('usage: healthcheck.mjs http <url> | projector');
  process.exit(2);
}
check().then(
  (healthy) => process.exit(healthy ? 0 : 1),
  (error) => {
    console.error(error.message);
    process.exit(1);
  },
);
