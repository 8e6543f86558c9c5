import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WireEventStoreDb } from '../wire-server.js';
import { startWireEventStoreDb } from '../wire-server.js';

interface Endpoint {
  readonly address: string;
  readonly port: number;
}

/** A self-signed certificate for 127.0.0.1 and localhost, which is its own root (made with the `openssl` CLI). */
const createSelfSignedCertificate = (): { key: Buffer; cert: Buffer } => {
  const folder = mkdtempSync(join(tmpdir(), 'once-wire-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(folder, 'node.key'),
        '-out',
        join(folder, 'node.crt'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(folder, 'node.key')), cert: readFileSync(join(folder, 'node.crt')) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
};

/**
 * What the EventStoreDB client's test suite calls a test node (`createTestNode()` there starts an EventStoreDB
 * container), backed here by the wire-level test server over TLS, so the suite's files run unchanged against it.
 * Only the members the stream files use exist: `up`, `down`, `uri` and `certs.root`.
 */
export class WireTestNode {
  #server: WireEventStoreDb | undefined;
  #endpoint: Endpoint | undefined;
  #root: Buffer | undefined;

  async up(): Promise<void> {
    const tls = createSelfSignedCertificate();
    this.#server = await startWireEventStoreDb({ tls });
    this.#root = tls.cert;
    const port = Number(new URL(this.#server.connectionString).port);
    this.#endpoint = { address: '127.0.0.1', port };
  }

  async down(): Promise<void> {
    await this.#server?.stop();
  }

  get uri(): Endpoint {
    if (!this.#endpoint) throw new Error('the wire test node is not up');
    return this.#endpoint;
  }

  get certs(): { root: Buffer } {
    if (!this.#root) throw new Error('the wire test node is not up');
    return { root: this.#root };
  }
}

// The suite's `utils/index.ts` builds its nodes with `new Cluster(…)`; the harness resolves that import here.
export { WireTestNode as Cluster };
