import { createRequire } from 'node:module';
import type * as GrpcJs from '@grpc/grpc-js';
import type * as CodePb from '@eventstore/db-client/generated/code_pb.js';
import type * as OperationsGrpc from '@eventstore/db-client/generated/operations_grpc_pb.js';
import type * as OperationsPb from '@eventstore/db-client/generated/operations_pb.js';
import type * as ServerFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import type * as ServerFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type * as SharedPb from '@eventstore/db-client/generated/shared_pb.js';
import type * as StatusPb from '@eventstore/db-client/generated/status_pb.js';
import type * as StreamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import type * as StreamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as AnyPb from 'google-protobuf/google/protobuf/any_pb.js';
import type * as EmptyPb from 'google-protobuf/google/protobuf/empty_pb.js';

// The service definitions and messages generated from EventStoreDB's protos, as `@eventstore/db-client` ships them.
// Loaded with `require` so the server builds exactly the classes the client's serializers check against.
const require = createRequire(import.meta.url);

export const grpc = require('@grpc/grpc-js') as typeof GrpcJs;
export const streamsGrpc =
  require('@eventstore/db-client/generated/streams_grpc_pb.js') as typeof StreamsGrpc;
export const streamsPb = require('@eventstore/db-client/generated/streams_pb.js') as typeof StreamsPb;
export const sharedPb = require('@eventstore/db-client/generated/shared_pb.js') as typeof SharedPb;
export const statusPb = require('@eventstore/db-client/generated/status_pb.js') as typeof StatusPb;
export const codePb = require('@eventstore/db-client/generated/code_pb.js') as typeof CodePb;
export const serverFeaturesGrpc =
  require('@eventstore/db-client/generated/serverfeatures_grpc_pb.js') as typeof ServerFeaturesGrpc;
export const serverFeaturesPb =
  require('@eventstore/db-client/generated/serverfeatures_pb.js') as typeof ServerFeaturesPb;
export const operationsGrpc =
  require('@eventstore/db-client/generated/operations_grpc_pb.js') as typeof OperationsGrpc;
export const operationsPb =
  require('@eventstore/db-client/generated/operations_pb.js') as typeof OperationsPb;
export const anyPb = require('google-protobuf/google/protobuf/any_pb.js') as typeof AnyPb;
export const emptyPb = require('google-protobuf/google/protobuf/empty_pb.js') as typeof EmptyPb;
