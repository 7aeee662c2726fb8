/**
 * The server's Kubernetes protobuf codec: the shared packages (meta, the review APIs, CRDs, Scale) and every built-in
 * group's. Its own module so that only what speaks protobuf loads protobufjs.
 */
import { KubeProtobuf, sharedProtobufPackages } from '../machinery/protobuf/index.js';
import { builtinGroups } from './groups.js';

export const kubeProtobuf = new KubeProtobuf([...sharedProtobufPackages, ...builtinGroups.flatMap((group) => group.protobuf)]);
