import { fingerprint } from '@once/canonical-json';
import { comparePositions } from '@once/event-store';
import type { AppendResult, EventToAppend, ExpectedRevision, GlobalPosition } from '@once/event-store';
import { withSecretsReferenced } from '../commands/secret-reference.js';
import { deriveId } from '../ids/index.js';
import { keyStreamName } from '../key-log/index.js';
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
   * The key as `CompletedKeys` knows it: its scope and the key, unambiguous, unhashed. An arrival answered from memory
   * never names its key stream, whose SHA-256 costs more than the rest of that answer.
   */
  readonly scopedKey: string;
  readonly request: RequestFingerprint;
  /** The request's hash under each older reference key: a claim recorded under one of them is this same request. */
  readonly alsoHashes: readonly string[];
  position: GlobalPosition | undefined;
  keyLogPosition: GlobalPosition | undefined;

  private namedKeyStream: string | undefined;

  constructor(
    readonly input: ExecuteInput,
    /** The reference keys secret fields are hashed under in the fingerprint, the current one first. */
    referenceKeys: readonly Uint8Array[] = [],
    /** Where its key-log reads and appends, effects and steps are traced (nowhere by default). */
    readonly trace: CommandTrace = untraced,
  ) {
    const [request, ...older] = requestFingerprints(
      input.request,
      input.command.secretFields ?? [],
      referenceKeys,
    );
    this.request = request as RequestFingerprint;
    this.alsoHashes = older.map((fingerprint) => fingerprint.requestHash);
    this.scopedKey = JSON.stringify([input.scope.tenantId, input.scope.actorId, input.key]);
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

/**
 * The request's fingerprint, as a claim recorded it or computed from its parts; a body field named as a secret field
 * is hashed as its keyed reference, never as the secret (a hash of a card token could be brute-forced), once under each
 * reference key, the current one first.
 */
const requestFingerprints = (
  request: CommandRequest | RequestFingerprint,
  secretFields: readonly string[],
  referenceKeys: readonly Uint8Array[],
): readonly RequestFingerprint[] => {
  const method = request.method.toUpperCase();
  if ('requestHash' in request) return [{ method, route: request.route, requestHash: request.requestHash }];
  const { route, params } = request;
  const hashed = (body: unknown): RequestFingerprint => ({
    method,
    route,
    requestHash: fingerprint({ method, route, params, body }),
  });
  const secretInBody =
    typeof request.body === 'object' &&
    request.body !== null &&
    secretFields.some((field) => typeof (request.body as Record<string, unknown>)[field] === 'string');
  if (!secretInBody || referenceKeys.length === 0) return [hashed(request.body)];
  return referenceKeys.map((key) => hashed(withSecretsReferenced(request.body, secretFields, key)));
};
