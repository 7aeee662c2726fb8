import { commandClass } from '../../src/cli/common/oclif-command.js';
import { wsCreateSpec } from '../../src/cli/ws/specs.js';

export default commandClass(wsCreateSpec);
