import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb.js';
import { appendHandler, batchAppendHandler } from './append-handlers.js';
import { readHandler } from './read-handlers.js';
import type { WireLogOptions } from './wire-log.js';
import { createWireLog } from './wire-log.js';
import { startScavengeHandler } from './operations-handlers.js';
import { grpc, operationsGrpc, serverFeaturesGrpc, serverFeaturesPb, streamsGrpc } from './wire-protocol.js';

/** A running test server. */
export interface WireEventStoreDb {
  /** How the client reaches it: `esdb://127.0.0.1:<port>?tls=false` (without `?tls=false` when serving TLS). */
  readonly connectionString: string;
  /** Ends every call (subscriptions included) and closes the socket. */
  stop(): Promise<void>;
}

export interface WireEventStoreDbOptions extends WireLogOptions {
  /** The port to listen on, 127.0.0.1 only. Default 0: any free port. */
  readonly port?: number;
  /** A PEM key and certificate to serve TLS with, as EventStoreDB's secure nodes do. Default: no TLS. */
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
}

const streamsService = 'event_store.client.streams.Streams';
const implemented = ['Read', 'Append', 'BatchAppend'];

/**
 * `ServerFeatures.GetSupportedMethods`, which the client asks once per connection: the methods served here, so the
 * client appends through `BatchAppend` as it does against EventStoreDB 21.10 and later.
 */
const supportedMethods = (
  _call: ServerUnaryCall<unknown, SupportedMethods>,
  callback: sendUnaryData<SupportedMethods>,
) => {
  const answer = new serverFeaturesPb.SupportedMethods().setEventStoreServerVersion('once-wire-test-server');
  for (const method of implemented)
    answer.addMethods(
      new serverFeaturesPb.SupportedMethod().setServiceName(streamsService).setMethodName(method),
    );
  callback(null, answer);
};

/**
 * Starts a wire-level EventStoreDB **for tests only**: a gRPC server speaking EventStoreDB's client protocol (the
 * service definitions shipped with `@eventstore/db-client`) over the in-memory store's EventStoreDB rules, so the
 * real client runs against it over a socket. It keeps everything in memory and is never a store for users; see
 * README.md in this folder for what it implements and what it does not.
 *
 * @param options the port (default: any free one) and the clock
 * @example
 * const server = await startWireEventStoreDb();
 * const client = EventStoreDBClient.connectionString(server.connectionString);
 * // …
 * await server.stop();
 */
export const startWireEventStoreDb = async (
  options: WireEventStoreDbOptions = {},
): Promise<WireEventStoreDb> => {
  const log = createWireLog(options);
  const server = new grpc.Server();
  server.addService(streamsGrpc.StreamsService, {
    read: readHandler(log),
    append: appendHandler(log),
    batchAppend: batchAppendHandler(log),
  });
  server.addService(serverFeaturesGrpc.ServerFeaturesService, { getSupportedMethods: supportedMethods });
  // Only StartScavenge; the service's other calls answer UNIMPLEMENTED.
  server.addService(operationsGrpc.OperationsService, { startScavenge: startScavengeHandler(log) });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `127.0.0.1:${options.port ?? 0}`,
      options.tls
        ? grpc.ServerCredentials.createSsl(null, [
            { private_key: options.tls.key, cert_chain: options.tls.cert },
          ])
        : grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    );
  });
  return {
    connectionString: `esdb://127.0.0.1:${port}${options.tls ? '' : '?tls=false'}`,
    stop: async () => {
      server.forceShutdown();
      await log.close();
    },
  };
};
