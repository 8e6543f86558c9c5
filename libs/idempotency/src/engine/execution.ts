import { fingerprintOfText, fingerprintText } from '@once/canonical-json';
import { comparePositions } from '@once/event-store';
import type { AppendResult, EventToAppend, ExpectedRevision, GlobalPosition } from '@once/event-store';
import { withSecretsReferenced } from '../commands/secret-reference.js';
import { deriveId } from '../ids/index.js';
import { keyStreamName, scopedKey } from '../key-log/index.js';
import type { KeyLogEvent, RequestFingerprint } from '../key-log/index.js';
import { untraced } from '../tracing/index.js';
import type { CommandTrace } from '../tracing/index.js';
import type { CommandContext, CommandRequest } from './command-handler.js';
import type { ExecuteInput } from './engine-settings.js';
import type { ExecuteOutcome } from './execute-outcome.js';

/**
 * One `execute` call: the input, its fingerprint and key stream, and the latest global position its own appends
 * reached (the first outcome's read-your-writes token).
 */
export class Execution {
  /**
   * The key as `CompletedKeys` knows it (`scopedKey`), unhashed: an arrival answered from memory never names its key
   * stream.
   */
  readonly scopedKey: string;
  position: GlobalPosition | undefined;
  keyLogPosition: GlobalPosition | undefined;

  private namedKeyStream: string | undefined;
  private fingerprints: Fingerprints | undefined;

  constructor(
    readonly input: ExecuteInput,
    /** The reference keys secret fields are hashed under in the fingerprint, the current one first. */
    private readonly referenceKeys: readonly Uint8Array[] = [],
    /** Where its key-log reads and appends, effects and steps are traced (nowhere by default). */
    readonly trace: CommandTrace = untraced,
  ) {
    this.scopedKey = scopedKey(input.scope, input.key);
  }

  /**
   * Fingerprints the request, once: the first use of `request`, `alsoHashes` or `plainRequestText` does, and so does
   * `execute` before a protocol runs. Throws `CanonicalJsonError` when params or body are not JSON values.
   */
  fingerprint(): Fingerprints {
    this.fingerprints ??= requestFingerprints(
      this.input.request,
      this.input.command.secretFields ?? [],
      this.referenceKeys,
    );
    return this.fingerprints;
  }

  get request(): RequestFingerprint {
    return this.fingerprint().request;
  }

  /** The request's hash under each older reference key: a claim recorded under one of them is this same request. */
  get alsoHashes(): readonly string[] {
    return this.fingerprint().alsoHashes;
  }

  /** The text the request's fingerprint hashes, where its body holds no secret field (`Fingerprints.plainText`). */
  get plainRequestText(): string | undefined {
    return this.fingerprint().plainText;
  }

  /** The key's stream (`keyStreamName`), named when a protocol first reads or appends to it. */
  get keyStream(): string {
    this.namedKeyStream ??= keyStreamName(this.input.scope, this.input.key);
    return this.namedKeyStream;
  }

  /** Notes where this execution's latest append to the key stream landed (after a completion: where it completed). */
  wroteKeyLog(result: AppendResult): void {
    this.keyLogPosition = result.position;
    this.wrote([result]);
  }

  /** Notes where an append of this execution landed. */
  wrote(results: readonly AppendResult[]): void {
    for (const { position } of results) {
      if (this.position === undefined || comparePositions(position, this.position) > 0)
        this.position = position;
    }
  }

  /** An outcome with this execution's write position, when it wrote. */
  withPosition<Outcome extends ExecuteOutcome>(outcome: Outcome): Outcome {
    return this.position === undefined ? outcome : { ...outcome, position: this.position };
  }

  context(requestedAt: number): CommandContext {
    const { scope, key } = this.input;
    return {
      scope,
      key,
      command: this.input.command.data,
      requestedAt: new Date(requestedAt),
      ids: { next: (purpose, index = 0) => this.derivedId(purpose, index) },
    };
  }

  /** The IDs its handler derived, by index and purpose: a handler asks for the same ID in its decision and answer. */
  private readonly derivedIds = new Map<string, string>();

  /** `deriveId` for this execution's key, each ID computed once (a number never holds the `:` that ends it). */
  private derivedId(purpose: string, index: number): string {
    const name = `${index}:${purpose}`;
    let id = this.derivedIds.get(name);
    if (id === undefined) {
      id = deriveId(this.input.scope, this.input.key, purpose, index);
      this.derivedIds.set(name, id);
    }
    return id;
  }

  /** Key-log events get IDs from the key, the holder and the revision they are appended at (see `keyLogEventIds`). */
  keyEvents(events: readonly KeyLogEvent[], holder: string, at: ExpectedRevision): EventToAppend[] {
    return events.map((event, index) => ({
      id: deriveId(this.input.scope, this.input.key, `key-log:${holder}:${String(at)}`, index),
      type: event.type,
      data: event.data,
    }));
  }
}

/** A request's fingerprint, its hashes under older reference keys, and the text hashed when it holds no secret. */
interface Fingerprints {
  readonly request: RequestFingerprint;
  readonly alsoHashes: readonly string[];
  /**
   * The canonical text the fingerprint hashes (`fingerprintText`), where the body holds no secret field: what
   * `CompletedKeys` may keep to compare a retry with. Undefined for a recorded fingerprint and wherever a secret is.
   */
  readonly plainText: string | undefined;
}

/**
 * The request's fingerprint, as a claim recorded it or computed from its parts; a body field named as a secret field
 * is hashed as its keyed reference, never as the secret (a hash of a card token could be brute-forced), once under each
 * reference key, the current one first.
 */
const requestFingerprints = (
  request: CommandRequest | RequestFingerprint,
  secretFields: readonly string[],
  referenceKeys: readonly Uint8Array[],
): Fingerprints => {
  const method = request.method.toUpperCase();
  if ('requestHash' in request) {
    return {
      request: { method, route: request.route, requestHash: request.requestHash },
      alsoHashes: [],
      plainText: undefined,
    };
  }
  const { route, params } = request;
  const secretInBody =
    typeof request.body === 'object' &&
    request.body !== null &&
    secretFields.some((field) => typeof (request.body as Record<string, unknown>)[field] === 'string');
  if (!secretInBody || referenceKeys.length === 0) {
    const text = fingerprintText({ method, route, params, body: request.body });
    return {
      request: { method, route, requestHash: fingerprintOfText(text) },
      alsoHashes: [],
      plainText: secretInBody ? undefined : text,
    };
  }
  const [current, ...older] = referenceKeys.map((key) =>
    fingerprintOfText(
      fingerprintText({
        method,
        route,
        params,
        body: withSecretsReferenced(request.body, secretFields, key),
      }),
    ),
  );
  return {
    request: { method, route, requestHash: current as string },
    alsoHashes: older,
    plainText: undefined,
  };
};
