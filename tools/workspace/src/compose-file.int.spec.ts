import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { onceEnvironment } from '@once/settings';
import { MissingComposeVariableError, interpolateCompose } from './compose-interpolation.js';
import { validateCompose } from './compose-schema.js';
import { workspaceRoot } from './workspace-root.js';

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
  image?: string;
  build?: unknown;
  profiles?: string[];
  restart?: string;
}

const composeText = readFileSync(join(workspaceRoot, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as {
  services: Record<string, ComposeService>;
};
const secrets = {
  ONCE_WEBHOOK_SECRET: 'whsec_b3BlcmF0b3ItY2hvc2VuLXdlYmhvb2stc2VjcmV0',
  ONCE_POSTGRES_PASSWORD: 'a-database-password',
  ONCE_API_POSTGRES_PASSWORD: 'the-api-database-password',
  ONCE_PROJECTOR_POSTGRES_PASSWORD: 'the-projector-database-password',
  ONCE_KITCHEN_POSTGRES_PASSWORD: 'the-kitchen-database-password',
  ONCE_EVENTSTORE_PASSWORD: 'the-eventstore-admin-password',
  ONCE_GATEWAY_FAULT_TOKEN: 'a-fault-token-of-the-operator',
  ONCE_GATEWAY_API_TOKEN: 'a-gateway-api-token-of-the-operator',
  ONCE_SECRETS_KEY: 'b3BlcmF0b3ItY2hvc2VuLXNlcnZlci1rZXktMzJieXQ=',
};
/** The services built from this repository (the apps); the rest run public images. */
const appServices = () =>
  Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
/** One-shot setup services (they finish, so others wait for their successful completion, not their health). */
const isOneShot = (service: ComposeService | undefined) => service?.restart === 'no';

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    expect(validateCompose(compose), JSON.stringify(validateCompose.errors, null, 2)).toBe(true);
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
    expect(
      appServices()
        .map(([name]) => name)
        .sort(),
    ).toEqual(['api', 'gateway-sim', 'kitchen-display', 'projector']);
    for (const [name, service] of appServices()) {
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
    for (const [name, service] of appServices()) {
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

  it('checks the health of every service, and waits for healthy services (or finished one-shots) only', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (!isOneShot(service)) {
        expect(service.healthcheck, name).toMatchObject({
          test: expect.arrayContaining([expect.any(String)]),
        });
      }
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(condition, `${name} waits for ${dependency}`).toBe(
          isOneShot(compose.services[dependency]) ? 'service_completed_successfully' : 'service_healthy',
        );
      }
    }
  });

  it('health-checks the apps with the script the image carries', () => {
    for (const [name, service] of appServices()) {
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
    expect(validateCompose(resolved)).toBe(true);
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

  it('publishes the stores, the gateway simulator and the kitchen display on 127.0.0.1 only', () => {
    for (const name of ['postgres', 'eventstore', 'eventstore-insecure', 'gateway-sim', 'kitchen-display']) {
      const ports = compose.services[name]?.ports ?? [];
      expect(ports.length, name).toBeGreaterThan(0);
      for (const port of ports) expect(port, name).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('connects each service to PostgreSQL as its own role, never as the superuser', () => {
    const resolved = interpolateCompose(compose, secrets) as { services: Record<string, ComposeService> };
    const roles = Object.fromEntries(
      appServices()
        .filter(([name]) => resolved.services[name]?.environment?.['DATABASE_URL'] !== undefined)
        .map(([name]) => [name, new URL(resolved.services[name]?.environment?.['DATABASE_URL'] as string)]),
    );
    expect(Object.keys(roles).sort()).toEqual(['api', 'kitchen-display', 'projector']);
    expect(roles['api']?.username).toBe('once_api');
    expect(roles['projector']?.username).toBe('once_projector');
    expect(roles['kitchen-display']?.username).toBe('once_kitchen');
    expect(roles['kitchen-display']?.pathname).toBe('/once_kitchen');
    expect(roles['api']?.password).toBe(secrets.ONCE_API_POSTGRES_PASSWORD);
    expect(resolved.services['gateway-sim']?.environment?.['DATABASE_URL']).toBeUndefined();
    expect(compose.services['postgres']?.volumes).toContain(
      './tools/docker/postgres-roles.sh:/docker-entrypoint-initdb.d/10-once-roles.sh:ro',
    );
  });

  it('runs EventStoreDB with authentication and TLS, and its insecure mode only in the development profile', () => {
    const resolved = interpolateCompose(compose, secrets) as { services: Record<string, ComposeService> };
    for (const [name, service] of Object.entries(resolved.services)) {
      if (service.environment?.['EVENTSTORE_INSECURE'] === 'true')
        expect(service.profiles, name).toEqual(['development']);
    }
    expect(resolved.services['eventstore']?.environment?.['EVENTSTORE_CERTIFICATE_FILE']).toBeDefined();
    for (const name of ['api', 'projector']) {
      const url = new URL(resolved.services[name]?.environment?.['EVENTSTORE_URL'] as string);
      expect(url.searchParams.get('tls'), name).toBe('true');
      expect(url.username, name).toBe('admin');
      expect(url.password, name).toBe(secrets.ONCE_EVENTSTORE_PASSWORD);
    }
  });

  it("gives the gateway simulator's charges a bearer secret, which the api and the projector send", () => {
    const resolved = interpolateCompose(compose, secrets) as { services: Record<string, ComposeService> };
    for (const name of ['gateway-sim', 'api', 'projector']) {
      expect(resolved.services[name]?.environment?.['ONCE_GATEWAY_API_TOKEN'], name).toBe(
        secrets.ONCE_GATEWAY_API_TOKEN,
      );
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
