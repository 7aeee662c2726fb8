import { commandClass } from '../../src/cli/common/oclif-command.js';
import { wsListSpec } from '../../src/cli/ws/specs.js';

export default commandClass(wsListSpec);
