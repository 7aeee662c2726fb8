import { commandClass } from '../src/cli/common/oclif-command.js';
import { statusSpec } from '../src/cli/server/specs.js';

export default commandClass(statusSpec);
