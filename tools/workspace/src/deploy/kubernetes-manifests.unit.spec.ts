import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { metricsListenerPaths } from '@once/cafe';
import { onceEnvironment } from '@once/settings';
import { workspaceRoot } from '../workspace-root.js';

// deploy/kubernetes, the kustomize base: every object valid against the Kubernetes API schemas (kubernetes-models), and
// wired to itself and to the apps (selectors, named ports, probe paths, settings).

const folder = join(workspaceRoot, 'deploy', 'kubernetes');
const read = (file: string): string => readFileSync(join(folder, file), 'utf8');

type Labels = Readonly<Record<string, string>>;
interface EnvVar {
  name: string;
  value?: string;
}
interface Probe {
  httpGet?: { path?: string; port: string | number };
}
interface Container {
  name: string;
  image?: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Labels };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    minAvailable?: number;
    selector?: { matchLabels?: Labels } & Labels;
    template?: { metadata: { labels: Labels }; spec: { containers: Container[] } };
    ports?: { name: string; port: number; targetPort: string | number }[];
    endpoints?: { port: string; path?: string }[];
  };
}

const kustomization = parse(read('kustomization.yaml')) as {
  apiVersion: string;
  kind: string;
  resources: string[];
  images?: { name: string }[];
};
const manifestFiles = readdirSync(folder)
  .filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml')
  .sort();
const documents = manifestFiles.flatMap((file) =>
  parseAllDocuments(read(file)).map((document) => ({ file, document })),
);
const objects = documents.map(({ file, document }) => ({
  file,
  object: document.toJS() as KubernetesObject,
}));
const ofKind = (kind: string): KubernetesObject[] =>
  objects.filter(({ object }) => object.kind === kind).map(({ object }) => object);
const named = (kind: string, name: string): KubernetesObject => {
  const found = ofKind(kind).find((object) => object.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
};

const validator =
  <Data>(Model: new (data?: Data) => { validate(): void }) =>
  (object: KubernetesObject): void =>
    new Model(object as Data).validate();
const validators: Record<string, (object: KubernetesObject) => void> = {
  'apps/v1 Deployment': validator(Deployment),
  'v1 Service': validator(Service),
  'v1 ConfigMap': validator(ConfigMap),
  'v1 Secret': validator(Secret),
  'policy/v1 PodDisruptionBudget': validator(PodDisruptionBudget),
  'monitoring.coreos.com/v1 ServiceMonitor': validator(ServiceMonitor),
};

const selects = (selector: Labels | undefined, labels: Labels | undefined): boolean =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([name, value]) => labels?.[name] === value);
const podsOf = (selector: Labels | undefined): KubernetesObject[] =>
  ofKind('Deployment').filter((deployment) => selects(selector, deployment.spec?.template?.metadata.labels));
const containersOf = (deployment: KubernetesObject): Container[] =>
  deployment.spec?.template?.spec.containers ?? [];
const envOf = (container: Container): Record<string, string | undefined> =>
  Object.fromEntries((container.env ?? []).map(({ name, value }) => [name, value]));
const probesOf = (container: Container): Probe[] =>
  [container.startupProbe, container.livenessProbe, container.readinessProbe].filter(
    (probe): probe is Probe => probe !== undefined,
  );

/** The api's public GET routes, as OPERATIONS.md lists them (`route-roles.e2e.spec.ts` checks that table against the app). */
const apiPublicGetRoutes = [
  ...readFileSync(join(workspaceRoot, 'apps', 'api', 'OPERATIONS.md'), 'utf8').matchAll(
    /^\| `GET (\S+)`\s*\| public\s*\|$/gm,
  ),
].map(([, path = '']) => path);

/** Per app: the settings that name the port each named container port must be, and the address it must bind. */
const listenerSettings: Record<string, { ports: Record<string, string>; hosts: string[] }> = {
  api: { ports: { http: 'PORT', metrics: 'ONCE_METRICS_PORT' }, hosts: ['HOST', 'ONCE_METRICS_HOST'] },
  projector: { ports: { metrics: 'ONCE_PROJECTOR_METRICS_PORT' }, hosts: ['ONCE_METRICS_HOST'] },
};
/** The paths each app serves its probes on. */
const probePaths: Record<string, readonly string[]> = {
  api: apiPublicGetRoutes,
  projector: [metricsListenerPaths.live],
};

describe('deploy/kubernetes', () => {
  it('is a kustomization that lists exactly the manifests in its folder', () => {
    expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
    expect(kustomization.kind).toBe('Kustomization');
    expect([...kustomization.resources].sort()).toEqual(manifestFiles);
  });

  it('parses every YAML document without an error, each one object with a name', () => {
    expect(documents.length).toBeGreaterThan(0);
    for (const { file, document } of documents) {
      expect(document.errors, file).toEqual([]);
      const object = document.toJS() as Partial<KubernetesObject> | null;
      expect(object?.metadata?.name, file).toMatch(/^once(-[a-z]+)*$/);
    }
  });

  it('validates every object against the Kubernetes API and Prometheus Operator schemas', () => {
    for (const { file, object } of objects) {
      const validate = validators[`${object.apiVersion} ${object.kind}`];
      expect(validate, `${file}: ${object.apiVersion} ${object.kind} is not one of ours`).toBeDefined();
      expect(() => validate?.(object), file).not.toThrow();
    }
  });

  it('keeps the validation able to fail: a Deployment without its selector is refused', () => {
    const api = named('Deployment', 'once-api');
    const { selector: _selector, ...withoutSelector } = api.spec ?? {};
    expect(() => validators['apps/v1 Deployment']?.({ ...api, spec: withoutSelector })).toThrow();
  });

  it('runs the api and the projector, the projector as a leader and a standby, from the one image', () => {
    expect(ofKind('Deployment').map((deployment) => deployment.metadata.name)).toEqual([
      'once-api',
      'once-projector',
    ]);
    expect(named('Deployment', 'once-projector').spec?.replicas).toBe(2);
    const images = kustomization.images?.map((image) => image.name) ?? [];
    for (const deployment of ofKind('Deployment')) {
      for (const container of containersOf(deployment)) {
        expect(images, deployment.metadata.name).toContain(container.image);
        const entry = container.command?.find((part) => /^apps\/[^/]+\/dist\/main\.js$/.test(part));
        expect(entry, `${deployment.metadata.name} runs apps/<app>/dist/main.js`).toBeDefined();
        const source = (entry ?? '').replace('/dist/', '/src/').replace(/\.js$/, '.ts');
        expect(existsSync(join(workspaceRoot, source)), source).toBe(true);
        expect(Object.keys(listenerSettings)).toContain(container.name);
        expect(source).toBe(`apps/${container.name}/src/main.ts`);
      }
    }
  });

  it('selects its own pods: each Deployment its template, each Service and disruption budget one Deployment', () => {
    for (const deployment of ofKind('Deployment')) {
      expect(podsOf(deployment.spec?.selector?.matchLabels), deployment.metadata.name).toEqual([deployment]);
    }
    for (const service of ofKind('Service')) {
      expect(podsOf(service.spec?.selector), service.metadata.name).toHaveLength(1);
    }
    for (const budget of ofKind('PodDisruptionBudget')) {
      const [deployment, ...others] = podsOf(budget.spec?.selector?.matchLabels);
      expect(others, budget.metadata.name).toEqual([]);
      // A budget as large as the Deployment would block every node drain.
      expect(budget.spec?.minAvailable, budget.metadata.name).toBeLessThan(deployment?.spec?.replicas ?? 0);
    }
    expect(
      ofKind('PodDisruptionBudget').flatMap((budget) => podsOf(budget.spec?.selector?.matchLabels)),
    ).toEqual(ofKind('Deployment'));
  });

  it('points every Service port at a named port of the containers it selects', () => {
    for (const service of ofKind('Service')) {
      const ports = podsOf(service.spec?.selector)
        .flatMap(containersOf)
        .flatMap((container) => container.ports ?? [])
        .map((port) => port.name);
      for (const port of service.spec?.ports ?? []) {
        expect(typeof port.targetPort, `${service.metadata.name} ${port.name}`).toBe('string');
        expect(ports, `${service.metadata.name} ${port.name}`).toContain(port.targetPort);
      }
    }
  });

  it('scrapes /metrics on the metrics port of the api and of the projector', () => {
    const [monitor, ...others] = ofKind('ServiceMonitor');
    expect(others).toEqual([]);
    const services = ofKind('Service').filter((service) =>
      selects(monitor?.spec?.selector?.matchLabels, service.metadata.labels),
    );
    expect(services.map((service) => service.metadata.name)).toEqual(['once-api', 'once-projector']);
    expect(monitor?.spec?.endpoints?.length).toBeGreaterThan(0);
    for (const endpoint of monitor?.spec?.endpoints ?? []) {
      expect(endpoint.path).toBe(metricsListenerPaths.metrics);
      for (const service of services)
        expect(
          service.spec?.ports?.map((port) => port.name),
          service.metadata.name,
        ).toContain(endpoint.port);
    }
  });

  it('probes paths the apps serve, on ports named after the settings the apps listen on', () => {
    expect(apiPublicGetRoutes).toContain('/health/live');
    for (const deployment of ofKind('Deployment')) {
      for (const container of containersOf(deployment)) {
        const env = envOf(container);
        const listener = listenerSettings[container.name] ?? { ports: {}, hosts: [] };
        for (const port of container.ports ?? []) {
          const setting = listener.ports[port.name ?? ''];
          expect(setting, `${container.name}: port ${String(port.name)}`).toBeDefined();
          expect(env[setting ?? ''], `${container.name}: ${String(setting)}`).toBe(
            String(port.containerPort),
          );
        }
        for (const host of listener.hosts) expect(env[host], `${container.name}: ${host}`).toBe('0.0.0.0');
        const probes = probesOf(container);
        expect(probes.length, `${container.name} has a liveness probe`).toBeGreaterThan(0);
        expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
        for (const { httpGet } of probes) {
          expect(probePaths[container.name], container.name).toContain(httpGet?.path);
          expect(Object.keys(listener.ports), container.name).toContain(httpGet?.port);
        }
      }
    }
    const api = containersOf(named('Deployment', 'once-api'))[0];
    expect(api?.readinessProbe?.httpGet?.path).toBe('/health/ready');
  });

  it('sets only settings of the one environment schema, each value valid there', () => {
    const shape = onceEnvironment.shape as Record<
      string,
      { safeParse(value: unknown): { success: boolean } }
    >;
    const settings = [
      ...ofKind('ConfigMap').flatMap((map) => Object.entries(map.data ?? {})),
      ...ofKind('Secret').flatMap((secret) => Object.entries(secret.stringData ?? {})),
      ...ofKind('Deployment')
        .flatMap(containersOf)
        .flatMap((container) => Object.entries(envOf(container))),
    ];
    expect(settings.length).toBeGreaterThan(0);
    for (const [name, value] of settings) {
      expect(Object.keys(shape), name).toContain(name);
      // Empty: the operator's to fill (the apps refuse to start until then).
      if (value !== undefined && value !== '') expect(shape[name]?.safeParse(value).success, name).toBe(true);
    }
  });

  it('reads the settings and secrets of the base, and commits no secret value', () => {
    for (const container of ofKind('Deployment').flatMap(containersOf)) {
      const sources = container.envFrom ?? [];
      const maps = sources.flatMap((source) => (source.configMapRef ? [source.configMapRef.name] : []));
      const secrets = sources.flatMap((source) => (source.secretRef ? [source.secretRef.name] : []));
      expect(maps, container.name).toEqual(ofKind('ConfigMap').map((map) => map.metadata.name));
      expect(secrets, container.name).toEqual(ofKind('Secret').map((secret) => secret.metadata.name));
    }
    for (const secret of ofKind('Secret')) {
      expect(secret.data, secret.metadata.name).toBeUndefined();
      expect(Object.values(secret.stringData ?? {}).filter((value) => value !== '')).toEqual([]);
      expect(Object.keys(secret.stringData ?? {})).toEqual(
        expect.arrayContaining(['DATABASE_URL', 'ONCE_SECRETS_KEY']),
      );
    }
  });
});
