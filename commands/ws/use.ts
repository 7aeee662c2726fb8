import { commandClass } from '../../src/cli/common/oclif-command.js';
import { wsUseSpec } from '../../src/cli/ws/specs.js';

export default commandClass(wsUseSpec);
