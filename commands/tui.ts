import { commandClass } from '../src/cli/common/oclif-command.js';
import { tuiSpec } from '../src/cli/ws/specs.js';

export default commandClass(tuiSpec);
