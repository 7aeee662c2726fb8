export {
  decodeKubeProtobuf,
  supportedProtobufKinds,
  ProtobufDecodeError,
  KUBE_PROTOBUF_CONTENT_TYPE,
  type DecodedKubeObject,
  type ProtobufDecodeFailure,
} from './decode.js';
export {
  encodeKubeProtobuf,
  encodeKubeProtobufList,
  protobufWatchFrame,
  hasProtobufForm,
  protobufMessageOf,
  ProtobufEncodeError,
} from './encode.js';
