import { commandClass } from '../../src/cli/common/oclif-command.js';
import { testenvDeleteSpec } from '../../src/cli/testenv/spec.js';

export default commandClass(testenvDeleteSpec);
