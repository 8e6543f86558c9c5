import type { ServiceError } from '@grpc/grpc-js';
import { InvalidArgument } from './wire-messages.js';
import { grpc } from './wire-protocol.js';

/**
 * The gRPC status for a failure: a malformed request (or one the store's validation refuses: an id that is not a
 * UUID, a negative revision) is INVALID_ARGUMENT, anything else INTERNAL.
 */
export const toServiceError = (error: unknown): Partial<ServiceError> => {
  const invalid =
    error instanceof InvalidArgument || error instanceof TypeError || error instanceof RangeError;
  return {
    code: invalid ? grpc.status.INVALID_ARGUMENT : grpc.status.INTERNAL,
    details: error instanceof Error ? error.message : String(error),
    metadata: new grpc.Metadata(),
  };
};
