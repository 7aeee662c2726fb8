import { commandClass } from '../../src/cli/common/oclif-command.js';
import { wsTreeSpec } from '../../src/cli/ws/specs.js';

export default commandClass(wsTreeSpec);
