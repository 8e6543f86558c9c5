import { createRequire } from 'node:module';

// The service definitions and messages generated from EventStoreDB's protos, as `@eventstore/db-client` ships them.
// Loaded with `require` so the server builds exactly the classes the client's serializers check against.
const require = createRequire(import.meta.url);

export const grpc = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
export const streamsGrpc =
  require('@eventstore/db-client/generated/streams_grpc_pb.js') as typeof import('@eventstore/db-client/generated/streams_grpc_pb.js');
export const streamsPb =
  require('@eventstore/db-client/generated/streams_pb.js') as typeof import('@eventstore/db-client/generated/streams_pb.js');
export const sharedPb =
  require('@eventstore/db-client/generated/shared_pb.js') as typeof import('@eventstore/db-client/generated/shared_pb.js');
export const statusPb =
  require('@eventstore/db-client/generated/status_pb.js') as typeof import('@eventstore/db-client/generated/status_pb.js');
export const codePb =
  require('@eventstore/db-client/generated/code_pb.js') as typeof import('@eventstore/db-client/generated/code_pb.js');
export const serverFeaturesGrpc =
  require('@eventstore/db-client/generated/serverfeatures_grpc_pb.js') as typeof import('@eventstore/db-client/generated/serverfeatures_grpc_pb.js');
export const serverFeaturesPb =
  require('@eventstore/db-client/generated/serverfeatures_pb.js') as typeof import('@eventstore/db-client/generated/serverfeatures_pb.js');
export const anyPb =
  require('google-protobuf/google/protobuf/any_pb.js') as typeof import('google-protobuf/google/protobuf/any_pb.js');
export const emptyPb =
  require('google-protobuf/google/protobuf/empty_pb.js') as typeof import('google-protobuf/google/protobuf/empty_pb.js');
