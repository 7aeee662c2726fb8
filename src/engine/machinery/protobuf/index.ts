export { KubeProtobuf } from './codec.js';
export {
  ProtobufDecodeError,
  KUBE_PROTOBUF_CONTENT_TYPE,
  type DecodedKubeObject,
  type ProtobufDecodeFailure,
} from './decode.js';
export { sharedProtobufPackages } from './defs/index.js';
export { protobufWatchFrame, ProtobufEncodeError } from './encode.js';
