import { commandClass } from '../../src/cli/common/oclif-command.js';
import { wsCreateContextSpec } from '../../src/cli/ws/specs.js';

export default commandClass(wsCreateContextSpec);
