import { commandClass } from '../src/cli/common/oclif-command.js';
import { kubeconfigSpec } from '../src/cli/kubeconfig/spec.js';

export default commandClass(kubeconfigSpec);
