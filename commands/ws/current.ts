import { commandClass } from '../../src/cli/common/oclif-command.js';
import { wsCurrentSpec } from '../../src/cli/ws/specs.js';

export default commandClass(wsCurrentSpec);
