import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CollectionTag, YAMLMap } from 'yaml';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { onceEnvironment } from '@once/settings';
import { interpolateCompose } from './compose-interpolation.js';
import { validateCompose } from './compose-schema.js';
import { workspaceRoot } from './workspace-root.js';

interface ComposeService {
  image?: string;
  profiles?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
  volumes?: string[];
  networks?: unknown;
}
type ComposeFile = { services: Record<string, ComposeService> } & Record<string, unknown>;

// Compose's `!override` tag replaces a mapping instead of merging it; the marker key carries the tag through parsing.
const overrideMarker = '<override>';
const overrideTag: CollectionTag = {
  tag: '!override',
  collection: 'map',
  resolve: (map) => {
    (map as YAMLMap<unknown, unknown>).set(overrideMarker, true);
    return map;
  },
};
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const withoutMarkers = (node: unknown): unknown =>
  isObject(node)
    ? Object.fromEntries(
        Object.entries(node)
          .filter(([key]) => key !== overrideMarker)
          .map(([key, value]) => [key, withoutMarkers(value)]),
      )
    : node;

// How `docker compose -f a -f b` merges mappings: key by key, the later file winning, a `!override` mapping whole.
const mergeMappings = (left: unknown, right: unknown): unknown => {
  if (!isObject(right)) return right ?? left;
  if (right[overrideMarker] === true || !isObject(left)) return withoutMarkers(right);
  return Object.fromEntries(
    [...new Set([...Object.keys(left), ...Object.keys(right)])].map((key) => [
      key,
      key in right ? mergeMappings(left[key], right[key]) : left[key],
    ]),
  );
};

const read = (file: string): unknown =>
  parse(readFileSync(join(workspaceRoot, file), 'utf8'), { merge: true, customTags: [overrideTag] });
const base = read('docker-compose.yml') as ComposeFile;
const override = read('docker-compose.cluster.yml');
const merged = mergeMappings(base, override) as ComposeFile;
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
const resolved = interpolateCompose(merged, secrets) as ComposeFile;
const single = interpolateCompose(base, secrets) as ComposeFile;

const nodes = ['eventstore-node1', 'eventstore-node2', 'eventstore-node3'];
const apps = ['api', 'projector'];

describe("docker-compose.yml's EventStoreDB cluster profile, with docker-compose.cluster.yml", () => {
  it('is valid against the Compose specification schema, the override alone and merged onto the base', () => {
    expect(validateCompose(withoutMarkers(override)), JSON.stringify(validateCompose.errors, null, 2)).toBe(
      true,
    );
    expect(validateCompose(resolved), JSON.stringify(validateCompose.errors, null, 2)).toBe(true);
  });

  it('runs three EventStoreDB nodes under the cluster profile, each seeding gossip with the other two', () => {
    for (const name of nodes) {
      const node = resolved.services[name];
      expect(node?.profiles, name).toEqual(['cluster']);
      expect(node?.image, name).toBe(base.services['eventstore']?.image);
      expect(node?.healthcheck, name).toBeDefined();
      expect(node?.environment?.['EVENTSTORE_CLUSTER_SIZE'], name).toBe('3');
      expect(node?.environment?.['EVENTSTORE_DISCOVER_VIA_DNS'], name).toBe('false');
      expect(node?.environment?.['EVENTSTORE_NODE_HOST_ADVERTISE_AS'], name).toBe(name);
      expect(node?.environment?.['EVENTSTORE_REPLICATION_HOST_ADVERTISE_AS'], name).toBe(name);
      const seeds = node?.environment?.['EVENTSTORE_GOSSIP_SEED']?.split(',') ?? [];
      expect(seeds.sort(), name).toEqual(
        nodes.filter((other) => other !== name).map((other) => `${other}:2113`),
      );
    }
    expect(new Set(nodes.map((name) => resolved.services[name]?.volumes?.[0])).size).toBe(3);
  });

  it('runs the cluster with authentication and TLS, as the single node, on a certificate naming each node', () => {
    const certificates = JSON.stringify(base.services['eventstore-certs']);
    for (const name of nodes) {
      const environment = resolved.services[name]?.environment ?? {};
      expect(environment['EVENTSTORE_INSECURE'], name).toBeUndefined();
      expect(environment['EVENTSTORE_DEFAULT_ADMIN_PASSWORD'], name).toBe(secrets.ONCE_EVENTSTORE_PASSWORD);
      expect(environment['EVENTSTORE_CERTIFICATE_FILE'], name).toMatch(/^\/certs\/cluster-node\//);
      expect(resolved.services[name]?.depends_on?.['eventstore-certs']?.condition, name).toBe(
        'service_completed_successfully',
      );
      expect(certificates).toContain(name);
    }
  });

  it('gives the three nodes one DNS name, which their certificate names, for clients to discover the cluster by', () => {
    for (const name of nodes)
      expect(resolved.services[name]?.networks, name).toEqual({
        default: { aliases: ['eventstore-cluster'] },
      });
    expect(JSON.stringify(base.services['eventstore-certs'])).toContain('eventstore-cluster,');
  });

  it('connects the api and the projector with esdb+discover:// to the cluster, after each node is healthy', () => {
    for (const app of apps) {
      const connectionString = resolved.services[app]?.environment?.['EVENTSTORE_URL'] ?? '';
      const [, user, password, host, query] =
        /^esdb\+discover:\/\/([^:@]+):([^@]+)@([^/?]+)\/?\?(.*)$/.exec(connectionString) ?? [];
      const settings = new URLSearchParams(query);
      expect(host, app).toBe('eventstore-cluster:2113');
      expect(user, app).toBe('admin');
      expect(password, app).toBe(secrets.ONCE_EVENTSTORE_PASSWORD);
      expect(settings.get('tls'), app).toBe('true');
      expect(settings.get('nodePreference'), app).toBe('leader');
      expect(settings.get('tlsCAFile'), app).toBe(
        new URL(single.services[app]?.environment?.['EVENTSTORE_URL'] ?? '').searchParams.get('tlsCAFile'),
      );
      // The settings schema reads EVENTSTORE_URL with the client's own parser, as the apps do on start (without
      // tlsCAFile, which the client opens, and which lies in the container).
      const withoutCaFile = connectionString.replace(/&tlsCAFile=[^&]*/, '');
      expect(onceEnvironment.shape.EVENTSTORE_URL.safeParse(withoutCaFile).success, app).toBe(true);
      for (const node of nodes)
        expect(resolved.services[app]?.depends_on?.[node]?.condition, app).toBe('service_healthy');
    }
  });

  it('starts no single node for the apps, so the cluster is the only EventStoreDB they wait for', () => {
    for (const app of [...apps, 'gateway-sim'])
      expect(resolved.services[app]?.depends_on?.['eventstore'], app).toBeUndefined();
    for (const app of [...apps, 'gateway-sim'])
      expect(resolved.services[app]?.depends_on?.['postgres']?.condition, app).toBe('service_healthy');
  });

  it('leaves the single-node setup as it was without the override', () => {
    for (const app of apps) {
      expect(new URL(single.services[app]?.environment?.['EVENTSTORE_URL'] ?? '').host).toBe(
        'eventstore:2113',
      );
      expect(base.services[app]?.depends_on?.['eventstore']?.condition).toBe('service_healthy');
      for (const node of nodes) expect(base.services[app]?.depends_on?.[node]).toBeUndefined();
    }
  });
});
