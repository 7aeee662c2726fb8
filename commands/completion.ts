import { commandClass } from '../src/cli/common/oclif-command.js';
import { completionSpec } from '../src/cli/completion/spec.js';

export default commandClass(completionSpec);
