import { commandClass } from '../src/cli/common/oclif-command.js';
import { bindSpec } from '../src/cli/apis/specs.js';

export default commandClass(bindSpec);
