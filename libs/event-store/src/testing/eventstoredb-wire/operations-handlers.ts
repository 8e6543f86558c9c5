import { randomUUID } from 'node:crypto';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { ScavengeResp, StartScavengeReq } from '@eventstore/db-client/generated/operations_pb.js';
import type { WireLog } from './wire-log.js';
import { operationsPb } from './wire-protocol.js';
import { toServiceError } from './wire-errors.js';

/**
 * `Operations.StartScavenge`: starts a scavenge and answers its id with `Started`, as EventStoreDB does. The server
 * scavenges in the background; here the log's scavenge (every event `$maxAge` or `$tb` expired leaves the log,
 * `$all` included) has run by the time the answer is sent, so there is never one in progress to answer `InProgress`.
 */
export const startScavengeHandler =
  (log: WireLog) =>
  (call: ServerUnaryCall<StartScavengeReq, ScavengeResp>, callback: sendUnaryData<ScavengeResp>): void => {
    const threads = call.request.getOptions()?.getThreadCount() ?? 1;
    if (threads < 1) {
      callback({ ...toServiceError(new RangeError('thread_count must be at least 1')) });
      return;
    }
    log.scavenge().then(
      () =>
        callback(
          null,
          new operationsPb.ScavengeResp()
            .setScavengeId(randomUUID())
            .setScavengeResult(operationsPb.ScavengeResp.ScavengeResult.STARTED),
        ),
      (error: unknown) => callback(toServiceError(error)),
    );
  };
