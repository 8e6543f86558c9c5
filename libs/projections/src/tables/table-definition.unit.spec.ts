import { describe, expect, it } from 'vitest';
import { defineTable, tableDdl } from './table-definition.js';

describe('tableDdl', () => {
  it('creates plain and partial secondary indexes, numbered in the order declared', () => {
    const table = defineTable<{ id: string; status: string; due: string; tags: string[] }>({
      name: 'tasks',
      columns: {
        id: { type: 'text' },
        status: { type: 'text' },
        due: { type: 'timestamptz' },
        tags: { type: 'jsonb' },
      },
      primaryKey: ['id'],
      indexes: [
        { columns: ['due'], where: `status = 'open'` },
        ['status', 'due'],
        { columns: ['tags'], using: 'gin' },
      ],
    });
    const ddl = tableDdl(table, 4);
    expect(ddl).toContain(
      `CREATE INDEX IF NOT EXISTS "tasks_v4_i0" ON "tasks_v4" ("due") WHERE status = 'open';`,
    );
    expect(ddl).toContain(`CREATE INDEX IF NOT EXISTS "tasks_v4_i1" ON "tasks_v4" ("status", "due");`);
    expect(ddl).toContain(`CREATE INDEX IF NOT EXISTS "tasks_v4_i2" ON "tasks_v4" USING gin ("tags");`);
  });

  it('leaves the columns declared analyzed: false out of ANALYZE, and says nothing of the others', () => {
    const table = defineTable<{ id: string; body: string; headers: unknown[] }>({
      name: 'answers',
      columns: {
        id: { type: 'text' },
        body: { type: 'text', analyzed: false },
        headers: { type: 'jsonb', analyzed: false },
      },
      primaryKey: ['id'],
    });
    expect(tableDdl(table, 2)).toContain(
      `ALTER TABLE "answers_v2" ALTER COLUMN "body" SET STATISTICS 0, ALTER COLUMN "headers" SET STATISTICS 0;`,
    );
    const plain = defineTable<{ id: string }>({
      name: 'plain',
      columns: { id: { type: 'text' } },
      primaryKey: ['id'],
    });
    expect(tableDdl(plain, 1)).not.toContain('STATISTICS');
  });
});
