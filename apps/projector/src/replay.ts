import pg from 'pg';
import { rebuildProjections } from '@once/projections';
import { allProjections } from '@once/read-models';
import { onceEnvironment, readEnvironment } from '@once/settings';
import { resolveDatabase } from './database.js';
import { createProgressDisplay } from './progress-display.js';
import { openEventStore } from '@once/cafe';

const usage = `usage: npm run replay -- <projection>... | --all

Rebuilds read models blue/green: a new version fills its own tables from the start of the log while the live one
keeps serving, then becomes live in one transaction. Safe to interrupt (Ctrl-C) and rerun: it resumes.

projections: ${allProjections.map((projection) => projection.name).join(', ')}
environment: DATABASE_URL (default: the embedded database in .once/postgres or ONCE_DATA_DIR), EVENTSTORE_URL,
             ONCE_REPLAY_BATCH_SIZE (default 2000)`;

const env = readEnvironment(
  onceEnvironment.pick({
    DATABASE_URL: true,
    EVENTSTORE_URL: true,
    ONCE_DATA_DIR: true,
    ONCE_REPLAY_BATCH_SIZE: true,
  }),
);

const args = process.argv.slice(2).filter((arg) => arg !== '--');
if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
  console.log(usage);
  process.exit(args.length === 0 ? 2 : 0);
}
const names = args.includes('--all') ? allProjections.map((projection) => projection.name) : args;
const unknown = names.filter((name) => !allProjections.some((projection) => projection.name === name));
if (unknown.length > 0) {
  console.error(`unknown projection: ${unknown.join(', ')}\n\n${usage}`);
  process.exit(2);
}

const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort();
});
process.on('SIGTERM', () => interrupt.abort());

const database = await resolveDatabase({ databaseUrl: env.DATABASE_URL, dataDirectory: env.ONCE_DATA_DIR });
const pool = new pg.Pool({ connectionString: database.connectionString, max: 6 });
const store = await openEventStore({ pool, eventStoreUrl: env.EVENTSTORE_URL, migrate: true });
const display = createProgressDisplay(process.stdout);
console.log(`replay: ${names.join(', ')} on ${database.source}`);

let exitCode = 0;
try {
  const projections = allProjections.filter((projection) => names.includes(projection.name));
  const startedAt = Date.now();
  // One read of the log feeds every projection asked for; each batch is one transaction for all of them.
  const outcomes = await rebuildProjections({
    pool,
    store,
    projections,
    batchSize: env.ONCE_REPLAY_BATCH_SIZE,
    signal: interrupt.signal,
    onProgress: (progress) => display.update(progress),
  });
  display.finish();
  const seconds = (Date.now() - startedAt) / 1000;
  for (const outcome of outcomes) {
    if (outcome.status === 'interrupted') {
      console.log(
        `${outcome.projection}: interrupted at v${outcome.version} after ${outcome.events} events; rerun to resume`,
      );
      exitCode = 130;
      continue;
    }
    console.log(
      `${outcome.projection}: v${outcome.version} is live (was ${outcome.previous === undefined ? 'none' : `v${outcome.previous}`}); ${outcome.events} events`,
    );
  }
  const total = outcomes.reduce((sum, outcome) => sum + outcome.events, 0);
  console.log(
    `${total} events in ${seconds.toFixed(1)} s (${Math.round(total / Math.max(seconds, 0.001))} events/s)`,
  );
} catch (error) {
  display.finish();
  console.error('replay failed:', error);
  exitCode = 1;
} finally {
  await store.close();
  await pool.end();
  await database.stop();
}
process.exit(exitCode);
