import { commandClass } from '../src/cli/common/oclif-command.js';
import { logsSpec } from '../src/cli/server/specs.js';

export default commandClass(logsSpec);
