import { commandClass } from '../../src/cli/common/oclif-command.js';
import { wsSpec } from '../../src/cli/ws/specs.js';

export default commandClass(wsSpec);
