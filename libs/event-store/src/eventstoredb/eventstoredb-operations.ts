import { createRequire } from 'node:module';
import { EventStoreDBClient, convertToCommandError } from '@eventstore/db-client';
import type * as OperationsGrpc from '@eventstore/db-client/generated/operations_grpc_pb.js';
import type * as OperationsPb from '@eventstore/db-client/generated/operations_pb.js';

// The operations service as the client ships it (generated from EventStoreDB's operations.proto). Loaded with
// `require` so the messages are the classes the client's gRPC layer serializes.
const require = createRequire(import.meta.url);
const operationsGrpc =
  require('@eventstore/db-client/generated/operations_grpc_pb.js') as typeof OperationsGrpc;
const operationsPb = require('@eventstore/db-client/generated/operations_pb.js') as typeof OperationsPb;

/** What the server answered a request to scavenge: its scavenge's id, and whether it started now or was running. */
export interface ServerScavenge {
  readonly scavengeId: string;
  readonly result: 'started' | 'in-progress' | 'stopped';
}

const resultOf = (result: OperationsPb.ScavengeResp.ScavengeResult): ServerScavenge['result'] => {
  switch (result) {
    case operationsPb.ScavengeResp.ScavengeResult.STARTED:
      return 'started';
    case operationsPb.ScavengeResp.ScavengeResult.INPROGRESS:
      return 'in-progress';
    case operationsPb.ScavengeResp.ScavengeResult.STOPPED:
      return 'stopped';
    default:
      throw new RangeError(`unknown scavenge result ${String(result)}`);
  }
};

/**
 * The 6.x client's own command machinery (its connection, TLS, discovery, reconnection to the leader, default
 * credentials and deadline), reached for a call the 6.x client does not wrap: `Operations.StartScavenge`, which the
 * .NET client calls `StartScavengeAsync`. Never instantiated: it only names the client's protected members.
 */
abstract class OperationsCalls extends EventStoreDBClient {
  static startScavenge(client: EventStoreDBClient, threadCount: number): Promise<ServerScavenge> {
    const calls = client as OperationsCalls;
    const request = new operationsPb.StartScavengeReq().setOptions(
      new operationsPb.StartScavengeReq.Options().setThreadCount(threadCount).setStartFromChunk(0),
    );
    const [metadata, options] = calls.callArguments({});
    return calls.execute(
      operationsGrpc.OperationsClient,
      'startScavenge',
      (operations) =>
        new Promise<ServerScavenge>((resolve, reject) => {
          operations.startScavenge(request, metadata, options, (error, response) => {
            if (error) return reject(convertToCommandError(error));
            return resolve({
              scavengeId: response.getScavengeId(),
              result: resultOf(response.getScavengeResult()),
            });
          });
        }),
    );
  }
}

/**
 * Asks the EventStoreDB node the client is connected to for a scavenge (`Operations.StartScavenge`): the server then
 * removes, in the background, the events that `$maxAge`, `$tb` or deletion expired, in its completed chunks. The
 * client's credentials need the `$ops` or `$admins` role; a secure server answers `AccessDeniedError` otherwise.
 *
 * @param client a connected client
 * @param options the threads the server scavenges with (default 1)
 * @example
 * const { scavengeId } = await startServerScavenge(EventStoreDBClient.connectionString('esdb://localhost:2113?tls=false'));
 */
export const startServerScavenge = (
  client: EventStoreDBClient,
  options: { readonly threadCount?: number } = {},
): Promise<ServerScavenge> => OperationsCalls.startScavenge(client, options.threadCount ?? 1);
