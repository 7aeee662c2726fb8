import { commandClass } from '../src/cli/common/oclif-command.js';
import { stopSpec } from '../src/cli/server/specs.js';

export default commandClass(stopSpec);
